"""An app of a test's own config, on the test's database, disposed of afterwards."""

from __future__ import annotations

import secrets
import time

import pytest

from companion import create_app

from ..conftest import POSTGRES_URL, database_config, empty_tables


@pytest.fixture
def make_app(tmp_path):
    made = []

    def make(**config):
        app = create_app({"TESTING": True, "SECRET_KEY": "t", **database_config(tmp_path),
                          **config})
        empty_tables(app)
        made.append(app)
        return app

    yield make
    for app in made:
        app.extensions["companion.engine"].dispose()


@pytest.fixture
def second_database(tmp_path):
    """The database of another, empty instance: a new SQLite file, or a new PostgreSQL database
    beside the tests' own."""
    if POSTGRES_URL is None:
        yield {"DATABASE": str(tmp_path / "other.sqlite"), "DATABASE_URL": None}
        return
    import psycopg
    from sqlalchemy.engine import make_url

    base = make_url(POSTGRES_URL)
    name = f"{base.database}_other_{secrets.token_hex(3)}"
    admin = base.set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(admin, autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{name}"')
    yield {"DATABASE": str(tmp_path / "unused.sqlite"),
           "DATABASE_URL": base.set(database=name).render_as_string(hide_password=False)}
    _drop(psycopg, admin, name)


def _drop(psycopg, admin: str, name: str) -> None:
    """Drop database ``name``, trying again for a while: ``WITH (FORCE)`` ends our own
    sessions, but is refused (insufficient privilege, or the database in use) while a process
    of another role is on it — an autovacuum worker that a busy machine started there."""
    for attempt in range(50):
        try:
            with psycopg.connect(admin, autocommit=True) as connection:
                connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            return
        except (psycopg.errors.InsufficientPrivilege, psycopg.errors.ObjectInUse):
            if attempt == 49:
                raise
            time.sleep(0.2)
