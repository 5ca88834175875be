"""History filtered by a game kind reads its own index (migration 0016: group, kind, time):
the list is the group's games of that kind, newest first, by every page's key, and on SQLite
the database reads them from ``ix_game_group_kind_updated`` in its order (no sort, no reading
of the group's other games). A database of release 1.1.0 upgraded has that index instead of the
one on the kind alone, and goes back down."""

from __future__ import annotations

import sqlite3

import pytest
from alembic import command

from companion.db import _alembic_config, get_session, make_engine
from companion.play import summaries

from ..conftest import upgraded_copy
from .test_history_played_by import _plan


def _codes(records) -> list[str]:
    return [record.game.code for record in records]


@pytest.mark.parametrize("finished", [True, None])
def test_a_kinds_list_is_the_groups_games_of_that_kind_page_by_page(app, known, finished):
    with app.app_context():
        session = get_session()
        every = summaries.records(session, group_id=known.group_id, finished=finished)[1]
        kinds = sorted({record.game.kind for record in every})
        assert len(kinds) >= 3  # (the known games: every game kind with a history)
        for kind in kinds:
            expected = [r.game.code for r in every if r.game.kind == kind]
            count, listed = summaries.records(session, group_id=known.group_id,
                                              finished=finished, kind=kind)
            assert _codes(listed) == expected and count == len(expected), kind
            # Two at a time, by key from the newest, and the oldest two: the same games.
            paged, key = [], None
            while True:
                _, page = summaries.records(session, group_id=known.group_id, finished=finished,
                                            kind=kind, limit=2, count=False, older_than=key)
                if not page:
                    break
                paged += _codes(page)
                key = summaries.page_key(page[-1].game)
            assert paged == expected, kind
            _, oldest = summaries.records(session, group_id=known.group_id, finished=finished,
                                          kind=kind, limit=2, count=False, oldest=True)
            assert _codes(oldest) == expected[-2:], kind


def test_a_kinds_list_reads_the_kinds_index(app, known, monkeypatch):
    """On SQLite (PostgreSQL's plans depend on its statistics: the lists are compared above)."""
    if app.extensions["companion.engine"].dialect.name != "sqlite":
        return
    captured = []
    real = summaries.Session.exec

    def keep(self, statement, *args, **kwargs):
        captured.append(statement)
        return real(self, statement, *args, **kwargs)

    with app.app_context():
        session = get_session()
        every = summaries.records(session, group_id=known.group_id)[1]
        kind, middle = every[0].game.kind, summaries.page_key(every[len(every) // 2].game)
        monkeypatch.setattr(type(session), "exec", keep)
        for finished in (True, None):
            for query in ({"limit": 30}, {"limit": 30, "older_than": middle},
                          {"limit": 30, "newer_than": middle}, {"limit": 30, "oldest": True}):
                captured.clear()
                summaries.records(session, group_id=known.group_id, finished=finished,
                                  kind=kind, count=False, **query)
                plans = [_plan(app, s) for s in captured if "ORDER BY" in str(s)]
                assert len(plans) == 1, query
                assert "ix_game_group_kind_updated" in plans[0], (finished, query, plans[0])
                assert "TEMP B-TREE" not in plans[0], (finished, query, plans[0])


@pytest.fixture(scope="module")
def upgraded(tmp_path_factory):
    yield from upgraded_copy(tmp_path_factory.mktemp("by-kind-upgrade"), "59c609a")


def _indexes(path) -> set[str]:
    with sqlite3.connect(path) as db:
        return {name for (name,) in db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'game'")}


def test_the_previous_releases_database_gets_the_kinds_index_and_goes_back_down(upgraded):
    app, path = upgraded
    assert {"ix_game_group_kind_updated", "ix_game_group_updated"} <= _indexes(path)
    assert "ix_game_kind" not in _indexes(path)
    app.extensions["companion.engine"].dispose()
    engine = make_engine(str(path))
    with engine.connect() as connection:
        command.downgrade(_alembic_config(connection), "0015")
        connection.commit()
    engine.dispose()
    assert "ix_game_kind" in _indexes(path) and "ix_game_group_kind_updated" not in _indexes(path)
