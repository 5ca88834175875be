"""Migration 0017: the index on the entries' game alone (``ix_entry_game_id``) goes, because the
index of the unique constraint on (game, number), ``uq_entry_game_seq``, serves every query that
reads a game's entries. Each of them is listed here and its plan read: on SQLite the database's
own (``EXPLAIN QUERY PLAN``: that index, in its order, no scan of the table, no sort); on
PostgreSQL, whose plans depend on its statistics (a few rows are read whole), with sequential
scans priced out, so the plan shows the index it can use. A database of the previous revision
upgrades with its entries intact and goes back down; the tables the models declare are those
the migrations make (so a database made either way is the same)."""

from __future__ import annotations

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import delete, func, select, text
from sqlmodel import SQLModel, col

from companion.db import _alembic_config, head, make_engine, upgrade
from companion.models import Entry
from companion.play import page_reads, store

from ..conftest import POSTGRES_URL, _own_postgres

_GAMES = [1, 2]
_BY_GAME = [  # every query of the app that reads entries by their game (grep "entry" in play/)
    # store.entries (a page, a save on an ORM session): a game's entries in number order
    ("store._ENTRIES", store._ENTRIES, {"game": 1}, True),
    # store's highest number (an ORM write's next number)
    ("store: max(seq)", select(func.coalesce(func.max(Entry.seq), 0)).where(
        Entry.game_id == 1), {}, False),
    # export: the games' entries, by game then number
    # (PostgreSQL sorts them, with the index or without: = ANY of a list reads no order)
    ("export._by_game", select(Entry).where(col(Entry.game_id).in_(_GAMES))
     .order_by(col(Entry.game_id), col(Entry.seq)), {}, "sqlite"),
    # groups.delete_group / delete_games: a group's games' entries deleted
    ("groups: delete", delete(Entry).where(col(Entry.game_id).in_(_GAMES)), {}, False),
]
_BY_GAME_SQL = {  # the same, written as SQL for one database (page_reads)
    "sqlite": [("page_reads.SAVE_LINK_AND_ENTRIES_ON_SQLITE",
                page_reads.SAVE_LINK_AND_ENTRIES_ON_SQLITE.sql.replace("$1", "'scorer-1'"),
                False)],
    "postgresql": [("page_reads.ENTRIES", page_reads.ENTRIES.sql.replace("$1", "1"), True),
                   ("page_reads.SAVE_ENTRIES",
                    page_reads.SAVE_ENTRIES.sql.replace("$1", "'scorer-1'"), True)],
}
_FOREIGN_KEY = "DELETE FROM game WHERE id = 2"  # the check that no entry names it


def _engine(tmp_path, name: str):
    """An engine on an empty database: SQLite in ``tmp_path``, or (under ``make
    test-postgres``) a PostgreSQL database of this module's own, emptied."""
    url = None
    if POSTGRES_URL:
        url = _own_postgres(POSTGRES_URL, name)
        fresh = make_engine("", url)
        with fresh.begin() as connection:
            connection.execute(text("DROP SCHEMA public CASCADE"))
            connection.execute(text("CREATE SCHEMA public"))
        fresh.dispose()
    return make_engine(str(tmp_path / f"{name}.sqlite"), url)


def _store_games(connection) -> None:
    """Two Princesse Princesse games of one group, with three entries each (one keyed)."""
    connection.execute(text(
        "INSERT INTO playgroup (id, name, token, created_at) "
        "VALUES (1, 'Table', 'group-token', '2026-11-28 20:00:00')"))
    for game in _GAMES:
        connection.execute(text(
            "INSERT INTO game (id, code, group_id, kind, settings, created_at, updated_at) "
            "VALUES (:id, :code, 1, 'princesse_princesse', '{}', '2026-11-28 20:00:00', "
            "'2026-11-28 20:00:00')"), {"id": game, "code": f"game{game}"})
        connection.execute(text(
            "INSERT INTO gamelink (game_id, role, token, created_at) "
            "VALUES (:id, 'scorer', :token, '2026-11-28 20:00:00')"),
            {"id": game, "token": f"scorer-{game}"})
        for seq in (1, 2, 3):
            connection.execute(text(
                'INSERT INTO entry (game_id, seq, kind, data, "key", created_at) '
                "VALUES (:game, :seq, 'round', :data, :key, '2026-11-28 20:00:00')"),
                {"game": game, "seq": seq, "data": f'{{"n": {seq}}}',
                 "key": "form~1" if seq == 2 else None})


_ENTRIES = "SELECT game_id, seq, kind, data, \"key\", created_at FROM entry ORDER BY game_id, seq"


def _indexes(connection) -> set[str]:
    if connection.dialect.name == "sqlite":
        return {name for (name,) in connection.execute(text(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'entry'"))}
    return {name for (name,) in connection.execute(text(
        "SELECT indexname FROM pg_indexes WHERE tablename = 'entry'"))}


@pytest.fixture
def at_0016(tmp_path):
    """An engine on a database at revision 0016 (release 1.9.0's) holding two games' entries."""
    engine = _engine(tmp_path, "entry_index")
    with engine.connect() as connection:
        command.upgrade(_alembic_config(connection), "0016")
        connection.commit()
    with engine.begin() as connection:
        _store_games(connection)
    yield engine
    engine.dispose()


def test_the_previous_releases_database_loses_the_index_and_keeps_its_entries(at_0016):
    with at_0016.connect() as connection:
        before = connection.execute(text(_ENTRIES)).all()
        assert "ix_entry_game_id" in _indexes(connection)
    upgrade(at_0016)
    with at_0016.begin() as connection:
        assert connection.execute(text("SELECT version_num FROM alembic_version")).all() == [
            (head(),)]
        assert connection.execute(text(_ENTRIES)).all() == before
        assert "ix_entry_game_id" not in _indexes(connection)
    # The constraints stay: a second entry 2 of game 1, or a second use of its key, is refused.
    for seq, key in ((2, None), (4, "form~1")):
        with pytest.raises(Exception, match="(?i)unique"), at_0016.begin() as connection:
            connection.execute(text(
                'INSERT INTO entry (game_id, seq, kind, data, "key", created_at) '
                "VALUES (1, :seq, 'round', '{}', :key, '2026-11-29 20:00:00')"),
                {"seq": seq, "key": key})
    with at_0016.connect() as connection:
        command.downgrade(_alembic_config(connection), "0016")
        connection.commit()
    with at_0016.connect() as connection:
        assert "ix_entry_game_id" in _indexes(connection)
        assert connection.execute(text(_ENTRIES)).all() == before


def _plan(connection, statement) -> str:
    """The plan of ``statement`` (SQL, or a Core statement compiled with its values)."""
    sql = statement if isinstance(statement, str) else str(statement.compile(
        connection, compile_kwargs={"literal_binds": True}))
    if connection.dialect.name == "sqlite":
        return " / ".join(row[-1] for row in connection.exec_driver_sql(
            f"EXPLAIN QUERY PLAN {sql}"))
    connection.exec_driver_sql("SET LOCAL enable_seqscan = off")
    return " / ".join(row[0] for row in connection.exec_driver_sql(f"EXPLAIN {sql}"))


@pytest.fixture
def at_head(tmp_path):
    engine = _engine(tmp_path, "entry_plans")
    upgrade(engine)
    with engine.begin() as connection:
        _store_games(connection)
    yield engine
    engine.dispose()


def _constraints_indexes(connection) -> dict[str, str]:
    """The indexes of the entry's two unique constraints, by their leading columns: (game, seq)
    ``uq_entry_game_seq`` and (game, key) ``uq_entry_game_key`` (on SQLite, by the names SQLite
    gave them). Both lead with the game: either serves a read by the game alone (PostgreSQL
    takes one or the other as their costs tie)."""
    if connection.dialect.name != "sqlite":
        return {"seq": "uq_entry_game_seq", "key": "uq_entry_game_key"}
    found = {}
    for _, name, *_ in connection.exec_driver_sql("PRAGMA index_list(entry)").all():
        columns = [row[2] for row in connection.exec_driver_sql(f"PRAGMA index_info({name})")]
        if columns[0] == "game_id" and len(columns) == 2:
            found[columns[1]] = name
    return found


def test_every_read_of_a_games_entries_reads_the_constraints_index(at_head):
    with at_head.connect() as connection:
        indexes = _constraints_indexes(connection)
        connection.rollback()
        queries = [(name, statement.params(values) if values else statement, ordered)
                   for name, statement, values, ordered in _BY_GAME]
        for name, statement, ordered in [*queries, *_BY_GAME_SQL[connection.dialect.name]]:
            with connection.begin():
                plan = _plan(connection, statement)
            assert any(f" {index} " in f"{plan} " for index in indexes.values()), (name, plan)
            assert "SCAN entry" not in plan and "Seq Scan on entry" not in plan, (name, plan)
            if ordered is True or ordered == connection.dialect.name:
                # read in the order of (game, seq)'s index: nothing sorted
                assert indexes["seq"] in plan, (name, plan)
                assert "TEMP B-TREE" not in plan and "Sort" not in plan, (name, plan)
        for name, statement, values, _ in _BY_GAME[:3]:  # (and they answer)
            with connection.begin():
                assert connection.execute(statement, values).all(), name


def test_the_foreign_keys_check_reads_the_constraints_index(at_head):
    """A game deleted: the database looks for an entry still naming it by the game — on SQLite
    inside the DELETE (its program opens the constraint's index), on PostgreSQL in the foreign
    key's trigger (this query, as PostgreSQL's ``ri_triggers.c`` writes it)."""
    with at_head.connect() as connection:
        indexes = _constraints_indexes(connection).values()
        if connection.dialect.name == "sqlite":
            roots = {connection.exec_driver_sql(
                f"SELECT rootpage FROM sqlite_master WHERE name = '{index}'").scalar()
                for index in indexes}
            opened = {row[2] for row in connection.exec_driver_sql(f"EXPLAIN {_FOREIGN_KEY}")
                      if row[1] == "OpenRead"}
            assert roots & opened
        else:
            connection.rollback()
            with connection.begin():
                plan = _plan(connection, 'SELECT 1 FROM ONLY "public"."entry" x WHERE '
                             '"game_id" OPERATOR(pg_catalog.=) 2 FOR KEY SHARE OF x')
            assert any(index in plan for index in indexes), plan
        connection.rollback()
        with pytest.raises(Exception, match="(?i)foreign key"), connection.begin():
            connection.exec_driver_sql(_FOREIGN_KEY)  # (refused: game 2 has entries)


def test_the_models_tables_are_the_migrations(tmp_path):
    """What the models declare (tables, columns, indexes, constraints) is what the migrations
    make: no difference Alembic's comparison finds (so ``ix_entry_game_id`` is gone from both).
    Column types are left out: Alembic reads a ``UTCDateTime`` (a decorated ``DateTime``) as
    another type than the ``TIMESTAMP`` PostgreSQL holds for it."""
    engine = _engine(tmp_path, "entry_models")
    try:
        upgrade(engine)
        with engine.connect() as connection:
            context = MigrationContext.configure(connection, opts={"compare_type": False})
            assert compare_metadata(context, SQLModel.metadata) == []
            assert "ix_entry_game_id" not in _indexes(connection)
    finally:
        engine.dispose()
