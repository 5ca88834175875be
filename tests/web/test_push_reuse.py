"""After a save's COMMIT nothing is read and nothing replayed (companion.play.saved_games): the
save notes the game as it leaves it — its stamp, names, live links, entries and the view its
own replay makes — and the publisher and the pages drawn for the viewers (the scorer's page,
shared; the other language's part, through the viewer link) take it from there.

What they draw is, byte for byte (each browser's CSRF token, form keys and flashed messages
blanked), the page a fresh load draws: for every game whose viewers share the scorer's page, in
English and French, over several saves. A save whose game cannot be taken as it noted it (its
write raced another one and was judged again; a commit that changed a second game; nothing
noted) is published and drawn as before, reading after the commit — and draws the same."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest
from sqlalchemy import event

from companion.extensions import page_store as store_backend
from companion.play import kanai_duel, princesse_princesse, push, rebel_princess, saved_games
from companion.routes import live
from companion.scoring.reveillez import ReveillezGameState
from tests.shell.test_lean_saves import statements

from .test_push import _viewer, publisher  # noqa: F401  (a fixture)
from .test_push_drawing import _channel, _new, _pushed, _same_as_loaded
from .test_push_shared import SHARED_KINDS, _blank, _parts, _save

REPLAYS = [(rebel_princess, "replay_records"), (princesse_princesse, "replay"),
           (kanai_duel, "_replay"), (ReveillezGameState, "push")]
"""Where each game's glue replays a game (Réveillez: each action pushed)."""


@contextmanager
def _after_the_commit(app) -> Iterator[Callable[[], list[str]]]:
    """The statements sent after the block's first COMMIT (all of them, on every engine)."""
    engine = app.extensions["companion.engine"]
    with statements(app) as seen:
        at: list[int] = []

        def committed(_connection) -> None:
            at.append(len(seen))

        event.listen(engine, "commit", committed)
        try:
            yield lambda: seen[at[0]:] if at else ["(no commit)"]
        finally:
            event.remove(engine, "commit", committed)


def _replays_while_drawing(monkeypatch) -> list[str]:
    """The replays each drawing of a viewers' part makes (the publisher's ``draw``)."""
    seen: list[str] = []
    drawing = [False]
    real_draw = live.viewer_part

    def viewer_part(app):
        draw = real_draw(app)

        def counted(game_id: int, lang: str):
            drawing[0] = True
            try:
                return draw(game_id, lang)
            finally:
                drawing[0] = False
        return counted

    for owner, name in REPLAYS:
        real = getattr(owner, name)

        def replay(*args, _real=real, _name=name, **kwargs):
            if drawing[0]:
                seen.append(_name)
            return _real(*args, **kwargs)
        monkeypatch.setattr(owner, name, replay)
    monkeypatch.setattr(live, "viewer_part", viewer_part)
    return seen


def _fresh(client, path: str, lang: str) -> str:
    """The scorer's page drawn afresh (the page store emptied first)."""
    store_backend.clear()
    return client.get(path, headers={"Accept-Language": lang}).text


@pytest.mark.parametrize("kind", SHARED_KINDS)
@pytest.mark.parametrize("lang", ["en", "fr"])
def test_a_save_that_draws_reads_and_replays_nothing_after_its_commit_and_draws_a_fresh_load(
        app, client, publisher, monkeypatch, kind, lang):  # noqa: F811
    client.set_cookie("lang", lang)
    phones = app.test_client()
    path = _new(client, kind)
    viewer = _viewer(client, path)
    names = {each: _channel(phones, viewer, each) for each in ("en", "fr")}
    publisher.listening = set(names.values())
    # (the publisher's drawing made again with the counting one)
    engine = app.extensions["companion.engine"]
    replays = _replays_while_drawing(monkeypatch)
    found = push._PUBLISHERS[engine]
    push.register(engine, push.Publisher(found.settings, found.count,
                                         live.viewer_part(app), found.languages))
    for n in range(3):
        publisher.seen.clear()
        shared = _parts("shared")
        url, form = _save_request(client, path, kind, n)
        with _after_the_commit(app) as after:
            answer = client.post(url, data=form, headers={live.OUTBOX_HEADER: "page"})
        assert answer.status_code == 200, answer.text[:500]
        assert after() == [], (kind, n, after())
        assert replays == [], (kind, n, replays)
        assert _parts("shared") == shared + 1
        # The scorer's page in the save's answer, and kept, is the page a fresh load draws.
        assert _blank(answer.text) == _blank(_fresh(client, path, lang))
        for each, name in names.items():  # each language's part is what a viewer loads
            _same_as_loaded(phones, viewer, _pushed(publisher, name), each)


def _save_request(client, path: str, kind: str, n: int) -> tuple[str, dict]:
    """The address and form of the scorer's ``n``-th save (test_push_shared's ``_save``)."""
    captured: list[tuple[str, dict]] = []

    class Recorder:
        def get(self, *args, **kwargs):
            return client.get(*args, **kwargs)

        def post(self, url, data):
            captured.append((url, data))

            class Answer:
                status_code, text = 303, ""
            return Answer()

    _save(Recorder(), path, kind, n)
    return captured[0]


def test_a_save_whose_game_is_not_noted_is_published_and_drawn_as_before(
        app, client, publisher, monkeypatch):  # noqa: F811
    """Nothing noted (a save judged again after a race, a commit of two games): the publisher
    reads the game after the commit and the drawing reads and replays it — the same pages."""
    monkeypatch.setattr(saved_games, "taken", lambda session: None)
    path = _new(client, "princesse-princesse")
    viewer = _viewer(client, path)
    publisher.listening = {_channel(client, viewer)}
    for n in range(2):
        publisher.seen.clear()
        url, form = _save_request(client, path, "princesse-princesse", n)
        with _after_the_commit(app) as after:
            answer = client.post(url, data=form, headers={live.OUTBOX_HEADER: "page"})
        assert answer.status_code == 200
        assert after(), "read after the commit, as before"
        assert _blank(answer.text) == _blank(_fresh(client, path, "en"))
        _same_as_loaded(client, viewer, _pushed(publisher, _channel(client, viewer)))


def test_a_save_that_lost_a_race_notes_nothing_and_the_winners_page_is_pushed(
        app, client, publisher):  # noqa: F811
    """A double tap whose second tap reaches the database first: this write's INSERT is refused
    (the unique record number), rolled back (what it was about to note with it), and judged
    again on the game read afresh, where it finds its own round stored: nothing written,
    nothing published by it — the part pushed is the winner's, what a viewer loads."""
    path = _new(client, "rebel-princess")
    viewer = _viewer(client, path)
    name = _channel(client, viewer)
    publisher.listening = {name}
    url, form = _save_request(client, path, "rebel-princess", 0)
    form = {**form, "key": "the-same-tap-twice"}
    real = rebel_princess._save_round
    raced: list[int] = []

    def racing(session, game, number, played, mode, base_id, view, key):
        if not raced:  # the other tap, on another worker, stores the round first
            raced.append(0)
            def tap() -> None:
                raced[0] = app.test_client().post(url, data=form).status_code
                if push._CALLS.connection is not None:
                    push._CALLS.connection.close()
            other = threading.Thread(target=tap)
            other.start()
            other.join()
        return real(session, game, number, played, mode, base_id, view, key)

    rebel_princess._save_round = racing
    try:
        publisher.seen.clear()
        answer = client.post(url, data=form, headers={live.OUTBOX_HEADER: "page"})
    finally:
        rebel_princess._save_round = real
    assert raced == [302] and answer.status_code == 302
    assert len([body for _, path_, body in publisher.seen if path_ == f"/pub/{name}"]) == 1
    _same_as_loaded(client, viewer, _pushed(publisher, name))
