"""Whether the database holds the schema this code was written for, and what a server does when
it does not.

``flask db upgrade`` is the one step that changes a database's schema (:func:`companion.db
.upgrade`). A server never migrates: at start it reads the database's revision and compares it
with the newest migration this code has (:func:`check`):

- the same: ready;
- an empty database (no tables at all, a fresh install): the server creates the schema, as
  ``flask db upgrade`` would — there is nothing stored to migrate;
- older (``flask db upgrade`` not run yet) or newer (the code is older than the database: a
  server of the previous release started after a newer one migrated): the server logs one
  clear line, refuses every write with a 503 page (reads go on), and ``/readyz`` answers 503
  naming the schema — so a load balancer sends the phones to the servers that are ready. It
  looks again every :data:`RECHECK` seconds, so a server started before ``flask db upgrade``
  becomes ready once it has run, without a restart.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Any

from flask import Flask, current_app, render_template, request
from sqlalchemy import inspect, text
from sqlalchemy.engine import Engine

log = logging.getLogger("companion.schema")

RECHECK = 5.0
"""Seconds between two looks at the database's revision while it is not the code's."""
READS = frozenset({"GET", "HEAD", "OPTIONS"})


@dataclass(frozen=True)
class SchemaState:
    """The database's revision (None: no ``alembic_version``) against this code's newest."""

    database: str | None
    code: str
    known: bool  # the database's revision is one of this code's migrations
    empty: bool = False  # no tables at all

    @property
    def is_ready(self) -> bool:
        return self.database == self.code

    @property
    def problem(self) -> str:
        if self.is_ready:
            return ""
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
    from .db import head, revisions

    code = head()
    with engine.connect() as connection:
        tables = set(inspect(connection).get_table_names())
        current = None
        if "alembic_version" in tables:
            current = connection.execute(
                text("SELECT version_num FROM alembic_version")).scalar()
    return SchemaState(database=current, code=code, known=current in revisions(),
                       empty=not tables)


def redis_url(config: Any) -> str | None:
    """The Redis the app is configured to use (the page store's, else the rate limits'), if any."""
    for key in ("CACHE_REDIS_URL", "RATELIMIT_STORAGE_URI"):
        value = str(config.get(key) or "")
        if value.startswith(("redis://", "rediss://", "unix://")):
            return value
    return None


class Guard:
    """A server's view of its database's schema, looked at again while it is not ready."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.state = check(engine)
        self.checked = time.monotonic()

    def is_ready(self) -> bool:
        if not self.state.is_ready and time.monotonic() - self.checked > RECHECK:
            self.state = check(self.engine)
            self.checked = time.monotonic()
            if self.state.is_ready:
                log.warning("schema: the database is now at revision %s; writes accepted",
                            self.state.code)
        return self.state.is_ready


def _refuse_writes() -> Any:
    if request.method in READS:
        return None
    guard: Guard = current_app.extensions["companion.schema"]
    if guard.is_ready():
        return None
    return render_template("errors/503.html"), 503, {"Retry-After": "30"}


def init_app(app: Flask, engine: Engine) -> None:
    """Check the schema at start: create it in an empty database; else, if it is not this code's,
    say so once and refuse writes until it is."""
    from .db import upgrade

    # A fresh install: nothing stored, nothing to migrate. Under the migration lock, before this
    # process's first connection (several workers starting on a new SQLite file at once).
    upgrade(engine, only_if_empty=True)
    guard = Guard(engine)
    state = guard.state
    app.extensions["companion.schema"] = guard
    if not state.is_ready:
        log.error("schema: %s. This server refuses writes (503) and /readyz answers 503 "
                  "until it is.", state.problem)
    app.before_request(_refuse_writes)
