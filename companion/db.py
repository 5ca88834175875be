"""The database engine and the per-request session, in the shape of flaskr's ``get_db``."""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import cast

import click
from alembic import command
from alembic.config import Config
from alembic.script import ScriptDirectory
from flask import Flask, current_app, g
from flask.cli import with_appcontext
from sqlalchemy import event, inspect, text
from sqlalchemy.engine import Connection, Engine
from sqlmodel import Session, create_engine


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


def make_engine(path: str, url: str | None = None) -> Engine:
    """PostgreSQL when ``url`` is given (``DATABASE_URL``), else SQLite at ``path``.

    A new SQLite file is created readable by its owner only (SQLite gives its -wal and -shm
    files the same permissions)."""
    if url:
        return create_engine(database_url(url), pool_pre_ping=True, pool_size=5,
                             max_overflow=5)
    if path != ":memory:" and not os.path.exists(path):
        try:
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        except FileExistsError:
            pass
    engine = create_engine(f"sqlite:///{path}", connect_args={"check_same_thread": False})
    event.listen(engine, "connect", _sqlite_pragmas)
    return engine


def get_engine() -> Engine:
    return cast(Engine, current_app.extensions["companion.engine"])


def get_session() -> Session:
    """The request's database session, opened on first use and closed at teardown."""
    if "db_session" not in g:
        g.db_session = Session(get_engine(), expire_on_commit=False)
    return cast(Session, g.db_session)


def close_session(_error: BaseException | None = None) -> None:
    session = g.pop("db_session", None)
    if session is not None:
        session.close()


MIGRATIONS = Path(__file__).parent / "migrations"
BASELINE = "0001"
"""The revision of the tables release c3c3148 made with ``create_all``, before migrations."""


def _alembic_config(connection: Connection) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = connection
    return config


def head() -> str:
    """The newest migration's revision."""
    return ScriptDirectory.from_config(_alembic_config(None)).get_current_head() or ""  # type: ignore[arg-type]


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


def upgrade(engine: Engine) -> None:
    """Bring the database to the newest schema, keeping every stored game.

    An empty database gets every table; one made before migrations existed (tables but no
    ``alembic_version``) is stamped at the baseline first. On SQLite, foreign keys are switched
    off while tables are rebuilt (``batch_alter_table`` copies a table, and the copy must not
    cascade), then on again.

    One process at a time: every gunicorn worker builds the app, and so runs this, at the same
    moment. A lock on the database (a file lock for SQLite, an advisory lock held until the
    migration's transaction ends on PostgreSQL) makes the first migrate and the others find the
    newest schema already there — so ``gunicorn 'companion:create_app()'`` alone is safe on a
    database nobody has created yet.
    """
    with _one_process_at_a_time(engine), engine.connect() as connection:
        sqlite = connection.dialect.name == "sqlite"
        if connection.dialect.name == "postgresql":
            connection.execute(text("SELECT pg_advisory_xact_lock(:key)"),
                               {"key": MIGRATION_LOCK})
        if sqlite:
            connection.exec_driver_sql("PRAGMA foreign_keys=OFF")
        try:
            tables = set(inspect(connection).get_table_names())
            config = _alembic_config(connection)
            if "alembic_version" not in tables and "game" in tables:
                command.stamp(config, BASELINE)
            command.upgrade(config, "head")
            connection.commit()
        finally:
            if sqlite:
                connection.exec_driver_sql("PRAGMA foreign_keys=ON")


@click.command("init-db")
@with_appcontext
def init_db_command() -> None:
    """Create or upgrade the database to the newest schema (keeps existing data)."""
    upgrade(get_engine())
    where = "PostgreSQL" if current_app.config.get("DATABASE_URL") else \
        current_app.config["DATABASE"]
    click.echo(f"Database ready: {where}")


def init_app(app: Flask) -> None:
    engine = make_engine(app.config["DATABASE"], app.config.get("DATABASE_URL"))
    app.extensions["companion.engine"] = engine
    upgrade(engine)
    app.teardown_appcontext(close_session)
    app.cli.add_command(init_db_command)
