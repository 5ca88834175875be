"""Deleting a group while its games are being saved: no save and no delete ever answers 500,
the delete removes the whole group (nothing of it left behind), and a save under way when the
delete commits (410) or arriving after it (404, its link closed) is told the game is gone, on
SQLite and PostgreSQL.

The app is served by a threaded server on a file database (or the PostgreSQL of ``make
test-postgres``); saves of both kinds of storage (Rebel Princess's round records, the entry
log of the other games) run in threads while the group is deleted.
"""

from __future__ import annotations

import http.client
import re
import threading
import urllib.parse
from concurrent.futures import ThreadPoolExecutor

import pytest
from werkzeug.serving import make_server

from ..rebel_princess.conftest import setup_form
from .test_groups import group_of, rows_of_group


@pytest.fixture
def served(app):
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_port
    server.shutdown()
    thread.join()


def _post(port: int, path: str, data: dict) -> tuple[int, str]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    connection.request("POST", path, body=urllib.parse.urlencode(data),
                       headers={"Content-Type": "application/x-www-form-urlencoded"})
    response = connection.getresponse()
    text = response.read().decode()
    connection.close()
    return response.status, text


def _get(port: int, path: str) -> tuple[int, str]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    connection.request("GET", path)
    response = connection.getresponse()
    text = response.read().decode()
    connection.close()
    return response.status, text


def _numbers(scores: list[int]) -> dict[str, str]:
    return {**{f"score_{s}": str(v) for s, v in enumerate(scores)}, "confirm": "y"}


def _duel(client) -> str:
    answer = client.post("/kanai-duel/new", data={
        "first": "Ana", "second": "Ben", "mode": "referee", "wins": "4", "abilities": "all",
        "set_aside": "none"})
    assert answer.status_code == 303, answer.text
    return answer.headers["Location"].rsplit("/", 1)[1]


def _group_with_games(app, client) -> tuple[str, list[str], list[str]]:
    pads = [re.search(r"/g/(\w+)", client.post("/rebel-princess/new", data=setup_form(
        length=5)).headers["Location"])[1] for _ in range(3)]
    duels = [_duel(client) for _ in range(3)]
    group = group_of(app, pads[0])
    assert all(group_of(app, token).id == group.id for token in pads + duels)
    return group.token, pads, duels


ROUNDS = 5
DUEL_ROUNDS = (("general", "minister"), ("minister", "general"), ("prince", "wizard"))


def _saves(port: int, pads: list[str], duels: list[str]) -> list[tuple[int, str]]:
    """Every game's rounds, one thread per game, each round saved as soon as the last was."""

    def pad(token: str) -> list[tuple[int, str]]:
        return [_post(port, f"/rebel-princess/g/{token}/round/{n}/numbers", _numbers([3, 4, 4, 4]))
                for n in range(1, ROUNDS + 1)]

    def duel(token: str) -> list[tuple[int, str]]:
        answers = []
        # Three rounds that end nothing (four wins end the duel; the Princess against the
        # Prince would end it in the first, and the next round would rightly be refused).
        for first, second in DUEL_ROUNDS:
            page = _get(port, f"/kanai-duel/g/{token}")
            version = re.search(r'data-version="(\d+)"', page[1])
            answers.append(page if version is None else _post(
                port, f"/kanai-duel/g/{token}/round",
                {"first": first, "second": second, "version": version[1]}))
        return answers

    with ThreadPoolExecutor(len(pads) + len(duels)) as pool:
        runs = [pool.submit(pad, t) for t in pads] + [pool.submit(duel, t) for t in duels]
        return [answer for run in runs for answer in run.result()]


@pytest.mark.parametrize("trial", range(3))
def test_deleting_a_group_while_its_games_save_answers_no_500(app, client, served, trial):
    token, pads, duels = _group_with_games(app, client)
    group_id = group_of(app, pads[0]).id
    name = client.get(f"/group/{token}/").text
    confirm = re.search(r'name="name"[^>]*value="([^"]*)"', name)[1]
    with ThreadPoolExecutor(2) as pool:
        saving = pool.submit(_saves, served, pads, duels)
        deleting = pool.submit(lambda: (threading.Event().wait(0.05 * trial),
                                        _post(served, f"/group/{token}/delete",
                                              {"confirm": confirm}))[1])
        answers, deleted = saving.result(), deleting.result()
    assert deleted[0] == 303, deleted
    assert all(status in (200, 302, 303, 404, 410) for status, _ in answers), \
        sorted({status for status, _ in answers})
    gone = [text for status, text in answers if status in (404, 410)]
    assert all('data-why="deleted"' in text for text in gone)
    assert rows_of_group(app, group_id) == 0


def test_a_save_after_the_delete_is_told_the_game_is_gone(app, client, served):
    token, pads, duels = _group_with_games(app, client)
    confirm = re.search(r'name="name"[^>]*value="([^"]*)"',
                        client.get(f"/group/{token}/").text)[1]
    assert _post(served, f"/group/{token}/delete", {"confirm": confirm})[0] == 303
    status, text = _post(served, f"/rebel-princess/g/{pads[0]}/round/1/numbers",
                         _numbers([3, 4, 4, 4]))
    assert status == 404 and 'data-closed="game" data-why="deleted"' in text
    status, text = _post(served, f"/kanai-duel/g/{duels[0]}/round",
                         {"first": "princess", "second": "prince", "version": "0"})
    assert status == 404 and 'data-closed="game" data-why="deleted"' in text
    assert _get(served, f"/group/{token}/")[0] == 404
    assert 'data-closed="group" data-why="deleted"' in _get(served, f"/group/{token}/")[1]


@pytest.mark.parametrize("kind", ["pad", "duel"])
def test_a_page_read_while_its_group_is_deleted_is_told_the_game_is_gone(app, client, kind):
    """The interleaving the threads above meet by chance, made certain: the request has read the
    game's row, the delete then removes its seats before the page reads them. The page answers
    that the game is gone (410), never a 500 from a game of no players."""
    from sqlmodel import delete

    from companion.db import get_session
    from companion.models import Player
    from companion.play import store

    _token, pads, duels = _group_with_games(app, client)
    code = pads[0] if kind == "pad" else duels[0]
    path = f"/rebel-princess/g/{code}" if kind == "pad" else f"/kanai-duel/g/{code}"
    assert client.get(path).status_code == 200
    with app.app_context():
        session = get_session()
        game_id = store.game_by_token(session, code).id
        session.exec(delete(Player).where(Player.game_id == game_id))  # (the game row stays)
        session.commit()
    answer = client.get(path)
    assert answer.status_code == 410, answer.text[:500]
    assert 'data-closed="game" data-why="deleted"' in answer.text


def test_a_save_whose_entries_are_read_after_the_delete_is_told_the_game_is_gone(app, client):
    """The third interleaving, made certain: the save has read its game, then the group is
    deleted (one transaction, committed), then the save reads the game's entries — none left.
    The game is gone (GameGone: the phone is told so), not moved on by another phone (a 409 that
    asks to try again): the CI met it once in the threads' race above."""
    from sqlmodel import Session

    from companion.db import get_session
    from companion.play import groups, store

    _token, _pads, duels = _group_with_games(app, client)
    page = client.get(f"/kanai-duel/g/{duels[0]}").text
    version = re.search(r'data-version="(\d+)"', page)[1]
    assert client.post(f"/kanai-duel/g/{duels[0]}/round", data={
        "first": "general", "second": "minister", "version": version}).status_code == 303
    with app.app_context():
        session = get_session()
        game = store.game_by_token(session, duels[0])
        with Session(app.extensions["companion.engine"]) as other:  # another phone's request
            assert groups.delete_group(session=other, group_id=game.group_id)
        with pytest.raises(store.GameGone):
            store.append(session=session, game=game, kind="round", data={},
                         based_on=int(version) + 1)


def test_a_deadlock_the_database_broke_is_a_race_lost_and_a_lost_connection_is_not():
    """A save the database picked to break a deadlock (a finished game's totals written while
    its group is deleted: SQLSTATE 40P01) is judged again like a unique key taken first, and
    answered as the game now stands (gone: 410), never 500; a connection lost, or any other
    error, is not a race and is raised as it is."""
    from sqlalchemy.exc import IntegrityError, OperationalError

    from companion.play.store import lost_race

    class Refused(Exception):
        def __init__(self, sqlstate: str | None) -> None:
            super().__init__(sqlstate)
            self.sqlstate = sqlstate

    assert lost_race(IntegrityError("INSERT", {}, Refused("23505")))
    assert lost_race(OperationalError("UPDATE", {}, Refused("40P01")))
    assert not lost_race(OperationalError("UPDATE", {}, Refused("40P01"),
                                          connection_invalidated=True))
    assert not lost_race(OperationalError("UPDATE", {}, Refused("57014")))  # (cancelled)
    assert not lost_race(OperationalError("UPDATE", {}, Refused(None)))
    assert not lost_race(ValueError("40P01"))
