"""Migration 0015 (the people's lists of finished games, ``playedby``) on a database written by
release 1.1.0 (59c609a, the previous release): a group whose games were corrected, reopened,
finished again, left unfinished and merged, a group deleted with its games, and a group restored
from a backup. After the upgrade the table is what its definition makes from the games, and
every person's page, every history filtered by a player and every head-to-head page list the
games that release listed, in its order (``tests/data/db_59c609a.json``).
"""

from __future__ import annotations

import json
import re
import sqlite3

import pytest

from companion.db import get_session, head
from companion.play import summaries

from ..conftest import DATA, played_by, upgraded_copy
from .test_history_played_by import lists_as_before

SHOWN = json.loads((DATA / "db_59c609a.json").read_text())
"""What release 1.1.0 listed, by group: each person's page, history by person, each pair."""


@pytest.fixture(scope="module")
def upgraded(tmp_path_factory):
    yield from upgraded_copy(tmp_path_factory.mktemp("played-by-upgrade"), "59c609a")


def test_the_fixture_is_the_previous_releases_without_the_lists():
    with sqlite3.connect(DATA / "db_59c609a.sqlite") as db:
        tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master")}
        version = db.execute("SELECT version_num FROM alembic_version").fetchall()
    assert version == [("0014",)]
    assert "playedby" not in tables and "pairtotal" in tables


def test_the_lists_are_made_from_the_stored_games(upgraded):
    app, path = upgraded
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT version_num FROM alembic_version").fetchall() == [(head(),)]
    kept, made = played_by(app)
    assert kept == made and len(kept) > 50


@pytest.mark.parametrize("group", sorted(SHOWN))
def test_every_list_is_what_the_release_listed(upgraded, group):
    app, _ = upgraded
    shown = SHOWN[group]
    with app.app_context():
        session = get_session()

        def codes(**query) -> list[str]:
            return [r.game.code for r in summaries.records(
                session, group_id=int(group), count=False, **query)[1]]

        for person, listed in shown["page"].items():
            assert codes(person=int(person), limit=5) == listed
        for person, listed in shown["history"].items():
            assert codes(person=int(person)) == listed
        for pair, listed in shown["versus"].items():
            first, second = (int(p) for p in pair.split("-"))
            assert codes(person=first, with_person=second, limit=10) == listed
    assert sum(len(v) for v in shown["versus"].values()) > 20
    assert lists_as_before(app, int(group)) > 20


def test_the_pages_show_them(upgraded):
    app, path = upgraded
    with sqlite3.connect(path) as db:
        tokens = dict(db.execute("SELECT id, token FROM playgroup"))
    client = app.test_client()
    for group, shown in SHOWN.items():
        base = f"/group/{tokens[int(group)]}/history"
        for person, listed in shown["page"].items():
            page = client.get(f"{base}/players/{person}")
            assert page.status_code == 200
            assert re.findall(r'<li data-game="([^"]+)"', page.text) == listed
            page = client.get(f"{base}/", query_string={"player": person})
            assert re.findall(r'<li data-game="([^"]+)"', page.text) == \
                shown["history"][person]
        for pair, listed in shown["versus"].items():
            first, second = pair.split("-")
            page = client.get(f"{base}/versus", query_string={"a": first, "b": second})
            assert page.status_code == 200
            assert re.findall(r'<li data-game="([^"]+)"', page.text) == listed
