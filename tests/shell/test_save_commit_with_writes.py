"""A save's ``COMMIT`` sent with its writes on PostgreSQL (issue 36: two round trips, not three),
only where nothing read after the writes decides what is stored: the summary's UPDATE of a game
in progress (``… WHERE NOT finished``) must have written its row, so it goes guarded — it fails
in SQL when it writes none, the pipeline's ``COMMIT`` is then never run, and the save is sent
again without it and goes on as before (a finished game's summary, a first summary, the group's
totals) — :mod:`companion.play.save_pipeline`.

Pinned here: a summary row gone or finished between the save's first reads and its writes (a
write that must not commit with them) is stored as before, and nothing of a save is committed
early unless its caller said that only its summary and its ``COMMIT`` follow and every write of
its transaction is in that round trip; after an early ``COMMIT`` no statement reaches the
connection. PostgreSQL only (``make test-postgres``: TEST_DATABASE_URL).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from sqlalchemy import create_engine, event, insert
from sqlalchemy.pool import NullPool

from companion.db import commit_save, get_session, open_save, rollback_save
from companion.models import Entry, table_of
from companion.play import save_pipeline, summaries
from companion.play.driver_statements import Prepared

from ..history.test_history_totals import kept_and_afresh
from .test_core_saves import _entries, _new_rebel, _records
from .test_groups import group_of
from .test_lean_saves import assert_summary_fresh, statements, version_of
from .test_save_pipeline import (
    assert_pool_as_it_came,
    game_id_of,
    pipelined,
    rebel_round,
    round_trips,
    save,
)
from .test_save_round_trips import new_duel


@pytest.fixture
def outside(postgres_engine):
    """Another client of the same database, outside the app's pool (its round trips are not
    the app's)."""
    other = create_engine(postgres_engine.url, poolclass=NullPool)
    yield other
    other.dispose()


def summary_of(postgres_engine, game_id: int) -> tuple[bool, str] | None:
    with postgres_engine.connect() as connection:
        row = connection.exec_driver_sql(
            f"SELECT finished, data FROM gameresult WHERE game_id = {game_id}").first()
    return (bool(row[0]), str(row[1])) if row is not None else None


def entries_seen_from_outside(outside, game_id: int) -> list[int]:
    with outside.connect() as connection:
        return [int(seq) for (seq,) in connection.exec_driver_sql(
            f"SELECT seq FROM entry WHERE game_id = {game_id} ORDER BY seq")]


# --- through the app: a row count of 0 where 1 was expected --------------------------------------

def test_a_summary_row_gone_between_the_reads_and_the_writes_is_written_again(
        app, client, postgres_engine, outside):
    """The summary row deleted (committed by another client) after the save read its game and
    before its writes ran: the guarded UPDATE writes no row, so the pipeline's COMMIT never
    runs; the save is sent again without it, finds no summary, writes one, then commits. (A
    COMMIT sent blindly with the writes would have stored the entry without any summary.)"""
    url = new_duel(client)
    assert save(client, url, 0).status_code == 303
    game_id = game_id_of(postgres_engine, url)
    deleted: list[int] = []

    def delete_summary(_conn, _cursor, statement, _params, _context, _many) -> None:
        if deleted or not statement.startswith("INSERT INTO entry"):
            return  # (the save's first write: its reads are done, its writes not yet run)
        with outside.begin() as other:
            deleted.append(other.exec_driver_sql(
                f"DELETE FROM gameresult WHERE game_id = {game_id}").rowcount)

    event.listen(postgres_engine, "before_cursor_execute", delete_summary)
    try:
        answer = save(client, url, 1, ("minister", "general"))
    finally:
        event.remove(postgres_engine, "before_cursor_execute", delete_summary)
    assert deleted == [1]
    assert answer.status_code == 303, answer.text
    assert [seq for seq, _, _ in _entries(app, url)] == [1, 2]  # stored once
    assert summary_of(postgres_engine, game_id) is not None
    assert_summary_fresh(app, url.rsplit("/", 1)[1])
    assert_pool_as_it_came(postgres_engine)


def test_a_finished_game_reopened_by_an_undo_moves_its_summary_and_the_totals(app, client,
                                                                              postgres_engine):
    """A finished game's summary is not ``NOT finished``: the undo of its last round (a game in
    progress again) writes no row with the guarded UPDATE, is sent again and goes the way it
    always went — the summary read, rewritten, the group's totals moved — before its own COMMIT.
    (A COMMIT sent blindly with the writes would have left the game counted as finished.)"""
    url = _new_rebel(client)
    for number in range(1, 6):
        assert rebel_round(client, url, number).status_code == 302
    token = url.rsplit("/", 1)[1]
    game_id, group_id = game_id_of(postgres_engine, url), group_of(app, token).id
    assert summary_of(postgres_engine, game_id)[0] is True  # (the last round finished it)
    kept, afresh = kept_and_afresh(app, group_id)
    assert kept == afresh and kept  # counted
    with round_trips(postgres_engine) as trips:
        answer = client.post(f"{url}/undo", data={"version": "5"})
    assert answer.status_code == 302, answer.text
    assert _records(app, url)[-1] == (6, 5, "undone")
    assert summary_of(postgres_engine, game_id)[0] is False
    assert_summary_fresh(app, token)
    kept, afresh = kept_and_afresh(app, group_id)
    assert kept == afresh and not kept  # no longer counted
    assert trips and trips[0] > 2  # (not committed with the writes)
    assert_pool_as_it_came(postgres_engine)


KD2 = (("prince", "spy"), ("wizard", "assassin"), ("minister", "general"), ("general", "wizard"),
       ("assassin", "minister"), ("spy", "prince"), ("princess", "clown"), ("clown", "princess"))
"""A duel's rounds to its end (the known games' kd2, tests/history/conftest.py)."""


def test_a_finished_duel_s_last_round_undone_is_sent_again_and_moves_the_totals(app, client,
                                                                               postgres_engine):
    """A duel's undo carries the game as it leaves it, so its summary's write goes guarded with
    the COMMIT — and a finished game's summary is not ``NOT finished``: the guard stops it, the
    save is sent again without the COMMIT, rewrites the summary read first and moves the group's
    totals, then commits. (Sent blindly, the COMMIT would have left it counted as won.)"""
    url = new_duel(client)
    for version, cards in enumerate(KD2):
        assert save(client, url, version, cards).status_code == 303
    token = url.rsplit("/", 1)[1]
    game_id, group_id = game_id_of(postgres_engine, url), group_of(app, token).id
    assert summary_of(postgres_engine, game_id)[0] is True
    kept, afresh = kept_and_afresh(app, group_id)
    assert kept == afresh and kept
    with round_trips(postgres_engine) as trips:
        answer = client.post(f"{url}/undo", data={"version": str(len(KD2)), "key": "undo"})
    assert answer.status_code == 303, answer.text
    assert [seq for seq, _, _ in _entries(app, url)] == list(range(1, len(KD2) + 2))
    assert summary_of(postgres_engine, game_id)[0] is False
    assert_summary_fresh(app, token)
    kept, afresh = kept_and_afresh(app, group_id)
    assert kept == afresh and not kept
    assert trips and trips[0] > 3  # (reads; stopped at the guard; sent again; … ; COMMIT)
    assert_pool_as_it_came(postgres_engine)


def test_the_round_that_finishes_a_game_commits_on_its_own(app, client, postgres_engine):
    """The last round's summary is finished: the group's totals follow it in its transaction,
    so its COMMIT is not sent with its writes (three round trips and more), and the totals count
    it."""
    url = _new_rebel(client)
    for number in range(1, 5):
        assert rebel_round(client, url, number).status_code == 302
    group_id = group_of(app, url.rsplit("/", 1)[1]).id
    with round_trips(postgres_engine) as trips:
        assert rebel_round(client, url, 5).status_code == 302
    assert trips and trips[0] > 2
    kept, afresh = kept_and_afresh(app, group_id)
    assert kept == afresh and kept
    assert_summary_fresh(app, url.rsplit("/", 1)[1])


# --- the pipeline itself --------------------------------------------------------------------------

_WRITE = Prepared(insert(table_of(Entry)), ("game_id", "seq", "kind", "key", "data", "created_at"))


def _entry(game_id: int, seq: int) -> dict:
    return {"game_id": game_id, "seq": seq, "kind": "round", "key": f"p{seq}",
            "data": json.dumps({"cards": ["general", "minister"]}),
            "created_at": datetime.now(UTC)}


def _summary(game_id: int, finished: bool = False) -> dict:
    return {"id": game_id, "stamp": datetime.now(UTC), "finished": finished,
            "data": json.dumps({"finished": finished}), "progress": "{}"}


def test_a_last_write_that_writes_its_row_commits_with_the_writes_in_one_round_trip(
        app, client, postgres_engine, outside):
    """Said by its caller, the summary's write (``last``) carries the COMMIT: the entry is
    committed (seen from another client) before the save's own COMMIT, which sends nothing; the
    batch is one round trip and the same statements as before (the BEGIN and COMMIT are no
    statements of SQLAlchemy's)."""
    url = new_duel(client)
    game_id = game_id_of(postgres_engine, url)
    with app.test_request_context():
        session = get_session()
        with round_trips(postgres_engine) as trips, statements(app) as seen:
            connection = open_save(session, pipelined)
            save_pipeline.queue(_WRITE, connection, _entry(game_id, 1))
            save_pipeline.commit_follows(connection)
            assert save_pipeline.run(summaries._UPDATE_OPEN_RESULT, connection,
                                     _summary(game_id), last=True) == 1
            assert entries_seen_from_outside(outside, game_id) == [1]  # committed already
            commit_save(session)
        assert trips == [1]  # BEGIN, INSERT, guarded UPDATE, COMMIT; the COMMIT after: none
        assert len(seen) == 2
        assert seen[1].startswith("WITH written AS (UPDATE gameresult")
    assert version_of(client, url) == 1
    assert_pool_as_it_came(postgres_engine)


@pytest.mark.parametrize("how", ["not said", "begun before", "not last"])
def test_nothing_is_committed_early_unless_said_and_all_in_one_round_trip(
        app, client, postgres_engine, outside, how):
    """Without its caller's word (:func:`save_pipeline.commit_follows`), with a write of the
    transaction sent before the summary's (a read sent the queue), or a write not ``last``: the
    summary's write commits nothing; a rollback then takes everything back."""
    url = new_duel(client)
    game_id = game_id_of(postgres_engine, url)
    with app.test_request_context():
        session = get_session()
        connection = open_save(session, pipelined)
        save_pipeline.queue(_WRITE, connection, _entry(game_id, 1))
        if how != "not said":
            save_pipeline.commit_follows(connection)
        if how == "begun before":
            save_pipeline.flush(connection)
        assert save_pipeline.run(summaries._UPDATE_OPEN_RESULT, connection, _summary(game_id),
                                 last=how != "not last") == 1
        assert entries_seen_from_outside(outside, game_id) == []
        rollback_save(session)
        commit_save(session)
    assert entries_seen_from_outside(outside, game_id) == []
    assert_pool_as_it_came(postgres_engine)


def test_after_an_early_commit_no_statement_reaches_the_save_s_connection(
        app, client, postgres_engine, outside):
    """Once the COMMIT went with the writes, a statement, a write queued or sent on the save's
    connection is refused (it would run outside any transaction) until the save's own COMMIT."""
    url = new_duel(client)
    game_id = game_id_of(postgres_engine, url)
    with app.test_request_context():
        session = get_session()
        connection = open_save(session, pipelined)
        save_pipeline.queue(_WRITE, connection, _entry(game_id, 1))
        save_pipeline.commit_follows(connection)
        assert save_pipeline.run(summaries._UPDATE_OPEN_RESULT, connection, _summary(game_id),
                                 last=True) == 1
        with pytest.raises(RuntimeError, match="outside the save's transaction"):
            connection.exec_driver_sql(f"DELETE FROM entry WHERE game_id = {game_id}")
        with pytest.raises(RuntimeError, match="outside the save's transaction"):
            save_pipeline.queue(_WRITE, connection, _entry(game_id, 2))
        with pytest.raises(RuntimeError, match="outside the save's transaction"):
            save_pipeline.run(summaries._UPDATE_OPEN_RESULT, connection, _summary(game_id))
        commit_save(session)
    assert entries_seen_from_outside(outside, game_id) == [1]
    assert_pool_as_it_came(postgres_engine)


def test_a_last_write_that_writes_no_row_commits_nothing_and_is_sent_again(
        app, client, postgres_engine, outside):
    """The summary row finished: the guarded UPDATE fails, so nothing is committed; the writes
    are sent again (ROLLBACK, BEGIN, the writes, the UPDATE unguarded: one round trip) and the
    row count is 0, as without ``last``; the transaction then holds the writes once, and commits
    or rolls back as a whole. An INSERT's key is told once, from the writes sent again."""
    url = new_duel(client)
    game_id = game_id_of(postgres_engine, url)
    with postgres_engine.begin() as connection:
        connection.exec_driver_sql(
            f"UPDATE gameresult SET finished = true WHERE game_id = {game_id}")
    for end in ("rollback", "commit"):
        keys: list[int] = []
        with app.test_request_context():
            session = get_session()
            with round_trips(postgres_engine) as trips:
                connection = open_save(session, pipelined)
                save_pipeline.queue(_WRITE, connection, _entry(game_id, 1), key=keys.append)
                save_pipeline.commit_follows(connection)
                assert save_pipeline.run(summaries._UPDATE_OPEN_RESULT, connection,
                                         _summary(game_id), last=True) == 0
                connection.connection.dbapi_connection.pgconn.untrace()
            assert trips == [2]  # stopped at the guard; sent again
            assert len(keys) == 1
            assert entries_seen_from_outside(outside, game_id) == []  # nothing committed
            assert connection.exec_driver_sql(
                f"SELECT count(*) FROM entry WHERE game_id = {game_id}").scalar() == 1
            (rollback_save if end == "rollback" else commit_save)(session)
            if end == "rollback":
                commit_save(session)
        assert entries_seen_from_outside(outside, game_id) == ([] if end == "rollback" else [1])
    with outside.connect() as other:
        assert other.exec_driver_sql(
            f"SELECT id FROM entry WHERE game_id = {game_id}").scalar() == keys[0]
    # (the unguarded UPDATE: still NOT finished)
    assert summary_of(postgres_engine, game_id)[0] is True
    # (the summary as the game says it is, for the teardown)
    with postgres_engine.begin() as connection:
        connection.exec_driver_sql(
            f"UPDATE gameresult SET finished = false WHERE game_id = {game_id}")
    assert_pool_as_it_came(postgres_engine)
