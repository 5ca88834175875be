"""A save on its own connection on PostgreSQL (:func:`companion.db.open_save`) in three round
trips, or two, where each statement and psycopg's own ``BEGIN`` took one (issue 36: a duel's
round made seven, each waiting for a core on a busy server), through libpq's pipeline mode:

1. its first reads sent together, before any transaction (:func:`read_together`: the link with
   its game and names, and the game's entries — or, for a game that keeps its rounds as
   records, its seats and records, kept for the save's glue to take once (:func:`keep`,
   :func:`taken`) —, :func:`companion.play.page_reads.save_reads`; at READ COMMITTED a read
   sees the same outside a transaction as inside one, and takes no lock);
2. its writes queued (:func:`queue`: the entry, the game's stamp) and sent with the ``BEGIN`` and
   the first write whose answer is read (:func:`run`: the summary's UPDATE, whose row count
   decides what follows), in one pipeline;
3. the ``COMMIT`` — or, where nothing read after the writes can change what is stored, with
   them (:func:`commit_follows`, ``run(…, last=True)``): two round trips.

The ``COMMIT`` goes with the writes only when the save's caller said that nothing but its
summary's write and the ``COMMIT`` follow (:func:`commit_follows`), every write of the transaction
is in that one pipeline (nothing sent before it), and the summary's UPDATE says it is the last
statement if it writes its row (a game in progress whose summary stays unfinished: no group
totals to move). Its row count cannot be read before the ``COMMIT`` is sent, so the UPDATE is
sent guarded (:func:`guarded`): it fails in SQL when it writes no row (a data-modifying CTE whose
SELECT divides by the rows it wrote), which stops the pipeline before its ``COMMIT`` (one Sync
at the pipeline's end: an error skips every statement after it), and the
transaction is rolled back and sent again, ``ROLLBACK``, ``BEGIN``, the same writes and the
UPDATE unguarded, in one round trip: the save then goes on as it did before, from that UPDATE's
row count (a finished game's summary, a first summary, the group's totals), and commits on its
own. A transaction whole in one pipeline (its ``BEGIN``, its writes, its ``COMMIT``) is sent
without the ``BEGIN`` and the ``COMMIT``: a pipeline's statements up to its Sync are one
transaction of the database's own, committed at the Sync if every one succeeded, else rolled
back as a whole (two messages fewer to write, send and answer). Once committed with its writes,
a save's connection refuses any other statement until the save's own ``COMMIT`` (which then
sends nothing: psycopg sends none on an idle connection), so that nothing can ever be written
outside the save's transaction.

Both round trips go through libpq alone, as the pages' reads do
(:func:`companion.play.page_reads.read_rows`): no psycopg cursor, no pipeline object of
psycopg's — their machinery was 0.7 ms of a 2.3 ms save's CPU (issue 36, session 17) — the
writes' values sent as text for the casts their SQL carries (:func:`_in_libpq_form`), the
reads' rows loaded in binary by psycopg's own loaders. The reads, and the writes of a
transaction whole in one pipeline, are prepared on a connection after a few uses there and run
by name (:func:`_named_pipeline`): the database then neither parses nor plans
them again (its CPU for a duel round's writes 0.98 → 0.57 ms, issue 36, session 18). A
prepared statement gone from the connection (a ``DEALLOCATE ALL``) makes its pipeline fail
whole: the reads, or that transaction (rolled back whole by the database), are sent again with
their text. The writes of a transaction sent in several round trips are always sent with their
text: their transaction could not be sent again.

The connection is taken in autocommit (:func:`begin_save`: psycopg then sends no ``BEGIN`` of its
own; SQLAlchemy puts the connection back as it was when it returns to the pool). Any statement
SQLAlchemy sends on it first sends what is queued, beginning the transaction if it has not begun
(:func:`_writes_first`): a read of the game for its summary, a refusal's page, the group's
totals all run after the writes, in their transaction; a ``COMMIT`` sends what is still queued
first; a ``ROLLBACK`` drops it. A write the database refuses in a pipeline stops the rest of it
and is raised as SQLAlchemy's error (a unique key's refusal an ``IntegrityError``: the race is
read as before); a connection lost is invalidated and said so (``connection_invalidated``: the
first reads are tried once more on a new connection, as the link lookup was).
"""

from __future__ import annotations

import re
import select
import threading
import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any, cast

from sqlalchemy import event
from sqlalchemy.engine import Connection
from sqlalchemy.exc import DBAPIError

from .driver_statements import PREPARE_AFTER, USES, Prepared, check, prepare, sqlstate


@dataclass
class _Writes:
    """A save's connection on PostgreSQL: whether its transaction has begun (its ``BEGIN``
    sent), its writes queued, not sent yet, and what its first reads brought that its glue has
    not taken yet (:func:`keep`)."""

    begun: bool = False
    queued: list[tuple[str, Any]] = field(default_factory=list)
    keys: dict[int, Callable[[int], None]] = field(default_factory=dict)
    """Of the writes queued, by their place: what is told the key an INSERT made
    (:func:`queue`'s ``key``)."""
    read: dict[tuple[str, int], Any] = field(default_factory=dict)
    commit_follows: bool = False
    """Its caller commits right after its summary's write (:func:`commit_follows`)."""
    committed: bool = False
    """Its ``COMMIT`` went with its writes: no statement may follow it before the save's own."""


_WRITES: weakref.WeakKeyDictionary[Connection, _Writes] = weakref.WeakKeyDictionary()


def begin_save(connection: Connection) -> bool:
    """Make ``connection`` (a save's own, just taken, nothing sent) a pipelined save's: on
    PostgreSQL, in autocommit, its writes queued (True); elsewhere nothing (False)."""
    if connection.dialect.name != "postgresql":
        return False
    engine = connection.engine
    if engine not in _LISTENED:  # (looked up once per engine, not at every save)
        for name, hook in _HOOKS:
            if not event.contains(engine, name, hook):
                event.listen(engine, name, hook)
        _LISTENED.add(engine)
    connection.execution_options(isolation_level="AUTOCOMMIT")
    _WRITES[connection] = _Writes()
    return True


_LISTENED: weakref.WeakSet[Any] = weakref.WeakSet()
"""The engines whose events :func:`begin_save` has made sure :data:`_HOOKS` listen to."""


def _writes_first(connection: Connection, *_args: Any) -> None:
    """Before a statement SQLAlchemy sends, or a ``COMMIT``, on a pipelined save's connection:
    the writes queued sent first, with the ``BEGIN`` if the transaction has not begun."""
    writes = _WRITES.get(connection)
    if writes is not None and (writes.queued or not writes.begun):
        send_writes(connection)


def _not_after_commit(connection: Connection, *_args: Any) -> None:
    """Before any statement sent on a connection (``exec_driver_sql`` too, which has no
    ``before_execute``): none on a save's whose ``COMMIT`` went with its writes."""
    writes = _WRITES.get(connection)
    if writes is not None:
        _not_committed(writes)


def _not_committed(writes: _Writes) -> None:
    if writes.committed:
        raise RuntimeError("a statement after a save committed with its writes: it would run "
                           "outside the save's transaction")


def flush(connection: Connection) -> None:
    """The writes still queued on a pipelined save's connection sent (before its ``COMMIT``:
    :func:`companion.play.store.append` sends them itself, so that a refusal among them is
    raised there; the ``commit`` event does it too, so that nothing queued is ever lost)."""
    writes = _WRITES.get(connection)
    if writes is not None and writes.queued:
        send_writes(connection)


def _committing(connection: Connection) -> None:
    """The ``commit`` event: what is still queued sent first (:func:`flush`); a save whose
    ``COMMIT`` went with its writes is over (psycopg sends no second one)."""
    flush(connection)
    writes = _WRITES.get(connection)
    if writes is not None:
        writes.commit_follows = writes.committed = False


def _dropped(connection: Connection) -> None:
    """A ``ROLLBACK``: what was queued is never sent; the next write begins anew; what the
    first reads brought and nobody took is forgotten (a save judged again reads afresh)."""
    writes = _WRITES.get(connection)
    if writes is not None:
        writes.queued.clear()
        writes.keys.clear()
        writes.read.clear()
        writes.begun = writes.commit_follows = writes.committed = False


_HOOKS = (("before_execute", _writes_first), ("commit", _committing), ("rollback", _dropped),
          ("before_cursor_execute", _not_after_commit))
"""What a pipelined save's connection needs its engine's events to run (:func:`begin_save`)."""


def commit_follows(connection: Connection) -> None:
    """Say that on this pipelined save's connection (else nothing) only the save's summary
    write and its ``COMMIT`` follow (:func:`companion.play.store.append`,
    :func:`companion.play.round_records.write`, before their summary's write): that write may
    then carry the ``COMMIT`` (``run(…, last=True)``)."""
    writes = _WRITES.get(connection)
    if writes is not None:
        writes.commit_follows = True


def keep(connection: Connection, what: str, game_id: int, rows: Any) -> None:
    """Keep ``rows``, read by a pipelined save's first reads (``what`` of game ``game_id``), for
    its glue to take once (:func:`taken`)."""
    _WRITES[connection].read[(what, game_id)] = rows


def taken(connection: Connection, what: str, game_id: int | None) -> Any:
    """What :func:`keep` kept of ``what`` for game ``game_id`` on this save's connection, taken
    (a second read, or one after a ``ROLLBACK``, reads the database again); None: nothing
    kept."""
    writes = _WRITES.get(connection)
    if writes is None or game_id is None:
        return None
    return writes.read.pop((what, game_id), None)


def queue(prepared: Prepared, connection: Connection, values: dict[str, Any], *,
          key: Callable[[int], None] | None = None) -> None:
    """``prepared`` run with ``values``: on a pipelined save's connection, queued (sent with the
    next write whose answer is read, the ``COMMIT`` or any other statement, whichever comes
    first, in one round trip); elsewhere run at once. ``key`` (an INSERT of one row): told the
    key of the row it made, once it is sent."""
    writes = _WRITES.get(connection)
    if writes is None:
        made = prepared.run(connection, values, key=key is not None)
        if key is not None:
            key(made)
        return
    _not_committed(writes)
    if not connection.in_transaction():
        connection.begin()  # (so that its COMMIT, and the ``commit`` event, come)
    if key is not None:
        writes.keys[len(writes.queued)] = key
    writes.queued.append(prepared.bound(connection, values))


def run(prepared: Prepared, connection: Connection, values: dict[str, Any], *,
        last: bool = False) -> int:
    """``prepared`` run with ``values`` (on a pipelined save's connection, after the writes
    queued, in one round trip); the number of rows it wrote. ``last``: an UPDATE of one row
    after which, if it writes that row, nothing follows but the save's ``COMMIT`` — sent with
    it when its caller said so (:func:`commit_follows`) and nothing of the transaction was sent
    before (its writes all in this round trip): then 1, and the save is committed; if it wrote
    no row, nothing is committed, the transaction is sent again without the ``COMMIT``, and its
    row count (0) is answered as without ``last``."""
    writes = _WRITES.get(connection)
    if writes is None:
        return prepared.run(connection, values)
    bound = prepared.bound(connection, values)
    if last and writes.commit_follows and not writes.begun:
        statements, keys = list(writes.queued), dict(writes.keys)
        try:
            send_writes(connection, guarded(bound), commit=True)
        except DBAPIError as error:  # (its row not written: 22012, the guard's division)
            if getattr(error.orig, "sqlstate", None) != _NO_ROW:
                raise
            writes.queued, writes.keys = statements, keys  # (again, as without ``last``)
            return send_writes(connection, bound, again=True)
        writes.committed = True
        return 1
    return send_writes(connection, bound)


_NO_ROW = "22012"
"""The SQLSTATE of :func:`guarded`'s refusal (division_by_zero)."""


def guarded(update: tuple[str, Any]) -> tuple[str, Any]:
    """An UPDATE (its SQL and values) made into one that fails when it writes no row: a
    data-modifying CTE whose SELECT divides 1 by the number of rows it wrote (0: an error,
    :data:`_NO_ROW`). Its one row says 1 when it wrote one (its key is unique)."""
    sql, params = update
    return f"WITH written AS ({sql} RETURNING 1) SELECT 1 / count(*) FROM written", params


def send_writes(connection: Connection, last: tuple[str, Any] | None = None, *,
                commit: bool = False, again: bool = False) -> int:
    """The writes queued on a pipelined save's connection, and ``last`` after them, sent in one
    round trip, with the ``BEGIN`` if the transaction has not begun; the number of rows ``last``
    wrote (-1 without it). A write the database refuses stops the rest of the batch and is
    raised as SQLAlchemy's error: the transaction is then rolled back as a whole. ``commit``:
    the ``COMMIT`` after them, in the same round trip (never sent if any of them fails);
    ``again``: a transaction that failed, rolled back first and begun anew."""
    writes = _WRITES[connection]
    _not_committed(writes)
    statements = [*writes.queued, *([last] if last is not None else [])]
    keys, writes.queued, writes.keys = writes.keys, [], {}
    begin = again or not writes.begun
    if not connection.in_transaction():
        connection.begin()  # (so that its COMMIT commits what is sent)
    writes.begun = True
    results = _pipelined(connection, statements, begin=begin, commit=commit, again=again)
    rows = _rows_of(results[-1]) if last is not None else -1
    for place, told in keys.items():  # (an INSERT's RETURNING of its key, as SQLAlchemy sends it)
        told(_key_of(results[place]))
    return rows


def read_together(connection: Connection,
                  reads: Sequence[tuple[str, Sequence[Any]]]) -> list[list[tuple[Any, ...]]]:
    """The rows of each of ``reads`` (SQL with PostgreSQL's ``$1`` placeholders, and its
    values, sent as text), sent together in one round trip on a pipelined save's connection,
    before its transaction; the rows as psycopg's own loaders give them. Through libpq alone,
    as the pages' reads (:func:`companion.play.page_reads.read_rows`): no psycopg cursor, no
    pipeline object of psycopg's (their machinery was most of the round trip's CPU, issue 36).
    Each read is prepared on the connection after :data:`.driver_statements.PREPARE_AFTER`
    uses there and then run by name; one that is gone from it (a ``DEALLOCATE ALL``) is
    prepared again and the reads sent once more. The statement events see each read as any
    other (given a cursor of the connection's, made for them); a driver error is raised as
    SQLAlchemy's (``connection_invalidated`` when the connection was lost:
    :func:`companion.db.once_more_if_dropped` tries again)."""
    from psycopg import pq
    from psycopg.adapt import Transformer

    driver = cast(Any, connection.connection.driver_connection)
    events = connection.dispatch
    cursor = driver.cursor()  # (what the statement events are given)
    sent = _seen_before(connection, cursor, reads)
    info = connection.connection.info
    commands: list[Command] = [(sql.encode(), [None if value is None else str(value).encode()
                                               for value in params], None, True)
                               for sql, params in sent]
    try:
        results = _named_pipeline(driver.pgconn, commands, info, _READS)
        for sql, params in sent:
            for after in events.after_cursor_execute:
                after(connection, cursor, sql, params, None, False)
    except connection.dialect.loaded_dbapi.Error as error:
        raise _as_sqlalchemy_error(connection, error, sent) from error
    finally:
        cursor.close()
    found: list[list[tuple[Any, ...]]] = []
    for result in results:
        if not result.ntuples:
            found.append([])
            continue
        loader = Transformer(driver)
        loader.set_pgresult(result, format=pq.Format.BINARY)
        found.append(loader.load_rows(0, result.ntuples, tuple))
    return found


class _Gone(Exception):
    """A statement prepared on the connection is no longer there (SQLSTATE 26000)."""


Command = tuple[bytes, list[bytes | None], bytes | None, bool]
"""A statement for :func:`_pipeline`: its SQL (``$1`` placeholders), its values as text, the
name it is prepared under on the connection (None: sent with its SQL) and whether its rows
come back in binary."""


def _pipeline(pgconn: Any, commands: Sequence[Command]) -> list[Any]:
    """``commands`` sent in libpq's pipeline mode with one Sync, and their results (libpq's).
    A statement that failed is raised as the driver's error once every result is read (the
    connection left out of pipeline mode, usable; :class:`_Gone` for a prepared statement no
    longer on the connection); a connection lost, as the driver's ``OperationalError``."""
    from psycopg import OperationalError, pq

    results: list[Any] = []
    pgconn.enter_pipeline_mode()
    try:
        for sql, values, name, binary in commands:
            result_format = pq.Format.BINARY if binary else pq.Format.TEXT
            if name is not None:
                pgconn.send_query_prepared(name, values, result_format=result_format)
            else:
                pgconn.send_query_params(sql, values, result_format=result_format)
        pgconn.pipeline_sync()
        while pgconn.flush():  # (what is left to send: its socket waited for, never spun on)
            if _ready(pgconn.socket, select.POLLIN | select.POLLOUT) & select.POLLIN:
                pgconn.consume_input()  # (libpq's rule: what the server sends meanwhile is read)
        for _ in commands:
            result = _next_result(pgconn)
            if result is None:
                raise OperationalError("the connection was lost during a save")
            results.append(result)
            while _next_result(pgconn) is not None:  # (the end of this statement's results)
                pass
        end = _next_result(pgconn)
        if end is None or end.status != pq.ExecStatus.PIPELINE_SYNC:
            raise OperationalError("the connection was lost during a save")
    except BaseException:
        try:
            pgconn.exit_pipeline_mode()  # (it can only once every result is read)
        except Exception:  # (never left in pipeline mode for the next request: closed)
            pgconn.finish()
        raise
    pgconn.exit_pipeline_mode()
    for result in results:
        if result.status != pq.ExecStatus.PIPELINE_ABORTED:
            if sqlstate(result) == "26000":
                raise _Gone
            check(result)
    return results


def _next_result(pgconn: Any) -> Any:
    """libpq's next result, waited for in ``poll`` — which lets the process's other threads
    run meanwhile — and never inside libpq's ``PQgetResult``, which psycopg calls holding
    Python's lock (a thread waiting there for a row another thread of the process holds
    locked would wait for ever)."""
    while pgconn.is_busy():
        _ready(pgconn.socket, select.POLLIN)
        pgconn.consume_input()
    return pgconn.get_result()


def _ready(socket: int, events: int) -> int:
    """Wait until ``socket`` is ready for ``events`` (``poll``: any descriptor, where
    ``select`` refuses one past 1,023); what it is ready for (an error or a hang-up counts:
    libpq then says what happened)."""
    poller = select.poll()
    poller.register(socket, events)
    found = 0
    for _, ready in poller.poll():
        found |= ready
    return found


def _pipelined(connection: Connection, statements: Sequence[tuple[str, Any]], *,
               begin: bool = False, commit: bool = False, again: bool = False) -> list[Any]:
    """``statements`` (SQLAlchemy's SQL for psycopg, and its values) sent to ``connection`` in
    one pipeline, through libpq alone (:func:`_pipeline`: no psycopg cursor or pipeline
    object, most of the round trip's CPU, issue 36), after a ``ROLLBACK`` with ``again`` and a
    ``BEGIN`` with ``begin``, a ``COMMIT`` after them with ``commit``. With ``begin`` and
    ``commit`` and not ``again`` (the whole transaction in this round trip) neither is sent:
    the statements of a pipeline up to its Sync are one transaction of the database's own,
    committed at the Sync if every one succeeded, else rolled back as a whole. Their results,
    in order: libpq's (:func:`_rows_of`, :func:`_key_of`). The statement events see each as
    any other, all before the pipeline is sent (without an execution context, as
    :func:`.driver_statements.on_driver` fires them, given a cursor of the connection's made
    for them; the ``BEGIN`` and ``COMMIT``, like psycopg's own, are no statements of theirs)."""
    driver = cast(Any, connection.connection.driver_connection)
    events = connection.dispatch
    sent = list(statements)
    whole = begin and commit and not again
    controls: list[Command] = [(control, [], None, False) for control, wanted in (
        (b"ROLLBACK", again), (b"BEGIN", begin and not whole)) if wanted]
    cursor = driver.cursor()  # (what the statement events are given)
    try:
        sent = _seen_before(connection, cursor, sent)
        writes = [_in_libpq_form(sql, params) for sql, params in sent]
        try:
            if whole:  # (nothing before it in its transaction: all of it can be sent again)
                results = _named_pipeline(driver.pgconn, writes, connection.connection.info,
                                          _WRITES_NAMED)
            else:
                results = _pipeline(driver.pgconn, [
                    *controls, *writes, *([(b"COMMIT", [], None, False)] if commit else [])])
        except connection.dialect.loaded_dbapi.Error as error:
            raise _as_sqlalchemy_error(connection, error, sent) from error
        for sql, params in sent:
            for after in events.after_cursor_execute:
                after(connection, cursor, sql, params, None, False)
    finally:
        cursor.close()
    return results[len(controls):len(controls) + len(sent)]


@dataclass
class _Names:
    """The names the statements of one kind are prepared under on a connection, by their SQL:
    a fixed set (the save's first reads, :mod:`.page_reads`; its writes,
    :class:`.driver_statements.Prepared` and their guarded forms), a few dozen at most; past
    :data:`_MOST_NAMES`, a new statement is sent with its text every time."""

    prefix: str
    given: dict[bytes, str] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)
    """Held to give a new name: two threads naming two statements at once never give both
    the same name (one connection would then run the other's SQL)."""

    def of(self, sql: bytes) -> str | None:
        found = self.given.get(sql)
        if found is None:
            with self.lock:
                found = self.given.get(sql)
                if found is None and len(self.given) < _MOST_NAMES:
                    found = self.given[sql] = f"{self.prefix}{len(self.given)}"
        return found


_MOST_NAMES = 64
_READS = _Names("companion_save_read_")
"""The save's first reads (:func:`read_together`)."""
_WRITES_NAMED = _Names("companion_save_write_")
"""The writes of a transaction whole in one pipeline (:func:`_pipelined`)."""


def _named_pipeline(pgconn: Any, commands: Sequence[Command], info: dict[Any, Any],
                    names: _Names) -> list[Any]:
    """``commands`` sent in one pipeline (:func:`_pipeline`), each prepared on the connection
    after :data:`.driver_statements.PREPARE_AFTER` uses there (counted in its ``info``) and then
    run by name: the database neither parses nor plans it again (a third of its CPU for a
    save's writes, issue 36). A statement prepared there and gone since (a ``DEALLOCATE ALL``)
    fails the pipeline whole (the database runs nothing after it, and rolls back what ran
    before it: the pipeline's own transaction); every statement of the pipeline is then sent
    again with its text and prepared anew later. So ``commands`` must be all of a transaction,
    or reads."""
    try:
        return _pipeline(pgconn, _by_name(pgconn, commands, info, names))
    except _Gone:
        for sql, *_ in commands:
            info.pop((USES, names.of(sql)), None)
        return _pipeline(pgconn, _by_name(pgconn, commands, info, names))


def _by_name(pgconn: Any, commands: Sequence[Command], info: dict[Any, Any],
             names: _Names) -> list[Command]:
    """``commands``, each to be run by name once used :data:`.driver_statements.PREPARE_AFTER`
    times on the connection (its ``info``), prepared there at that use (once, waited for)."""
    named = []
    for sql, values, _, binary in commands:
        name = names.of(sql)
        uses = info.get((USES, name), 0) if name is not None else 0
        if name is not None:
            if uses == PREPARE_AFTER:
                prepare(pgconn, name, sql.decode())
            info[(USES, name)] = min(uses + 1, PREPARE_AFTER + 1)
        named.append((sql, values, name.encode() if name is not None and uses >= PREPARE_AFTER
                      else None, binary))
    return named


def _seen_before(connection: Connection, cursor: Any,
                 statements: Sequence[tuple[str, Any]]) -> list[tuple[str, Any]]:
    """``statements`` as the ``before_cursor_execute`` listeners leave them, each listener
    given what the one before it returned (as SQLAlchemy chains them), before any is sent."""
    seen = []
    for sql, params in statements:
        for before in connection.dispatch.before_cursor_execute:
            sql, params = before(connection, cursor, sql, params, None, False)
        seen.append((sql, params))
    return seen


def _rows_of(result: Any) -> int:
    """The number of rows a statement's result says it wrote (or read)."""
    return int(result.command_tuples or 0)


def _key_of(result: Any) -> int:
    """The key an INSERT's result gives back (its ``RETURNING``, one row, as text)."""
    return int(result.get_value(0, 0))


_PLACES = re.compile(r"%\((\w+)\)s|%s|%%")
_LIBPQ_FORMS: dict[str, tuple[bytes, tuple[str | int, ...]]] = {}
"""Each statement's SQL with libpq's placeholders (``$1``…) and its values' names in their
order, worked out once per SQL."""


def _in_libpq_form(sql: str, params: Any) -> Command:
    """A statement as SQLAlchemy gives it to psycopg (its ``%(name)s`` placeholders, ``%%`` for
    a ``%``; a mapping of its values) as libpq takes it: ``$1``… and its values as text."""
    found = _LIBPQ_FORMS.get(sql)
    if found is None:
        order: list[str | int] = []

        def place(match: re.Match[str]) -> str:
            if match[0] == "%%":
                return "%"
            key: str | int = match[1] if match[1] is not None else len(order)
            if key not in order:
                order.append(key)
            return f"${order.index(key) + 1}"

        found = _LIBPQ_FORMS.setdefault(sql, (_PLACES.sub(place, sql).encode(), tuple(order)))
    query, keys = found
    values = [params[key] for key in keys] if isinstance(params, Mapping) else list(params)
    return query, [_as_text(value) for value in values], None, False


def _as_text(value: Any) -> bytes | None:
    """A value as PostgreSQL reads it in a parameter (its SQL casts it: ``$1::INTEGER``)."""
    if value is None:
        return None
    if isinstance(value, bool):
        return b"true" if value else b"false"
    if isinstance(value, str):
        return value.encode()
    if isinstance(value, int):
        return b"%d" % value
    if isinstance(value, (datetime, date)):
        return value.isoformat().encode()
    if isinstance(value, float):
        return repr(value).encode()
    raise TypeError(f"a save's write has no text form for a {type(value).__name__}")


def _as_sqlalchemy_error(connection: Connection, error: Exception,
                         sent: Sequence[tuple[str, Any]]) -> Exception:
    """A psycopg error of a pipeline, as SQLAlchemy's (a unique key's refusal an
    ``IntegrityError``; ``connection_invalidated`` when the database had dropped the
    connection, which then leaves the pool). Never with the values sent: a link token is never
    in a log."""
    lost = connection.dialect.is_disconnect(cast(Any, error),
                                            connection.connection.dbapi_connection, None)
    if lost:
        connection.invalidate(error)
    return DBAPIError.instance("; ".join(sql for sql, _ in sent), [p for _, p in sent], error,
                               connection.dialect.loaded_dbapi.Error, hide_parameters=True,
                               connection_invalidated=lost)
