"""Rulings at the table: search in either language, and one tap from the round to its card."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from .conftest import no_horizontal_scroll

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("word", ["frog", "grenouille"])
def test_search_finds_the_frog(page: Page, live_server: str, artifacts, word):
    """Typing frog or grenouille in the rulings search lists the Frog's entry first."""
    page.goto(f"{live_server}/rebel-princess/rules")
    page.locator("#q").fill(word)
    page.locator("#q").press("Enter")
    first = page.locator("[data-result]").first
    expect(first).to_have_attribute("data-result", "basics-frog")
    assert no_horizontal_scroll(page)
    page.screenshot(path=str(artifacts / f"rulings-search-{word}.png"))
    first.click()
    expect(page.locator("[data-entry='basics-frog']")).to_be_visible()


def test_one_tap_from_the_round_to_its_card(page: Page, live_server: str, artifacts):
    """The round screen links straight to its Round card's rulings entry."""
    page.goto(f"{live_server}/rebel-princess/new")
    for seat, name in enumerate(["Ana", "Ben", "Cy", "Di"]):
        page.locator(f"input[name='names-{seat}']").fill(name)
    page.locator("select[name='cards-0']").select_option("z")
    page.locator("[data-action=create]").click()
    page.locator("[data-action=card-rules]").click()
    expect(page.locator("[data-entry='deluxe-z']")).to_be_visible()
    assert no_horizontal_scroll(page)
    page.screenshot(path=str(artifacts / "rulings-card.png"))
