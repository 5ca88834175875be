"""Entry by counts and by cards on a phone (issue 15): a 6-player round at 390x844 and 360x740,
the Save button in sight without scrolling and nothing wider than the screen."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page, expect

from .conftest import no_horizontal_scroll
from .test_browser_table import PHONES, SIX, in_view, new_game

pytestmark = pytest.mark.browser


@pytest.fixture(params=PHONES, ids=lambda size: f"{size['width']}x{size['height']}")
def phone(request, browser: Browser, browser_context_args):
    """A page on a phone of each size."""
    context = browser.new_context(**{**browser_context_args, "viewport": request.param})
    page = context.new_page()
    yield page
    context.close()


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
    # Every player's row is in sight above the Save bar: nothing to scroll to (the leader
    # override and the page footer come after Save).
    bar = phone.locator(".savebar").bounding_box()
    last = phone.locator("[data-count-seat='5']").bounding_box()
    assert last["y"] + last["height"] <= bar["y"] + 12  # the bar's fade starts transparent
    for seat, count in enumerate([4, 3, 0, 2, 1]):
        row = phone.locator(f"[data-count-seat='{seat}'] .picker")
        row.locator(f"label:has(input[value='{count}'])").click()
    expect(phone.locator("[data-count-seat='5'] .picker input[value='2']")).to_be_checked()
    phone.locator("[data-count-seat='2'] .frogpick").click()
    expect(phone.locator("#live [data-missing='0']")).to_be_visible()
    expect(phone.locator("[data-mini-seat='2'] b")).to_have_text("5")
    fits(phone)
    phone.locator("[data-action=save]").click()
    expect(phone.locator("#pad")).to_have_attribute("data-totals", "4,3,5,2,1,2")


def test_counts_that_reach_the_total_fill_in_zeros(phone: Page, live_server: str):
    """A Rebel of the Ball: 12 Princes to one player leaves 0 for everyone else."""
    new_game(phone, live_server, SIX)
    phone.locator("[data-action=enter-counts]").click()
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
