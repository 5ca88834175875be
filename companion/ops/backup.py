"""``flask backup FILE`` and ``flask restore FILE``: the whole database, links and all, copied
while the app serves and put back into an empty instance.

- **SQLite**: SQLite's online backup API (``sqlite3.Connection.backup``) copies a consistent
  snapshot page by page while the servers go on reading and writing (WAL mode); the copy is a
  plain SQLite file.
- **PostgreSQL**: ``pg_dump --format=custom`` (one consistent snapshot, taken in a repeatable-read
  transaction, without stopping anyone), restored with ``pg_restore --no-owner --no-privileges
  --exit-on-error``. The password is passed in the environment, never on the command line. The
  exact commands run are printed, for an operator who prefers to run them by hand.

``restore`` refuses an instance holding any group or game (it is for a new or emptied server),
and says so; a backup made by an earlier release is then upgraded with ``flask db upgrade``.
Every game keeps its scorer and viewer links, and every group its link: the phones' links and
QR codes open the same games on the restored server.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
from pathlib import Path

import click
from flask import Flask
from flask.cli import with_appcontext
from sqlalchemy import inspect, text
from sqlalchemy.engine import Engine, make_url

from ..db import get_engine

SQLITE_MAGIC = b"SQLite format 3\x00"
PG_DUMP_MAGIC = b"PGDMP"


def _pg_command(engine: Engine) -> tuple[list[str], dict[str, str]]:
    """libpq's connection options for ``engine``'s database, and the environment with its
    password (never on the command line, where ``ps`` would show it)."""
    url = make_url(engine.url)
    options = ["--host", url.host or "localhost", "--port", str(url.port or 5432),
               "--username", url.username or "", "--dbname", url.database or ""]
    environment = {**os.environ}
    if url.password:
        environment["PGPASSWORD"] = str(url.password)
    return options, environment


def _tool(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        raise click.ClickException(f"`{name}` is not installed (Debian: apt-get install "
                                   "postgresql-client, the same major version as the server)")
    return found


def backup(engine: Engine, target: Path) -> str:
    """Write a consistent copy of the whole database to ``target``; the way it was made."""
    if engine.dialect.name == "sqlite":
        draft = target.with_name(f".{target.name}.partial")
        source = sqlite3.connect(engine.url.database or "")
        try:
            copy = sqlite3.connect(draft)
            try:
                source.backup(copy)
            finally:
                copy.close()
        finally:
            source.close()
        os.replace(draft, target)
        return "SQLite online backup"
    options, environment = _pg_command(engine)
    command = [_tool("pg_dump"), "--format=custom", "--no-owner", *options]
    subprocess.run([*command, "--file", str(target)], env=environment, check=True)
    return " ".join(command) + " --file FILE"


def is_empty(engine: Engine) -> bool:
    """The database holds no group and no game (a new instance, or one with its schema only)."""
    with engine.connect() as connection:
        tables = set(inspect(connection).get_table_names())
        return not any(connection.execute(text(f'SELECT 1 FROM "{table}" LIMIT 1')).first()
                       for table in ("playgroup", "game") if table in tables)


def restore(engine: Engine, source: Path) -> str:
    """Put the backup at ``source`` into ``engine``'s (empty) database; the way it was done."""
    with source.open("rb") as file:
        head = file.read(16)
    if engine.dialect.name == "sqlite":
        if not head.startswith(SQLITE_MAGIC):
            raise click.ClickException("this file is not a SQLite backup (a PostgreSQL one "
                                       "goes into a PostgreSQL instance)")
        engine.dispose()
        backup_db = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
        try:
            target = sqlite3.connect(engine.url.database or "")
            try:
                backup_db.backup(target)
            finally:
                target.close()
        finally:
            backup_db.close()
        return "SQLite online backup, the other way"
    if not head.startswith(PG_DUMP_MAGIC):
        raise click.ClickException("this file is not a pg_dump custom-format backup")
    options, environment = _pg_command(engine)
    engine.dispose()
    command = [_tool("pg_restore"), "--no-owner", "--no-privileges", "--exit-on-error",
               "--clean", "--if-exists", "--single-transaction", *options, str(source)]
    subprocess.run(command, env=environment, check=True)
    return " ".join(c for c in command if c != str(source)) + " FILE"


@click.command("backup")
@click.argument("file", type=click.Path(dir_okay=False, writable=True, path_type=Path))
@with_appcontext
def backup_command(file: Path) -> None:
    """Write a consistent copy of the whole database to FILE, while the app serves."""
    from flask import current_app

    from ..db import check

    engine = get_engine()
    if check(engine).database is None:
        where = ("PostgreSQL" if current_app.config.get("DATABASE_URL") else
                 f"SQLite, {current_app.config['DATABASE']}")
        raise click.ClickException(
            f"there is no companion database to back up here ({where}): run it with the "
            "server's settings, as its user: sudo -u companion sh -c 'set -a; . "
            "/etc/companion/companion.env; .venv/bin/flask --app companion backup FILE'")
    if not file.parent.is_dir():
        raise click.ClickException(f"no folder {file.parent} to write the backup in "
                                   f"(install -d -m 700 -o companion {file.parent})")
    previous = os.umask(0o077)  # it holds every link: readable by its owner only
    try:
        how = backup(engine, file)
    except subprocess.CalledProcessError as error:
        raise click.ClickException(f"the backup failed ({error})") from None
    finally:
        os.umask(previous)
    click.echo(f"backup written: {file} ({file.stat().st_size} bytes; {how})")


@click.command("restore")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@with_appcontext
def restore_command(file: Path) -> None:
    """Put a backup made by `flask backup` into this (empty) instance."""
    from ..db import check

    engine = get_engine()
    if not is_empty(engine):
        raise click.ClickException("this instance holds groups or games: restore goes into "
                                   "an empty one only (a new database)")
    try:
        how = restore(engine, file)
    except subprocess.CalledProcessError as error:
        raise click.ClickException(f"the restore failed ({error}); nothing was kept") from None
    state = check(engine)
    click.echo(f"restored from {file} ({how}); schema revision {state.database}"
               + ("" if state.is_ready else f" — {state.problem}"))


def init_app(app: Flask) -> None:
    app.cli.add_command(backup_command)
    app.cli.add_command(restore_command)
