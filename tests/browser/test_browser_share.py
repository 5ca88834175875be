"""Share the result (issue 29, item 6): the end screen of each game of the four — Rebel Princess
in both editions, Princesse Princesse, Réveillez, the Kanai duel — hands a PNG of the final
standings and a line of text to the phone's share sheet (navigator.share, mocked here: headless
Chromium has no sheet), or downloads the image where the phone cannot share a file; with no
network too, once the page is there. Screenshots of the button and the PNGs handed over land in
tests/artifacts/ (``share-*.png``)."""

from __future__ import annotations

import base64
import re

import pytest
from playwright.sync_api import Browser, Page, expect

from companion import create_app
from companion.db import get_session
from companion.play import kanai_duel, rebel_princess, store
from companion.scoring.rebel_princess import Edition, PlayedRound

from ..history.conftest import store_known_games
from .conftest import PHONES, no_horizontal_scroll, start_server

pytestmark = pytest.mark.browser

# The phone's share sheet, recorded: what it was handed, and what the image looks like (its
# size, and the colour of its top-left corner: the light scheme's page colour, #f7f3ee).
MOCK_SHARE = """
window.__shared = [];
navigator.canShare = (data) => !!(data && data.files && data.files.length);
navigator.share = async (data) => {
  const file = data.files[0];
  const bytes = new Uint8Array(await file.arrayBuffer());
  let binary = "";
  for (let i = 0; i < bytes.length; i += 8192) {
    binary += String.fromCharCode.apply(null, bytes.subarray(i, i + 8192));
  }
  const bitmap = await createImageBitmap(file);
  const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
  const ctx = canvas.getContext("2d");
  ctx.drawImage(bitmap, 0, 0);
  window.__shared.push({name: file.name, type: file.type, size: file.size, text: data.text,
                        title: data.title, width: bitmap.width, height: bitmap.height,
                        corner: Array.from(ctx.getImageData(2, 2, 1, 1).data.slice(0, 3)),
                        png: btoa(binary)});
  document.documentElement.dataset.shared = String(window.__shared.length);
};
"""
NO_FILE_SHARING = "delete Navigator.prototype.canShare; delete Navigator.prototype.share;"
LIGHT_PAGE = [0xF7, 0xF3, 0xEE]
CLASSIC_SHARED = [[0, 2, 6, 7], [2, 0, 6, 7], [2, 2, 5, 6], [3, 3, 4, 5], [3, 3, 4, 5]]

# game, the page's language, the slug in the file's name, the text line's start, the winners
GAMES = [
    ("rp1", "en", "rebel_princess", "Rebel Princess Deluxe · Winner: Ben (Ben 0,", "1"),
    ("classic", "fr", "rebel_princess", "Rebelles Princesses · Gagnants\u00a0: Ana & Ben", "0,1"),
    ("pp", "fr", "princesse_princesse",
     "Princesse Princesse (Love Letter) · Gagnant\u00a0: Ana", "0"),
    ("rv", "en", "reveillez", "Wake the 12 Princesses · Winner: Ana (Ana 55, Ben 15)", "0"),
    ("kd2", "fr", "kanai_duel", "Duel Princes & Princesses · Égalité (Ben 3, Cy 3)", ""),
]


@pytest.fixture(scope="module")
def ended(tmp_path_factory):
    """The known games (tests/history/conftest.py) and a classic game shared by Ana and Ben,
    served; their viewer links' addresses by name."""
    app = create_app({"SECRET_KEY": "browser-tests",
                      "DATABASE": str(tmp_path_factory.mktemp("share") / "s.sqlite")})
    with app.app_context(), app.test_request_context():
        from flask import url_for

        from companion.games import by_key

        session = get_session()
        codes = store_known_games(session)
        game = rebel_princess.create_game(session=session, edition=Edition.CLASSIC,
                                          names=["Ana", "Ben", "Cy", "Di"], first_leader=0,
                                          round_cards=list("ACBDM"))
        for number, scores in enumerate(CLASSIC_SHARED, start=1):
            played = PlayedRound(scores=tuple(scores), last_trick_winner=number % 4)
            rebel_princess.save_round(session=session, game=game, number=number, mode="numbers",
                                      played=played, base_id=None)
        codes["classic"] = game.code
        duel, _ = kanai_duel.create(session=session, names=["Ana", "Ben"],
                                    mode=kanai_duel.REFEREE, variants=[])
        kanai_duel.play_round(session=session, game=duel, cards=["prince", "spy"],
                              based_on=0, key=None)
        codes["live"] = duel.code
        addresses = {}
        for name, code in codes.items():
            game = store.get_game(session, code)
            token = store.links_of(session, game)["viewer"].token
            addresses[name] = url_for(by_key(game.kind).show_endpoint, code=token)
    url, stop = start_server(app)
    found = {name: url + path for name, path in addresses.items()}
    found["app"], found["codes"] = app, codes
    yield found
    stop()


def _page(browser: Browser, browser_context_args, size, lang="en", dark=False,
          script=MOCK_SHARE) -> Page:
    context = browser.new_context(**{**browser_context_args, "viewport": size},
                                  locale={"en": "en-GB", "fr": "fr-FR"}[lang],
                                  color_scheme="dark" if dark else "light")
    context.add_init_script(script)
    return context.new_page()


def _shared(page: Page) -> dict:
    expect(page.locator("html[data-shared]")).to_have_count(1)
    shared = page.evaluate("window.__shared")
    assert len(shared) == 1
    return shared[0]


@pytest.mark.parametrize("size", PHONES, ids=lambda s: f"{s['width']}x{s['height']}")
@pytest.mark.parametrize(("game", "lang", "slug", "text", "winners"), GAMES,
                         ids=[g[0] for g in GAMES])
def test_share_hands_a_png_and_a_line_to_the_share_sheet(
        browser, browser_context_args, ended, artifacts, size, game, lang, slug, text, winners):
    page = _page(browser, browser_context_args, size, lang)
    page.goto(ended[game])
    button = page.locator("[data-share-result]")
    expect(button).to_be_visible()
    expect(button).to_have_text({"en": "Share", "fr": "Partager"}[lang])
    box = button.bounding_box()
    assert box and box["height"] >= 44 and box["width"] >= 44
    assert no_horizontal_scroll(page)
    svg = page.locator("template[data-share-image]").evaluate("t => t.innerHTML")
    assert f'data-share-winners="{winners}"' in svg if winners else "data-share-winners" not in svg
    assert "/g/" not in svg and "http" not in svg.replace("http://www.w3.org/2000/svg", "")
    button.scroll_into_view_if_needed()
    page.screenshot(path=str(artifacts / f"share-button-{game}-{size['width']}.png"))
    button.click()
    shared = _shared(page)
    assert re.fullmatch(rf"{slug}-\d{{4}}-\d{{2}}-\d{{2}}\.png", shared["name"])
    assert shared["type"] == "image/png"
    assert shared["text"].startswith(text)
    assert "/g/" not in shared["text"] and "http" not in shared["text"]
    assert shared["width"] == 1080 and 400 < shared["height"] < 3000
    assert 15_000 < shared["size"] < 1_500_000  # a real drawing, not a blank nor a monster
    assert shared["corner"] == LIGHT_PAGE
    (artifacts / f"share-{game}-{size['width']}.png").write_bytes(
        base64.b64decode(shared["png"]))
    page.context.close()


def test_share_is_drawn_light_on_a_dark_page(browser, browser_context_args, ended, artifacts):
    page = _page(browser, browser_context_args, PHONES[1], "fr", dark=True)
    page.goto(ended["rp1"])
    button = page.locator("[data-share-result]")
    expect(button).to_be_visible()
    button.scroll_into_view_if_needed()
    page.screenshot(path=str(artifacts / "share-button-dark-360.png"))
    button.click()
    shared = _shared(page)
    assert shared["corner"] == LIGHT_PAGE
    assert shared["text"].startswith("Rebel Princess Deluxe · Gagnant\u00a0: Ben")
    page.context.close()


@pytest.mark.parametrize("size", PHONES, ids=lambda s: f"{s['width']}x{s['height']}")
def test_share_downloads_the_image_where_files_cannot_be_shared(
        browser, browser_context_args, ended, tmp_path, size):
    page = _page(browser, browser_context_args, size, script=NO_FILE_SHARING)
    page.goto(ended["pp"])
    with page.expect_download() as download:
        page.locator("[data-share-result]").click()
    assert re.fullmatch(r"princesse_princesse-\d{4}-\d{2}-\d{2}\.png",
                        download.value.suggested_filename)
    path = tmp_path / download.value.suggested_filename
    download.value.save_as(path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and path.stat().st_size > 15_000
    expect(page.locator("[data-share-status]")).to_have_text("The image is in your downloads.")
    page.context.close()


@pytest.mark.parametrize("size", PHONES, ids=lambda s: f"{s['width']}x{s['height']}")
def test_share_works_with_no_network_once_the_page_is_there(
        browser, browser_context_args, ended, size):
    page = _page(browser, browser_context_args, size)
    page.goto(ended["kd1"])
    button = page.locator("[data-share-result]")
    expect(button).to_be_visible()
    page.context.set_offline(True)
    button.click()
    shared = _shared(page)
    assert shared["text"].startswith("Princes & Princesses duel · Winner: Ana")
    assert shared["size"] > 15_000
    page.context.close()


def test_a_duel_that_ends_on_another_phone_brings_its_share_button(
        browser, browser_context_args, ended):
    """The viewer's board swaps itself in when the duel ends (kanai_duel.js): its Share button
    works there too, though the page was opened before the end."""
    page = _page(browser, browser_context_args, PHONES[0], "fr")
    page.goto(ended["live"])
    expect(page.locator("#board")).to_be_visible()
    expect(page.locator("[data-share-result]")).to_have_count(0)
    app = ended["app"]
    with app.app_context():
        session = get_session()
        kanai_duel.play_round(session=session, game=store.get_game(session, ended["codes"]["live"]),
                              cards=["princess", "prince"], based_on=1, key=None)
    button = page.locator("[data-share-result]")
    expect(button).to_be_visible()
    expect(button).to_have_text("Partager")
    button.click()
    shared = _shared(page)
    assert shared["text"].startswith("Duel Princes & Princesses · Gagnant\u00a0: Ana")
    page.context.close()
