"""Shared fixtures: an app on a fresh database with CSRF off, and its test client.

The database is a temporary SQLite file, or — when ``TEST_DATABASE_URL`` is set (``make
test-postgres``) — the PostgreSQL database it names, emptied before each test.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlmodel import SQLModel

from companion import create_app
from companion.factory import plug_in_games

from .compiled_once import compile_once

# Every game's parts registered, as ``create_app`` does first, before any test module is
# collected: modules that read the registry at import (the games a test is parametrized over,
# the API's response models) and tests of the glue without an app see the games the app would.
plug_in_games()

compile_once()

POSTGRES_URL = os.environ.get("TEST_DATABASE_URL") or None
REDIS_URL = os.environ.get("TEST_REDIS_URL") or None
"""A Redis for the shared rate-limit store (``make test-postgres`` starts one: scripts/redis.sh)."""

WORKER = os.environ.get("PYTEST_XDIST_WORKER", "")
"""This process's name when pytest-xdist runs the tests on several cores (``gw0``, ``gw1``, …):
each worker then has a PostgreSQL database and a Redis database of its own, since every test
empties them."""


def _own_postgres(url: str, worker: str) -> str:
    """``url``'s database, or for an xdist worker a database of its own beside it (made once).

    Its commits do not wait for the disk (``synchronous_commit = off``, for this database only):
    a test database lost in a crash is made again, and each commit is a third of the time. What
    is committed, and every lock, stays as on a server."""
    import psycopg
    from sqlalchemy.engine import make_url

    base = make_url(url)
    name = f"{base.database}_{worker}" if worker else str(base.database)
    dsn = base.set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(dsn, autocommit=True) as connection:
        if connection.execute("SELECT 1 FROM pg_database WHERE datname = %s",
                              (name,)).fetchone() is None:
            connection.execute(f'CREATE DATABASE "{name}"')
        connection.execute(f'ALTER DATABASE "{name}" SET synchronous_commit = off')
    own = base.set(database=name).render_as_string(hide_password=False)
    _upgraded(own)
    return own


def _upgraded(url: str) -> None:
    """Bring a test database kept from an earlier run up to this code's schema, as ``flask db
    upgrade`` does on a server (a new one is made by the first app; one left at an older
    revision would otherwise make every app refuse its pages as "being updated")."""
    from companion.db import make_engine, upgrade

    engine = make_engine("", url)
    try:
        upgrade(engine)
    finally:
        engine.dispose()


def _own_redis(url: str, worker: str) -> str:
    """``url``, or for xdist worker ``gwN`` Redis's database N + 1 (0 stays the unshared one)."""
    if not worker:
        return url
    from urllib.parse import urlsplit, urlunsplit

    return urlunsplit(urlsplit(url)._replace(path=f"/{int(worker.removeprefix('gw')) + 1}"))


RULEBOOKS = Path(os.environ.get("COMPANION_RULEBOOKS")
                 or Path(__file__).resolve().parents[2] / "shared" / "seeds")
"""The publishers' rulebooks (never in the repository: their words, not ours), beside the
checkout as on the project's machines, or in the folder ``COMPANION_RULEBOOKS`` names. A test
that reads one skips, saying so, on a clone that has nothing beside it."""


def rulebook(name: str) -> str:
    """The text of rulebook ``name`` (``004_….txt``), or the calling test skips with the reason."""
    path = RULEBOOKS / name
    if not path.is_file():
        pytest.skip(f"rulebook {name} not found in {RULEBOOKS} (set COMPANION_RULEBOOKS)")
    return path.read_text(encoding="utf-8")


def stop_server(process: subprocess.Popen, patience: float = 60.0) -> None:
    """Stop a server a test started (gunicorn), even on a machine at load 15: ask it to stop
    (SIGTERM), wait generously, then kill it. Never fails the test: how long a busy machine takes to
    stop a server is no rule of ours."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=patience)
        except subprocess.TimeoutExpired:
            process.kill()
            try:
                process.wait(timeout=patience)
            except subprocess.TimeoutExpired:  # pragma: no cover - a process SIGKILL cannot end
                pass
    for stream in (process.stdout, process.stderr):
        if stream is not None:
            stream.close()


if POSTGRES_URL and re.fullmatch(r"postgresql(\+\w+)?://\S+", POSTGRES_URL):
    POSTGRES_URL = _own_postgres(POSTGRES_URL, WORKER)
if REDIS_URL and re.fullmatch(r"redis://\S+", REDIS_URL):
    REDIS_URL = _own_redis(REDIS_URL, WORKER)


def pytest_configure(config):
    """Stop at once, with one clear line, if ``TEST_DATABASE_URL`` is not a PostgreSQL URL
    (rather than seven hundred identical setup errors)."""
    if POSTGRES_URL and not re.fullmatch(r"postgresql(\+\w+)?://\S+", POSTGRES_URL):
        pytest.exit(f"TEST_DATABASE_URL is not a PostgreSQL URL: {POSTGRES_URL!r}", returncode=4)
    if REDIS_URL and not re.fullmatch(r"redis://\S+", REDIS_URL):
        pytest.exit(f"TEST_REDIS_URL is not a Redis URL: {REDIS_URL!r}", returncode=4)


def database_config(tmp_path) -> dict[str, str | None]:
    """The database part of a test app's config: SQLite in ``tmp_path``, or PostgreSQL."""
    return {"DATABASE": str(tmp_path / "test.sqlite"), "DATABASE_URL": POSTGRES_URL}


def empty_tables(app) -> None:
    """Delete every row and start every id at 1 again (PostgreSQL is shared by the tests; SQLite
    files are new each time). ``DELETE``, children first, rather than ``TRUNCATE``: on the few
    rows a test leaves it takes a tenth of the time (``TRUNCATE`` makes new files for every
    table); the sequences are set back as ``RESTART IDENTITY`` would."""
    engine = app.extensions["companion.engine"]
    if engine.dialect.name != "postgresql":
        return
    with engine.begin() as connection:
        for table in reversed(SQLModel.metadata.sorted_tables):
            connection.execute(text(f'DELETE FROM "{table.name}"'))
        sequences = connection.execute(text(
            "SELECT oid::regclass::text FROM pg_class WHERE relkind = 'S'")).scalars().all()
        for sequence in sequences:
            connection.execute(text("SELECT setval(:sequence, 1, false)"),
                               {"sequence": sequence})



@pytest.fixture(scope="session")
def empty_sqlite(tmp_path_factory) -> Path:
    """A SQLite database at the newest schema with nothing stored, migrated once per test
    process: each ``app`` starts on a copy (a server finds its schema there and migrates
    nothing), not on a new file every test migrates again — a fifth of a second of CPU each, a
    good part of the suite's time. The migrations themselves are tested on new and old databases
    (``tests/shell/test_upgrade.py``, ``tests/history/test_history_migration.py``, …)."""
    path = tmp_path_factory.mktemp("empty") / "empty.sqlite"
    made = create_app({"TESTING": True, "SECRET_KEY": "test", "DATABASE": str(path)})
    made.extensions["companion.engine"].dispose()  # (the last connection folds the WAL in)
    return path


@pytest.fixture
def app(tmp_path, empty_sqlite):
    config = database_config(tmp_path)
    if not config["DATABASE_URL"]:
        shutil.copyfile(empty_sqlite, config["DATABASE"])
    app = create_app({
        "TESTING": True,
        "SECRET_KEY": "test",
        "WTF_CSRF_ENABLED": False,
        **config,
    })
    empty_tables(app)
    yield app
    runner = app.extensions.get("companion.import_runner")
    if runner is not None:  # an import a test started in the background ends before the next
        assert runner.idle(900)
    if not getattr(app, "lists_left_stale", False):
        kept, made = played_by(app)
        assert kept == made, (f"the people's lists of finished games (playedby) left wrong by a "
                              f"write: {sorted(kept - made)[:5]} kept but not made from the "
                              f"games, {sorted(made - kept)[:5]} made but not kept")
    dispose(app)


def dispose(app) -> None:
    """Close ``app``'s database connections at the end of a test, once nothing of the test
    still holds one (an answer streamed and left unread, a session never closed): such a
    connection would come back after its pool is gone and be collected open — on PostgreSQL
    a warning in whichever later test the collector happens to run."""
    engine = app.extensions["companion.engine"]
    assert engine.pool.checkedout() == 0, "a connection still taken at the end of the test"
    engine.dispose()


PLAYED_BY = text(
    "SELECT first.game_id, first.person_id, second.person_id, game.updated_at"
    " FROM player AS first JOIN player AS second ON second.game_id = first.game_id"
    " AND second.person_id >= first.person_id JOIN game ON game.id = first.game_id"
    " JOIN gameresult ON gameresult.game_id = first.game_id WHERE gameresult.finished = :yes"
).bindparams(yes=True)
"""What ``playedby`` holds by definition: each finished game (as its stored summary says)
under each of its people (``low`` = ``high``) and each pair of them, at the game's time."""


def played_by(app) -> tuple[set[tuple], set[tuple]]:
    """The rows of ``playedby`` the writes kept, and those its definition makes from the
    games: every test's app is checked after the test (whatever it wrote: a save, an undo, a
    correction, a deletion, an import, a merge, a rebuild…), so a write that forgets the lists
    fails the test that makes it. A test that leaves the caches stale on purpose (a cache
    emptied by hand) sets ``app.lists_left_stale``."""
    with app.extensions["companion.engine"].connect() as connection:
        kept = {tuple(row) for row in connection.execute(text(
            "SELECT game_id, low, high, updated_at FROM playedby"))}
        made = {tuple(row) for row in connection.execute(PLAYED_BY)}
    return kept, made


@pytest.fixture
def client(app):
    return app.test_client()


DATA = Path(__file__).parent / "data"
"""Databases written by earlier releases (``tests/data/make_db_<release>.py``) and their facts."""


def upgraded_copy(folder: Path, release: str):
    """An app on a copy of the database release ``release`` wrote, upgraded as ``make run`` does
    first (``flask db upgrade``), then started as a server is;
    yields the app and the copy's path."""
    shutil.copy(DATA / f"db_{release}.sqlite", folder / "companion.sqlite")
    config = {"TESTING": True, "WTF_CSRF_ENABLED": False, "SECRET_KEY": "test",
              "DATABASE": str(folder / "companion.sqlite")}
    upgrade = create_app(config)
    result = upgrade.test_cli_runner().invoke(args=["db", "upgrade"])
    assert result.exit_code == 0, result.output
    upgrade.extensions["companion.engine"].dispose()
    app = create_app(config)  # then the server starts on the upgraded database
    yield app, folder / "companion.sqlite"
    app.extensions["companion.engine"].dispose()


def reveillez_link(app, role: str) -> str:
    """The ``role`` link's token of a new two-player Réveillez game (a game any page can show)."""
    from companion.db import get_session
    from companion.play import reveillez, store

    with app.app_context():
        session = get_session()
        game = reveillez.create_game(session=session, names=["Ana", "Bo"], first=0,
                                     variant=False, show_values=False)
        return store.links_of(session, game)[role].token


IMPORT_JOB = re.compile(r"/import/[0-9a-f]{32}$")


def finished_import(client, answer, timeout: float = 900.0):
    """What an import's page answers once its job has ended (a file is imported outside the
    request that sent it: the POST answers 303 to the job's progress page): the 303 to the
    group's history, or the 422 page with the problems. Any other answer is returned as is.

    The page is asked again every 0.1 s, as a phone would (less often: each answer is a page
    rendered in this process, where a thread may be running the import); ``timeout`` only stops
    a job that never ends, on a machine however busy."""
    import time

    deadline = time.monotonic() + timeout
    while answer.status_code == 303 and IMPORT_JOB.search(answer.headers["Location"]):
        location = answer.headers["Location"]
        while True:
            answer = client.get(location)
            if answer.status_code != 200 or time.monotonic() > deadline:
                break
            assert 'id="import-progress"' in answer.text
            time.sleep(0.1)
        if answer.status_code == 200:
            raise AssertionError(f"the import at {location} did not end in {timeout} s")
    return answer
