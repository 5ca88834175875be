"""A save sent by the phone's outbox answered with its page (routes/live._answer_with_the_page).

The outbox (drafts.js) sends a save with ``Companion-Outbox: page``. When the save is the scorer
link's write to a game whose page is shared with its viewers (live.SHARED_KINDS), and the save
drew that page while it was stored (the viewers' part is taken from it), the answer is 200 with
that page and its address (``Companion-Page``) instead of the redirect: one request per save.
The page is the one the phone's next request would have got (this browser's CSRF token and
flash message, the page's own headers), and the flash is said once. Every other case answers
as before: no header, no page drawn (nobody listening, no publisher), a refusal, a seat's
write, an htmx write. No link token in the logs."""

from __future__ import annotations

import logging
import re

import pytest

from companion.extensions import page_store as store_backend
from companion.routes import live

from .test_push import KEYS, SCORES, _viewer, publisher  # noqa: F401  (a fixture)
from .test_push_drawing import _new
from .test_push_shared import DUEL_ROUNDS, SHARED_KINDS, _Everyone

ASK = {live.OUTBOX_HEADER: "page"}
FLASH = re.compile(r'<div class="flash" role="status">(?:<p>[^<]*</p>)+</div>')
CSRF = re.compile(r'"X-CSRFToken": "([^"]*)"')
OWN = ("Set-Cookie", "Content-Length", "Date", "X-Request-ID", live.PAGE_HEADER)


def _form(client, path: str, kind: str, n: int) -> tuple[str, dict[str, object]]:
    """The scorer's ``n``-th save (0 first) of a game of ``kind`` at ``path``: (address, form)."""
    if kind == "rebel-princess":
        return f"{path}/round/{n + 1}/numbers", SCORES
    if kind == "princesse-princesse":
        return f"{path}/round", {"version": str(n), "step": "2", "in": [str(n % 3)]}
    if kind == "kanai-duel":
        first, second = DUEL_ROUNDS[n]
        return f"{path}/round", {"version": str(n), "first": first, "second": second}
    found = re.search(r'data-version="(\d+)"', client.get(path).text)
    assert found is not None
    return f"{path}/act", {"version": found[1], "key": f"wake-{n:04d}", "do": "wake",
                           "slot": str(n), "value": str([5, 10, 15, 5, 10][n])}


def _blank(page: str) -> str:
    """A page without what differs between two drawings for one browser: form keys, the CSRF
    token (signed with the time)."""
    return CSRF.sub("", KEYS.sub(lambda m: (m[1] or m[2]) + '"' + (m[3] or ""), page))


def _headers(answer) -> dict[str, str]:
    return {name: value for name, value in answer.headers.items() if name not in OWN}


@pytest.mark.parametrize("kind", SHARED_KINDS)
@pytest.mark.parametrize("lang", ["en", "fr"])
def test_a_save_the_outbox_sends_is_answered_with_the_page_its_redirect_leads_to(
        app, publisher, kind, lang):  # noqa: F811
    """Two phones, each the scorer of a game alike: one as before (redirect, then the page),
    one asking for the page in the answer: the same page, said once, with the same headers."""
    publisher.listening = _Everyone()
    before, asking = app.test_client(), app.test_client()
    for client in (before, asking):
        client.set_cookie("lang", lang)
    paths = {client: _new(client, kind) for client in (before, asking)}
    for n in range(3):
        url, form = _form(before, paths[before], kind, n)
        redirect = before.post(url, data=form)
        assert redirect.status_code in (302, 303)
        assert redirect.headers["Location"] == paths[before]
        assert live.PAGE_HEADER not in redirect.headers
        loaded = before.get(paths[before])

        url, form = _form(asking, paths[asking], kind, n)
        answer = asking.post(url, data=form, headers=ASK)
        assert answer.status_code == 200, answer.text[:500]
        assert answer.headers[live.PAGE_HEADER] == paths[asking]
        page = answer.text
        assert _headers(answer) == _headers(loaded)
        # The flash is the save's, as the page loaded after the redirect says it, and no page
        # after it says it again.
        said = FLASH.findall(page)
        assert said == FLASH.findall(loaded.text)
        assert said or kind in ("reveillez", "kanai-duel")  # (their boards say it)
        after = asking.get(paths[asking]).text
        assert not FLASH.search(after)
        # The page is the one a fresh drawing gives this phone (and its next load), but for
        # what is each request's own.
        store_backend.clear()
        fresh = asking.get(paths[asking]).text
        assert _blank(FLASH.sub("", page)) == _blank(fresh) == _blank(after)
        assert CSRF.search(page)[1] and "\x00" not in page  # type: ignore[index]


def test_the_page_answered_holds_this_browsers_csrf_token(app, publisher):  # noqa: F811
    """With CSRF on, the page answered carries a token this browser's next write passes with."""
    app.config["WTF_CSRF_ENABLED"] = True
    publisher.listening = _Everyone()
    client = app.test_client()
    app.config["WTF_CSRF_ENABLED"] = False
    path = _new(client, "princesse-princesse")
    app.config["WTF_CSRF_ENABLED"] = True
    token = CSRF.search(client.get(path).text)[1]  # type: ignore[index]
    url, form = _form(client, path, "princesse-princesse", 0)
    answer = client.post(url, data={**form, "csrf_token": token}, headers=ASK)
    assert answer.status_code == 200
    fresh = CSRF.search(answer.text)[1]  # type: ignore[index]
    url, form = _form(client, path, "princesse-princesse", 1)
    assert client.post(url, data={**form, "csrf_token": fresh}).status_code == 303
    assert client.post(url, data={**form, "csrf_token": "forged"}).status_code == 400


def test_every_other_save_is_answered_as_before(app, client, publisher):  # noqa: F811
    path = _new(client, "princesse-princesse")
    url, form = _form(client, path, "princesse-princesse", 0)
    # Nobody listening: no page drawn with the save, the redirect.
    publisher.listening = set()
    answer = client.post(url, data=form, headers=ASK)
    assert answer.status_code == 303 and live.PAGE_HEADER not in answer.headers
    publisher.listening = _Everyone()
    # A client that does not ask (an old page, a form sent the ordinary way): the redirect.
    url, form = _form(client, path, "princesse-princesse", 1)
    answer = client.post(url, data=form)
    assert answer.status_code == 303 and live.PAGE_HEADER not in answer.headers
    # A refusal (a stale version): the server's own page, as before.
    refused = client.post(url, data=form, headers=ASK)
    assert refused.status_code == client.post(url, data=form).status_code
    assert refused.status_code >= 400 and live.PAGE_HEADER not in refused.headers
    # An htmx write answers its partial.
    url, form = _form(client, path, "princesse-princesse", 2)
    htmx = client.post(url, data=form, headers={**ASK, "HX-Request": "true"})
    assert live.PAGE_HEADER not in htmx.headers
    # The viewer link writes nothing.
    viewer = _viewer(client, path)
    url, form = _form(client, viewer, "princesse-princesse", 3)
    assert live.PAGE_HEADER not in client.post(url, data=form, headers=ASK).headers


def test_without_a_publisher_a_save_is_answered_as_before(app, client):
    path = _new(client, "princesse-princesse")
    url, form = _form(client, path, "princesse-princesse", 0)
    answer = client.post(url, data=form, headers=ASK)
    assert answer.status_code == 303 and live.PAGE_HEADER not in answer.headers


def test_a_seats_write_and_a_write_leading_elsewhere_are_answered_as_before(
        app, publisher):  # noqa: F811
    """The duel on two phones: a seat's pick never shares its page (it shows that seat's hand):
    its redirect, as before. The scorer link's write that leads to another page (a replaced
    viewer link: the share page) shares its drawing, and is answered with its redirect."""
    from tests.kanai_duel.test_kanai_duel_web import join, join_path, new_game, version_of

    first, second = app.test_client(), app.test_client()
    seat1 = new_game(first, mode="phones")
    seat2 = join(second, join_path(first, seat1))
    publisher.listening = _Everyone()
    answer = second.post(seat2 + "/pick", headers=ASK, data={
        "card": "assassin", "round": 1, "version": version_of(second, seat2)})
    assert answer.status_code == 303 and live.PAGE_HEADER not in answer.headers
    scorer = _new(first, "princesse-princesse").rsplit("/", 1)[1]
    answer = first.post(f"/share/{scorer}/replace/viewer", headers=ASK)
    assert answer.status_code == 303 and live.PAGE_HEADER not in answer.headers
    assert answer.headers["Location"].startswith("/share/")


def test_no_link_token_in_the_logs(app, client, publisher, caplog):  # noqa: F811
    publisher.listening = _Everyone()
    path = _new(client, "reveillez")
    token = path.rsplit("/", 1)[1]
    url, form = _form(client, path, "reveillez", 0)
    with caplog.at_level(logging.DEBUG):
        answer = client.post(url, data=form, headers=ASK)
    assert answer.status_code == 200
    assert any("POST" in record.getMessage() and " 200 " in record.getMessage()
               for record in caplog.records), [r.getMessage() for r in caplog.records]
    for record in caplog.records:
        assert token not in record.getMessage()


def test_the_game_saved_comes_first_on_the_phones_list_as_after_its_page_loaded(
        app, client, publisher):  # noqa: F811
    publisher.listening = _Everyone()
    saved = _new(client, "princesse-princesse")
    other = _new(client, "princesse-princesse")
    client.get(other)
    with client.session_transaction() as session:
        assert session["games"][0] == other.rsplit("/", 1)[1]
    url, form = _form(client, saved, "princesse-princesse", 0)
    assert client.post(url, data=form, headers=ASK).status_code == 200
    with client.session_transaction() as session:
        assert session["games"][0] == saved.rsplit("/", 1)[1]
