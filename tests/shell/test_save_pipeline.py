"""A save on PostgreSQL in two round trips (issue 36: eight, each waiting for a core on a busy
server): its first reads — the link with its game, the game's entries — sent together before its
transaction; its writes queued and sent together with the ``BEGIN`` and, for a game in progress,
the ``COMMIT``, in one psycopg pipeline (:mod:`companion.play.save_pipeline`; when the ``COMMIT``
may not go with them: test_save_commit_with_writes). Pinned here on PostgreSQL, with every
guarantee of a save kept: two saves of one version racing store one (the other is told it is
stale, or is answered as the replay it is), a refusal stores nothing, a connection the database
drops in the middle of a save stores nothing, a write the database refuses inside the pipeline
leaves nothing of the others, any other statement on the save's connection runs after the writes
queued and in their transaction, and the connection goes back to the pool as it came (not in
autocommit).

Round trips are counted with libpq's own trace (psycopg's ``pgconn.trace``): every answer the
server closes with ``ReadyForQuery`` ends one. PostgreSQL only (``make test-postgres``:
TEST_DATABASE_URL); SQLite's save is unchanged (its statements: test_save_statements).
"""

from __future__ import annotations

import json
import tempfile
import threading
import time
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import event, insert, text
from sqlalchemy.exc import DBAPIError, IntegrityError

from companion.db import commit_save, get_session, open_save, rollback_save
from companion.models import Entry, table_of
from companion.play import save_pipeline

from .test_core_saves import _entries, _new_rebel, _records
from .test_lean_saves import statements, version_of
from .test_save_round_trips import new_duel


@contextmanager
def wire(postgres_engine):
    """libpq's trace of every connection the app's pool hands out while the block runs (every
    message sent and received): a list of their texts, filled when the block ends."""
    folder = Path(tempfile.mkdtemp(prefix="trips-"))
    traced: list[tuple[object, object, Path]] = []
    texts: list[str] = []

    def trace(dbapi_connection, _record, _proxy) -> None:
        path = folder / f"{len(traced)}.trace"
        handle = path.open("w")
        dbapi_connection.pgconn.trace(handle.fileno())
        traced.append((dbapi_connection, handle, path))

    event.listen(postgres_engine, "checkout", trace)
    try:
        yield texts
    finally:
        event.remove(postgres_engine, "checkout", trace)
        for dbapi_connection, handle, path in traced:
            if not dbapi_connection.closed:
                dbapi_connection.pgconn.untrace()  # (writes out what libpq kept)
            handle.close()
            texts.append(path.read_text())


@contextmanager
def round_trips(postgres_engine):
    """Every round trip of every connection the app's pool hands out while the block runs,
    counted from libpq's trace of its messages (:func:`wire`): a list filled when the block
    ends."""
    counted: list[int] = []
    with wire(postgres_engine) as texts:
        yield counted
    counted.extend(sum(1 for line in text.splitlines()
                       if "\tB\t" in line and "ReadyForQuery" in line) for text in texts)


def pipelined(connection):
    """A save's connection made a pipelined one (as store.link_and_game_to_append does)."""
    assert save_pipeline.begin_save(connection)
    return connection


def save(client, url: str, version: int, cards=("general", "minister"), key: str | None = None):
    return client.post(f"{url}/round", data={"first": cards[0], "second": cards[1],
                                             "version": str(version), "key": key or f"k{version}"})


def game_id_of(postgres_engine, url: str) -> int:
    with postgres_engine.connect() as connection:
        return int(connection.exec_driver_sql(
            f"SELECT game_id FROM gamelink WHERE token = '{url.rsplit('/', 1)[1]}'").scalar())


def stamp_of(postgres_engine, game_id: int) -> datetime:
    with postgres_engine.connect() as connection:
        return connection.exec_driver_sql(
            f"SELECT updated_at FROM game WHERE id = {game_id}").scalar()


def assert_pool_as_it_came(postgres_engine) -> None:
    """Nothing checked out, and every pooled connection out of autocommit (a save's connection
    goes back as it came: the next user's transaction is one)."""
    assert postgres_engine.pool.checkedout() == 0
    taken = [postgres_engine.raw_connection() for _ in range(postgres_engine.pool.checkedin())]
    try:
        assert all(not c.dbapi_connection.autocommit for c in taken)
    finally:
        for connection in taken:
            connection.close()


def test_a_duel_round_on_postgresql_is_two_round_trips(app, client, postgres_engine):
    url = new_duel(client)
    assert save(client, url, 0).status_code == 303  # (the pool holds a used connection)
    with round_trips(postgres_engine) as trips, statements(app) as seen:
        answer = save(client, url, 1, ("minister", "general"))
    assert answer.status_code == 303, answer.text
    assert trips == [2]  # reads; BEGIN, writes and COMMIT (was 7: BEGIN and each statement)
    assert len(seen) == 5  # the same five statements (test_save_statements)
    assert version_of(client, url) == 2
    assert_pool_as_it_came(postgres_engine)


def rebel_round(client, url: str, number: int, scores=("3", "2", "4", "1")):
    return client.post(f"{url}/round/{number}/numbers", data={
        "base": "", "leader": "", "confirm": "y", "key": f"key-{number:08}",
        **{f"score_{s}": v for s, v in enumerate(scores)}})


def test_a_rebel_princess_round_on_postgresql_is_two_round_trips(app, client, postgres_engine):
    """Its seats and rounds come with the link in the first round trip, its record and the
    game's stamp go with the BEGIN, the summary's write and the COMMIT (was 8: the link; a BEGIN
    alone; the seats; the rounds; each write; the COMMIT)."""
    url = _new_rebel(client)
    assert rebel_round(client, url, 1).status_code == 302  # (the pool holds a used connection)
    with round_trips(postgres_engine) as trips, statements(app) as seen:
        answer = rebel_round(client, url, 2, ("2", "3", "1", "4"))
    assert answer.status_code == 302, answer.text
    assert trips == [2]  # reads; BEGIN, writes and COMMIT
    assert len(seen) == 6  # the same six statements (test_save_statements)
    assert _records(app, url) == [(1, 1, "entered"), (2, 2, "entered")]
    assert_pool_as_it_came(postgres_engine)


def test_a_rebel_princess_save_s_first_reads_bring_its_seats_and_rounds_taken_once(
        app, client, postgres_engine):
    """The seats and round records read with the link are what reads of their own give; the
    glue takes them once (a second read, as a save judged again after a refusal makes, reads
    the database), and a ROLLBACK forgets what was not taken."""
    from companion.play import round_records, store

    url = _new_rebel(client)
    assert rebel_round(client, url, 1).status_code == 302
    token = url.rsplit("/", 1)[1]
    with app.test_request_context():
        session = get_session()
        with round_trips(postgres_engine) as trips, statements(app) as seen:
            _link, game = store.link_and_game_to_append(session, token, entries=False)
            connection = save_pipeline_connection(session)
            seats = round_records.seats(connection, game.id)
            rounds = round_records.rounds(connection, game.id)
            connection.connection.dbapi_connection.pgconn.untrace()  # (the trips counted so far)
        assert len(seen) == 3  # the link with its game and names; the seats; the rounds
        assert trips == [1]  # all three together, before any transaction
        with statements(app) as seen:
            again = (round_records.seats(connection, game.id),
                     round_records.rounds(connection, game.id))
        assert len(seen) == 2  # read again, on the save's connection
        assert [(p.id, p.seat, p.name, p.princess, p.person_id) for p in seats] == [
            (p.id, p.seat, p.name, p.princess, p.person_id) for p in again[0]]
        assert [p.name for p in seats] == ["Ana", "Ben", "Cy", "Di"]
        assert [r.model_dump() for r in rounds] == [r.model_dump() for r in again[1]]
        assert [(r.seq, r.number, r.action, r.created_at.tzinfo is not None)
                for r in rounds] == [(1, 1, "entered", True)]
        save_pipeline.keep(connection, "rounds", game.id, [])
        rollback_save(session)
        with statements(app) as seen:
            assert len(round_records.rounds(connection, game.id)) == 1
        assert len(seen) == 1
    assert_pool_as_it_came(postgres_engine)


def test_a_rebel_princess_undo_that_loses_the_race_at_its_insert_is_judged_again(app, client,
                                                                                 postgres_engine):
    """Another phone's undo of the same version committed between this undo's reads and its
    writes: its record number is refused — raised where the undo writes, before the summary
    reads the game (a refusal met inside that read was a 500) — and the undo is judged again on
    the game read afresh: the other phone's undo is the one this tap asked for (a double tap,
    answered as done), nothing of this one stored."""
    url = _new_rebel(client)
    for number in (1, 2):
        assert rebel_round(client, url, number).status_code == 302
    game_id = game_id_of(postgres_engine, url)
    fired: list[bool] = []

    def rival_first(_conn, _cursor, statement, _params, _context, _many) -> None:
        if fired or not statement.startswith("INSERT INTO roundrecord"):
            return
        fired.append(True)
        with postgres_engine.connect() as other:
            other.exec_driver_sql(
                "INSERT INTO roundrecord (game_id, seq, number, action, deleted, undoes, "
                f"created_at) SELECT {game_id}, 3, 2, 'undone', true, id, CURRENT_TIMESTAMP "
                f"FROM roundrecord WHERE game_id = {game_id} AND seq = 2")
            other.commit()

    event.listen(postgres_engine, "before_cursor_execute", rival_first)
    try:
        answer = client.post(f"{url}/undo", data={"version": "2"})
    finally:
        event.remove(postgres_engine, "before_cursor_execute", rival_first)
    assert fired
    assert answer.status_code == 302, answer.text
    assert _records(app, url) == [(1, 1, "entered"), (2, 2, "entered"), (3, 2, "undone")]
    assert_pool_as_it_came(postgres_engine)


def save_pipeline_connection(session):
    from companion.db import saving_on

    connection = saving_on(session)
    assert connection is not None
    return connection


def test_two_saves_of_one_version_racing_store_one_and_the_other_is_told_so(app, client,
                                                                            postgres_engine):
    """Another phone's save of the same version made and committed while this one is between
    its reads and its writes: the database's unique key refuses this one's pipelined INSERT;
    nothing of it is stored (its stamp and summary writes were in the same batch)."""
    url = new_duel(client)
    assert save(client, url, 0).status_code == 303
    other = client.application.test_client()
    answers: list[int] = []
    started: list[bool] = []

    def rival(_conn, _cursor, statement, _params, _context, _many) -> None:
        if started or not statement.startswith("INSERT INTO entry"):
            return
        started.append(True)  # (the rival's own INSERT passes here too)
        thread = threading.Thread(target=lambda: answers.append(
            save(other, url, 1, ("prince", "wizard"), key="theirs").status_code))
        thread.start()
        thread.join()

    event.listen(postgres_engine, "before_cursor_execute", rival)
    try:
        mine = save(client, url, 1, ("minister", "general"), key="mine")
    finally:
        event.remove(postgres_engine, "before_cursor_execute", rival)
    assert answers == [303]
    assert mine.status_code == 409, mine.text
    assert 'data-problem="stale-write"' in mine.text
    stored = _entries(app, url)
    assert [(seq, json.loads(data)["cards"]) for seq, _, data in stored] == [
        (1, ["general", "minister"]), (2, ["prince", "wizard"])]
    assert_pool_as_it_came(postgres_engine)


def test_the_same_form_racing_itself_is_stored_once_and_answered_as_a_replay(app, client,
                                                                             postgres_engine):
    """A double tap: the same form (same key, same content) stored by the first sending while
    the second is between its reads and its writes: the second's INSERT is refused, and it is
    answered as the first was (a replay), nothing stored twice."""
    url = new_duel(client)
    game_id = game_id_of(postgres_engine, url)
    first = client.application.test_client()
    answers: list[int] = []
    started: list[bool] = []

    def first_tap(_conn, _cursor, statement, _params, _context, _many) -> None:
        if started or not statement.startswith("INSERT INTO entry"):
            return
        started.append(True)  # (the first tap's own INSERT passes here too)
        thread = threading.Thread(target=lambda: answers.append(
            save(first, url, 0, key="tap").status_code))
        thread.start()
        thread.join()

    event.listen(postgres_engine, "before_cursor_execute", first_tap)
    try:
        second = save(client, url, 0, key="tap")
    finally:
        event.remove(postgres_engine, "before_cursor_execute", first_tap)
    assert answers == [303]
    assert second.status_code == 303, second.text
    assert [seq for seq, _, _ in _entries(app, url)] == [1]
    assert version_of(client, url) == 1
    assert game_id_of(postgres_engine, url) == game_id
    assert_pool_as_it_came(postgres_engine)


def test_a_refused_save_stores_nothing(app, client, postgres_engine):
    """A stale version, and a changed copy of a form already saved: refused from the entries
    read with the link (no write sent), nothing stored, the connection back as it came."""
    url = new_duel(client)
    assert save(client, url, 0, key="once").status_code == 303
    game_id = game_id_of(postgres_engine, url)
    stamp = stamp_of(postgres_engine, game_id)
    stale = save(client, url, 0, ("minister", "general"), key="late")
    assert stale.status_code == 409 and 'data-problem="stale-write"' in stale.text
    changed = save(client, url, 0, ("minister", "general"), key="once")
    assert changed.status_code == 409, changed.text
    replay = save(client, url, 0, key="once")  # the same form again: answered as the first
    assert replay.status_code == 303
    assert [seq for seq, _, _ in _entries(app, url)] == [1]
    assert stamp_of(postgres_engine, game_id) == stamp
    assert_pool_as_it_came(postgres_engine)


def test_a_connection_dropped_in_the_middle_of_a_save_stores_nothing(app, client, postgres_engine):
    """The database drops the save's connection after its reads, before its writes reach it:
    the save fails (it is not tried again: its reads were on the lost connection), nothing is
    stored, and the next save is stored on a new connection."""
    url = new_duel(client)
    assert save(client, url, 0).status_code == 303
    game_id = game_id_of(postgres_engine, url)
    stamp = stamp_of(postgres_engine, game_id)
    dropped: list[int] = []

    def drop(_conn, cursor, statement, _params, _context, _many) -> None:
        if dropped or not statement.startswith("INSERT INTO entry"):
            return
        dropped.append(cursor.connection.info.backend_pid)
        with postgres_engine.connect() as other:
            other.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": dropped[0]})

    event.listen(postgres_engine, "before_cursor_execute", drop)
    try:
        with pytest.raises(DBAPIError) as failed:
            save(client, url, 1, ("minister", "general"))
    finally:
        event.remove(postgres_engine, "before_cursor_execute", drop)
    assert dropped and failed.value.connection_invalidated
    assert [seq for seq, _, _ in _entries(app, url)] == [1]
    assert stamp_of(postgres_engine, game_id) == stamp
    assert save(client, url, 1, ("minister", "general")).status_code == 303
    assert [seq for seq, _, _ in _entries(app, url)] == [1, 2]
    assert_pool_as_it_came(postgres_engine)


def test_a_write_refused_inside_the_pipeline_leaves_nothing_of_the_others(
        app, client, postgres_engine):
    """The summary's UPDATE refused by the database (a trigger here) after the entry's INSERT and
    the game's stamp ran in the same batch: the transaction is rolled back as a whole."""
    url = new_duel(client)
    assert save(client, url, 0).status_code == 303
    game_id = game_id_of(postgres_engine, url)
    stamp = stamp_of(postgres_engine, game_id)
    with postgres_engine.begin() as connection:
        connection.exec_driver_sql(
            "CREATE FUNCTION refuse_summary() RETURNS trigger LANGUAGE plpgsql AS "
            "$$ BEGIN RAISE EXCEPTION 'summary refused'; END $$")
        connection.exec_driver_sql(
            "CREATE TRIGGER refuse_summary BEFORE UPDATE ON gameresult "
            "FOR EACH ROW EXECUTE FUNCTION refuse_summary()")
    try:
        with pytest.raises(DBAPIError) as failed:
            save(client, url, 1, ("minister", "general"))
        assert "summary refused" in str(failed.value)
        assert not isinstance(failed.value, IntegrityError)  # (not a race: never a 409)
    finally:
        with postgres_engine.begin() as connection:
            connection.exec_driver_sql("DROP TRIGGER refuse_summary ON gameresult")
            connection.exec_driver_sql("DROP FUNCTION refuse_summary()")
    assert [seq for seq, _, _ in _entries(app, url)] == [1]
    assert stamp_of(postgres_engine, game_id) == stamp
    assert_pool_as_it_came(postgres_engine)
    assert save(client, url, 1, ("minister", "general")).status_code == 303


def test_a_statement_after_writes_queued_runs_after_them_in_their_transaction(app, client,
                                                                               postgres_engine):
    """Any statement SQLAlchemy sends on a save's connection (a read of the game for its
    summary, a refusal's page, the totals) goes after the writes queued, in their transaction:
    it sees them, and a rollback takes them back with everything else."""
    from companion.play.driver_statements import Prepared

    url = new_duel(client)
    game_id = game_id_of(postgres_engine, url)
    write = Prepared(insert(table_of(Entry)), ("game_id", "seq", "kind", "key", "data",
                                               "created_at"))
    count = text("SELECT count(*) FROM entry WHERE game_id = :game")
    with app.test_request_context():
        session = get_session()
        connection = open_save(session, pipelined)
        save_pipeline.queue(write, connection, {
            "game_id": game_id, "seq": 1, "kind": "round", "key": "q",
            "data": json.dumps({"cards": ["general", "minister"]}),
            "created_at": datetime.now(UTC)})
        assert connection.execute(count, {"game": game_id}).scalar() == 1  # sent first
        connection.exec_driver_sql(f"UPDATE game SET code = 'zzzzzz' WHERE id = {game_id}")
        rollback_save(session)
        assert connection.execute(count, {"game": game_id}).scalar() == 0
        commit_save(session)  # (nothing left to commit)
    with postgres_engine.connect() as connection:
        assert connection.exec_driver_sql(
            f"SELECT code FROM game WHERE id = {game_id}").scalar() != "zzzzzz"
    assert_pool_as_it_came(postgres_engine)


def test_a_write_through_sqlalchemy_on_a_save_s_connection_is_in_its_transaction(app, client,
                                                                                  postgres_engine):
    """A write sent through SQLAlchemy before any write queued (the connection is in autocommit
    for the save's first reads) begins the save's transaction first: a rollback takes it back."""
    url = new_duel(client)
    game_id = game_id_of(postgres_engine, url)
    with app.test_request_context():
        session = get_session()
        connection = open_save(session, pipelined)
        connection.execute(insert(table_of(Entry)).values(
            game_id=game_id, seq=1, kind="round", key="w",
            data=json.dumps({"cards": ["general", "minister"]}), created_at=datetime.now(UTC)))
        rollback_save(session)
    assert _entries(app, url) == []
    assert_pool_as_it_came(postgres_engine)


def test_a_save_s_first_reads_bring_the_entries_and_the_names_its_glue_asks_for(app, client,
                                                                                 postgres_engine):
    """The entries and the players' names (seat order) come with the link and game in the
    save's first round trip: the glue's reads of them (store.entries, store.names_of) send
    nothing, and give what a read of their own gives."""
    from companion.play import store

    url = new_duel(client)
    assert save(client, url, 0).status_code == 303
    with app.test_request_context():
        session = get_session()
        with statements(app) as seen:
            link, game = store.link_and_game_to_append(session, url.rsplit("/", 1)[1])
            names = store.names_of(session, game)
            read = store.entries(session, game)
        assert len(seen) == 2  # the link with its game and names; the entries
        assert names == ["Ana", "Ben"]
        session.info.pop(store._READ)
        session.info.pop(store._NAMES)
        assert store.entries(session, game) == read  # (read again, on the save's connection)
        assert [e.seq for e in read] == [1]
        assert store.names_of(session, game) == names


def test_a_commit_sends_what_is_still_queued_first(app, client, postgres_engine):
    """A write queued and never followed by another statement is sent before the COMMIT (the
    ``commit`` event): nothing queued is ever dropped by a commit."""
    from companion.play.driver_statements import Prepared

    url = new_duel(client)
    game_id = game_id_of(postgres_engine, url)
    write = Prepared(insert(table_of(Entry)), ("game_id", "seq", "kind", "key", "data",
                                               "created_at"))
    with app.test_request_context():
        session = get_session()
        connection = open_save(session, pipelined)
        save_pipeline.queue(write, connection, {
            "game_id": game_id, "seq": 1, "kind": "round", "key": "c",
            "data": json.dumps({"cards": ["general", "minister"]}),
            "created_at": datetime.now(UTC)})
        commit_save(session)
    assert [seq for seq, _, _ in _entries(app, url)] == [1]
    assert_pool_as_it_came(postgres_engine)


def _driver_rows(connection, sql: str, params) -> list[tuple]:
    """The rows of ``sql`` (``$1`` placeholders) through a psycopg cursor of the connection's
    own — how a save's first reads were read before they went to libpq alone."""
    import psycopg

    with psycopg.RawCursor(connection.connection.driver_connection) as cursor:
        return cursor.execute(sql, params).fetchall()


def _prepared_here(connection) -> set[str]:
    driver = connection.connection.driver_connection
    return {name for (name,) in driver.execute(
        "SELECT name FROM pg_prepared_statements").fetchall()}


def test_a_save_s_first_reads_give_the_cursor_s_rows_before_and_after_they_are_prepared(
        app, client, postgres_engine):
    """The first reads go to libpq alone (no psycopg cursor, their rows loaded in binary): the
    same rows, value for value and type for type, as a psycopg cursor's — their first uses on a
    connection sent with their text, then prepared there once and run by name; a prepared one
    gone from the connection (a ``DEALLOCATE ALL``) is read as before and prepared again."""
    from companion.play import page_reads
    from companion.play.driver_statements import PREPARE_AFTER

    url = new_duel(client)
    assert save(client, url, 0).status_code == 303
    token = url.rsplit("/", 1)[1]
    reads = [(page_reads.SAVE_LINK, (token,)), (page_reads.SAVE_ENTRIES.sql, (token,))]
    postgres_engine.dispose()  # (a connection the save above used none of these reads on)
    with postgres_engine.connect() as connection:
        pipelined(connection)
        expected = [_driver_rows(connection, sql, params) for sql, params in reads]
        assert all(expected) and len(expected[1]) == 1  # (the link; the one entry)
        before = _prepared_here(connection)

        def read_and_compare() -> None:
            found = save_pipeline.read_together(connection, reads)
            assert found == expected
            assert [[[type(v) for v in row] for row in rows] for rows in found] == \
                [[[type(v) for v in row] for row in rows] for rows in expected]

        for _ in range(PREPARE_AFTER):
            read_and_compare()
        assert _prepared_here(connection) == before  # (sent with their text so far)
        read_and_compare()
        prepared = _prepared_here(connection) - before
        assert len(prepared) == 2 and all(name.startswith("companion_save_read_")
                                          for name in prepared)
        connection.connection.driver_connection.execute("DEALLOCATE ALL")
        read_and_compare()  # (gone: sent again with their text)
        for _ in range(PREPARE_AFTER):
            read_and_compare()
        assert prepared <= _prepared_here(connection)  # (prepared again)
        connection.rollback()


def test_a_read_the_database_refuses_leaves_the_save_s_connection_usable(app, postgres_engine):
    """A first read refused (here a division by zero) is raised as SQLAlchemy's error, the
    connection not taken for lost, every result of the batch read and libpq's pipeline mode
    left: the next reads on it are answered."""
    from psycopg import pq

    with postgres_engine.connect() as connection:
        pipelined(connection)
        with pytest.raises(DBAPIError) as refused:
            save_pipeline.read_together(connection, [("SELECT 1 / $1::int", ("0",)),
                                                     ("SELECT $1::int", ("2",))])
        assert not refused.value.connection_invalidated
        assert getattr(refused.value.orig, "sqlstate", None) == "22012"
        driver = connection.connection.driver_connection
        assert driver.pgconn.pipeline_status == pq.PipelineStatus.OFF
        assert save_pipeline.read_together(connection, [("SELECT $1::int", ("3",)),
                                                        ("SELECT $1::text", ("a",))]) == \
            [[(3,)], [("a",)]]
        connection.rollback()
    assert_pool_as_it_came(postgres_engine)


def test_a_write_is_sent_to_libpq_with_its_placeholders_numbered_and_its_values_as_text():
    """SQLAlchemy's SQL for psycopg made libpq's: each named value numbered once (a name twice,
    one number), ``%%`` a ``%``; each value as PostgreSQL reads it in a parameter its SQL
    casts; a value of a kind no save writes refused, never sent in a form of Python's."""
    from datetime import timedelta, timezone
    from enum import Enum

    class Kind(str, Enum):  # noqa: UP042  (str() of such a member is "Kind.ROUND": never sent)
        ROUND = "round"

    at = datetime(2026, 11, 30, 16, 5, 7, 123456, tzinfo=timezone(timedelta(hours=1)))
    sql, values, name, binary = save_pipeline._in_libpq_form(
        "UPDATE t SET a = %(a)s::INTEGER, b = %(b)s::VARCHAR, c = %(a)s::INTEGER "
        "WHERE d LIKE 'x%%' AND e = %(e)s::TIMESTAMP WITH TIME ZONE AND f = %(f)s::BOOLEAN "
        "AND g IS NOT DISTINCT FROM %(g)s::VARCHAR AND h = %(h)s::VARCHAR",
        {"a": 7, "b": "née 100 %", "e": at, "f": False, "g": None, "h": Kind.ROUND})
    assert sql == (b"UPDATE t SET a = $1::INTEGER, b = $2::VARCHAR, c = $1::INTEGER "
                   b"WHERE d LIKE 'x%' AND e = $3::TIMESTAMP WITH TIME ZONE AND f = $4::BOOLEAN "
                   b"AND g IS NOT DISTINCT FROM $5::VARCHAR AND h = $6::VARCHAR")
    assert values == [b"7", "née 100 %".encode(), b"2026-11-30T16:05:07.123456+01:00", b"false",
                      None, b"round"]
    assert (name, binary) == (None, False)
    assert save_pipeline._in_libpq_form("SELECT %s::INTEGER, %s::BOOLEAN", (3, True))[:2] == (
        b"SELECT $1::INTEGER, $2::BOOLEAN", [b"3", b"true"])
    with pytest.raises(TypeError):
        save_pipeline._in_libpq_form("SELECT %(x)s", {"x": object()})


def test_values_written_through_libpq_read_back_as_they_were(app, postgres_engine):
    """Every kind of value a save writes (an aware time to the microsecond, a flag, a number,
    text with a quote, a NUL-free accent and a percent sign, nothing) comes back as it was
    sent, through the pipeline that carries its whole transaction (no BEGIN, no COMMIT: the
    Sync commits it)."""
    from datetime import timedelta, timezone

    at = datetime(2026, 11, 30, 23, 59, 59, 999999, tzinfo=timezone(timedelta(hours=-3)))
    table = f"written_{threading.get_ident()}"
    with postgres_engine.connect() as connection:
        connection.exec_driver_sql(f"CREATE TABLE {table} (at TIMESTAMP WITH TIME ZONE, "
                                   "flag BOOLEAN, n INTEGER, word VARCHAR, nothing VARCHAR)")
        connection.commit()
    try:
        with postgres_engine.connect() as connection:
            pipelined(connection)
            connection.begin()
            results = save_pipeline._pipelined(connection, [(
                f"INSERT INTO {table} VALUES (%(at)s::TIMESTAMP WITH TIME ZONE, "
                "%(flag)s::BOOLEAN, %(n)s::INTEGER, %(word)s::VARCHAR, %(nothing)s::VARCHAR)",
                {"at": at, "flag": True, "n": -42, "word": "l'Éveil 100 %", "nothing": None})],
                begin=True, commit=True)
            assert save_pipeline._rows_of(results[0]) == 1
            connection.commit()
        with postgres_engine.connect() as connection:
            assert connection.exec_driver_sql(f"SELECT * FROM {table}").all() == [
                (at, True, -42, "l'Éveil 100 %", None)]
    finally:
        with postgres_engine.connect() as connection:
            connection.exec_driver_sql(f"DROP TABLE {table}")
            connection.commit()
    assert_pool_as_it_came(postgres_engine)


def test_a_whole_transaction_s_writes_are_prepared_after_a_few_uses_and_again_when_gone(
        app, postgres_engine):
    """The writes of a transaction whole in one pipeline are sent with their text for their
    first uses on a connection, then prepared there once and run by name; prepared writes gone
    from the connection (a ``DEALLOCATE ALL``, or one of them only, after another ran) leave the
    transaction rolled back whole and sent again with their text — every row stored once, none
    twice — and are prepared again later.
    A write refused among prepared ones stores nothing of its transaction. A transaction sent
    in several round trips (its ``BEGIN`` before its ``COMMIT``) is never sent by name: it
    could not be sent again."""
    from companion.play.driver_statements import PREPARE_AFTER

    table = f"prepared_{threading.get_ident()}"
    with postgres_engine.connect() as connection:
        connection.exec_driver_sql(f"CREATE TABLE {table} (n INTEGER PRIMARY KEY, word VARCHAR)")
        connection.commit()
    insert_row = f"INSERT INTO {table} VALUES (%(n)s::INTEGER, %(word)s::VARCHAR)"
    touch = f"UPDATE {table} SET word = %(word)s::VARCHAR WHERE n = %(n)s::INTEGER"
    written: list[int] = []

    def whole(connection, n: int) -> None:
        connection.begin()
        results = save_pipeline._pipelined(connection, [
            (insert_row, {"n": n, "word": "new"}), (touch, {"n": n, "word": f"w{n}"})],
            begin=True, commit=True)
        assert [save_pipeline._rows_of(result) for result in results] == [1, 1]
        connection.commit()
        written.append(n)

    try:
        with postgres_engine.connect() as connection:
            pipelined(connection)
            before = _prepared_here(connection)
            for n in range(PREPARE_AFTER):
                whole(connection, n)
            assert _prepared_here(connection) == before  # (sent with their text so far)
            whole(connection, PREPARE_AFTER)
            prepared = _prepared_here(connection) - before
            assert len(prepared) == 2 and all(name.startswith("companion_save_write_")
                                              for name in prepared)
            connection.connection.driver_connection.execute("DEALLOCATE ALL")
            whole(connection, 100)  # (gone: rolled back, sent again with their text)
            for n in range(101, 101 + PREPARE_AFTER):
                whole(connection, n)
            assert prepared <= _prepared_here(connection)  # (prepared again)
            touch_name = save_pipeline._WRITES_NAMED.of(
                save_pipeline._in_libpq_form(touch, {"n": 0, "word": ""})[0])
            connection.connection.driver_connection.execute(f"DEALLOCATE {touch_name}")
            whole(connection, 300)  # (its INSERT ran, then undone with the rest: stored once)
            connection.begin()
            with pytest.raises(IntegrityError):  # (row 100 is there: nothing of this is kept)
                save_pipeline._pipelined(connection, [
                    (touch, {"n": 0, "word": "lost"}), (insert_row, {"n": 100, "word": "twice"})],
                    begin=True, commit=True)
            connection.rollback()
            kept = _prepared_here(connection)
            for n in range(200, 200 + PREPARE_AFTER + 2):  # (its BEGIN sent before its COMMIT)
                connection.begin()
                save_pipeline._pipelined(connection, [(touch, {"n": 0, "word": f"w{n}"})],
                                         begin=True)
                save_pipeline._pipelined(connection, [(touch, {"n": 1, "word": f"w{n}"})],
                                         commit=True)
                connection.commit()
            assert _prepared_here(connection) == kept
        with postgres_engine.connect() as connection:
            rows = connection.exec_driver_sql(f"SELECT n, word FROM {table} ORDER BY n").all()
        assert [n for n, _ in rows] == sorted(written)
        assert dict(rows) | {0: "w0", 1: "w1"} == {n: f"w{n}" for n in written}
        assert dict(rows)[0] == dict(rows)[1] == f"w{200 + PREPARE_AFTER + 1}"
    finally:
        with postgres_engine.connect() as connection:
            connection.exec_driver_sql(f"DROP TABLE {table}")
            connection.commit()
    assert_pool_as_it_came(postgres_engine)


def test_statements_named_at_once_by_many_threads_each_get_a_name_of_their_own():
    """A statement's name on a connection is given once per SQL and never twice: threads naming
    different statements at the same moment get different names (else a connection would run
    one statement's SQL for the other's), each statement keeps its name, and past
    ``_MOST_NAMES`` statements a new one gets none (sent with its text)."""
    import sys

    names = save_pipeline._Names("t_")
    texts = [f"SELECT {n}".encode() for n in range(save_pipeline._MOST_NAMES)]
    given: dict[int, list[str | None]] = {}
    start = threading.Barrier(8)

    def name_all(offset: int) -> None:
        start.wait()
        given[offset] = [names.of(texts[(n + offset) % len(texts)]) for n in range(len(texts))]

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # (threads switched as often as they can be)
    try:
        threads = [threading.Thread(target=name_all, args=(8 * k,)) for k in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(interval)
    by_text = {text: names.of(text) for text in texts}
    assert len(set(by_text.values())) == len(texts) and None not in by_text.values()
    assert len(given) == 8
    for offset, seen in given.items():
        assert seen == [by_text[texts[(n + offset) % len(texts)]] for n in range(len(texts))]
    assert names.of(b"SELECT 'one too many'") is None


def test_a_save_s_whole_transaction_in_one_pipeline_sends_no_begin_and_no_commit(
        app, client, postgres_engine):
    """A duel round (its entry, the game's stamp, its summary's UPDATE) goes in one pipeline
    with nothing else: the database's own transaction of a pipeline carries it, committed at
    its Sync — no ``BEGIN``, no ``COMMIT`` on the wire — and it is stored."""
    url = new_duel(client)
    assert save(client, url, 0).status_code == 303
    with wire(postgres_engine) as texts:
        assert save(client, url, 1, ("minister", "general")).status_code == 303
    traced = "".join(texts)
    assert "INSERT INTO entry" in traced and "UPDATE" in traced  # (the save went through here)
    sent = [line for line in traced.splitlines() if "\tF\t" in line]
    assert not any('"BEGIN"' in line or '"COMMIT"' in line for line in sent), sent
    assert [seq for seq, _, _ in _entries(app, url)] == [1, 2]
    assert_pool_as_it_came(postgres_engine)


def test_a_save_waiting_for_the_database_lets_the_process_s_other_threads_run(
        app, postgres_engine):
    """While a save's round trip waits for the database, another thread of the process runs:
    libpq's results are waited for in ``select``, never inside ``PQgetResult``, which psycopg
    calls holding Python's lock — a thread holding a row a save waits for would never get to
    release it (a group deleted while its games were saved hung so in a threaded server)."""
    ran: list[float] = []
    started = threading.Event()

    def other() -> None:
        started.wait()
        threading.Event().wait(0.1)
        ran.append(time.monotonic())

    thread = threading.Thread(target=other)
    thread.start()
    with postgres_engine.connect() as connection:
        pipelined(connection)
        started.set()
        found = save_pipeline.read_together(connection, [("SELECT pg_sleep($1::float)", ("1",)),
                                                         ("SELECT $1::int", ("5",))])
        answered = time.monotonic()
        connection.rollback()
    thread.join()
    assert found[1] == [(5,)]
    assert ran and ran[0] < answered  # (it ran while the save waited)


def test_a_save_s_connection_past_descriptor_1023_is_waited_for(app, postgres_engine):
    """A process with many files open (a threaded server's sockets, its jobs' files) gets
    descriptors past 1,023, where ``select`` refuses to wait: a save's round trip waits on its
    connection's socket with ``poll``, whatever its number."""
    import os
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = 1200
    if hard != resource.RLIM_INFINITY and hard < wanted:
        pytest.skip(f"this machine allows {hard} open files, fewer than the test needs")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, wanted), hard))
    postgres_engine.dispose()  # (the pool's connections closed: the next one is new)
    reading, writing = os.pipe()
    held = [os.dup(reading)]
    while held[-1] < 1100:  # (every descriptor below taken: the next one opened is past it)
        held.append(os.dup(reading))
    try:
        with postgres_engine.connect() as connection:
            assert connection.connection.driver_connection.pgconn.socket > 1023
            pipelined(connection)
            assert save_pipeline.read_together(connection, [("SELECT $1::int", ("7",))]) == \
                [[(7,)]]
            connection.rollback()
    finally:
        for descriptor in (*held, reading, writing):
            os.close(descriptor)
        postgres_engine.dispose()
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
