"""Enter tricks on a 360 px phone: Princess powers and the haggle tapped in, in headless Chromium.
Screenshots go to tests/artifacts/ (trick-powers-*.png)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from .conftest import no_horizontal_scroll
from .test_browser_tricks import NAMES, tap

pytestmark = pytest.mark.browser

PRINCESSES = ["snow-white", "mulan", "alice", "ice-princess"]


def create_game(page: Page, base: str, princesses: dict[int, str] | None = None,
                card: str = "p") -> None:
    """A Deluxe game, Ana leading round 1 (``card``); by default Ana Snow White, Ben Mulan, Cy
    Alice, Di the Ice Princess, and round 1 is Haggle with the Hag."""
    page.goto(f"{base}/rebel-princess/new")
    for seat, name in enumerate(NAMES):
        page.locator(f"input[name='names-{seat}']").fill(name)
    page.locator("#first_leader").select_option("0")
    page.locator("select[name='cards-0']").select_option(card)
    page.locator("details:has(#princess-0) > summary").click()
    chosen = dict(enumerate(PRINCESSES)) if princesses is None else princesses
    for seat, slug in chosen.items():
        page.locator(f"#princess-{seat}").select_option(slug)
    page.locator("[data-action=create]").click()
    expect(page.locator("#this-round")).to_be_visible()


def changed(page: Page, action) -> None:
    """Run ``action`` and wait until the round's version went up (something was stored)."""
    entry = page.locator("#trick-entry")
    version = int(entry.get_attribute("data-version"))
    action()
    expect(entry).to_have_attribute("data-version", str(version + 1))


def shot(page: Page, artifacts, name: str, locator=None) -> None:
    assert no_horizontal_scroll(page), name
    if locator is not None:
        locator.scroll_into_view_if_needed()
    page.screenshot(path=str(artifacts / f"trick-powers-{name}.png"), full_page=False)


def test_powers_and_haggle_on_a_small_phone(page: Page, live_server: str, artifacts):
    page.set_viewport_size({"width": 360, "height": 780})
    create_game(page, live_server)
    page.locator("[data-action=enter-tricks]").click()
    entry = page.locator("#trick-entry")
    expect(entry).to_have_attribute("data-turn", "0")

    # The Princesses' powers before a trick: the Ice Princess picks whose card, then the card.
    page.locator("[data-powers] summary").click()
    shot(page, artifacts, "panel", page.locator("[data-powers]"))

    # Trick 1: Ana leads (Snow White's switch is on the grid on her turn), Cy's 7 wins...
    expect(page.locator("label.zero")).to_be_visible()
    for card in ("Q1", "Q5", "Q7", "Q2"):
        tap(page, card)
    expect(page.locator("[data-trick-winner='1']")).to_have_attribute("data-winner", "2")
    after = page.locator("[data-after-trick='1']")
    expect(after.locator("[data-action=power-mulan]")).to_be_visible()
    expect(after.locator("[data-action=power-alice]")).to_be_visible()
    expect(after.locator("[data-haggle-seat='2']")).to_be_visible()
    shot(page, artifacts, "after-trick", after)

    # ... until Mulan swaps her 5 for the 9: the deck shows only the Queens still in a hand.
    after.locator("[data-action=power-mulan]").click()
    expect(page.locator("[data-picking=mulan]")).to_be_visible()
    expect(page.locator(".suitrow")).to_have_count(1)
    shot(page, artifacts, "mulan-pick", page.locator("[data-picking=mulan]"))
    changed(page, lambda: page.locator("[data-play='Q9']").click())
    expect(page.locator("[data-trick-winner='1']")).to_have_attribute("data-winner", "1")

    # Ben, the new winner, haggles: takes Cy's 7, gives a Prince from his hand.
    haggle = page.locator("[data-haggle-seat='1']")
    haggle.locator("[data-take='Q7']").click()
    expect(page.locator("[data-picking=haggle]")).to_have_attribute("data-slot", "give")
    shot(page, artifacts, "haggle-give", page.locator("[data-picking=haggle]"))
    changed(page, lambda: page.locator("[data-play='P3']").click())
    expect(page.locator("[data-trick-winner='1'] [data-power=haggle]")).to_be_visible()
    expect(page.locator("[data-play='Q7']")).to_be_enabled()  # back in Ben's hand

    # Trick 2: Di's Ice Princess freezes Cy's Fairy 4 before Ben leads.
    page.locator("[data-powers] summary").click()
    page.locator("[data-powers] [data-power-seat='3'][data-target='2']").click()
    expect(page.locator("[data-picking=ice-princess]")).to_be_visible()
    changed(page, lambda: page.locator("[data-play='F4']").click())
    tap(page, "F1")
    expect(page.locator("[data-forced='F4']")).to_be_visible()
    tap(page, "F4")
    tap(page, "F2")
    # Ana plays her 3 as a zero: the switch, then the card.
    page.locator("label.zero input").check()
    shot(page, artifacts, "zero", page.locator("label.zero"))
    changed(page, lambda: page.locator("[data-play='F3']").click())
    expect(page.locator("[data-trick-winner='2']")).to_have_attribute("data-winner", "2")

    # Cy (Alice) won without the Frog: she deals the trick back, one tap per player.
    page.locator("[data-action=power-alice]").click()
    for card in ("F1", "F2"):
        expect(page.locator("[data-picking=alice]")).to_be_visible()
        page.locator(f"[data-play='{card}']").click()
        page.wait_for_selector(f".picking [data-card='{card}']")
    shot(page, artifacts, "alice-pick", page.locator("[data-picking=alice]"))
    changed(page, lambda: page.locator("[data-play='F3']").click())
    expect(entry).to_have_attribute("data-turn", "2")
    expect(page.locator(".trick-now")).to_contain_text("3")
    expect(page.locator("[data-play='F4']")).to_be_enabled()
    page.evaluate("window.scrollTo(0, 0)")
    shot(page, artifacts, "replay")
    expect(page.locator("[role=alert][data-refused]")).to_have_count(0)


@pytest.mark.parametrize("size", [{"width": 390, "height": 844}, {"width": 360, "height": 740}],
                         ids=["390", "360"])
def test_a_blocked_power_is_not_offered(page: Page, live_server: str, artifacts, size):
    """Ben's Rapunzel asks Ana for a Prince: Di's Little Mermaid can't act on Ana in that trick,
    so the panel no longer offers her; Cy's Cinderella is still there."""
    page.set_viewport_size(size)
    page.goto(f"{live_server}/rebel-princess/new")
    for seat, name in enumerate(NAMES):
        page.locator(f"input[name='names-{seat}']").fill(name)
    page.locator("#first_leader").select_option("0")
    page.locator("details:has(#princess-0) > summary").click()
    for seat, slug in enumerate([None, "rapunzel", "cinderella", "little-mermaid"]):
        if slug:
            page.locator(f"#princess-{seat}").select_option(slug)
    page.locator("[data-action=create]").click()
    page.locator("[data-action=enter-tricks]").click()
    panel = page.locator("[data-powers]")
    panel.locator("summary").click()
    expect(panel.locator("[data-power-seat='3']")).to_have_count(1)
    changed(page, lambda: panel.locator("[data-power-seat='1']").click())
    page.locator("[data-powers] summary").click()
    expect(page.locator("[data-powers] [data-power-seat='3']")).to_have_count(0)
    expect(page.locator("[data-powers] [data-power-seat='2']")).to_have_count(1)
    shot(page, artifacts, f"blocked-{size['width']}", page.locator("[data-powers]"))
