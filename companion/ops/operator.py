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

from ..games import plug_in, plug_in_later

COMMANDS = frozenset({"groups", "backup", "restore", "db", "init-db", "version", "summaries"})
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
    plug_in_later(plug_in_glue)  # (a command that reads a game's entries or summaries)
    return app


def plug_in_glue() -> None:
    """Every game's glue (``GLUE`` in ``companion/play/<key>.py``: its summaries and the shape
    of its entries) registered with the registry, without its pages: the operator's app has
    none. :func:`companion.factory.plug_in_games` runs it, then plugs in the pages."""
    from ..play import kanai_duel, princesse_princesse, rebel_princess, reveillez

    for glue in (rebel_princess, princesse_princesse, reveillez, kanai_duel):
        plug_in(glue.KIND, glue=glue.GLUE)
