"""« Réveillez » on a phone (390×844, French): a 3-player game with the variant, played tap by tap
to a win — the Rose and her companion, a jester's count, an addition discarded, the Dog and the
Cat, a knight stopped by a dragon — with a screenshot of each screen; every screen also fits
360×740."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from .conftest import no_horizontal_scroll

pytestmark = pytest.mark.browser

ENGLISH = re.compile(r"\b(Wake|Steal|Send to sleep|Jester|Discard|Undo|History|to play|to win|"
                     r"princess|points to win|Tap|tap|Player|Start the game|Game over)\b")



def screen(page: Page, artifacts, name: str) -> None:
    """French only, no sideways scroll at 390 and 360 px, a screenshot saved."""
    assert page.locator("html").get_attribute("lang") == "fr"
    text = page.evaluate("document.title + '\\n' + document.body.innerText")
    assert ENGLISH.findall(text) == [], f"{name}: {ENGLISH.findall(text)}"
    assert no_horizontal_scroll(page), f"{name}: wider than 390 px"
    page.screenshot(path=str(artifacts / f"reveillez-{name}.png"))
    page.set_viewport_size({"width": 360, "height": 740})
    assert no_horizontal_scroll(page), f"{name}: wider than 360 px"
    page.set_viewport_size({"width": 390, "height": 844})


def tap_slot(page: Page, slot: int) -> None:
    page.locator(f".rv-grid [data-slot='{slot}'] button").click()


def name_her(page: Page, name: str) -> None:
    page.locator(f"label:has(input[data-name='{name}'])").click()


def test_three_players_with_the_variant_to_a_win(french: Page, live_server: str, artifacts):
    page = french
    page.goto(f"{live_server}/reveillez/new")
    for seat, name in enumerate(["Ana", "Ben", "Cléo"]):
        page.fill(f"#names-{seat}", name)
    page.locator("label:has([data-option=variant])").click()
    expect(page.locator("#rv-target [data-players='3']")).to_contain_text("5 princesses ou 50")
    screen(page, artifacts, "1-new")
    page.click("[data-action=create]")
    expect(page.locator("#rv-table")).to_have_attribute("data-turn", "0")

    # Ana: a prince wakes the Rose, who brings the princess of place 2.
    page.click("[data-action=wake]")
    expect(page.locator("[data-question=slot]")).to_be_visible()
    tap_slot(page, 0)
    name_her(page, "rose")
    screen(page, artifacts, "2-value")
    page.click("[data-value='5']")
    expect(page.locator("[data-question=companion]")).to_be_visible()
    tap_slot(page, 1)
    page.click("[data-value='20']")
    expect(page.locator("[data-seat='0']")).to_have_attribute("data-points", "25")

    # Ben wakes the Dog.
    page.click("[data-action=wake]")
    tap_slot(page, 2)
    name_her(page, "chien")
    page.click("[data-value='10']")
    expect(page.locator("[data-seat='1']")).to_have_attribute("data-points", "10")

    # Cléo's jester turns over a 2: counting from Cléo, Ana wakes a princess.
    page.click("[data-action=jester]")
    page.click("[data-card='2']")
    expect(page.locator(".rv-jester")).to_have_attribute("data-wakes", "0")
    expect(page.locator("[data-seat='0']")).to_have_attribute("data-counted", "2")
    screen(page, artifacts, "3-jester")
    tap_slot(page, 3)
    page.click("[data-value='15']")
    expect(page.locator("[data-seat='0']")).to_have_attribute("data-points", "40")
    expect(page.locator("#rv-table")).to_have_attribute("data-turn", "0")

    # Ana discards 1 + 3 + 4 = 8 and draws 4.
    page.click("[data-action=discard]")
    for card in (1, 3, 4, 8):
        page.click(f"[data-add='{card}']")
    expect(page.locator(".rv-discard")).to_have_attribute("data-kind", "addition")
    expect(page.locator(".rv-discard")).to_contain_text("1 + 3 + 4 = 8")
    screen(page, artifacts, "4-discard")
    page.click("[data-action=discard-go]")

    # Ben wakes the Cat while holding the Dog: she goes back to sleep.
    page.click("[data-action=wake]")
    tap_slot(page, 4)
    name_her(page, "chat")
    page.click("[data-value='15']")
    expect(page.locator("[data-seat='1']")).to_have_attribute("data-points", "10")
    expect(page.locator(".rv-grid [data-slot='4']")).to_have_class(re.compile("asleep"))

    # Cléo's knight aims at Ana's 20; Ana answers with a dragon.
    page.click("[data-action=steal]")
    page.locator(".rv-players button[data-princess='1']").click()
    expect(page.locator("[data-question=defence]")).to_be_visible()
    screen(page, artifacts, "5-dragon")
    page.click("[data-defended=yes]")
    expect(page.locator("[data-seat='0']")).to_have_attribute("data-points", "40")
    screen(page, artifacts, "6-table")

    # Ana wakes a 10: 50 points, she wins at once.
    page.click("[data-action=wake]")
    tap_slot(page, 5)
    page.click("[data-value='10']")
    win = page.locator(".rv-win")
    expect(win).to_have_attribute("data-winners", "0")
    expect(win).to_have_attribute("data-reason", "points")
    expect(win).to_contain_text("Ana gagne avec 50 points")
    expect(page.locator("[data-action=wake]")).to_have_count(0)
    screen(page, artifacts, "7-win")

    page.click("[data-action=history]")
    expect(page.locator(".rv-history li")).to_have_count(7)
    expect(page.locator(".rv-history")).to_contain_text("répond par un dragon")
    screen(page, artifacts, "8-history")
