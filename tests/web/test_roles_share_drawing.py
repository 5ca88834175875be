"""One drawing per version of a game's own page for its scorer link and its viewer link
(routes/page_store.py ``_drawn_for_both``): whichever link loads it first draws it once, and the
other link's page is kept from that drawing.

Each page a link gets that way is, byte for byte (each browser's CSRF token and form keys
blanked), the page drawn for that link directly — for every game of ``SHARED_KINDS``, in English
and French, new, in progress, after a refusal and finished, whichever link asked first — and no
other link's token, nor another browser's CSRF token, is ever in it. A page that would hold
another link's token is not kept for it: it is drawn when that link asks."""

from __future__ import annotations

import re

import pytest
from flask import g

from companion.db import get_session
from companion.extensions import page_store as store_backend
from companion.play import store
from companion.routes import page_store

from .test_push import KEYS
from .test_push_drawing import _new
from .test_push_shared import SHARED_KINDS, _finished, _save

CSRF_HEADER = re.compile(r'"X-CSRFToken": "[^"]*"')


def _blank(page: str) -> str:
    """A page without what is each request's own: its form keys and CSRF token."""
    return CSRF_HEADER.sub("", KEYS.sub(lambda m: (m[1] or m[2]) + '"' + (m[3] or ""), page))


def _tokens(app, path: str) -> dict[str, str]:
    with app.app_context():
        session = get_session()
        game = store.game_by_token(session, path.rsplit("/", 1)[1])
        assert game is not None
        return {role: link.token for role, link in store.links_of(session, game).items()}


def _mark(app) -> str:
    with app.app_context():
        return page_store.link_mark()


class _Hits:
    def __init__(self, monkeypatch) -> None:
        self.seen: list[bool] = []
        real = page_store.metrics.count_page_store
        monkeypatch.setattr(page_store.metrics, "count_page_store",
                            lambda *, hit: (self.seen.append(hit), real(hit=hit)))


def _each_page_as_drawn_directly(app, scorer, path: str, lang: str, hits: _Hits) -> None:
    """For both orders: the second link's page, kept from the first link's drawing (a hit),
    is the page drawn for it directly (a miss), and holds no other link's token."""
    tokens = _tokens(app, path)
    headers = {"Accept-Language": lang}
    scorer.get(path, headers=headers)  # (the flashed messages of a save shown, as a phone does)
    paths = {"scorer": path, "viewer": path.replace(tokens["scorer"], tokens["viewer"])}
    clients = {"scorer": scorer, "viewer": app.test_client()}
    for first, second in (("scorer", "viewer"), ("viewer", "scorer")):
        store_backend.clear()
        hits.seen.clear()
        clients[first].get(paths[first], headers=headers)
        kept = clients[second].get(paths[second], headers=headers)
        assert hits.seen == [False, True], (first, hits.seen)
        store_backend.clear()
        direct = clients[second].get(paths[second], headers=headers)
        assert hits.seen == [False, True, False]
        assert kept.status_code == direct.status_code == 200
        assert kept.headers.get("Cache-Control") == direct.headers.get("Cache-Control")
        assert _blank(kept.text) == _blank(direct.text), (first, second)
        assert "\x00" not in kept.text and _mark(app) not in kept.text
        own = {tokens[second]} | ({tokens["viewer"]} if second == "scorer" else set())
        for role, token in tokens.items():
            if token not in own:
                assert token not in kept.text, (second, role)


@pytest.mark.parametrize("kind", SHARED_KINDS)
@pytest.mark.parametrize("lang", ["en", "fr"])
def test_each_links_page_from_the_other_links_drawing_is_its_own_page(
        app, client, monkeypatch, kind, lang):
    hits = _Hits(monkeypatch)
    path = _new(client, kind)
    _each_page_as_drawn_directly(app, client, path, lang, hits)
    for n in range(3):
        _save(client, path, kind, n)
        _each_page_as_drawn_directly(app, client, path, lang, hits)
    # A refusal (a stale version: the game moved on), then the page again.
    if kind == "rebel-princess":
        refused = client.post(f"{path}/round/1/numbers", data={"score_0": "x"})
    elif kind == "reveillez":
        refused = client.post(f"{path}/act", data={"version": "0", "key": "wake-zz",
                                                   "do": "wake", "slot": "0", "value": "5"})
    else:
        refused = client.post(f"{path}/round", data={"version": "0", "first": "wizard",
                                                     "second": "general", "step": "2",
                                                     "in": ["0"]})
    assert 400 <= refused.status_code < 500
    _each_page_as_drawn_directly(app, client, path, lang, hits)
    if kind == "rebel-princess":
        for n in range(3, 5):  # the last round finishes it: « Play again » is the scorer's
            _save(client, path, kind, n)
        assert 'data-action="again"' in client.get(path).text
        _each_page_as_drawn_directly(app, client, path, lang, hits)
    elif kind != "kanai-duel":
        finished = _finished(app, kind)
        _each_page_as_drawn_directly(app, app.test_client(), finished, lang, hits)


def test_with_csrf_on_no_browser_gets_another_browsers_token(app, client, monkeypatch):
    path = _new(client, "princesse-princesse")
    app.config["WTF_CSRF_ENABLED"] = True
    tokens = _tokens(app, path)
    viewer = path.replace(tokens["scorer"], tokens["viewer"])
    hits = _Hits(monkeypatch)
    csrf = re.compile(r'"X-CSRFToken": "([^"]+)"')
    for first, second in ((path, viewer), (viewer, path)):
        store_backend.clear()
        hits.seen.clear()
        one, two = app.test_client(), app.test_client()
        drew = csrf.search(one.get(first).text)
        found = two.get(second).text
        kept = csrf.search(found)
        assert hits.seen == [False, True]
        assert drew and kept and drew[1] != kept[1]
        assert drew[1] not in found and "\x00" not in found


def test_a_page_that_would_hold_another_links_token_is_not_kept_for_it(
        app, client, monkeypatch):
    """The mutation check: a resolution that left the scorer's token in the viewer's page
    (made from the scorer's drawing) is caught: the viewer's page is drawn when it asks."""
    path = _new(client, "reveillez")
    tokens = _tokens(app, path)
    real = page_store._resolved

    def leaky(drawing: str, role: str, token: str) -> str:
        page = real(drawing, role, token)
        if role == "viewer" and g.link.role == "scorer":  # (the other link's page only)
            page += tokens["scorer"]
        return page
    monkeypatch.setattr(page_store, "_resolved", leaky)
    hits = _Hits(monkeypatch)
    store_backend.clear()
    client.get(path)
    page = app.test_client().get(path.replace(tokens["scorer"], tokens["viewer"])).text
    assert hits.seen == [False, False]
    assert tokens["scorer"] not in page


def test_a_seats_page_is_drawn_for_it_alone_and_no_seat_token_is_shared(
        app, client, monkeypatch):
    answer = client.post("/kanai-duel/new", data={
        "first": "Ana", "second": "Ben", "mode": "phones", "wins": "4", "abilities": "all",
        "set_aside": "none"})
    assert answer.status_code in (302, 303)
    seat_path = answer.headers["Location"]
    tokens = _tokens(app, seat_path)
    assert {"seat1", "seat2"} <= set(tokens)
    path = seat_path.replace(seat_path.rsplit("/", 1)[1], tokens["scorer"])
    _each_page_as_drawn_directly(app, app.test_client(), path, "en", _Hits(monkeypatch))
    hits = _Hits(monkeypatch)
    store_backend.clear()
    client.get(seat_path)  # a seat's page: drawn and kept for that seat only
    page = app.test_client().get(path.replace(tokens["scorer"], tokens["viewer"])).text
    assert hits.seen == [False, False]
    assert tokens["seat1"] not in page and tokens["seat2"] not in page
