"""Migration 0014 (the pairs' head-to-head totals) on a database written by release 584e0b5,
the last release: finished games of the four kinds in one group, the same games restored into a
second group. After the upgrade each pair's record is what adding up its finished games afresh
gives, and the head-to-head page shows it.
"""

from __future__ import annotations

import sqlite3

import pytest

from companion.db import head

from ..conftest import DATA, upgraded_copy
from .test_history_pair_totals import kept_and_afresh


@pytest.fixture(scope="module")
def upgraded(tmp_path_factory):
    yield from upgraded_copy(tmp_path_factory.mktemp("pairs-upgrade"), "584e0b5")


def test_the_fixture_had_no_pair_totals():
    with sqlite3.connect(DATA / "db_584e0b5.sqlite") as db:
        tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master")}
    assert "pairtotal" not in tables and "gameresult" in tables


def test_each_pairs_record_is_its_finished_games_added_up(upgraded):
    app, path = upgraded
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT version_num FROM alembic_version").fetchall() == [(head(),)]
        groups = [g for (g,) in db.execute("SELECT id FROM playgroup ORDER BY id")]
        pairs = db.execute("SELECT count(*), sum(games) FROM pairtotal").fetchone()
    assert pairs[0] > 0 and pairs[1] > 0
    for group in groups:
        kept, afresh = kept_and_afresh(app, group)
        assert kept == afresh
        assert any(games for lines in kept.values() for _, games, *_ in lines)


def test_the_versus_page_shows_it(upgraded):
    app, path = upgraded
    with sqlite3.connect(path) as db:
        token, group = db.execute("SELECT token, id FROM playgroup ORDER BY id").fetchone()
        low, high, games = db.execute(
            "SELECT low, high, sum(games) FROM pairtotal WHERE group_id = ?"
            " GROUP BY low, high ORDER BY low, high", (group,)).fetchone()
    page = app.test_client().get(f"/group/{token}/history/versus?a={low}&b={high}")
    assert page.status_code == 200
    assert f'data-kind="all" data-games="{games}"' in page.text
