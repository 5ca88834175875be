"""The operator's commands: only ``flask db upgrade`` migrates; the others leave the schema as
they find it, and the read-only ones build no web app (companion.ops.operator)."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from companion.db import head
from companion.ops.operator import command_line_command

from ..conftest import DATA

FLASK = str(Path(sys.executable).with_name("flask"))


def _flask(instance: Path, *args: str) -> subprocess.CompletedProcess[str]:
    environment = {key: value for key, value in os.environ.items() if key != "DATABASE_URL"}
    return subprocess.run([FLASK, "--app", "companion", *args], capture_output=True, text=True,
                          env={**environment, "COMPANION_INSTANCE": str(instance)})


def _revision(path: Path) -> list[tuple[str]]:
    with sqlite3.connect(path) as db:
        return db.execute("SELECT version_num FROM alembic_version").fetchall()


@pytest.mark.parametrize(("argv", "command"), [
    (["flask", "--app", "companion", "groups", "list"], "groups"),
    (["/srv/companion/.venv/bin/flask", "-A", "companion", "--debug", "backup", "x"], "backup"),
    (["flask", "run"], "run"),
    (["gunicorn", "groups"], None),
])
def test_the_command_is_read_from_the_flask_command_line(argv, command):
    assert command_line_command(argv) == command


def test_only_db_upgrade_migrates(tmp_path):
    shutil.copy(DATA / "db_584e0b5.sqlite", tmp_path / "companion.sqlite")
    for args in (["groups", "list"], ["groups", "link", "1"], ["groups", "export", "1"],
                 ["groups", "purge", "--days", "1", "--dry-run"], ["db", "current"]):
        done = _flask(tmp_path, *args)
        assert done.returncode != 0 and "flask db upgrade" in done.stdout + done.stderr, args
        assert _revision(tmp_path / "companion.sqlite") == [("0007",)], args
    upgraded = _flask(tmp_path, "db", "upgrade")
    assert upgraded.returncode == 0, upgraded.stderr
    assert f"0007 -> {head()}" in upgraded.stdout  # (the newest migration)
    listed = _flask(tmp_path, "groups", "list")
    assert listed.returncode == 0 and "2 groups" in listed.stdout


def test_a_command_on_an_empty_database_creates_nothing(tmp_path):
    done = _flask(tmp_path, "groups", "list")
    assert done.returncode != 0 and "empty" in done.stderr
    with sqlite3.connect(tmp_path / "companion.sqlite") as db:
        assert db.execute("SELECT name FROM sqlite_master").fetchall() == []


def test_the_schema_check_reads_the_head_alembic_reads():
    from alembic.script import ScriptDirectory

    from companion.db import MIGRATIONS, head, revisions

    scripts = ScriptDirectory(str(MIGRATIONS))
    assert head() == scripts.get_current_head()
    assert revisions() == {script.revision for script in scripts.walk_revisions()}


def _probe(probe: str, instance) -> subprocess.CompletedProcess[str]:
    """Run ``probe`` in a fresh Python, as a command starts (SQLite in ``instance``)."""
    environment = {key: value for key, value in os.environ.items() if key != "DATABASE_URL"}
    return subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          env={**environment, "COMPANION_INSTANCE": str(instance)})


def test_a_read_only_command_builds_no_web_app(tmp_path):
    """(Flask's command line itself loads every installed ``flask.commands`` plugin, such as
    Flask-Limiter's, whatever the app: not counted here.)"""
    assert _flask(tmp_path, "db", "upgrade").returncode == 0
    probe = (
        "import sys\n"
        "from flask.cli import main\n"
        "sys.argv = ['flask', '--app', 'companion', 'groups', 'list']\n"
        "try:\n    main()\nexcept SystemExit as done:\n    assert not done.code, done.code\n"
        "loaded = sorted(m for m in sys.modules if m.startswith(('companion.factory',"
        " 'companion.routes', 'flask_wtf', 'flask_babel', 'companion.scoring', 'alembic',"
        " 'prometheus_client', 'companion.play.export')))\n"
        "print('LOADED', loaded)\n")
    done = _probe(probe, tmp_path)
    assert done.returncode == 0, done.stderr
    assert "0 groups" in done.stdout and "LOADED []" in done.stdout


def test_the_operators_app_holds_imports_to_each_games_shapes(tmp_path):
    """The command line's app (no pages) still reads every game's glue when a command needs it:
    ``flask groups import`` holds each entry to its game's shape as the web import does, and
    history's games are the same four (a glue never plugged in would leave them unchecked)."""
    probe = (
        "import sys\n"
        "sys.argv = ['flask', '--app', 'companion', 'groups', 'import', 'x.json']\n"
        "from companion import create_app\n"
        "app = create_app()\n"
        "assert 'companion.routes' not in sys.modules\n"
        "from companion.play.entries import shapes_of\n"
        "from companion.play.summaries import kinds_with_history\n"
        "with app.app_context():\n"
        "    print('CHECKED', [shapes_of(kind) is not None for kind in ('rebel_princess',"
        " 'princesse_princesse', 'reveillez', 'kanai_duel')])\n"
        "    print('HISTORY', [kind.key for kind in kinds_with_history()])\n"
        "print('ROUTES', sorted(m for m in sys.modules if m.startswith('companion.routes')))\n")
    done = _probe(probe, tmp_path)
    assert done.returncode == 0, done.stderr
    assert "CHECKED [True, True, True, True]" in done.stdout, done.stdout
    assert ("HISTORY ['rebel_princess', 'princesse_princesse', 'reveillez', 'kanai_duel']"
            in done.stdout), done.stdout
    assert "ROUTES []" in done.stdout
