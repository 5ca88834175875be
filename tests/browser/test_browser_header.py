"""The shared header on a phone: every control a thumb's size (44x44 at least) at 390x844 and
360x740, in English and in French, without the header growing or the page scrolling sideways; a
game whose registry entry has a short name shows it whole."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page

from companion.games import by_key

from .conftest import no_horizontal_scroll
from .test_browser_table import SIX, new_game

pytestmark = pytest.mark.browser

HEADER_HEIGHT = 62.2  # before the controls grew: the crown (50 px) and 6 px above and below




def controls(page: Page) -> list[tuple[str, float, float]]:
    return page.locator("header.top").locator("a, button").evaluate_all(
        "els => els.map(e => [e.textContent.trim(), e.getBoundingClientRect().width,"
        " e.getBoundingClientRect().height])")


def check_header(page: Page, where: str = "") -> None:
    sizes = controls(page)
    assert len(sizes) >= 3, sizes  # home, rules, the other language at least
    small = [(text, w, h) for text, w, h in sizes if w < 44 or h < 44]
    assert not small, (where, small)
    assert page.locator("header.top").bounding_box()["height"] <= HEADER_HEIGHT + 3
    assert no_horizontal_scroll(page)


def test_every_header_control_is_a_thumbs_size(phone_in: Page, live_server: str):
    page = phone_in
    code = new_game(page, live_server, SIX)
    page.locator("[data-action=enter-cards]").click()  # the fullest header: ← pad, Rules, EN|FR
    check_header(page, "round by cards")
    for path in ("/", "/rebel-princess/new", "/princesse-princesse/new", "/reveillez/new",
                 "/kanai-duel/new", f"/rebel-princess/g/{code}"):
        page.goto(live_server + path)
        check_header(page, path)


@pytest.mark.parametrize("key, path", [("reveillez", "/reveillez/new"),
                                       ("kanai_duel", "/kanai-duel/new")])
def test_a_short_name_shows_whole(phone_in: Page, live_server: str, key: str, path: str):
    """Réveillez and the duel have a short name for the header: it is never cut, even at 360 px
    (Princesse Princesse's and Rebel Princess's names are cut with an ellipsis there: the
    registry has no shorter name for them)."""
    page = phone_in
    page.goto(live_server + path)
    lang = page.locator("html").get_attribute("lang")
    name = page.locator("header.top .game-name")
    assert name.inner_text() == by_key(key).short_name(lang)
    assert name.evaluate("e => e.scrollWidth <= e.clientWidth")
    check_header(page)
