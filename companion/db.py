"""The database engine and the per-request session, in the shape of flaskr's ``get_db``."""

from __future__ import annotations

import fcntl
import os
import re
import threading
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

import click
from flask import Flask, current_app, g
from flask.cli import AppGroup, with_appcontext
from sqlalchemy import event, inspect, text
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import DBAPIError, InvalidatePoolError
from sqlalchemy.orm import Session as OrmSession
from sqlalchemy.pool import QueuePool
from sqlmodel import Session, create_engine

if TYPE_CHECKING:  # Alembic is imported when a migration is looked at, not by every command
    from alembic.config import Config


T = TypeVar("T")


def _sqlite_pragmas(dbapi_connection, _record) -> None:  # type: ignore[no-untyped-def]
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA busy_timeout=5000")  # first: the switch to WAL may have to wait
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def database_url(url: str) -> str:
    """A PostgreSQL URL for SQLAlchemy with psycopg 3 (``postgresql://…`` and ``postgres://…``
    are accepted as written by hosting services)."""
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix):]
    return url


UNPINGED: ContextVar[bool] = ContextVar("companion_unpinged", default=False)
"""Set while :func:`first_statement` takes its connection: the pool's ping is skipped."""
_FRESH = "companion_fresh"


def _fresh(_dbapi_connection: Any, record: Any) -> None:
    record.info[_FRESH] = True


def _ping_on_checkout(engine: Engine) -> Callable[[Any, Any, Any], None]:
    """SQLAlchemy's ``pool_pre_ping``, as a checkout hook that :data:`UNPINGED` turns off: a
    pooled connection (not one made just now) is pinged when it is taken; a connection the
    database dropped makes the pool drop it, and every connection older, and take another."""
    dialect = engine.dialect

    def ping(dbapi_connection: Any, record: Any, _proxy: Any) -> None:
        if record.info.pop(_FRESH, False) or UNPINGED.get():
            return
        try:
            alive = dialect.do_ping(dbapi_connection)
        except dialect.loaded_dbapi.Error as error:
            if not dialect.is_disconnect(error, dbapi_connection, None):
                raise
            alive = False
        if not alive:
            raise InvalidatePoolError()

    return ping


def once_more_if_dropped(run: Callable[[], T], first: Callable[[], None] | None = None) -> T:
    """``run()``; when the database had dropped the connection it ran on (a restart, an idle
    timeout: a connection nothing pinged), ``first()`` and then ``run()`` once more, on a new
    one. Any other error, or a second drop, is raised."""
    try:
        return run()
    except DBAPIError as error:
        if not error.connection_invalidated:
            raise
    if first is not None:
        first()
    return run()


def first_statement(session: Session, run: Callable[[], T]) -> T:
    """``run()``, the first statement of ``session``, on a pooled connection taken without the
    pool's ping (on PostgreSQL a round trip that every write through a link paid, issue 36): a
    connection the database dropped meanwhile (a restart, an idle timeout) is tried once more,
    on a new one — nothing was read or written before it to lose. A session that has begun
    already runs it as it is."""
    if session.in_transaction():
        return run()

    def unpinged() -> T:
        token = UNPINGED.set(True)
        try:
            return run()
        finally:
            UNPINGED.reset(token)

    return once_more_if_dropped(unpinged, session.rollback)


def make_engine(path: str, url: str | None = None) -> Engine:
    """PostgreSQL when ``url`` is given (``DATABASE_URL``), else SQLite at ``path``.

    On PostgreSQL a pooled connection is pinged when it is taken (a connection the database
    dropped is replaced: ``pool_pre_ping``, see :func:`_ping_on_checkout`), except by
    :func:`first_statement`, which tries again instead.

    A new SQLite file is created readable by its owner only (SQLite gives its -wal and -shm
    files the same permissions); its saves and game pages run on connections kept from one
    request to the next (:data:`KEPT_CONNECTIONS`)."""
    if url:
        engine = create_engine(database_url(url), pool_size=5, max_overflow=5)
        event.listen(engine, "connect", _fresh)
        event.listen(engine, "checkout", _ping_on_checkout(engine))
        return engine
    if path != ":memory:" and not os.path.exists(path):
        try:
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        except FileExistsError:
            pass
    engine = create_engine(f"sqlite:///{path}", connect_args={"check_same_thread": False})
    event.listen(engine, "connect", _sqlite_pragmas)
    if path != ":memory:":  # (another connection to memory is another database)
        setattr(engine, KEPT_CONNECTIONS, _KeptConnections(engine))
    return engine


_READERS: weakref.WeakKeyDictionary[Engine, Engine] = weakref.WeakKeyDictionary()
_READERS_LOCK = threading.Lock()


READER = "companion_polls_reader"
"""The execution option that marks :func:`reader`'s engine (its reads may skip SQLAlchemy's
statement machinery: :func:`companion.play.versions.version_by_token`)."""


def reader(engine: Engine) -> Engine:
    """The engine of the live polls' one-statement reads (:func:`companion.play.versions.
    version_by_token`): on PostgreSQL a small pool of its own in autocommit, without the
    pre-ping and the rollback on return (three round trips a poll, where SQLite pays none: a
    broken connection is tried again once instead); on SQLite ``engine`` itself, as for the
    reader itself (a page's session opened ``reads_only`` is bound to it). Disposed with
    ``engine``."""
    if engine.dialect.name != "postgresql" or engine.get_execution_options().get(READER):
        return engine
    with _READERS_LOCK:
        found = _READERS.get(engine)
        if found is None:
            found = _READERS[engine] = create_engine(
                engine.url, isolation_level="AUTOCOMMIT", pool_pre_ping=False,
                pool_reset_on_return=None, pool_size=2, max_overflow=2,
                execution_options={READER: True})
            event.listen(engine, "engine_disposed", lambda _engine: found.dispose())
    return found


def get_engine() -> Engine:
    app = cast(Any, current_app)._get_current_object()  # noqa: SLF001  (werkzeug: public)
    return cast(Engine, app.extensions["companion.engine"])


def get_session(*, reads_only: bool = False) -> Session:
    """The request's database session, opened on first use and closed at teardown. Opened with
    ``reads_only`` (a page's GET that only reads the database: a game's page, which every phone
    at the table loads after each change; :func:`companion.routes.links.reads_only`), on
    PostgreSQL it reads through the polls' reader (:func:`reader`: autocommit, no ping, no
    rollback on return), one round trip a statement where the app's own connection adds a
    ping, a ``BEGIN`` and a ``ROLLBACK`` (issue 36); every statement sees what was committed
    before it, as in a transaction at PostgreSQL's READ COMMITTED. On SQLite it reads through a
    kept connection (:data:`KEPT_CONNECTIONS`: the one saves run on, its cache warm,
    no check-out, no check-in), given back when the request ends. The session is one a
    request before closed, when one is kept (:data:`CLOSED_KEPT`)."""
    found = g._get_current_object()  # noqa: SLF001  (werkzeug: public; see web.requests.itself)
    session = found.get("db_session")
    if session is None:
        engine = get_engine()
        kept = take_kept(engine) if reads_only else None
        bind = kept if kept is not None else reader(engine) if reads_only else engine
        try:  # (one a request before gave back, closed: see close_session)
            session = found.db_session = _closed_sessions(engine).pop()
            session.bind = bind
        except IndexError:
            session = found.db_session = Session(bind, expire_on_commit=False)
        if kept is not None:
            session.info[_READS] = kept
    return cast(Session, session)


_READS = "companion.reads_connection"
"""Where a page's session keeps the kept connection it reads through (:func:`get_session`)."""


def close_session(_error: BaseException | None = None) -> None:
    session = g._get_current_object().pop(  # noqa: SLF001  (werkzeug: public)
        "db_session", None)
    if session is not None:
        session.close()
        _end_save(session)
        kept = session.info.pop(_READS, None)
        if kept is not None:
            release_kept(kept)
        closed = _closed_sessions(get_engine())
        if type(session) is Session and session.expire_on_commit is False and len(
                closed) < CLOSED_KEPT:  # (for the next request: SQLAlchemy's close leaves it new)
            session.info.clear()
            session.bind = None
            closed.append(session)


CLOSED_KEPT = 8
"""How many closed sessions an engine keeps for the next requests' (:func:`get_session`): one
made and thrown away with its identity map each request is ~4 % of a save (issue 36)."""


def _closed_sessions(engine: Engine) -> list[Session]:
    return cast(list[Session], vars(engine).setdefault("companion_closed_sessions", []))


SAVE = "companion.save_connection"
"""Where a session keeps the Core connection its request's save runs on (:func:`open_save`)."""


def open_save(session: OrmSession, run: Callable[[Connection], T]) -> T:
    """``run(connection)``: the first statement of a save that only appends through Core
    (:func:`companion.play.store.append`), on a pooled connection of its own rather than in an
    ORM transaction of ``session`` — its begin, flush, commit and close machinery are a tenth of
    such a save (issue 36). Taken as :func:`first_statement` takes it: no ping, a connection the
    database dropped tried once more on a new one; on SQLite, a kept connection
    (:data:`KEPT_CONNECTIONS`: no check-out, no check-in, the pages' own).
    ``session`` is bound to it until the request ends (:func:`close_session` closes it):
    anything the request reads through the session after (a refusal's page) reads on the same
    connection, in the same transaction. The save commits with :func:`commit_save`. A session
    that has begun already runs ``run`` on its own connection (the save is then the session's,
    as any other write)."""
    if session.in_transaction() or SAVE in session.info:
        return run(connection_of(session))
    engine = session.get_bind()
    assert isinstance(engine, Engine)

    def taken() -> T:
        token = UNPINGED.set(True)
        try:
            connection = take_kept(engine)
            if connection is None:
                connection = engine.connect()
        finally:
            UNPINGED.reset(token)
        session.info[SAVE] = connection
        session.bind = connection
        return run(connection)

    return once_more_if_dropped(taken, lambda: _end_save(session))


def saving_on(session: OrmSession) -> Connection | None:
    """The connection of the save :func:`open_save` opened for ``session``, or None."""
    return cast(Connection | None, session.info.get(SAVE))


def connection_of(session: OrmSession) -> Connection:
    """Where the session's statements go: its save's connection, else its own transaction's."""
    found = session.info.get(SAVE)
    return cast(Connection, found) if found is not None else session.connection()


def commit_save(session: OrmSession) -> None:
    """COMMIT the save :func:`open_save` opened and give its connection back to the pool (as an
    ORM commit gives back the session's; what the request reads after goes through the session
    as usual), then run what an ORM commit of ``session`` runs after it: its ``after_commit``
    hooks (the entries read forgotten, the new version published by :mod:`companion.play.push`).
    Nothing of the session itself may be pending: an appending save changes no ORM object (one
    that did is refused here, never committed by half)."""
    if session.new or session.dirty or session.deleted:
        raise RuntimeError("an ORM change in a save on its own connection: it would be lost")
    connection = saving_on(session)
    assert connection is not None
    connection.commit()
    _end_save(session)
    session.dispatch.after_commit(session)


def rollback_save(session: OrmSession) -> None:
    """ROLLBACK the save :func:`open_save` opened (its connection stays, for what the request
    reads next), and run the session's ``after_rollback`` hooks, as an ORM rollback would."""
    connection = saving_on(session)
    assert connection is not None
    connection.rollback()
    session.dispatch.after_rollback(session)


def _end_save(session: OrmSession) -> None:
    connection = session.info.pop(SAVE, None)
    if connection is not None:
        session.bind = connection.engine
        release_kept(connection)  # (kept for the next, or closed)


KEPT_CONNECTIONS = "companion_kept_connections"
"""On SQLite (a file), the connections saves (:func:`open_save`) and game pages (:func:`get_session`
``reads_only``) run on, kept from one request to the next (issue 36): taken from a list and
given back to it, not checked out of the engine's pool and in (~40 µs of a save). A save and the
pages after it read on one connection, so SQLite's page cache stays warm (in WAL mode another
connection's write drops it whole: a save kept apart from the pages' connection cost the pages
what it saved, ``bench/RESULTS.md``, session 15). They come from a pool of their own (the
engine's recreated: its ``connect`` hooks, so :func:`_sqlite_pragmas`), each a ``Connection`` of
the app's engine (whose statement and ``commit`` events they fire). Given back clean (rolled
back), or closed when broken or made before the engine's last ``dispose`` (the next one taken
then closes those kept: no ``engine_disposed`` hook, an engine event costs every statement).
Also the engine's attribute holding its :class:`_KeptConnections`, and a kept one's ``info``
key naming them."""


class _KeptConnections:
    """An engine's kept connections: their pool, those not taken now, and the engine's pool
    they were made beside (another now: the engine was disposed since)."""

    def __init__(self, engine: Engine) -> None:
        self.beside = engine.pool
        self.pool = cast(QueuePool, engine.pool.recreate())
        self.free: list[Connection] = []


def take_kept(engine: Engine) -> Connection | None:
    """A kept connection of ``engine`` (one not taken, else a new one), in no transaction; None
    when it keeps none (PostgreSQL, SQLite in memory)."""
    kept = cast(_KeptConnections | None, vars(engine).get(KEPT_CONNECTIONS))
    if kept is None:
        return None
    if kept.beside is not engine.pool:  # (disposed since: those kept closed, kept anew)
        setattr(engine, KEPT_CONNECTIONS, fresh := _KeptConnections(engine))
        while kept.free:
            kept.free.pop().close()
        kept.pool.dispose()
        kept = fresh
    try:
        return kept.free.pop()  # (atomic: two threads never take the same one)
    except IndexError:
        connection = Connection(engine, kept.pool.connect())
        connection.info[KEPT_CONNECTIONS] = kept
        return connection


def release_kept(connection: Connection) -> None:
    """``connection`` given back: one :func:`take_kept` gave kept for the next request, clean
    (SQLAlchemy's transaction rolled back, then any the driver began alone); any other closed,
    as is a kept one broken, made before a ``dispose``, or whose rollback fails (raised)."""
    engine = connection.engine
    kept = cast(_KeptConnections | None, vars(engine).get(KEPT_CONNECTIONS))
    if (kept is None or connection.closed or connection.invalidated  # (before its ``info``:
            or kept.beside is not engine.pool):  # an invalidated one would reconnect to answer)
        connection.close()
        return
    free = kept.free
    if connection.info.get(KEPT_CONNECTIONS) is not kept:  # (not one of these)
        connection.close()
        return
    try:
        if connection.in_transaction():
            connection.rollback()
        driver = cast(Any, connection.connection.driver_connection)
        if driver.in_transaction:
            driver.rollback()
    except BaseException:
        connection.close()
        raise
    free.append(connection)


def kept_now(engine: Engine) -> tuple[list[Connection], int]:
    """``engine``'s kept connections not taken now (the next :func:`take_kept` gives the last),
    and how many are taken now."""
    kept = cast(_KeptConnections | None, vars(engine).get(KEPT_CONNECTIONS))
    return ([], 0) if kept is None else (list(kept.free), kept.pool.checkedout() - len(kept.free))


MIGRATIONS = Path(__file__).parent / "migrations"
BASELINE = "0001"
"""The revision of the tables release c3c3148 made with ``create_all``, before migrations."""


def _alembic_config(connection: Connection) -> Config:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = connection
    return config


_REVISION = re.compile(r'^(down_revision|revision)\s*(?::[^=]*)?=\s*["\']?([\w]+|None)["\']?',
                       re.M)


@cache
def _migrations() -> dict[str, str | None]:
    """Each migration's revision and the one it follows, read from the migration files
    themselves (without loading Alembic: every command checks the schema, few migrate)."""
    found: dict[str, str | None] = {}
    for path in (MIGRATIONS / "versions").glob("*.py"):
        values = dict((key, value) for key, value in _REVISION.findall(path.read_text("utf-8")))
        if "revision" in values:
            found[values["revision"]] = None if values.get("down_revision") in (None, "None") \
                else values["down_revision"]
    return found


def head() -> str:
    """The newest migration's revision (the one no other migration follows)."""
    migrations = _migrations()
    followed = {down for down in migrations.values() if down}
    heads = [revision for revision in migrations if revision not in followed]
    assert len(heads) == 1, f"the migrations have {len(heads)} heads: {heads}"
    return heads[0]


def revisions() -> frozenset[str]:
    """Every revision this code's migrations know."""
    return frozenset(_migrations())


MIGRATION_LOCK = 0x636F6D70616E  # "compan": PostgreSQL's advisory lock key for migrations


@contextmanager
def _one_process_at_a_time(engine: Engine) -> Iterator[None]:
    """Hold an exclusive lock on a SQLite database's folder (an advisory ``flock``, beside
    SQLite's own locks) while the database is migrated, from before its first connection (which
    switches a new file to WAL). PostgreSQL takes its lock in the migration's transaction
    instead (see :func:`upgrade`)."""
    path = engine.url.database if engine.dialect.name == "sqlite" else None
    if not path or path == ":memory:":
        yield
        return
    folder = os.open(os.path.dirname(os.path.abspath(path)), os.O_RDONLY)
    try:
        fcntl.flock(folder, fcntl.LOCK_EX)
        yield
    finally:
        os.close(folder)  # (releases the lock)


def upgrade(engine: Engine, *, only_if_empty: bool = False) -> None:
    """Bring the database to the newest schema, keeping every stored game (``flask db
    upgrade``); with ``only_if_empty``, only a database with no table at all (a fresh install,
    which a server starting creates: :mod:`companion.ops.schema`).

    An empty database gets every table; one made before migrations existed (tables but no
    ``alembic_version``) is stamped at the baseline first. On SQLite, foreign keys are switched
    off while tables are rebuilt (``batch_alter_table`` copies a table, and the copy must not
    cascade), then on again.

    One process at a time: every gunicorn worker builds the app, and so may create an empty
    database's schema, at the same moment. A lock on the database (a file lock for SQLite, an
    advisory lock held until the migration's transaction ends on PostgreSQL) makes the first
    migrate and the others find the newest schema already there — so ``gunicorn
    'companion:create_app()'`` alone is safe on a database nobody has created yet.
    """
    from alembic import command

    with _one_process_at_a_time(engine), engine.connect() as connection:
        sqlite = connection.dialect.name == "sqlite"
        if connection.dialect.name == "postgresql":
            connection.execute(text("SELECT pg_advisory_xact_lock(:key)"),
                               {"key": MIGRATION_LOCK})
        if sqlite:
            connection.exec_driver_sql("PRAGMA foreign_keys=OFF")
        try:
            tables = set(inspect(connection).get_table_names())
            if only_if_empty and tables:
                return
            config = _alembic_config(connection)
            if "alembic_version" not in tables and "game" in tables:
                command.stamp(config, BASELINE)
            command.upgrade(config, "head")
            connection.commit()
        finally:
            if sqlite:
                connection.exec_driver_sql("PRAGMA foreign_keys=ON")


@dataclass(frozen=True)
class SchemaState:
    """The database's revision (None: no ``alembic_version``) against this code's newest."""

    database: str | None
    code: str
    known: bool  # the database's revision is one of this code's migrations
    empty: bool = False  # no tables at all
    unreachable: str = ""  # the database did not answer (the error's name): nothing known

    @property
    def is_ready(self) -> bool:
        return self.database == self.code

    @property
    def is_behind(self) -> bool:
        """The database is at an earlier revision of this code's (not migrated yet): this
        code's pages read tables and columns it does not have, so pages wait too."""
        return self.known and not self.is_ready

    @property
    def problem(self) -> str:
        if self.is_ready:
            return ""
        if self.unreachable:
            return f"the database does not answer ({self.unreachable})"
        if self.empty:
            return f"the database is empty; this code needs revision {self.code}"
        if self.database is None:
            return f"the database has no revision; run `flask db upgrade` (code: {self.code})"
        if self.known:
            return (f"the database is at revision {self.database}, this code needs "
                    f"{self.code}: run `flask db upgrade`")
        return (f"the database is at revision {self.database}, newer than this code "
                f"(which knows up to {self.code}): run the newer release's code")


def check(engine: Engine) -> SchemaState:
    """Read the database's revision and compare it with this code's migrations."""
    code = head()
    with engine.connect() as connection:
        tables = set(inspect(connection).get_table_names())
        current = None
        if "alembic_version" in tables:
            current = connection.execute(
                text("SELECT version_num FROM alembic_version")).scalar()
    return SchemaState(database=current, code=code, known=current in revisions(),
                       empty=not tables)


AFTER_UPGRADE = "companion.after_upgrade"
"""The app extension listing what `flask db upgrade` runs once the schema is the newest, each
``step(engine) -> str`` (what it did, said on the command line): the storage core names no
layer above it; the operator's commands add the summaries (:mod:`companion.ops.cli`)."""


def _upgrade_and_say() -> None:
    before = check(get_engine())
    upgrade(get_engine())
    guard = current_app.extensions.get("companion.schema")
    if guard is not None:  # this process's own server view, ready at once
        guard.state = check(get_engine())
    where = "PostgreSQL" if current_app.config.get("DATABASE_URL") else \
        current_app.config["DATABASE"]
    click.echo(f"Database ready: {where} (revision {before.database or 'none'} -> {head()})")
    for step in current_app.extensions.get(AFTER_UPGRADE, ()):
        click.echo(step(get_engine()))


db_cli = AppGroup("db", help="The database's schema: `flask db upgrade` is the one step that "
                  "migrates.")


@db_cli.command("upgrade")
def db_upgrade_command() -> None:
    """Create or upgrade the database to the newest schema (keeps existing data)."""
    _upgrade_and_say()


@db_cli.command("current")
def db_current_command() -> None:
    """Print the database's revision and this code's newest."""
    state = check(get_engine())
    click.echo(f"database: {state.database or 'none'}; code: {state.code}"
               + ("" if state.is_ready else f" ({state.problem})"))
    if not state.is_ready:
        raise SystemExit(1)


@click.command("init-db")
@with_appcontext
def init_db_command() -> None:
    """The same as `flask db upgrade` (kept for scripts written before it)."""
    _upgrade_and_say()


def attach(app: Flask) -> Engine:
    """The engine for the app's database and the per-request session (no schema check)."""
    engine = make_engine(app.config["DATABASE"], app.config.get("DATABASE_URL"))
    app.extensions["companion.engine"] = engine
    app.teardown_appcontext(close_session)
    app.cli.add_command(init_db_command)
    app.cli.add_command(db_cli)
    return engine
