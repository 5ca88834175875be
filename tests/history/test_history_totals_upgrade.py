"""Migration 0011 (the groups' totals) on a database written by release 584e0b5, the last
release: finished games of the four kinds and a game in progress in one group, the same
finished games restored into a second group. After the upgrade each group's totals are what
adding up its finished games afresh gives, and its statistics page shows them.
"""

from __future__ import annotations

import sqlite3

import pytest

from companion.db import head

from ..conftest import DATA, upgraded_copy
from .test_history_totals import kept_and_afresh


@pytest.fixture(scope="module")
def upgraded(tmp_path_factory):
    yield from upgraded_copy(tmp_path_factory.mktemp("totals-upgrade"), "584e0b5")


def test_the_fixture_had_no_totals():
    with sqlite3.connect(DATA / "db_584e0b5.sqlite") as db:
        tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master")}
    assert "total" not in tables and "gameresult" in tables


def test_each_groups_totals_are_its_finished_games_added_up(upgraded):
    app, path = upgraded
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT version_num FROM alembic_version").fetchall() == [(head(),)]
        groups = [g for (g,) in db.execute("SELECT id FROM playgroup ORDER BY id")]
        finished = db.execute("SELECT count(*) FROM gameresult WHERE finished").fetchone()[0]
        counted = db.execute("SELECT sum(games) FROM total WHERE person_id = 0").fetchone()[0]
    assert finished == counted == 8  # four finished games, and the same four restored
    for group in groups:
        kept, afresh = kept_and_afresh(app, group)
        assert kept == afresh and len(kept) == 4


def test_the_statistics_page_shows_them(upgraded):
    app, path = upgraded
    with sqlite3.connect(path) as db:
        token = db.execute("SELECT token FROM playgroup ORDER BY id").fetchone()[0]
    page = app.test_client().get(f"/group/{token}/history/stats")
    assert page.status_code == 200 and page.text.count("data-person") >= 4


def test_each_persons_last_game_is_known_after_the_upgrade(upgraded):
    """The players' order (most recent first) reads the migrated totals' ``last_at``."""
    from sqlalchemy import func
    from sqlmodel import select

    from companion.db import get_session
    from companion.history.summary import utc
    from companion.models import Game, Player
    from companion.play import people

    app, path = upgraded
    with sqlite3.connect(path) as db:
        groups = [g for (g,) in db.execute("SELECT id FROM playgroup ORDER BY id")]
    with app.app_context():
        session = get_session()
        for group in groups:
            shown = {p.id: p.last_played for p in people.people(session, group)}
            afresh = {p: utc(when) for p, when in session.exec(
                select(Player.person_id, func.max(Game.updated_at))
                .join(Game, Game.id == Player.game_id)
                .where(Game.group_id == group).group_by(Player.person_id)).all()}
            assert shown == afresh and shown
