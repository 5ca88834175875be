"""The live polls answered before Flask's request cycle.

Every open page of a game asks ``/live/<token>`` once a second whether the game changed (see
``app.js``): at a table of six phones that is most of the server's requests, and Flask's
request cycle (context, session, hooks, headers) was about 80 % of each (issue 31). This WSGI
middleware, in front of the Flask app (behind the proxy fix: the client's address is the real
one), answers them itself with one indexed read on a pooled connection
(:func:`companion.play.versions.version_by_token`) and the same answer the Flask view gives — the
version as text, its ETag, ``304 Not Modified`` while ``If-None-Match`` names it, ``no-cache``,
the same ``Vary`` and the same security headers (:func:`companion.web.security.headers`). On
PostgreSQL the read goes through :func:`companion.db.reader` (autocommit, no pre-ping: one round
trip), on the connection each server process keeps taken from its pool
(:func:`companion.play.page_reads.taken`: no check-out and check-in a poll). A ``304``
("nothing new") is counted in ``/metrics`` but writes no access line: a line
for each change (``200``) and each refusal.

What it does not answer goes on to Flask unchanged: another method or address, a token that
opens nothing (Flask's 404 page, in the phone's language), a database that does not answer.

Rate limit: polls are reads, outside the write limits; each server process counts each client
address's polls against :data:`LIVE_LIMIT` (in memory: a poll never waits for a shared store),
and answers ``429`` with ``Retry-After`` past it — generous for a table of phones on one Wi-Fi
behind one address, and it keeps one client from taking every worker.

Counting: :func:`on_poll` registers a function called with the status of every poll answered
here (200, 304 or 429), for the server's metrics.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Any

from flask import Flask
from limits import parse
from limits.strategies import FixedWindowRateLimiter
from werkzeug.http import http_date, is_resource_modified
from werkzeug.middleware.proxy_fix import ProxyFix

from ..db import reader
from ..play.versions import version_by_token
from . import logs, metrics
from .security import HEADERS, QuietMemoryStorage

PREFIX = "/live/"
LIVE_LIMIT = "600 per minute"
"""Polls per client address and server process: ten phones polling every second."""
ROUTE = "/live/<token>"
"""The route template the Flask view has: the fast path's requests are counted under it."""

VARY = "Accept-Language, Cookie, Accept-Encoding"
"""What the Flask view's answer varies on (the app's language, session and compression)."""

Environ = dict[str, Any]
StartResponse = Callable[..., Any]
WsgiApp = Callable[[Environ, StartResponse], Iterable[bytes]]


class LivePolls:
    """WSGI middleware: ``GET``/``HEAD /live/<token>`` answered here, anything else by ``app``."""

    def __init__(self, app: WsgiApp, flask_app: Flask) -> None:
        self.app = app
        self.flask_app = flask_app
        self.hooks: list[Callable[[int], None]] = []
        self.limit = parse(LIVE_LIMIT)
        self.limiter = FixedWindowRateLimiter(QuietMemoryStorage())
        self.enabled = bool(flask_app.config.get("RATELIMIT_ENABLED", True))
        self.as_json = bool(flask_app.config.get("ACCESS_LOG_JSON"))
        self.static = [(name, value) for name, value in HEADERS]

    def __call__(self, environ: Environ, start_response: StartResponse) -> Iterable[bytes]:
        started = time.perf_counter()
        path = environ.get("PATH_INFO", "")
        method = environ.get("REQUEST_METHOD", "")
        if not path.startswith(PREFIX) or method not in ("GET", "HEAD"):
            return self.app(environ, start_response)
        token = path[len(PREFIX):]
        address = environ.get("REMOTE_ADDR") or "?"
        if self.enabled and not self.limiter.hit(self.limit, "live", address):
            return self._answer(environ, start_response, 429, b"Too many requests: wait a minute.",
                                [("Content-Type", "text/plain; charset=utf-8"),
                                 ("Retry-After", "60")], method, started)
        try:
            version = version_by_token(reader(self.flask_app.extensions["companion.engine"]),
                                       token)
        except Exception:  # the database does not answer: Flask says so
            version = None
        if version is None:
            return self.app(environ, start_response)
        etag = f'"{version}"'
        headers = [("ETag", etag), ("Cache-Control", "no-cache"), ("Date", _date())]
        # The phone sends back the ETag it was given: that string alone is compared here; any
        # other form (a list, W/, *) goes through werkzeug's reading of the header.
        if environ.get("HTTP_IF_NONE_MATCH") == etag or not is_resource_modified(environ,
                                                                                  etag=version):
            return self._answer(environ, start_response, 304, b"", headers, method, started)
        body = version.encode()
        return self._answer(environ, start_response, 200, body, [
            ("Content-Type", "text/plain; charset=utf-8"), *headers], method, started)

    def _answer(self, environ: Environ, start_response: StartResponse, status: int, body: bytes,
                headers: list[tuple[str, str]], method: str,
                started: float) -> Iterable[bytes]:
        reason = {200: "200 OK", 304: "304 NOT MODIFIED", 429: "429 TOO MANY REQUESTS"}[status]
        if status != 304:
            headers.append(("Content-Length", str(len(body))))
        rid = logs.wsgi_request_id(environ)
        start_response(reason, [*headers, ("Vary", VARY), ("X-Request-ID", rid), *self.static])
        seconds = time.perf_counter() - started
        _count_poll(method, status, seconds)
        if status != 304:  # "nothing new": counted, never a line (one a second per open page)
            logs.log_wsgi_request(environ, status, len(body), seconds, rid, self.as_json)
        for hook in self.hooks:
            hook(status)
        return [] if method == "HEAD" or status == 304 else [body]


_DATE: list[object] = [0, ""]


def _date() -> str:
    """The Date header's text, made once a second (``http_date`` is a tenth of a 304's own
    work)."""
    now = int(time.time())
    if _DATE[0] != now:
        _DATE[:] = [now, http_date(now)]
    return str(_DATE[1])


def _count_poll(method: str, status: int, seconds: float) -> None:
    """The metrics of a poll answered here, as the Flask view's would be counted."""
    metrics.count_request(ROUTE, method, status, seconds)
    if status == 429:
        metrics.count_refusal()
    else:
        metrics.count_live_poll(changed=status == 200)


def on_poll(app: Flask, hook: Callable[[int], None]) -> None:
    """Call ``hook(status)`` for every poll the fast path answers (200, 304 or 429)."""
    app.extensions["companion.polls"].hooks.append(hook)


def install(app: Flask) -> None:
    """Put the fast path in front of the Flask app, behind the proxy fix if there is one (so
    the client's address is the real one)."""
    outer = app.wsgi_app
    inner = getattr(outer, "app", None)
    if inner is not None and isinstance(outer, ProxyFix):
        polls = LivePolls(inner, app)
        outer.app = polls
    else:
        polls = LivePolls(outer, app)
        app.wsgi_app = polls  # type: ignore[method-assign]
    app.extensions["companion.polls"] = polls
