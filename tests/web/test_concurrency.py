"""Saves that race: the app under gunicorn with several workers, hit by simultaneous requests.

Each round is stored exactly once, whatever arrives at the same moment: identical saves (a double
tap, a retry) are all answered "saved" and stored once; different saves of the same round store
one and refuse the others; two phones editing one round store the first and refuse the second.
The database itself decides (a unique record number per game), so this holds across processes.
"""

from __future__ import annotations

import http.client
import re
import socket
import subprocess
import sys
import threading
import time
import urllib.parse
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from sqlalchemy import Engine, text

from companion import create_app

from ..conftest import POSTGRES_URL, empty_tables, stop_server

WORKERS = 4
SCORES_15 = [[a, b, c, 15 - a - b - c] for a in range(6) for b in range(6) for c in range(4)]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


BACKENDS = ["sqlite", *(["postgres"] if POSTGRES_URL else [])]


@pytest.fixture(scope="module", params=BACKENDS)
def server(request, tmp_path_factory):
    """gunicorn with several sync workers on a migrated database (CSRF off): SQLite, and
    PostgreSQL too when the run has one (``make test-postgres``)."""
    yield from gunicorn(request.param, tmp_path_factory.mktemp("race"), WORKERS)


def gunicorn(backend: str, folder: Path, workers: int):
    """Serve the app with gunicorn and ``workers`` sync workers on ``backend`` ("sqlite" or
    "postgres"); yields its port and the database's engine, then stops it."""
    config = {"DATABASE": str(folder / "race.sqlite"), "WTF_CSRF_ENABLED": False,
              "SECRET_KEY": "race", "TESTING": True,
              "DATABASE_URL": POSTGRES_URL if backend == "postgres" else None}
    app = create_app(config)  # migrate before the workers start, as `make run` does
    empty_tables(app)
    database = app.extensions["companion.engine"]
    port = _free_port()
    process = subprocess.Popen(
        [str(Path(sys.executable).with_name("gunicorn")), "--no-control-socket", "-w",
         str(workers), "-b", f"127.0.0.1:{port}", "--log-level", "warning",
         f"companion:create_app({config!r})"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 120  # a busy machine starts eight workers slowly
    while time.monotonic() < deadline:
        try:
            if _request(port, "GET", "/")[0] == 200:
                break
        except OSError:
            time.sleep(0.2)
    else:
        process.kill()
        output = process.communicate()[0].decode()[-2000:]
        pytest.fail("gunicorn did not start: " + output)
    yield port, database
    stop_server(process)
    database.dispose()


def _request(port: int, method: str, path: str, data: dict | None = None
             ) -> tuple[int, str, str]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    body = urllib.parse.urlencode(data or {})
    headers = {"Content-Type": "application/x-www-form-urlencoded"} if data else {}
    try:  # closed even when the server is not up yet (the start-up polls)
        connection.request(method, path, body=body if data else None, headers=headers)
        response = connection.getresponse()
        text = response.read().decode()
        location = response.getheader("Location") or ""
    finally:
        connection.close()
    return response.status, location, text


def _new_game(port: int) -> str:
    data = {"edition": "deluxe", "length": "5", "first_leader": "0", "create": "1",
            **{f"names-{s}": n for s, n in enumerate(["Ana", "Ben", "Cy", "Di"])},
            **{f"cards-{i}": c for i, c in enumerate("abcde")}}
    status, location, _ = _request(port, "POST", "/rebel-princess/new", data)
    assert status == 302
    return location.rsplit("/", 1)[1]


def _numbers(scores: list[int], **extra: str) -> dict[str, str]:
    return {**{f"score_{s}": str(v) for s, v in enumerate(scores)}, "confirm": "y", **extra}


def _at_once(port: int, path: str, bodies: list[dict]) -> list[tuple[int, str, str]]:
    """POST every body to ``path`` at the same moment (one thread each, released together)."""
    start = threading.Barrier(len(bodies))

    def post(body: dict) -> tuple[int, str, str]:
        start.wait()
        return _request(port, "POST", path, body)

    with ThreadPoolExecutor(len(bodies)) as pool:
        return list(pool.map(post, bodies))


def _records(database: Engine, code: str) -> list[tuple[int, str, str | None]]:
    with database.connect() as db:
        return [tuple(row) for row in db.execute(text(
            "SELECT r.number, r.action, r.scores FROM roundrecord r JOIN gamelink k ON "
            "k.game_id = r.game_id WHERE k.token = :code ORDER BY r.id"), {"code": code})]


def _base_id(port: int, code: str) -> str:
    """The stored version of round 1 that its edit page is based on."""
    page = _request(port, "GET", f"/rebel-princess/g/{code}/round/1/numbers")[2]
    field = re.search(r'<input[^>]*name="base"[^>]*>', page)[0]
    return re.search(r'value="(\d+)"', field)[1]


@pytest.mark.parametrize("trial", range(3))
def test_identical_saves_at_once_store_one_round_and_all_say_saved(server, trial):
    port, database = server
    code = _new_game(port)
    answers = _at_once(port, "/rebel-princess"
                             f"/g/{code}/round/1/numbers", [_numbers([3, 4, 4, 4])] * 20)
    assert [a[:2] for a in answers] == [(302, f"/rebel-princess/g/{code}")] * 20
    assert _records(database, code) == [(1, "entered", "3,4,4,4")]


@pytest.mark.parametrize("trial", range(3))
def test_different_saves_at_once_store_one_and_refuse_the_rest(server, trial):
    port, database = server
    code = _new_game(port)
    bodies = [_numbers(scores) for scores in SCORES_15[trial * 20:(trial + 1) * 20]]
    answers = _at_once(port, f"/rebel-princess/g/{code}/round/1/numbers", bodies)
    saved = [body for body, answer in zip(bodies, answers, strict=True) if answer[0] == 302]
    refused = [answer for answer in answers if answer[0] != 302]
    assert len(saved) == 1
    assert all(status == 422 and 'data-problem="round-already-saved"' in text
               for status, _, text in refused)
    stored = _records(database, code)
    winner = ",".join(saved[0][f"score_{s}"] for s in range(4))
    assert stored == [(1, "entered", winner)]


@pytest.mark.parametrize("trial", range(3))
def test_two_phones_editing_one_round_store_the_first_and_refuse_the_second(server, trial):
    port, database = server
    code = _new_game(port)
    assert _request(port, "POST", "/rebel-princess"
                                  f"/g/{code}/round/1/numbers", _numbers([3, 4, 4, 4]))[0] == 302
    base = _base_id(port, code)
    edits = [_numbers([0, 5, 5, 5], base=base), _numbers([5, 0, 5, 5], base=base)]
    answers = _at_once(port, f"/rebel-princess/g/{code}/round/1/numbers", edits)
    statuses = sorted(a[0] for a in answers)
    assert statuses == [302, 422]
    loser = next(a for a in answers if a[0] == 422)
    assert 'data-problem="stale-edit"' in loser[2]
    winner = edits[[a[0] for a in answers].index(302)]
    stored = _records(database, code)
    assert stored[:1] == [(1, "entered", "3,4,4,4")]
    assert stored[1:] == [(1, "edited", ",".join(winner[f"score_{s}"] for s in range(4)))]


def test_a_double_tap_on_undo_undoes_once(server):
    port, database = server
    code = _new_game(port)
    for number, scores in ((1, [3, 4, 4, 4]), (2, [4, 4, 4, 3])):
        assert _request(port, "POST", f"/rebel-princess/g/{code}/round/{number}/numbers",
                        _numbers(scores))[0] == 302
    answers = _at_once(port, f"/rebel-princess/g/{code}/undo", [{"version": "2"}] * 2)
    assert [a[:2] for a in answers] == [(302, f"/rebel-princess/g/{code}")] * 2
    assert [r[:2] for r in _records(database, code)] == [(1, "entered"), (2, "entered"),
                                                        (2, "undone")]


# --- the Kanai duel on two phones: a burst of picks, two browsers joining at once ---------------

def _browser_request(port: int, path: str, data: dict | None, cookie: str = ""
                     ) -> tuple[int, str, str]:
    """A request as one browser: its session cookie sent, the one it gets back returned."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    headers = {"Cookie": cookie} if cookie else {}
    if data is not None:
        headers["Content-Type"] = "application/x-www-form-urlencoded"
    connection.request("POST" if data is not None else "GET", path,
                       body=urllib.parse.urlencode(data) if data is not None else None,
                       headers=headers)
    response = connection.getresponse()
    response.read()
    got = (response.getheader("Set-Cookie") or "").split(";")[0]
    result = response.status, response.getheader("Location") or "", got or cookie
    connection.close()
    return result


def _entries(database: Engine, kind: str) -> list[str]:
    with database.connect() as db:
        return [row[0] for row in db.execute(
            text("SELECT data FROM entry WHERE kind = :kind ORDER BY id"), {"kind": kind})]


def test_a_burst_of_different_picks_stores_one_pick(server):
    """One seat sends eight different picks for round 1 at the same moment: one is stored, the
    others are refused (409); the database refuses a second pick of a seat for a round."""
    port, database = server
    status, seat1, cookie = _browser_request(port, "/kanai-duel/new", {
        "first": "Ana", "second": "Ben", "mode": "phones", "wins": "4", "abilities": "all",
        "set_aside": "none"})
    assert status == 303
    path = urllib.parse.urlsplit(seat1).path
    before = len(_entries(database, "pick"))
    cards = ["prince", "princess", "general", "wizard", "minister", "assassin", "spy", "clown"]
    start = threading.Barrier(len(cards))

    def pick(card: str) -> int:
        start.wait()
        return _browser_request(port, f"{path}/pick",
                                {"card": card, "version": "1", "round": "1"}, cookie)[0]

    with ThreadPoolExecutor(len(cards)) as pool:
        answers = list(pool.map(pick, cards))
    assert sorted(answers) == [303] + [409] * 7, answers
    assert len(_entries(database, "pick")) == before + 1


def test_two_browsers_joining_at_once_take_the_seat_once(server):
    """Two browsers press Join on the same link at the same moment: one takes the seat, the other
    is told it is taken; one join is stored."""
    port, database = server
    status, seat1, cookie = _browser_request(port, "/kanai-duel/new", {
        "first": "Ana", "second": "Ben", "mode": "phones", "wins": "4", "abilities": "all",
        "set_aside": "none"})
    assert status == 303
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.request("GET", urllib.parse.urlsplit(seat1).path, headers={"Cookie": cookie})
    page = connection.getresponse().read().decode()
    connection.close()
    join = re.search(r'/kanai-duel/g/\w+/join', page)[0]
    before = len(_entries(database, "join"))
    start = threading.Barrier(2)

    def press(_: int) -> int:
        start.wait()
        return _browser_request(port, join, {})[0]

    with ThreadPoolExecutor(2) as pool:
        answers = sorted(pool.map(press, range(2)))
    assert answers == [303, 403], answers
    assert len(_entries(database, "join")) == before + 1
