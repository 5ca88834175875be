"""The trick screen on issue 37, in headless Chromium: Sleeping Beauty's form (each seat's card,
then the card each seat gets back) and Alice dealing back the LAST trick (neither rulebook limits
her there: the round gets its replay), at 390x844 and 360x740, light and dark, English and
French. Screenshots go to tests/artifacts/ (trick-known-in-*.png)."""

from __future__ import annotations

import itertools

import pytest
from playwright.sync_api import Browser, Page, expect

from .conftest import LANGUAGES, PHONES, no_horizontal_scroll
from .test_browser_trick_powers import create_game
from .test_browser_tricks import tap

pytestmark = pytest.mark.browser

#: Forty cards, trick by trick; the last trick (P7 P8 P9 P10, led by Di) goes to Cy.
DECK = [f"{suit}{rank}" for suit in "QFAP" for rank in range(1, 11)]
ALICE, SLEEPING_BEAUTY = 2, 0


def _contexts(browser: Browser, browser_context_args):
    for size, scheme, lang in itertools.product(PHONES, ("light", "dark"), LANGUAGES):
        context = browser.new_context(**{**browser_context_args, "viewport": size},
                                      color_scheme=scheme, locale=LANGUAGES[lang])
        yield f"{size['width']}-{scheme}-{lang}", lang, context


def _shoot(browser, browser_context_args, artifacts, address, name, selector, words):
    for label, lang, context in _contexts(browser, browser_context_args):
        page = context.new_page()
        page.goto(address)
        panel = page.locator(selector)
        expect(panel).to_be_visible()
        expect(panel).to_contain_text(words[lang])
        assert no_horizontal_scroll(page), label
        panel.scroll_into_view_if_needed()
        page.screenshot(path=str(artifacts / f"trick-known-in-{name}-{label}.png"))
        context.close()


def test_sleeping_beauty_form_and_alice_after_the_last_trick(page: Page, browser: Browser,
                                                             browser_context_args, live_server,
                                                             artifacts):
    create_game(page, live_server, {SLEEPING_BEAUTY: "sleeping-beauty", ALICE: "alice"},
                card="a")
    page.locator("[data-action=enter-tricks]").click()
    entry = page.locator("#trick-entry")
    expect(entry).to_have_attribute("data-turn", "0")
    tricks = page.url

    # Sleeping Beauty's form: the first tap is the card Ana hands her.
    _shoot(browser, browser_context_args, artifacts,
           f"{tricks}?pick=sleeping-beauty&seat={SLEEPING_BEAUTY}", "sleeping-beauty",
           "[data-picking=sleeping-beauty]",
           {"en": "Sleeping Beauty", "fr": "Belle au bois dormant"})

    for card in DECK:
        tap(page, card)
    expect(entry).to_have_attribute("data-over", "1")
    after = page.locator("[data-after-trick] [data-action=power-alice]")
    expect(after).to_be_visible()
    expect(page.locator("[data-action=confirm-scores]")).to_be_visible()
    _shoot(browser, browser_context_args, artifacts, tricks, "alice-last", "[data-after-trick]",
           {"en": "Alice", "fr": "Alice"})

    # Cy deals the last trick back (each seat its own card), then it is played again.
    after.click()
    for card in ("P8", "P9", "P10"):  # Ana, Ben, Cy; Di's P7 goes by itself
        expect(page.locator("[data-picking=alice]")).to_be_visible()
        page.locator(f"[data-play='{card}']").click()
        if card != "P10":
            page.wait_for_selector(f".picking [data-card='{card}']")
    expect(entry).to_have_attribute("data-over", "0")
    expect(entry).to_have_attribute("data-turn", str(ALICE))
    for card in ("P10", "P7", "P8", "P9"):
        tap(page, card)
    expect(entry).to_have_attribute("data-over", "1")
    expect(page.locator("[role=alert][data-refused]")).to_have_count(0)


def _pick(page: Page, card: str) -> None:
    """One tap while cards are being picked (nothing stored until the last)."""
    page.locator(f"[data-play='{card}']").click()
    page.wait_for_selector(f".picking [data-card='{card}']")


def test_musical_chairs_passes_and_sleeping_beauty_parts(page: Page, browser: Browser,
                                                         browser_context_args, live_server,
                                                         artifacts):
    """Musical Chairs (k): the passes after trick 1 tapped seat by seat (Ben passes Q3 to Ana),
    then Ana plays F4 on the Queens: the revoke shows at once. The passes after trick 2 not
    seen. Sleeping Beauty's new cards alone, or what each gave alone ("keep these")."""
    create_game(page, live_server, {SLEEPING_BEAUTY: "sleeping-beauty"}, card="k")
    page.locator("[data-action=enter-tricks]").click()
    entry = page.locator("#trick-entry")
    tricks = page.url
    for card in ("A2", "A3", "A9", "A4"):  # Cy wins
        tap(page, card)
    expect(page.locator("[data-chairs-after='1']")).to_be_visible()
    _shoot(browser, browser_context_args, artifacts, tricks, "chairs", "[data-chairs-after]",
           {"en": "Musical Chairs", "fr": "Chaises musicales"})
    _shoot(browser, browser_context_args, artifacts, f"{tricks}?pick=chairs&cards=F10",
           "chairs-pick", "[data-picking=chairs]", {"en": "passed to", "fr": "a passée à"})

    page.locator("[data-action=chairs]").click()
    for card in ("F10", "Q3", "P2"):  # Ana to Di, Ben to Ana, Cy to Ben
        expect(page.locator("[data-picking=chairs]")).to_be_visible()
        _pick(page, card)
    version = int(entry.get_attribute("data-version"))
    page.locator("[data-play='P3']").click()  # Di to Cy: stored
    expect(entry).to_have_attribute("data-version", str(version + 1))
    expect(page.locator("[data-chairs-after]")).to_have_count(0)
    expect(page.locator("[role=alert][data-refused]")).to_have_count(0)
    for card in ("Q5", "Q7", "F4"):  # Cy, Di, Ana
        tap(page, card)
    expect(page.locator("[data-violation=must-follow-suit][data-seat='0']")).to_be_visible()
    _shoot(browser, browser_context_args, artifacts, tricks, "chairs-revoke",
           "[data-violation=must-follow-suit]",
           {"en": "without following suit", "fr": "sans fournir"})
    page.locator("[data-action=accept]").click()
    expect(page.locator("[data-violation]")).to_have_count(0)
    tap(page, "Q9")  # Ben wins
    version = int(entry.get_attribute("data-version"))
    page.locator("[data-action=no-chairs]").click()
    expect(entry).to_have_attribute("data-version", str(version + 1))
    expect(page.locator("[data-power=chairs]").first).to_be_visible()

    # Sleeping Beauty for trick 3: only the new cards seen.
    _shoot(browser, browser_context_args, artifacts,
           f"{tricks}?pick=sleeping-beauty&seat={SLEEPING_BEAUTY}", "sleeping-beauty-parts",
           "[data-picking=sleeping-beauty]",
           {"en": "Only the new cards", "fr": "Seules les nouvelles cartes"})
    _shoot(browser, browser_context_args, artifacts,
           f"{tricks}?pick=sleeping-beauty&seat={SLEEPING_BEAUTY}&cards=F1.F2.F3.F5",
           "sleeping-beauty-keep", "[data-picking=sleeping-beauty]",
           {"en": "keep these", "fr": "garder celles-ci"})
    page.goto(f"{tricks}?pick=sleeping-beauty&seat={SLEEPING_BEAUTY}")
    page.locator("[data-action=pick-more]").click()
    expect(page.locator("[data-picking=sleeping-beauty][data-slot=gets]")).to_be_visible()
    for card in ("F1", "F2", "F3"):
        _pick(page, card)
    version = int(entry.get_attribute("data-version"))
    page.locator("[data-play='F5']").click()
    expect(entry).to_have_attribute("data-version", str(version + 1))
    expect(page.locator("[role=alert][data-refused]")).to_have_count(0)
    expect(page.locator("#trick-entry [data-power=sleeping-beauty]").first).to_be_visible()
