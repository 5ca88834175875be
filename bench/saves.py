"""A save against its floor (issue 31: "a save ≤ 5× the floor save with its replay").

Run ``python -m bench.saves`` (``--games N``; ``--database-url postgresql://…`` for PostgreSQL,
e.g. the URL ``scripts/postgres.sh companion_bench`` prints). In one process, alternating, on
SQLite (WAL) files in a temporary folder, or on that PostgreSQL database:

- **the app's save**: a Kanai duel round (referee mode, three rounds that end nothing) posted
  through the app as shipped, as a browser does: the page's form (its CSRF token, version and
  key) sent back with the browser's session cookie, rate limits on (each phone from its own
  address, as behind a proxy), ``POST /kanai-duel/g/<scorer link>/round``, timed around the WSGI
  app (request in, the 303 out): routing, the session cookie, CSRF, the write limit, the form,
  reading the game, checking and replaying it, writing the entry, the game's stamp and its
  history summary, the after-request hooks and the access log line;
- **the floor**: what no save can do without, by hand on a bare connection (``sqlite3`` to a
  file of the same kind, or ``psycopg`` to the same PostgreSQL database): read the game's rounds
  (one indexed ``SELECT``), replay them and check the new one with the same rules core
  (``Duel.replay`` then ``Duel.play``), then in one transaction insert the entry and update the
  game's stamp and summary (one ``INSERT``, one ``UPDATE``, ``COMMIT``).

A plain Flask hello answered in the same process, between the saves, is the cost of any HTTP
request's cycle: the table gives the ratio to the floor alone and to the floor plus that cycle.
Median CPU ms of each, and their ratios (same run). Not a test: nothing asserts on a timing.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

from . import table
from .server_clock import ServerClock

if TYPE_CHECKING:
    from flask.testing import FlaskClient

ROUNDS = (("general", "minister"), ("minister", "general"), ("prince", "wizard"))
"""Three referee rounds that end nothing (four wins end the duel)."""


class Floor:
    """The floor save on a bare sqlite3 connection (WAL, as the app's files)."""

    def __init__(self, path: Path) -> None:
        self.db = sqlite3.connect(path, isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.executescript("""
            CREATE TABLE game (id INTEGER PRIMARY KEY, version INTEGER NOT NULL,
                               summary TEXT NOT NULL, stamp TEXT NOT NULL);
            CREATE TABLE entry (id INTEGER PRIMARY KEY, game_id INTEGER NOT NULL,
                                number INTEGER NOT NULL, first TEXT NOT NULL,
                                second TEXT NOT NULL, UNIQUE (game_id, number));
        """)

    def new_game(self) -> int:
        cursor = self.db.execute("INSERT INTO game (version, summary, stamp) VALUES (0, '', '')")
        assert cursor.lastrowid is not None
        return cursor.lastrowid

    def save(self, game: int, first: str, second: str) -> None:
        from companion.scoring.kanai_duel.cards import DuelCard
        from companion.scoring.kanai_duel.state import Duel

        rounds = self.db.execute("SELECT first, second FROM entry WHERE game_id = ? "
                                 "ORDER BY number", (game,)).fetchall()
        duel = Duel().replay((DuelCard(a), DuelCard(b)) for a, b in rounds)
        duel.play(DuelCard(first), DuelCard(second))
        self.db.execute("BEGIN IMMEDIATE")
        self.db.execute("INSERT INTO entry (game_id, number, first, second) VALUES (?, ?, ?, ?)",
                        (game, len(rounds) + 1, first, second))
        self.db.execute("UPDATE game SET version = version + 1, summary = ?, "
                        "stamp = datetime('now') WHERE id = ?", (str(duel), game))
        self.db.execute("COMMIT")


class PostgresFloor:
    """The floor save on a bare psycopg connection to the app's PostgreSQL database (tables of
    its own, made afresh): the same statements as :class:`Floor`; psycopg opens the transaction
    with the first statement, as the app's driver does."""

    def __init__(self, url: str) -> None:
        import psycopg

        self.db = psycopg.connect(url.replace("postgresql+psycopg://", "postgresql://"))
        with self.db.cursor() as cursor:
            cursor.execute("DROP TABLE IF EXISTS bench_floor_entry, bench_floor_game")
            cursor.execute("""CREATE TABLE bench_floor_game (
                id SERIAL PRIMARY KEY, version INTEGER NOT NULL, summary TEXT NOT NULL,
                stamp TIMESTAMPTZ NOT NULL DEFAULT now())""")
            cursor.execute("""CREATE TABLE bench_floor_entry (
                id SERIAL PRIMARY KEY, game_id INTEGER NOT NULL REFERENCES bench_floor_game,
                number INTEGER NOT NULL, first TEXT NOT NULL, second TEXT NOT NULL,
                UNIQUE (game_id, number))""")
        self.db.commit()

    def new_game(self) -> int:
        with self.db.cursor() as cursor:
            cursor.execute("INSERT INTO bench_floor_game (version, summary) VALUES (0, '') "
                           "RETURNING id")
            row = cursor.fetchone()
        self.db.commit()
        assert row is not None
        return int(row[0])

    def save(self, game: int, first: str, second: str) -> None:
        from companion.scoring.kanai_duel.cards import DuelCard
        from companion.scoring.kanai_duel.state import Duel

        with self.db.cursor() as cursor:
            cursor.execute("SELECT first, second FROM bench_floor_entry WHERE game_id = %s "
                           "ORDER BY number", (game,))
            rounds = cursor.fetchall()
            duel = Duel().replay((DuelCard(a), DuelCard(b)) for a, b in rounds)
            duel.play(DuelCard(first), DuelCard(second))
            cursor.execute("INSERT INTO bench_floor_entry (game_id, number, first, second) "
                           "VALUES (%s, %s, %s, %s)", (game, len(rounds) + 1, first, second))
            cursor.execute("UPDATE bench_floor_game SET version = version + 1, summary = %s, "
                           "stamp = now() WHERE id = %s", (str(duel), game))
        self.db.commit()

    def close(self) -> None:
        with self.db.cursor() as cursor:
            cursor.execute("DROP TABLE IF EXISTS bench_floor_entry, bench_floor_game")
        self.db.commit()
        self.db.close()


HIDDEN = re.compile(r'<input id="(csrf_token|version|key)" name="\1" type="hidden" value="([^"]*)"')


def round_form(page: str, url: str) -> dict[str, str]:
    """The hidden fields of the page's round form (CSRF token, version, key), as a browser
    sends them back."""
    start = page.index(f'action="{url}/round"')
    return dict(HIDDEN.findall(page[start:page.index("</form>", start)]))


def new_duel(client: FlaskClient, environ: dict[str, str]) -> str:
    """A new Kanai duel (referee mode) made through the app's form, as a browser makes one; the
    scorer's page's path."""
    page = client.get("/kanai-duel/new", environ_base=environ).text
    token = re.search(r'name="csrf_token" type="hidden" value="([^"]+)"', page)
    assert token is not None
    answer = client.post("/kanai-duel/new", environ_base=environ, data={
        "first": "Ana", "second": "Ben", "mode": "referee", "wins": "4",
        "abilities": "all", "set_aside": "none", "csrf_token": token[1]})
    assert answer.status_code == 303, answer.status_code
    return str(answer.headers["Location"])


def run(games: int = 100, database_url: str | None = None) -> dict[str, float]:
    from companion import create_app

    folder = Path(tempfile.mkdtemp(prefix="bench-saves-"))
    app = create_app({"DATABASE": str(folder / "app.sqlite"), "SECRET_KEY": "bench",
                      "DATABASE_URL": database_url})  # as shipped: CSRF and rate limits on
    if database_url:
        from companion.db import upgrade

        upgrade(app.extensions["companion.engine"])  # a bench database kept from an older release
    clock = ServerClock(app.wsgi_app)
    app.wsgi_app = clock  # type: ignore[method-assign]
    floor: Floor | PostgresFloor = (PostgresFloor(database_url) if database_url
                                    else Floor(folder / "floor.sqlite"))

    from werkzeug.test import Client

    from .hello import app as hello

    hello_clock = ServerClock(hello.wsgi_app)
    hello_client = Client(hello_clock)

    app_ms: list[float] = []
    floor_ms: list[float] = []
    hello_ms: list[float] = []
    for phone in range(games + 5):  # the first five games warm both sides up, untimed
        client = app.test_client()  # a browser: its own cookie (the session, CSRF's secret)
        environ = {"REMOTE_ADDR": f"10.2.{phone >> 8 & 255}.{phone & 255}"}
        url = new_duel(client, environ)
        game = floor.new_game()
        for first, second in ROUNDS:
            page = client.get(url, environ_base=environ)
            assert page.status_code == 200, page.status_code
            answer = client.post(f"{url}/round", environ_base=environ, data={
                **round_form(page.text, url), "first": first, "second": second})
            assert answer.status_code == 303, answer.status_code
            spent = clock.last[1]
            cpu = time.process_time()
            floor.save(game, first, second)
            floor_spent = (time.process_time() - cpu) * 1000
            hello_client.get("/")
            if phone >= 5:
                floor_ms.append(floor_spent)
                app_ms.append(spent)
                hello_ms.append(hello_clock.last[1])
    if isinstance(floor, PostgresFloor):
        floor.close()
    app.extensions["companion.engine"].dispose()
    shutil.rmtree(folder, ignore_errors=True)
    return {"app": statistics.median(app_ms), "floor": statistics.median(floor_ms),
            "app_fastest": min(app_ms), "floor_fastest": min(floor_ms),
            "hello": statistics.median(hello_ms), "hello_fastest": min(hello_ms),
            "saves": float(len(app_ms))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100,
                        help="duels of three rounds each (default 100: 300 saves of each kind)")
    parser.add_argument("--database-url", default=None,
                        help="PostgreSQL for the app and its floor (default: SQLite files)")
    arguments = parser.parse_args()
    load = os.getloadavg()[0]
    found = run(arguments.games, arguments.database_url)
    where = "PostgreSQL" if arguments.database_url else "SQLite (WAL)"
    bare = "psycopg" if arguments.database_url else "sqlite3"
    print(f"A save against its floor: {int(found['saves'])} Kanai duel rounds of each kind, "
          f"alternating, one process, {where}, the app as shipped (CSRF, rate limits, a "
          f"browser's cookie); load average {load:.2f} (1 min) at the start, "
          f"{os.getloadavg()[0]:.2f} at the end, on this machine.\n")
    print(table(["save", "median CPU ms", "fastest CPU ms"], [
        ["the app's save (POST round, the 303 out)", f"{found['app']:.2f}",
         f"{found['app_fastest']:.2f}"],
        [f"the floor on a bare {bare} connection (SELECT, replay and check, INSERT, UPDATE, "
         "COMMIT)", f"{found['floor']:.2f}", f"{found['floor_fastest']:.2f}"],
        ["a plain Flask hello (bench/hello.py, GET /, in process)", f"{found['hello']:.2f}",
         f"{found['hello_fastest']:.2f}"],
    ], align="lrr"))
    with_hello = found["floor"] + found["hello"]
    print(f"\n- app / floor: **{found['app'] / found['floor']:.1f}x** (medians, same run); "
          f"app / (floor + a hello's request cycle): **{found['app'] / with_hello:.1f}x** "
          "(aim: 5x at most).")


if __name__ == "__main__":
    main()
