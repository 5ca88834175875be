"""The database engine and the per-request session, in the shape of flaskr's ``get_db``."""

from __future__ import annotations

import click
from flask import Flask, current_app, g
from sqlalchemy import event
from sqlalchemy.engine import Engine
from sqlmodel import Session, SQLModel, create_engine


def _sqlite_pragmas(dbapi_connection, _record) -> None:  # type: ignore[no-untyped-def]
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA busy_timeout=5000")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.close()


def make_engine(path: str) -> Engine:
    engine = create_engine(f"sqlite:///{path}", connect_args={"check_same_thread": False})
    event.listen(engine, "connect", _sqlite_pragmas)
    return engine


def get_engine() -> Engine:
    return current_app.extensions["companion.engine"]


def get_session() -> Session:
    """The request's database session, opened on first use and closed at teardown."""
    if "db_session" not in g:
        g.db_session = Session(get_engine(), expire_on_commit=False)
    return g.db_session


def close_session(_error: BaseException | None = None) -> None:
    session = g.pop("db_session", None)
    if session is not None:
        session.close()


def init_db(engine: Engine) -> None:
    from . import models  # noqa: F401  (registers the tables)

    SQLModel.metadata.create_all(engine)


@click.command("init-db")
def init_db_command() -> None:
    """Create the tables if they do not exist yet (keeps existing data)."""
    init_db(get_engine())
    click.echo(f"Database ready: {current_app.config['DATABASE']}")


def init_app(app: Flask) -> None:
    engine = make_engine(app.config["DATABASE"])
    app.extensions["companion.engine"] = engine
    init_db(engine)
    app.teardown_appcontext(close_session)
    app.cli.add_command(init_db_command)
