"""Migration 0008 (every game's links stored with it) on a database written by release 584e0b5,
the last release, in which a game restored from a backup got its links from the first page that
asked (a write on a GET).

The fixture ``tests/data/db_584e0b5.sqlite`` and ``db_584e0b5.json`` were made by
``tests/data/make_db_584e0b5.py`` running that release's code: finished games of the four kinds
and a game in progress in one group, and the same finished games restored from their backup
into a second group, without links. After the upgrade every game has one live scorer link and
one live viewer link; the links that were there are kept as they were (the phones holding them
go on working); and opening every page of both groups writes nothing.
"""

from __future__ import annotations

import json
import sqlite3

import pytest

from companion.db import head
from tests.shell.test_no_write_on_read import writes

from ..conftest import DATA, upgraded_copy

BEFORE = json.loads((DATA / "db_584e0b5.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def upgraded(tmp_path_factory):
    yield from upgraded_copy(tmp_path_factory.mktemp("links-upgrade"), "584e0b5")


def test_the_fixture_has_restored_games_without_links():
    """What the upgrade has to do: the restored games of that release had no links yet."""
    with sqlite3.connect(DATA / "db_584e0b5.sqlite") as db:
        assert db.execute("SELECT version_num FROM alembic_version").fetchall() == [("0007",)]
        lacking = db.execute("SELECT code FROM game WHERE id NOT IN"
                             " (SELECT game_id FROM gamelink)").fetchall()
    assert sorted(code for (code,) in lacking) == BEFORE["restored"] and len(lacking) == 4


def test_every_game_has_one_scorer_and_one_viewer_link(upgraded):
    _, path = upgraded
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT version_num FROM alembic_version").fetchall() == [(head(),)]
        games = db.execute("SELECT count(*) FROM game").fetchone()[0]
        per_game = db.execute(
            "SELECT game.code, gamelink.role, count(*) FROM game JOIN gamelink"
            " ON gamelink.game_id = game.id AND gamelink.revoked_at IS NULL"
            " GROUP BY game.code, gamelink.role").fetchall()
        tokens = [t for (t,) in db.execute("SELECT token FROM gamelink")]
    assert games == 9
    assert sorted((code, role) for code, role, _ in per_game) == sorted(
        (code, role) for code in {c for c, _, _ in per_game} for role in ("scorer", "viewer"))
    assert len({code for code, _, _ in per_game}) == games
    assert all(count == 1 for _, _, count in per_game)
    assert len(tokens) == len(set(tokens)) and all(len(t) == 32 for t in tokens)


def test_the_links_phones_hold_are_kept(upgraded):
    app, path = upgraded
    with sqlite3.connect(path) as db:
        marks = ",".join("?" * len(BEFORE["links"]))
        kept = sorted(tuple(row) for row in db.execute(
            f"SELECT game_id, role, token FROM gamelink WHERE token IN ({marks})",
            [t for _, _, t in BEFORE["links"]]))
    assert kept == sorted(tuple(row) for row in BEFORE["links"])
    slugs = {"rp": "rebel-princess", "open": "rebel-princess", "pp": "princesse-princesse",
             "rv": "reveillez", "kd": "kanai-duel"}
    phone = app.test_client()
    for name, slug in slugs.items():
        for role in ("scorer", "viewer"):
            assert phone.get(f"/{slug}/g/{BEFORE[role][name]}").status_code == 200, (name, role)

def test_opening_every_page_of_both_groups_writes_nothing(upgraded):
    """The restored games' pages, which that release wrote links from, now only read."""
    app, _ = upgraded
    phone = app.test_client()
    with writes(app) as found:
        for token in BEFORE["groups"].values():
            for page in ("", "history/", "history/stats", "history/players/"):
                assert phone.get(f"/group/{token}/{page}").status_code == 200, page
        history = phone.get(f"/group/{BEFORE['groups']['Restored']}/history/").text
    assert found == []
    for code in BEFORE["restored"]:
        assert f'data-game="{code}"' in history
