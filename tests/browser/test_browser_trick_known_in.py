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
