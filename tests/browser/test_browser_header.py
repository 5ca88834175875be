"""The shared header on a phone: every control a thumb's size (44x44 at least) at 390x844 and
360x740, in English and in French, without the header growing or the page scrolling sideways;
every game's name shows whole (on two lines where one cannot hold it)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from companion.games import by_key

from .conftest import no_horizontal_scroll
from .test_browser_drafts import kd_open, pp_open, rp_numbers_open
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
    page.wait_for_url("**/round/1/cards")  # (measured on that page, not the one it leaves)
    check_header(page, "round by cards")
    for path in ("/", "/rebel-princess/new", "/princesse-princesse/new", "/reveillez/new",
                 "/kanai-duel/new", f"/rebel-princess/g/{code}"):
        page.goto(live_server + path)
        check_header(page, path)


def reveillez_open(page: Page, base: str) -> str:
    page.goto(f"{base}/reveillez/new")
    for seat, name in enumerate(["Ana", "Ben", "Cléo"]):
        page.fill(f"#names-{seat}", name)
    page.click("[data-action=create]")
    expect(page.locator("#rv-table")).to_be_visible()
    return page.url


# Each game's entry page: its fullest header (Rebel Princess's has « ← pad » as well).
ENTRY = {"rebel_princess": rp_numbers_open, "princesse_princesse": pp_open,
         "reveillez": reveillez_open, "kanai_duel": kd_open}


@pytest.mark.parametrize("key", list(ENTRY))
def test_the_game_name_shows_whole(phone_in: Page, live_server: str, key: str):
    """The game's name in the header is never cut, even at 360 px on the fullest header (a
    round's entry page, with « ← pad »): where one line cannot hold it (« Rebelles
    Princesses » at 360 px), it takes two within the header's height."""
    page = phone_in
    ENTRY[key](page, live_server)
    if key == "rebel_princess":
        expect(page.locator("header.top .nav a", has_text="←")).to_be_visible()
    lang = page.locator("html").get_attribute("lang")
    name = page.locator("header.top .game-name")
    # a game's page names the edition played (the entry page's game is a Deluxe one)
    edition = "deluxe" if key == "rebel_princess" else None
    assert name.inner_text() == by_key(key).game_name(edition, lang, short=True)
    assert name.evaluate("e => e.scrollWidth <= e.clientWidth"), key
    assert name.evaluate("e => e.scrollHeight <= e.clientHeight"), key
    check_header(page, key)
    page.goto(f"{live_server}/{by_key(key).slug}/new")  # the set-up page's header too
    assert name.inner_text() == by_key(key).short_name(lang)
    assert name.evaluate("e => e.scrollWidth <= e.clientWidth"), key
    check_header(page, key)
