"""A whole 3-round Deluxe game on a phone, in headless Chromium."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from .conftest import give_the_rest, no_horizontal_scroll

pytestmark = pytest.mark.browser


def totals(page: Page) -> list[str]:
    return page.locator("#pad").get_attribute("data-totals").split(",")


def create_game(page: Page, base: str, names: list[str], cards: list[str], length: str = "3"):
    page.goto(f"{base}/rebel-princess/new")
    if length == "3":
        page.get_by_text("3 rounds (short)").click()
        expect(page.locator("select[name='cards-3']")).to_have_count(0)
    for seat, name in enumerate(names):
        page.locator(f"input[name='names-{seat}']").fill(name)
    page.locator("#first_leader").select_option("0")
    for i, letter in enumerate(cards):
        page.locator(f"select[name='cards-{i}']").select_option(letter)
    page.locator("[data-action=create]").click()
    expect(page.locator("#this-round")).to_be_visible()
    # Every card picked in a quick succession of selects is the one stored.
    expect(page.locator("#pad [data-round-row] small")).to_have_text(cards)


def test_three_round_deluxe_game(page: Page, live_server: str, artifacts):
    """Create, enter by cards and by numbers, edit round 1, watch totals and leader, finish."""
    create_game(page, live_server, ["Ana", "Ben", "Cy", "Di"], ["a", "z", "y"])
    assert page.locator("#this-round .leader").inner_text().startswith("Ana")
    assert no_horizontal_scroll(page)

    # Round 1 (Once Upon a Time) by cards: Ben takes P1-P3, Cy P4-P6, the rest to Di... then Frog.
    page.locator("[data-action=enter-cards]").click()
    for rank in (1, 2, 3):
        page.locator(f"[data-row=P{rank}] label:has(input[value='1'])").click()
    for rank in (4, 5, 6):
        page.locator(f"[data-row=P{rank}] label:has(input[value='2'])").click()
    page.locator("[data-row=A8] label:has(input[value='2'])").click()
    give_the_rest(page, 3)  # P7-P10 to Di at once
    expect(page.locator("[data-missing='0']")).to_be_visible()
    expect(page.locator("[data-live-seat='2'] .pts")).to_have_text("8")
    assert no_horizontal_scroll(page)
    page.screenshot(path=str(artifacts / "entry-by-cards.png"), full_page=True)
    page.locator("[data-action=save]").click()
    assert totals(page) == ["0", "3", "8", "4"]
    # Ana has the lowest total: she leads round 2.
    expect(page.locator("#this-round [data-leader]")).to_have_attribute("data-leader", "0")

    # Round 2 (Dancing Queens) by numbers; a wrong total is flagged first.
    page.locator("[data-action=enter-numbers]").click()
    for seat, value in enumerate([1, 2, 3, 4]):
        page.locator(f"#score_{seat}").fill(str(value))
    page.locator("[data-action=save]").click()
    expect(page.locator("[data-warning=impossible-round-total]")).to_be_visible()
    for seat, value in enumerate([2, 0, 5, 8]):
        page.locator(f"#score_{seat}").fill(str(value))
    page.locator("[data-action=save]").click()
    assert totals(page) == ["2", "3", "13", "12"]
    expect(page.locator("#this-round [data-leader]")).to_have_attribute("data-leader", "0")

    # Edit round 1: Ben's three Princes were really Ana's. Totals and the next leader change.
    page.locator("[data-edit-round='1']").click()
    for rank in (1, 2, 3):
        page.locator(f"[data-row=P{rank}] label:has(input[value='0'])").click()
    page.locator("[data-action=save]").click()
    assert totals(page) == ["5", "0", "13", "12"]
    expect(page.locator("#this-round [data-leader]")).to_have_attribute("data-leader", "1")
    page.screenshot(path=str(artifacts / "score-pad.png"), full_page=True)

    # Round 3 (Bathroom Break) by cards: Princes double except for the highest total (Cy).
    page.locator("[data-action=enter-cards]").click()
    page.locator("[data-row=A8] label:has(input[value='1'])").click()
    give_the_rest(page, 0)
    expect(page.locator("[data-live-seat='0'] .pts")).to_have_text("20")
    page.locator("[data-action=save]").click()

    expect(page.locator("#result")).to_be_visible()
    expect(page.locator("#result [data-winners]")).to_have_attribute("data-winners", "1")
    assert totals(page) == ["25", "5", "13", "12"]
    assert no_horizontal_scroll(page)
    page.screenshot(path=str(artifacts / "final-pad.png"), full_page=True)


def test_typed_names_survive_an_edition_switch(page: Page, live_server: str):
    """Switching edition redraws the Round card choices but keeps the names already typed."""
    page.goto(f"{live_server}/rebel-princess/new")
    page.locator("input[name='names-0']").fill("Ana")
    page.locator("input[name='names-1']").fill("Ben")
    page.get_by_text("Rebelles Princesses").first.click()
    expect(page.locator("select[name='cards-0']")).to_have_value("A")
    expect(page.locator("input[name='names-0']")).to_have_value("Ana")
    expect(page.locator("input[name='names-1']")).to_have_value("Ben")
