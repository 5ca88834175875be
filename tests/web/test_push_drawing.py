"""The viewers' part drawn after a commit, and each page's stream, from what was read once: the
part is drawn through the viewer link read with the game's version after the commit
(``push.viewer_being_drawn``), and a game's page names its stream from the live links it read
for its page-store key (``page_store.live_links_read``). Neither may ever show a stale or wrong
page: after a correction, an undo, a replaced link, in either language, the part a viewer gets
is the part a viewer loading the page gets, and every page listens where the app publishes."""

from __future__ import annotations

import re

import pytest

from companion.db import get_session
from companion.play import push, store
from companion.routes import live

from .test_push import SCORES, _new_game, _part, _viewer, publisher  # noqa: F401  (a fixture)

CHANNEL = re.compile(r'data-push-url="/live-push/([0-9a-f]+)"')


def _channel(client, path: str, lang: str = "en") -> str:
    found = CHANNEL.search(client.get(path, headers={"Accept-Language": lang}).text)
    assert found is not None
    return found[1]


def _expected(app, token: str, part: str = "") -> str:
    """The channel the app publishes to for the game of ``token`` now (its live links read
    afresh): ``part`` names a viewers' channel."""
    with app.app_context():
        session = get_session()
        game = store.game_by_token(session, token)
        assert game is not None and game.id is not None
        ids = [link.id for link in store.live_links(session, game) if link.id is not None]
        return push.channel(app.config["SECRET_KEY"], game.id, ids, part)


def _pushed(proxy, name: str) -> str:
    """The last part published to channel ``name`` (a message with the version alone fails)."""
    bodies = [body for method, path, body in proxy.seen
              if method == "POST" and path == f"/pub/{name}"]
    assert bodies, f"nothing published to {name}"
    version, _, part = bodies[-1].partition("\n")
    assert part, "the version alone: the part was not drawn"
    return part


def _same_as_loaded(client, viewer: str, part: str, lang: str = "en") -> None:
    page = client.get(viewer, headers={"Accept-Language": lang}).text
    assert _part(f"{live.LIVE_PART}{part}{live.LIVE_PART_END}") == _part(page)


def _new(client, kind: str) -> str:
    """A new game of ``kind`` opened by its scorer: its page's path."""
    forms = {
        "kanai-duel": {"first": "Ana", "second": "Ben", "mode": "referee", "wins": "4",
                       "abilities": "all", "set_aside": "none"},
        "princesse-princesse": {f"names-{s}": n for s, n in enumerate(["Ana", "Ben", "Cy"])}
        | {"first": "0"},
        "reveillez": {f"names-{s}": n for s, n in enumerate(["Ana", "Ben", "Cy"])}
        | {"first": "0"},
    }
    if kind == "rebel-princess":
        return _new_game(client)[0]
    answer = client.post(f"/{kind}/new", data=forms[kind])
    assert answer.status_code in (302, 303), answer.text[:2000]
    return answer.headers["Location"]


@pytest.mark.parametrize("kind", ["rebel-princess", "princesse-princesse", "reveillez",
                                  "kanai-duel"])
def test_every_page_listens_where_the_app_publishes_before_and_after_a_replaced_link(
        app, client, publisher, kind):  # noqa: F811
    path = _new(client, kind)
    token = path.rsplit("/", 1)[1]
    for _round in range(2):
        viewer = _viewer(client, path)
        assert _channel(client, path) == _expected(app, token)
        for lang in ("en", "fr"):
            assert _channel(client, viewer, lang) == _expected(app, token, f"viewer-{lang}")
        # A replaced viewer link moves every channel: the scorer's page, drawn again with the
        # same version, must not keep the old one.
        assert client.post(f"/share/{token}/replace/viewer").status_code == 303


def test_a_part_after_a_replaced_viewer_link_is_drawn_through_the_new_link(app, client,
                                                                          publisher):  # noqa: F811
    path, token = _new_game(client)
    old = _viewer(client, path).rsplit("/", 1)[1]
    assert client.post(f"/share/{token}/replace/viewer").status_code == 303
    viewer = _viewer(client, path)
    new = viewer.rsplit("/", 1)[1]
    name = _channel(client, viewer)
    publisher.listening = {name}
    publisher.seen.clear()
    assert client.post(f"{path}/round/1/numbers", data=SCORES).status_code == 302
    part = _pushed(publisher, name)
    assert new in part and old not in part and token not in part
    _same_as_loaded(client, viewer, part)


def test_a_correction_and_an_undo_push_the_part_a_viewer_then_loads(app, client, publisher):  # noqa: F811
    path, token = _new_game(client)
    viewer = _viewer(client, path)
    names = {lang: _channel(client, viewer, lang) for lang in ("en", "fr")}
    publisher.listening = set(names.values())
    assert client.post(f"{path}/round/1/numbers", data=SCORES).status_code == 302
    for lang, name in names.items():
        _same_as_loaded(client, viewer, _pushed(publisher, name), lang)
    # A correction of round 1: the pad shows the new scores.
    form = client.get(f"{path}/round/1/numbers").text
    base = re.search(r'name="base"[^>]*value="(\d+)"|value="(\d+)"[^>]*name="base"', form)
    assert base is not None
    corrected = {**SCORES, "score_0": "2", "score_1": "5", "base": base[1] or base[2]}
    publisher.seen.clear()
    assert client.post(f"{path}/round/1/numbers", data=corrected).status_code == 302
    for lang, name in names.items():
        part = _pushed(publisher, name)
        _same_as_loaded(client, viewer, part, lang)
        assert ">5<" in part.replace(" ", "")
    # An undo: back to the first entry.
    version = re.search(r'name="version" value="(\d+)"', client.get(path).text)
    assert version is not None
    publisher.seen.clear()
    assert client.post(f"{path}/undo", data={"version": version[1]}).status_code == 302
    for lang, name in names.items():
        part = _pushed(publisher, name)
        _same_as_loaded(client, viewer, part, lang)
        assert ">5<" not in part.replace(" ", "")


def test_the_viewers_part_is_drawn_alone_without_the_page_around_it_nor_the_page_store(
        app, client, publisher, monkeypatch):  # noqa: F811
    """The drawing after a save through the viewer link (here: viewers in French, the scorer's
    phone in English, so nothing to share: tests/web/test_push_shared.py) renders the content
    alone (base.html's ``live_part_only``) and neither reads nor writes the page store: the
    phones it is for load no page."""
    from companion.extensions import page_store

    path, token = _new_game(client)
    viewer = _viewer(client, path)
    name = _channel(client, viewer, "fr")
    publisher.listening = {name}
    used: list[str] = []

    def counting(method: str):
        real = getattr(page_store, method)

        def counted(*args, **kwargs):
            used.append(method)
            return real(*args, **kwargs)
        return counted
    for method in ("get", "set"):
        monkeypatch.setattr(page_store, method, counting(method))
    publisher.seen.clear()
    assert client.post(f"{path}/round/1/numbers", data=SCORES).status_code == 302
    part = _pushed(publisher, name)
    assert used == []
    assert "<body" not in part and "data-theme-pick" not in part
    _same_as_loaded(client, viewer, part, "fr")
    # The viewer's load: drawn then, and kept (with the scorer link's page, the same drawing).
    assert used == ["get", "set", "set"]
