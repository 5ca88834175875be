"""« Rejouer » on a French phone (390×844 and 360×740): a duel won in one round (the Princess
meets the Prince), then one tap on « Rejouer » opens the set-up with the same two
players and the same variants, and one more starts the next duel. Screenshots land in
tests/artifacts/."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from .conftest import no_horizontal_scroll

pytestmark = pytest.mark.browser


def buttons_are_big(page) -> bool:
    return page.evaluate("""() => [...document.querySelectorAll('.again .btn')]
        .filter(e => e.offsetParent !== null)
        .every(e => e.getBoundingClientRect().height >= 44)""")


@pytest.mark.parametrize("size", [(390, 844), (360, 740)])
def test_play_again_after_a_duel_in_french(french, live_server, artifacts, size):
    page = french
    page.set_viewport_size({"width": size[0], "height": size[1]})
    page.goto(live_server + "/kanai-duel/new")
    page.fill("#first", "Zoé")
    page.fill("#second", "Yann")
    page.locator(".kd-variants summary").click()
    page.locator("label:has([name=wins][value='3'])").click()
    page.click("[data-action=create]")
    page.click("[data-hand='0'] [data-card=princess]")
    page.click("[data-hand='1'] [data-card=prince]")
    page.click("[data-action=reveal]")
    expect(page.locator("[data-result][data-winner='0']")).to_be_visible()

    again = page.locator("[data-action=again]")
    expect(again).to_have_text("Rejouer")
    expect(page.locator(".again [data-action=new-game]")).to_have_text("Nouveau duel")
    again.scroll_into_view_if_needed()
    assert no_horizontal_scroll(page) and buttons_are_big(page)
    page.screenshot(path=str(artifacts / f"play-again-end-{size[0]}.png"))

    again.click()
    expect(page.locator("#first")).to_have_value("Zoé")
    expect(page.locator("#second")).to_have_value("Yann")
    expect(page.locator("[name=wins][value='3']")).to_be_checked()
    assert "again=" in page.url
    assert no_horizontal_scroll(page)
    page.screenshot(path=str(artifacts / f"play-again-set-up-{size[0]}.png"), full_page=True)

    page.click("[data-action=create]")
    expect(page.locator("#board")).to_be_visible()
    expect(page.locator("[data-result]")).to_have_count(0)  # a fresh duel, nothing played
    expect(page.locator("#board")).to_contain_text("Zoé")
    expect(page.locator("#board")).to_contain_text("Yann")
