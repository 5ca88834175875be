"""The app the operator's commands run in (``flask --app companion groups …``, ``backup``,
``restore``, ``db …``): the configuration, the database and the commands — not the web app
(no blueprints, templates, translations, rate limits or page store), and no schema check that
could change anything. ``flask db upgrade`` is the one command that migrates.

:func:`companion.create_app` builds this one when the ``flask`` command line runs one of
:data:`COMMANDS`; every other use (a server, ``flask run``, the tests) builds the whole app.
"""

from __future__ import annotations

import sys
from pathlib import Path

from flask import Flask

COMMANDS = frozenset({"groups", "backup", "restore", "db", "init-db"})
_WITH_VALUE = frozenset({"--app", "-A", "--env-file", "-e"})


def command_line_command(argv: list[str]) -> str | None:
    """The ``flask`` subcommand ``argv`` runs (``["flask", "--app", "companion", "groups",
    "list"]`` → ``"groups"``), or None when ``argv`` is not the ``flask`` command line."""
    if not argv or Path(argv[0]).name != "flask":
        return None
    skip = False
    for arg in argv[1:]:
        if skip:
            skip = False
        elif arg in _WITH_VALUE:
            skip = True
        elif not arg.startswith("-"):
            return arg
    return None


def is_operator_command() -> bool:
    return command_line_command(sys.argv) in COMMANDS


def create_operator_app() -> Flask:
    """The configuration (as the server reads it), the database and the commands."""
    from .. import config, db
    from . import cli

    app = Flask("companion", root_path=str(Path(__file__).parent),
                instance_relative_config=True, instance_path=config.instance_path())
    config.load(app)
    db.attach(app)
    cli.init_app(app)
    return app
