"""Migration 0010 (every two-phone duel has its seat links) on a database written by release
584e0b5, the last release, holding a two-phone duel stored before seat links as that release
kept it (a secret key per seat in its settings, seat 2's join without a link; a database of
an earlier release upgraded by it): after the upgrade the duel has its two seat links; a browser
that kept a seat's key is sent to that seat's join page and nothing is written on that GET; its
Join button takes the seat. That release's other games get no seat link."""

from __future__ import annotations

import json
import shutil
import sqlite3

from companion import create_app
from tests.kanai_duel.test_kanai_duel_web import join
from tests.shell.test_no_write_on_read import writes

from ..conftest import DATA

LEGACY = {"mode": "phones", "variants": [], "out": [None, None], "seat_keys": ["key-a", "key-b"]}


def _legacy_duel(path) -> None:
    """A two-phone duel as stored before seat links, in the first group of the fixture."""
    with sqlite3.connect(path) as db:
        at = "2026-11-20 20:00:00.000000"
        game = db.execute(
            "INSERT INTO game (code, created_at, updated_at, kind, settings, group_id)"
            " VALUES ('legacy', ?, ?, 'kanai_duel', ?, 1)", (at, at, json.dumps(LEGACY))).lastrowid
        for seat, person in enumerate((1, 2)):
            db.execute("INSERT INTO player (game_id, seat, name, person_id) VALUES (?, ?, ?, ?)",
                       (game, seat, ("Ana", "Ben")[seat], person))
        db.execute("INSERT INTO entry (game_id, seq, kind, data, key, created_at)"
                   " VALUES (?, 1, 'join', '{\"seat\": 1}', 'join-1', ?)", (game, at))
        db.execute("INSERT INTO gamelink (game_id, role, token, created_at)"
                   " VALUES (?, 'scorer', ?, ?)", (game, "c" * 32, at))


def test_a_duel_stored_before_seat_links_gets_them_and_no_get_writes(tmp_path):
    path = tmp_path / "companion.sqlite"
    shutil.copy(DATA / "db_584e0b5.sqlite", path)
    _legacy_duel(path)
    app = create_app({"TESTING": True, "WTF_CSRF_ENABLED": False, "SECRET_KEY": "test",
                      "DATABASE": str(path)})
    try:
        assert app.test_cli_runner().invoke(args=["init-db"]).exit_code == 0
        with sqlite3.connect(path) as db:
            seats = db.execute(
                "SELECT game.code, gamelink.role FROM gamelink JOIN game ON game.id ="
                " gamelink.game_id WHERE gamelink.role LIKE 'seat%' ORDER BY role").fetchall()
        assert seats == [("legacy", "seat1"), ("legacy", "seat2")]
        phone = app.test_client()
        with phone.session_transaction() as cookie:
            cookie["kanai_duel_seats"] = {"legacy": "key-b"}
        with writes(app) as written:
            answer = phone.get("/kanai-duel/g/" + "c" * 32)
        assert answer.status_code == 303 and answer.headers["Location"].endswith("/join")
        assert written == []
        seat = join(phone, answer.headers["Location"])
        assert 'data-seat="1"' in phone.get(seat).text
    finally:
        app.extensions["companion.engine"].dispose()
