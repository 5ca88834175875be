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
  looks again before each refusal (one small query, only while the schema is not its own), so
  every worker of a server started before ``flask db upgrade`` is ready the moment it has run,
  as ``/readyz`` is, without a restart.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from flask import Flask, current_app, render_template, request
from sqlalchemy.engine import Engine
from sqlalchemy.exc import OperationalError

from ..db import SchemaState, check, head, upgrade
from ..web.requests import itself

log = logging.getLogger("companion.schema")

READS = frozenset({"GET", "HEAD", "OPTIONS"})
ALWAYS = ("/healthz", "/readyz", "/metrics", "/static/")
"""What a server answers whatever its database's schema: health, metrics, its own files."""


def redis_url(config: Any) -> str | None:
    """The Redis the app is configured to use (the page store's, else the rate limits'), if any."""
    for key in ("CACHE_REDIS_URL", "RATELIMIT_STORAGE_URI"):
        value = str(config.get(key) or "")
        if value.startswith(("redis://", "rediss://", "unix://")):
            return value
    return None


class Guard:
    """A server's view of its database's schema, looked at again while it is not ready (each
    worker its own: all of them must agree with ``/readyz`` the moment the schema changes).

    A database that does not answer at start is not a reason to stop: the server starts, says
    so once, answers ``/healthz`` and 503 for everything else (``/readyz`` too) and looks again
    at each request, creating an empty database's schema then, as it would have at start."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.started = False  # the start's work (an empty database's schema) done
        self.state = self._look()
        self.when_ready: list[Callable[[], object]] = []
        """Work a start does on a ready database (stored summaries brought up to date, jobs of
        dead processes cleaned up): run once the database becomes ready after the start —
        come up, or upgraded — as it would have been at start (:meth:`is_ready`)."""

    def _look(self) -> SchemaState:
        try:
            if not self.started:
                # A fresh install: nothing stored, nothing to migrate. Under the migration lock,
                # before this process's first connection (several workers starting at once).
                upgrade(self.engine, only_if_empty=True)
                self.started = True
            return check(self.engine)
        except OperationalError as error:  # (nothing listens, refused, timed out)
            return SchemaState(database=None, code=head(), known=True,
                               unreachable=type(error.orig or error).__name__)

    def is_ready(self) -> bool:
        if not self.state.is_ready:
            self.state = self._look()
            if self.state.is_ready:
                log.warning("schema: the database is now at revision %s; writes accepted",
                            self.state.code)
                for work in self.when_ready:
                    try:
                        work()
                    except Exception:  # (logged; the next start does it again)
                        log.exception("schema: the start's work failed once the database "
                                      "was ready")
        return self.state.is_ready


def _refuse_writes() -> Any:
    """Writes wait (503) while the database's schema is not this code's; pages too while the
    database is behind it (a newer server started before `flask db upgrade`)."""
    guard: Guard = itself(current_app).extensions["companion.schema"]
    asked = itself(request)  # (read once: see companion.web.requests.itself)
    if asked.path.startswith(ALWAYS):
        return None
    if asked.method in READS and not guard.state.is_behind:
        return None
    if guard.is_ready():
        return None
    return render_template("errors/503.html"), 503, {"Retry-After": "30"}


def init_app(app: Flask, engine: Engine) -> None:
    """Check the schema at start: create it in an empty database; else, if it is not this code's,
    say so once and refuse writes until it is."""
    guard = Guard(engine)  # (an empty database's schema created: see Guard)
    state = guard.state
    app.extensions["companion.schema"] = guard
    if not state.is_ready:
        log.error("schema: %s. This server refuses writes%s (503) and /readyz answers 503 "
                  "until it is.", state.problem, " and pages" if state.is_behind else "")
    app.before_request(_refuse_writes)
