"""The offline copy: one answer holding the offline pages and every rulings page of every game,
which the service worker turns back into the pages the app serves."""

from __future__ import annotations

import gzip
import json
import re

import pytest

from companion.games import registry
from companion.routes.pwa import PageBundle, StoredPage, fill_frame, split_page
from companion.rulings import load
from companion.rulings import rebel_princess as rp_rulings

TOKEN = re.compile(r'"X-CSRFToken": "[^"]*"')


def bundle_of(response) -> PageBundle:
    data = json.loads(response.data)
    return PageBundle(data["lang"], data["headers"], tuple(data["frames"]),
                      tuple(StoredPage(p, f, tuple(v)) for p, f, v in data["pages"]),
                      data["redirects"])


@pytest.fixture
def copy(client):
    return bundle_of(client.get("/offline/pages-en.json"))


def every_rulings_page() -> list[str]:
    pages = ["/rules", "/rebel-princess/rules"]
    pages += [f"/rebel-princess/rules/{e.slug}" for e in rp_rulings.entries()]
    for kind in registry():
        if kind.rulings:
            pages.append(f"/{kind.slug}/rules")
            pages += [f"/{kind.slug}/rules/{e.slug}" for e in load(kind.rulings).entries]
    return pages


def test_the_copy_holds_the_offline_pages_and_every_rulings_page_of_every_game(copy):
    stored = {page.path for page in copy.pages}
    assert {"/offline", "/offline?action=save"} <= stored
    assert set(every_rulings_page()) <= stored
    assert {kind.slug for kind in registry() if kind.rulings} <= {
        path.split("/")[1] for path in stored}


def test_a_stored_page_is_the_page_the_app_serves(client, copy):
    """Byte for byte, but for the CSRF token (the copy is rendered without a session: a stored
    page is only shown with no network, when nothing can be sent)."""
    for path in ["/rules", "/rebel-princess/rules/deluxe-j", "/kanai-duel/rules",
                 "/offline?action=save"]:
        served = client.get(path, headers={"Cookie": "lang=en"}).text
        assert TOKEN.sub("", copy.page(path)) == TOKEN.sub("", served), path


def test_stored_pages_keep_the_content_security_policy(copy):
    assert "script-src 'self'" in copy.headers["Content-Security-Policy"]
    assert copy.headers["Content-Type"].startswith("text/html")
    assert "Set-Cookie" not in copy.headers


def test_the_copy_is_in_the_language_asked(client):
    french = bundle_of(client.get("/offline/pages-fr.json"))
    assert french.lang == "fr"
    assert '<html lang="fr">' in french.page("/rebel-princess/rules/deluxe-j")
    assert client.get("/offline/pages-de.json").status_code == 404


def test_pages_of_one_game_share_one_frame(copy):
    """The head, icons and header are sent once per game, not once per page."""
    games = sum(1 for kind in registry() if kind.rulings or kind.rules_endpoint)
    assert len(copy.frames) <= games + 1  # + the shell's pages (chooser, offline pages)
    assert len(copy.pages) > 10 * len(copy.frames)


@pytest.mark.parametrize("path", ["/rules", "/rebel-princess/rules?q=frog",
                                  "/kanai-duel/rules/seven"])
def test_a_page_splits_into_a_frame_and_slots_and_fills_back(client, path):
    html = client.get(path).text
    frame, values = split_page(html)
    assert fill_frame(frame, values) == html
    assert "<main>" in frame and len(values) >= 2


def test_a_round_card_help_address_is_stored_as_its_redirect(client, copy):
    address = "/rebel-princess/rules/round-cards/deluxe/j"
    assert copy.redirects[address] == "/rebel-princess/rules/deluxe-j"
    assert client.get(address).headers["Location"].endswith("/rebel-princess/rules/deluxe-j")
    for source, target in copy.redirects.items():
        assert client.get(source).headers["Location"].endswith(target)


def test_the_copy_is_compressed_once_with_what_the_phone_accepts(client):
    brotli_answer = client.get("/offline/pages-en.json", headers={"Accept-Encoding": "gzip, br"})
    assert brotli_answer.headers["Content-Encoding"] == "br"
    gzip_answer = client.get("/offline/pages-en.json", headers={"Accept-Encoding": "gzip"})
    assert gzip_answer.headers["Content-Encoding"] == "gzip"
    assert json.loads(gzip.decompress(gzip_answer.data))["lang"] == "en"
    assert len(brotli_answer.data) < 60_000  # the bulk of a first visit's 100 kB


def test_static_files_never_carry_the_session_cookie(client):
    """A refreshed cookie and ``Vary: Cookie`` would make a phone fetch them again."""
    page = client.get("/").text
    css = re.search(r'href="(/static/app\.css\?v=\w+)"', page).group(1)
    answer = client.get(css)
    assert answer.status_code == 200
    assert "Set-Cookie" not in answer.headers and "Cookie" not in answer.headers.get("Vary", "")


def test_the_service_worker_has_a_validator_and_varies_on_nothing(client):
    """A repeat visit costs a 304: ``/sw.js`` carries an ETag and answers ``If-None-Match``
    with ``304 Not Modified``; the script is the same in every language and session, so
    neither ``Accept-Language`` nor ``Cookie`` enters its ``Vary`` and no cookie comes back."""
    client.get("/", headers={"Accept-Language": "fr"})  # a phone with a session and a language
    first = client.get("/sw.js", headers={"Accept-Language": "fr"})
    assert first.status_code == 200 and first.headers["Cache-Control"] == "no-cache"
    etag = first.headers["ETag"]
    assert etag and "__VERSION__" not in first.text
    vary = first.headers.get("Vary", "")
    assert "Accept-Language" not in vary and "Cookie" not in vary
    assert "Set-Cookie" not in first.headers
    again = client.get("/sw.js", headers={"If-None-Match": etag, "Accept-Language": "en"})
    assert again.status_code == 304 and not again.data
    assert client.get("/sw.js", headers={"If-None-Match": '"other"'}).status_code == 200
