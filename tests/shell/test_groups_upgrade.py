"""Migration 0007 (groups) on a database written by release 896997a, the last before groups.

The fixture ``tests/data/db_896997a.sqlite`` and ``db_896997a.json`` were made by
``tests/data/make_db_896997a.py`` running that release's code: finished games of every kind and
a Rebel Princess game in progress, with the session cookie of the browser that created them.
After the upgrade every game and player is in one group; the creator's browser is shown that
group on its home page; its link opens their history; a browser with no link sees none of it;
the person running the server can print the link.
"""

from __future__ import annotations

import json
import re
import sqlite3

import pytest

from companion import create_app
from companion.db import head

from ..conftest import DATA, upgraded_copy

BEFORE = json.loads((DATA / "db_896997a.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def upgraded(tmp_path_factory):
    yield from upgraded_copy(tmp_path_factory.mktemp("groups-upgrade"), "896997a")


def creator(app):
    """The browser that created the games, with the cookie it had before the upgrade."""
    client = app.test_client()
    client.set_cookie("session", BEFORE["session_cookie"])
    return client


def test_every_game_and_player_is_in_one_group(upgraded):
    _, path = upgraded
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT version_num FROM alembic_version").fetchall() == [(head(),)]
        groups = db.execute("SELECT id, name FROM playgroup").fetchall()
        assert len(groups) == 1 and groups[0][1] == "Our table"
        group = groups[0][0]
        assert db.execute("SELECT code FROM game WHERE group_id = ? ORDER BY code",
                          (group,)).fetchall() == sorted((c,) for c in BEFORE["codes"].values())
        assert sorted(r[0] for r in db.execute("SELECT name FROM person WHERE group_id = ?",
                                               (group,))) == BEFORE["people"]


def test_every_row_survives(upgraded):
    _, path = upgraded
    with sqlite3.connect(DATA / "db_896997a.sqlite") as old, sqlite3.connect(path) as new:
        for table in ("game", "player", "person", "entry", "roundrecord", "gamelink"):
            columns = [row[1] for row in old.execute(f"PRAGMA table_info({table})")]
            query = f"SELECT {', '.join(columns)} FROM {table} ORDER BY id"
            assert new.execute(query).fetchall() == old.execute(query).fetchall(), table


def test_the_creators_browser_is_shown_the_group(upgraded):
    app, path = upgraded
    with sqlite3.connect(path) as db:
        token = db.execute("SELECT token FROM playgroup").fetchone()[0]
    phone = creator(app)
    home = phone.get("/").text
    assert f'href="/group/{token}/" data-action="group"' in home and "Our table" in home
    games = phone.get(f"/group/{token}/history/").text
    for name in ("rp", "pp", "rv", "kd"):
        assert f'data-game="{BEFORE["codes"][name]}"' in games
    assert f'data-game="{BEFORE["codes"]["open"]}"' in phone.get(f"/group/{token}/").text


def test_a_browser_without_a_link_sees_nothing_of_it(upgraded):
    app, path = upgraded
    stranger = app.test_client()
    home = stranger.get("/").text
    assert "/group/" not in home and "Our table" not in home
    for name in BEFORE["people"]:
        assert not names(name, home)


def names(name: str, page: str) -> bool:
    """Whether ``page`` shows ``name`` as a word: not inside a random token of the page (the CSRF
    token is letters, digits, ``-`` and ``_``: « Di » once stood in ``…W5Di2U…``)."""
    return re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", page) is not None


def test_a_viewer_of_an_old_game_is_not_shown_the_group(upgraded):
    """A phone that only watched a game (its viewer link) sees that game, not the group."""
    app, _ = upgraded
    watcher = app.test_client()
    assert watcher.get(f"/g/{BEFORE['viewer']['open']}", follow_redirects=True).status_code == 200
    home = watcher.get("/").text
    assert 'data-action="group"' not in home and "Our table" not in home


def test_the_server_can_print_the_groups_link(upgraded):
    app, path = upgraded
    with sqlite3.connect(path) as db:
        group, token = db.execute("SELECT id, token FROM playgroup").fetchone()
    result = app.test_cli_runner().invoke(args=["groups", "link", str(group)])
    assert result.exit_code == 0, result.output
    assert re.fullmatch(rf"/group/{token}/\n", result.output)
    listed = app.test_cli_runner().invoke(args=["groups", "list"]).output
    assert re.search(rf"^\s+{group}\s+5\s+6\s", listed, re.M), listed
    for name in BEFORE["people"]:
        assert name not in listed  # figures only, never names


def test_an_empty_database_gets_no_group(tmp_path):
    app = create_app({"TESTING": True, "SECRET_KEY": "t", "DATABASE": str(tmp_path / "e.sqlite")})
    with sqlite3.connect(tmp_path / "e.sqlite") as db:
        assert db.execute("SELECT count(*) FROM playgroup").fetchone() == (0,)
    app.extensions["companion.engine"].dispose()
