"""Migration 0013 (the idempotency key of Rebel Princess's round records).

On a database written by the last landed release with a fixture, 584e0b5: every round record is
kept as it was, with no key; the saves made afterwards are keyed (a form sent again is stored
once), on old games as on new ones; a server of the previous release, which names its columns and
knows nothing of the key, still writes beside the new one during a rolling upgrade. And the step
from 0012 itself, on SQLite and on PostgreSQL (``TEST_DATABASE_URL``): rows kept, the key
nullable, a key refused twice in one game, and back down again."""

from __future__ import annotations

import json
import re
import sqlite3

import pytest
from alembic import command
from sqlalchemy import inspect, text
from sqlalchemy.exc import IntegrityError

from companion.db import _alembic_config, head, make_engine, upgrade
from companion.play.store import KEY_MARK

from ..conftest import DATA, POSTGRES_URL, _own_postgres, upgraded_copy

FACTS = json.loads((DATA / "db_584e0b5.json").read_text(encoding="utf-8"))

OLD_COLUMNS = ("id", "game_id", "seq", "number", "action", "deleted", "undoes", "mode",
               "round_card", "taken", "no_tricks", "scores", "counts", "leader",
               "last_trick_winner", "created_at")
"""The round record's columns as the release before 0013 names them when it writes one."""


@pytest.fixture(scope="module")
def upgraded(tmp_path_factory):
    yield from upgraded_copy(tmp_path_factory.mktemp("round-keys-upgrade"), "584e0b5")


def rows(path, query: str) -> list[tuple]:
    with sqlite3.connect(path) as db:
        return db.execute(query).fetchall()


def key_of(html: str) -> str:
    return re.search(r'name="key" type="hidden" value="([^"]+)"', html)[1]


def test_every_old_record_is_kept_with_no_key(upgraded):
    _, path = upgraded
    columns = ", ".join(OLD_COLUMNS)
    query = f"SELECT {columns} FROM roundrecord ORDER BY id"
    old = rows(DATA / "db_584e0b5.sqlite", query)
    assert old and rows(path, query) == old
    assert rows(path, "SELECT version_num FROM alembic_version") == [(head(),)]
    assert rows(path, "SELECT count(*) FROM roundrecord WHERE key IS NOT NULL") == [(0,)]


def test_new_saves_on_an_old_game_are_keyed_and_stored_once(upgraded):
    app, path = upgraded
    phone = app.test_client()
    game = f"/rebel-princess/g/{FACTS['scorer']['open']}"
    page = phone.get(f"{game}/round/1/numbers")
    assert page.status_code == 200
    players = len(re.findall(r'name="score_\d+"', page.text))
    data = {f"score_{seat}": "0" for seat in range(players)} | {"key": key_of(page.text),
                                                                "confirm": "y"}
    data |= {"last_trick": "0"} if 'name="last_trick"' in page.text else {}
    before = rows(path, "SELECT count(*) FROM roundrecord")[0][0]
    for _ in range(2):  # the form, and the same form sent again
        answer = phone.post(f"{game}/round/1/numbers", data=data)
        assert answer.status_code == 302, answer.text[-2000:]
    keys = rows(path, "SELECT key FROM roundrecord WHERE key IS NOT NULL")
    assert rows(path, "SELECT count(*) FROM roundrecord")[0][0] == before + 1
    assert len(keys) == 1 and keys[0][0].startswith(data["key"] + KEY_MARK)


def test_an_old_games_records_are_undone_by_a_keyed_undo_once(upgraded):
    app, path = upgraded
    phone = app.test_client()
    game = f"/rebel-princess/g/{FACTS['scorer']['rp']}"
    pad = phone.get(game).text
    version = re.search(r'name="version" value="(\d+)"', pad)[1]
    undo = {"version": version, "key": key_of(pad)}
    before = rows(path, "SELECT count(*) FROM roundrecord")[0][0]
    for _ in range(2):
        assert phone.post(f"{game}/undo", data=undo).status_code == 302
    assert rows(path, "SELECT count(*) FROM roundrecord")[0][0] == before + 1
    last = rows(path, "SELECT action, key FROM roundrecord ORDER BY id DESC LIMIT 1")[0]
    assert last[0] == "undone" and last[1].startswith(undo["key"] + KEY_MARK)


def test_a_server_of_the_previous_release_still_writes_records(upgraded):
    """During a rolling upgrade a server of the previous release writes a record naming the
    columns it knows: its record has no key, and the game reads on."""
    app, path = upgraded
    game_id, seq = rows(path, "SELECT id, (SELECT coalesce(max(seq), 0) FROM roundrecord "
                              "WHERE game_id = game.id) FROM game WHERE code = 'y3vbbz'")[0]
    names = [c for c in OLD_COLUMNS if c != "id"]
    values = {"game_id": game_id, "seq": seq + 1, "number": 1, "action": "undone",
              "deleted": 1, "undoes": None, "mode": "numbers", "round_card": None,
              "taken": None, "no_tricks": None, "scores": None, "counts": None,
              "leader": None, "last_trick_winner": None, "created_at": "2026-11-29 06:00:00"}
    with sqlite3.connect(path) as db:
        db.execute(f"INSERT INTO roundrecord ({', '.join(names)}) VALUES "
                   f"({', '.join('?' for _ in names)})", [values[n] for n in names])
    assert rows(path, "SELECT key FROM roundrecord ORDER BY id DESC LIMIT 1") == [(None,)]
    assert app.test_client().get(f"/rebel-princess/g/{FACTS['scorer']['open']}").status_code \
        == 200


# --- the step from 0012, on SQLite and PostgreSQL ----------------------------------------------

@pytest.fixture
def at_0012(tmp_path):
    """An engine on an empty database brought to revision 0012, holding a Rebel Princess game
    with two round records as that release wrote them."""
    url = None
    if POSTGRES_URL:
        url = _own_postgres(POSTGRES_URL, "round_keys")
        fresh = make_engine("", url)
        with fresh.begin() as connection:
            connection.execute(text("DROP SCHEMA public CASCADE"))
            connection.execute(text("CREATE SCHEMA public"))
        fresh.dispose()
    engine = make_engine(str(tmp_path / "old.sqlite"), url)
    with engine.connect() as connection:
        command.upgrade(_alembic_config(connection), "0012")
        connection.commit()
    with engine.begin() as connection:
        connection.execute(text(
            "INSERT INTO playgroup (id, name, token, created_at) "
            "VALUES (1, 'Table', 'group-token', '2026-11-28 20:00:00')"))
        connection.execute(text(
            "INSERT INTO game (id, code, group_id, kind, edition, round_cards, first_leader, "
            "created_at, updated_at) VALUES (1, 'oldone', 1, 'rebel_princess', 'classic', "
            "'ABCDE', 0, '2026-11-28 20:00:00', '2026-11-28 20:00:00')"))
        for seq, action in ((1, "entered"), (2, "edited")):
            connection.execute(text(
                "INSERT INTO roundrecord (game_id, seq, number, action, deleted, mode, scores, "
                "last_trick_winner, created_at) VALUES (1, :seq, 1, :action, false, 'numbers', "
                "'0,3,8,4', 2, '2026-11-28 20:00:00')"), {"seq": seq, "action": action})
    yield engine
    engine.dispose()


def test_the_step_keeps_the_records_and_adds_a_nullable_unique_key(at_0012):
    upgrade(at_0012)
    with at_0012.begin() as connection:
        assert connection.execute(text("SELECT version_num FROM alembic_version")).all() == [
            (head(),)]
        assert connection.execute(text(
            "SELECT seq, action, scores, key FROM roundrecord ORDER BY seq")).all() == [
            (1, "entered", "0,3,8,4", None), (2, "edited", "0,3,8,4", None)]
        column = {c["name"]: c for c in inspect(connection).get_columns("roundrecord")}["key"]
        assert column["nullable"] and column["type"].length == 64
    insert = text("INSERT INTO roundrecord (game_id, seq, number, action, deleted, mode, key, "
                  "created_at) VALUES (1, :seq, 1, 'undone', true, 'numbers', :key, "
                  "'2026-11-29 06:00:00')")
    with at_0012.begin() as connection:
        connection.execute(insert, {"seq": 3, "key": "form~1"})
        connection.execute(insert, {"seq": 4, "key": None})  # no key: as many as are made
    with pytest.raises(IntegrityError), at_0012.begin() as connection:
        connection.execute(insert, {"seq": 5, "key": "form~1"})


def test_the_step_goes_back_down(at_0012):
    upgrade(at_0012)
    with at_0012.connect() as connection:
        if connection.dialect.name == "sqlite":
            connection.exec_driver_sql("PRAGMA foreign_keys=OFF")
        command.downgrade(_alembic_config(connection), "0012")
        connection.commit()
    with at_0012.connect() as connection:
        names = {c["name"] for c in inspect(connection).get_columns("roundrecord")}
        assert "key" not in names and "seq" in names
        assert connection.execute(text("SELECT count(*) FROM roundrecord")).scalar() == 2
