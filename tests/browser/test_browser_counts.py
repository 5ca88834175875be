"""Entry by counts and by cards on a phone (issue 15): a 6-player round at 390x844 and 360x740,
the Save button in sight without scrolling and nothing wider than the screen; by cards, the whole
entry on one screen, in English and in French; the set-up's choices never cut."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from .conftest import give_the_rest, no_horizontal_scroll
from .test_browser_table import SIX, in_view, new_game

pytestmark = pytest.mark.browser




def fits(page: Page) -> None:
    assert page.evaluate("window.scrollY") == 0
    assert in_view(page, "[data-action=save]")
    assert in_view(page, "#live-mini")
    assert no_horizontal_scroll(page)


def test_six_players_by_counts_on_one_screen(phone: Page, live_server: str):
    """Five counts and the Frog: the sixth count is filled in, the whole entry fits, Save saves."""
    new_game(phone, live_server, SIX)
    phone.locator("[data-action=enter-counts]").click()
    expect(phone.locator("#counts-entry")).to_be_visible()
    fits(phone)
    # Every count is a thumb's size (issue 22), so six players' pickers take more than a screen:
    # the rows scroll under the Save bar, which stays in sight, and the last one comes above it.
    phone.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
    bar = phone.locator(".savebar").bounding_box()
    last = phone.locator("[data-count-seat='5']").bounding_box()
    assert last["y"] + last["height"] <= bar["y"] + 12  # the bar's fade starts transparent
    assert in_view(phone, "[data-action=save]") and in_view(phone, "#live-mini")
    phone.evaluate("window.scrollTo(0, 0)")
    for seat, count in enumerate([4, 3, 0, 2, 1]):
        row = phone.locator(f"[data-count-seat='{seat}'] .picker")
        row.locator(f"label:has(input[value='{count}'])").click()
    expect(phone.locator("[data-count-seat='5'] .picker input[value='2']")).to_be_checked()
    phone.locator("[data-count-seat='2'] .frogpick").click()
    expect(phone.locator("#live [data-missing='0']")).to_be_visible()
    expect(phone.locator("[data-mini-seat='2'] b")).to_have_text("5")
    phone.evaluate("window.scrollTo(0, 0)")
    fits(phone)
    phone.locator("[data-action=save]").click()
    expect(phone.locator("#pad")).to_have_attribute("data-totals", "4,3,5,2,1,2")


def test_counts_that_reach_the_total_fill_in_zeros(phone: Page, live_server: str):
    """A Rebel of the Ball: 12 Princes to one player leaves 0 for everyone else."""
    new_game(phone, live_server, SIX)
    phone.locator("[data-action=enter-counts]").click()
    phone.wait_for_load_state()  # (the page's scripts have run: a tap before them fills nothing)
    phone.locator("[data-count-seat='1'] .picker label:has(input[value='12'])").click()
    for seat in (0, 2, 3, 4, 5):
        zero = phone.locator(f"[data-count-seat='{seat}'] .picker input[value='0']")
        expect(zero).to_be_checked()
    phone.locator("[data-count-seat='1'] .frogpick").click()
    phone.locator("[data-action=save]").click()
    expect(phone.locator("#pad")).to_have_attribute("data-totals", "0,-10,0,0,0,0")


def test_six_players_by_cards_save_in_sight(phone: Page, live_server: str):
    """By cards, the Save button and the running score stay in sight without scrolling."""
    new_game(phone, live_server, SIX)
    phone.locator("[data-action=enter-cards]").click()
    expect(phone.locator("#cards-entry")).to_be_visible()
    fits(phone)
    for rank in range(1, 13):
        phone.locator(f"[data-row=P{rank}] label:has(input[value='{rank % 6}'])").click()
    phone.locator("[data-row=A8] label:has(input[value='0'])").click()
    phone.evaluate("window.scrollTo(0, 0)")
    expect(phone.locator("#live [data-missing='0']")).to_have_count(1)
    assert in_view(phone, "[data-action=save]") and no_horizontal_scroll(phone)
    phone.locator("[data-action=save]").click()
    expect(phone.locator("#pad")).to_have_attribute("data-totals", "7,2,2,2,2,2")


# --- one screen, in English and in French -----------------------------------------------------





def shot(page: Page, artifacts, name: str) -> None:
    lang = page.locator("html").get_attribute("lang")
    page.screenshot(path=str(artifacts / f"{name}-{lang}-{page.viewport_size['width']}.png"))


def on_one_screen(page: Page) -> bool:
    """Nothing to scroll to, down or sideways."""
    return page.evaluate("document.documentElement.scrollHeight - window.innerHeight == 0"
                         " && document.documentElement.scrollWidth <= window.innerWidth")


def test_six_players_by_cards_on_one_screen(phone_in: Page, live_server: str, artifacts):
    """Round card a, six players: the round's line, the 13 cards' rows, the running score and
    Save all on one screen at 390x844, every seat button 44 x 44 px (issue 22); at 360x740 the
    rows need 50 px more than the screen and scroll under the Save bar, which stays in sight.
    Giving the rest and opening the score's details keep it so."""
    page = phone_in
    tall = page.viewport_size["height"] >= 844
    new_game(page, live_server, SIX)
    page.locator("[data-action=enter-cards]").click()
    expect(page.locator("#round-head")).to_have_attribute("data-round-card", "a")
    expect(page.locator("[data-row]")).to_have_count(13)
    assert on_one_screen(page) if tall else no_horizontal_scroll(page)
    for selector in ("#round-head", "#live-mini", "[data-action=rest]", "[data-action=save]"):
        assert in_view(page, selector), selector
    page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
    bar = page.locator(".savebar").bounding_box()
    frog = page.locator("[data-row=A8]").bounding_box()
    assert frog["y"] + frog["height"] <= bar["y"] + 1  # the last row is not under the Save bar
    assert in_view(page, "[data-action=save]") and in_view(page, "#live-mini")
    sizes = page.locator("[data-row] label").evaluate_all(
        "labels => labels.map(l => l.getBoundingClientRect()).map(r => [r.width, r.height])")
    assert len(sizes) == 13 * 6
    assert min(h for _, h in sizes) >= 44 and min(w for w, _ in sizes) >= 44, sizes[:6]
    page.evaluate("window.scrollTo(0, 0)")
    shot(page, artifacts, "cards-one-screen")

    for rank, seat in ((1, 1), (2, 1), (5, 3), (12, 2)):
        page.locator(f"[data-row=P{rank}] label:has(input[value='{seat}'])").click()
    page.locator("[data-row=A8] label:has(input[value='4'])").click()
    give_the_rest(page, 0)
    expect(page.locator("[data-missing='0']")).to_be_visible()
    expect(page.locator("#live-mini [data-mini-seat='0'] b")).to_have_text("8")
    assert on_one_screen(page) if tall else no_horizontal_scroll(page)
    page.locator("[data-sheet-toggle]").click()
    expect(page.locator("#live-sheet")).to_be_visible()
    expect(page.locator("#live-sheet [data-live-seat='4'] .pts")).to_have_text("5")
    assert on_one_screen(page) if tall else no_horizontal_scroll(page)
    assert in_view(page, "[data-action=save]")
    shot(page, artifacts, "cards-one-screen-details")
    page.locator("[data-action=save]").click()
    expect(page.locator("#pad")).to_have_attribute("data-totals", "8,2,1,1,5,0")


def test_setup_choices_are_never_cut(phone_in: Page, live_server: str, artifacts):
    """Every label, choice, heading and button of the set-up shows its whole text, in both
    editions ("3 rounds (short)" was cut at 360 px)."""
    page = phone_in
    page.goto(f"{live_server}/rebel-princess/new")
    page.locator("label:has(input[name=edition][value=deluxe])").click()  # (French: classic)
    cut = """() => [...document.querySelectorAll(
        '#new-game :is(label, label span, h2, summary, button, .seat)')]
        .filter(e => e.clientWidth > 0 && !e.closest('.sr') && e.scrollWidth > e.clientWidth)
        .map(e => e.textContent.trim() + ': ' + e.scrollWidth + ' > ' + e.clientWidth)"""
    expect(page.locator("input[name=length][value='3']")).to_have_count(1)
    assert page.evaluate(cut) == []
    assert no_horizontal_scroll(page)
    shot(page, artifacts, "setup")
    page.locator("label:has(input[name=edition][value=classic])").click()
    expect(page.locator("input[name=length][type=radio]")).to_have_count(0)
    assert page.evaluate(cut) == []
    assert no_horizontal_scroll(page)
