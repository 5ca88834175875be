"""Statements sent to a connection's own DBAPI connection, past SQLAlchemy's statement and
result machinery (most of what a save's statement costs, issue 36): :func:`on_driver`, a read
or a write on the driver's cursor, and :class:`Prepared`, a Core write compiled once per
dialect. Both on the connection given, so in its transaction; both seen by its statement events
(``before_cursor_execute``). And what reads sent through libpq alone share (:func:`prepare`,
:func:`check`, :data:`PREPARE_AFTER`): the pages' reads
(:func:`companion.play.page_reads.read_rows`) and a save's first reads on PostgreSQL
(:func:`companion.play.save_pipeline.read_together`)."""

from __future__ import annotations

from typing import Any, cast

from sqlalchemy.engine import Connection
from sqlalchemy.exc import DBAPIError


def on_driver(connection: Connection, sql: str, params: Any, *,
              fetch: bool = False, key: bool = False) -> Any:
    """``sql`` with ``params`` (values the driver takes as they are) sent to ``connection``'s
    own DBAPI connection through a cursor of its own, without SQLAlchemy's statement and result
    machinery (most of what a save's statement costs on SQLite, issue 36): the same connection,
    so the same transaction and locks as ``connection``'s own execution of it. Its rows (as the
    driver gives them) with ``fetch``, else its row count (with ``key``: the key of the row
    an INSERT made). The statement events
    (``before_cursor_execute``, ``after_cursor_execute``) see it as any other (without an
    execution context); a driver error is raised as SQLAlchemy's (an ``IntegrityError`` as
    one; ``hide_parameters``: a link token is never in a log)."""
    driver_error: type[Exception] = connection.dialect.loaded_dbapi.Error
    cursor = cast(Any, connection.connection.driver_connection).cursor()
    try:
        # (SQLAlchemy's own test of whether any event is listened for, on the connection or
        # its engine: else its dispatch is not gone through)
        events = connection.dispatch if (getattr(connection, "_has_events", True) or getattr(
            connection.engine, "_has_events", True)) else None
        if events is not None:
            for before in events.before_cursor_execute:
                sql, params = before(connection, cursor, sql, params, None, False)
        cursor.execute(sql, params)
        if events is not None:
            for after in events.after_cursor_execute:
                after(connection, cursor, sql, params, None, False)
        return cursor.fetchall() if fetch else int(cursor.lastrowid if key else cursor.rowcount)
    except driver_error as error:
        raise DBAPIError.instance(sql, params, error, driver_error,
                                  hide_parameters=True) from error
    finally:
        cursor.close()


class Prepared:
    """A Core write (INSERT, UPDATE) compiled once per dialect and sent with
    ``Connection.exec_driver_sql``: the statement SQLAlchemy would send, with the same values
    (each bound through its column type's own conversion), on the connection and in the
    transaction given — without looking the statement up in the compiled cache and setting up
    its parameters again on every save (a tenth of a save's CPU, issue 36). Statement events
    (``before_cursor_execute``) see it as any other. Its result: the row count only (SQL the
    same as SQLAlchemy's: an INSERT on PostgreSQL still says ``RETURNING`` its key, unread)."""

    def __init__(self, statement: Any, keys: tuple[str, ...]) -> None:
        self.statement, self.keys = statement, keys
        self._compiled: dict[Any, tuple[str, tuple[str, ...] | None, dict[str, Any]]] = {}

    def _for(self, dialect: Any) -> tuple[str, tuple[str, ...] | None, dict[str, Any]]:
        found = self._compiled.get(dialect)
        if found is None:
            compiled = self.statement.compile(dialect=dialect, column_keys=list(self.keys))
            order = tuple(compiled.positiontup) if compiled.positional else None
            processors = {name: process for name, process in (
                (name, bind.type.dialect_impl(dialect).bind_processor(dialect))
                for name, bind in compiled.binds.items()) if process is not None}
            found = self._compiled[dialect] = (compiled.string, order, processors)
        return found

    def bound(self, connection: Connection, values: dict[str, Any]) -> tuple[str, Any]:
        """Its SQL for ``connection``'s database and ``values`` as its driver takes them (each
        through its column type's conversion)."""
        sql, order, processors = self._for(connection.dialect)
        bound = {name: processors[name](value) if name in processors else value
                 for name, value in values.items()}
        return sql, tuple(bound[name] for name in order) if order is not None else bound

    def run(self, connection: Connection, values: dict[str, Any], *, key: bool = False) -> int:
        """Run it with ``values`` (every one of :attr:`keys`); the number of rows written, or
        with ``key`` (an INSERT of one row) the key of the row it made."""
        sql, params = self.bound(connection, values)
        if connection.dialect.name == "sqlite":  # (SQLite: through its sqlite3 cursor alone)
            if not connection.in_transaction():
                connection.begin()  # (so the connection's COMMIT commits it)
            return cast(int, on_driver(connection, sql, params, key=key))
        result = connection.exec_driver_sql(sql, params)
        # (an INSERT's RETURNING of its key, as SQLAlchemy sends it: read only when asked)
        rows = int(result.scalar_one()) if key else int(result.rowcount)
        result.close()
        return rows


PREPARE_AFTER = 5
"""A statement's uses on one connection before a read through libpq alone prepares it there
(psycopg's own threshold: a connection that serves a few reads and goes never pays the
``Parse``)."""
USES = "companion_uses"
"""Under ``(USES, name)`` in a pooled connection's ``info``: how many times the statement
``name`` was sent on it (at most :data:`PREPARE_AFTER` + 1: prepared)."""


def prepare(pgconn: Any, name: str, sql: str) -> None:
    """``sql`` prepared on the connection as ``name`` (already there: kept)."""
    result = pgconn.prepare(name.encode(), sql.encode())
    if sqlstate(result) != "42P05":  # duplicate_prepared_statement
        check(result)


def sqlstate(result: Any) -> str:
    """The SQLSTATE of a failed result ("" for one that did not fail)."""
    from psycopg import pq

    if result.status != pq.ExecStatus.FATAL_ERROR:
        return ""
    return bytes(result.error_field(pq.DiagnosticField.SQLSTATE) or b"").decode()


def check(result: Any) -> None:
    """Raise the driver's error for a result that is one (a lost connection included)."""
    from psycopg import errors, pq

    if result.status not in (pq.ExecStatus.TUPLES_OK, pq.ExecStatus.COMMAND_OK):
        raise errors.error_from_result(result)
