"""Migration 0005 on a database of the previous release (revision 0004) whose players typed names
every which way: one person per name once case, accents and spaces are set aside, named by the
spelling used most; two people of one name at one table stay two."""

from __future__ import annotations

import sqlite3

import pytest
from alembic import command
from sqlalchemy import text

from companion.db import _alembic_config, head, make_engine, upgrade

GAMES = {  # game id: the names at its seats
    1: ["Zoé", "ben", "Cy"],
    2: ["zoe", "Ben", "Cy"],
    3: ["ZOÉ ", "Ben", "Ana", "ana"],
    4: ["Zoe", "Ben"],
}


@pytest.fixture
def previous_release(tmp_path):
    """A database at revision 0004 holding ``GAMES``, then upgraded as the app does on start."""
    path = tmp_path / "old.sqlite"
    engine = make_engine(str(path))
    with engine.connect() as connection:
        command.upgrade(_alembic_config(connection), "0004")
        connection.commit()
    with engine.begin() as connection:
        for game_id, names in GAMES.items():
            connection.execute(text(
                "INSERT INTO game (id, code, kind, settings, created_at, updated_at) "
                "VALUES (:id, :code, 'reveillez', '{}', :at, :at)"),
                {"id": game_id, "code": f"game{game_id}", "at": f"2026-11-0{game_id} 20:00:00"})
            for seat, name in enumerate(names):
                connection.execute(text(
                    "INSERT INTO player (game_id, seat, name) VALUES (:game, :seat, :name)"),
                    {"game": game_id, "seat": seat, "name": name})
    upgrade(engine)
    engine.dispose()
    return path


def test_one_person_per_folded_name(previous_release):
    with sqlite3.connect(previous_release) as db:
        people = db.execute("SELECT name, key, created_at FROM person ORDER BY id").fetchall()
        version = db.execute("SELECT version_num FROM alembic_version").fetchone()[0]
    assert version == head()
    assert [(name, key) for name, key, _ in people] == [
        ("Zoé", "zoe"), ("Ben", "ben"), ("Cy", "cy"), ("Ana", "ana"), ("ana 2", "ana 2")]
    assert people[0][2] == "2026-11-01 20:00:00"  # as old as their first game


def test_every_seat_points_at_its_person(previous_release):
    with sqlite3.connect(previous_release) as db:
        seats = db.execute("SELECT player.game_id, player.name, person.name FROM player "
                           "JOIN person ON person.id = player.person_id "
                           "ORDER BY player.game_id, player.seat").fetchall()
    assert [(g, typed, person) for g, typed, person in seats if g == 3] == [
        (3, "ZOÉ ", "Zoé"), (3, "Ben", "Ben"), (3, "Ana", "Ana"), (3, "ana", "ana 2")]
    assert {person for _, _, person in seats} == {"Zoé", "Ben", "Cy", "Ana", "ana 2"}
    assert len(seats) == sum(len(names) for names in GAMES.values())


def test_the_database_then_enforces_the_rules(previous_release):
    with sqlite3.connect(previous_release) as db:
        for statement in (
                "INSERT INTO person (name, key, created_at) VALUES ('BEN', 'ben', '2026')",
                "INSERT INTO player (game_id, seat, name, person_id) VALUES (1, 0, 'X', 5)",
                "INSERT INTO player (game_id, seat, name, person_id) VALUES (1, 9, 'Zoé', 1)",
                "INSERT INTO player (game_id, seat, name) VALUES (1, 8, 'Nobody')"):
            with pytest.raises(sqlite3.IntegrityError):
                db.execute(statement)


def test_the_migration_goes_back_down(previous_release):
    engine = make_engine(str(previous_release))
    with engine.connect() as connection:
        connection.exec_driver_sql("PRAGMA foreign_keys=OFF")
        command.downgrade(_alembic_config(connection), "0004")
        connection.commit()
    engine.dispose()
    with sqlite3.connect(previous_release) as db:
        columns = [row[1] for row in db.execute("PRAGMA table_info(player)")]
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master")}
    assert "person_id" not in columns and "person" not in tables
