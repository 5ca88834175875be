"""What the app writes to its log: one access line per request, each error once with a request
id, and an outage of the shared store (Redis) once a minute — never a link token.

**The access line** (logger ``companion.access``, level INFO), one per request::

    198.51.100.7 "POST /rebel-princess/g/…3f2a/round/1/numbers" 302 0 12.3ms rid=5f0c2a9d1e7b4c3a ref="https://games.example.org/rebel-princess/g/…3f2a"

that is: the client's address (as the trusted proxies report it), the method and the path (with
its query), the status, the body's size in bytes, the time to answer, the request id and the
Referer. With ``ACCESS_LOG_JSON`` (config or environment) the same fields are one JSON object
per line, and nothing else on the line: ``{"time", "client", "method", "path", "status", "bytes",
"ms", "rid", "referer"}`` (``time`` in UTC, ISO 8601, to the millisecond).

**Link tokens are masked** wherever a path or a Referer is written (:func:`mask`): any run of 20
or more letters, digits, ``-`` or ``_`` becomes ``…`` and its last four characters, enough to
tell two games apart in a log, nowhere near enough to open one.

**Request ids.** Each request gets an id: the proxy's ``X-Request-ID`` when it sends a sane one
(letters, digits, ``-``, up to 64), else 16 random hex digits. It is sent back in
``X-Request-ID``, written on the access line, and an unhandled error is logged once, with its
traceback and that id, while the phone gets the app's own error page showing the same id.

**A shared store that stops answering** (Redis: the rate limits' counts and the page store) is
written once a minute per logger, as one line without a traceback, however many requests meet
it (:class:`OncePerMinute`).
"""

from __future__ import annotations

import inspect
import json
import logging
import os
import re
import secrets
import sys
import time
from datetime import UTC, datetime
from typing import Any

from flask import Flask, Response, g, render_template, request
from werkzeug.exceptions import InternalServerError

from . import metrics
from .metrics import COUNTED, LOGGED, STARTED, started_at
from .requests import itself

access = logging.getLogger("companion.access")
errors = logging.getLogger("companion.errors")

TOKEN = re.compile(r"[A-Za-z0-9_-]{20,}")
"""What a link token looks like in an address (32 hex digits today; anything that long)."""
_REQUEST_ID = re.compile(r"[A-Za-z0-9-]{1,64}")


def mask(text: str) -> str:
    """``text`` with every token-like run replaced by ``…`` and its last four characters."""
    return TOKEN.sub(lambda found: "…" + found[0][-4:], text)


def request_id() -> str:
    """This request's id (made on first use)."""
    found = itself(g)
    rid = found.get("request_id")
    if rid is None:
        given = itself(request).environ.get("HTTP_X_REQUEST_ID", "")  # (its X-Request-ID)
        rid = found.request_id = given if _REQUEST_ID.fullmatch(given) else secrets.token_hex(8)
    return str(rid)


def access_fields(response: Response, seconds: float) -> dict[str, Any]:
    """The access line's fields for the current request and its ``response``, tokens masked."""
    asked = itself(request)
    path = asked.full_path if asked.query_string else asked.path
    # (a streamed answer's size is not known yet: asking would make it whole, in memory, first)
    size = None if response.is_streamed else response.calculate_content_length()
    return {"client": asked.remote_addr or "-", "method": asked.method, "path": mask(path),
            "status": response.status_code, "bytes": size if size is not None else "-",
            "ms": round(seconds * 1000, 1), "rid": request_id(),
            "referer": mask(asked.referrer or "")}


def wsgi_request_id(environ: dict[str, Any]) -> str:
    """The id of a request answered outside Flask (the live polls' fast path)."""
    given = str(environ.get("HTTP_X_REQUEST_ID", ""))
    return given if _REQUEST_ID.fullmatch(given) else secrets.token_hex(8)


def log_wsgi_request(environ: dict[str, Any], status: int, size: int, seconds: float,
                     rid: str, as_json: bool) -> None:
    """The access line of a request answered outside Flask (:mod:`companion.web.polls`): the same
    fields and masking as :func:`access_fields`."""
    if not access.isEnabledFor(logging.INFO):
        return
    query = environ.get("QUERY_STRING", "")
    path = str(environ.get("PATH_INFO", "")) + (f"?{query}" if query else "")
    write_line(format_line({
        "client": environ.get("REMOTE_ADDR") or "-", "method": environ.get("REQUEST_METHOD", "-"),
        "path": mask(path), "status": status, "bytes": size, "ms": round(seconds * 1000, 1),
        "rid": rid, "referer": mask(str(environ.get("HTTP_REFERER", "")))}, as_json))


def write_line(line: str) -> None:
    """Log the access line ``line`` (level INFO on :data:`access`): the record every handler
    gets from ``access.info(line)``, its place in the code (file, line, function) that of the
    call to this function, taken from the caller's frame rather than by ``logging``'s walk up
    the stack (issue 36: every request writes one)."""
    if not access.isEnabledFor(logging.INFO):
        return
    frame = inspect.currentframe()
    caller = frame.f_back if frame is not None else None
    if caller is None:  # (a Python without frames: logging finds the place itself)
        access.info(line)
        return
    access.handle(access.makeRecord(access.name, logging.INFO, caller.f_code.co_filename,
                                    caller.f_lineno, line, (), None, caller.f_code.co_name))


def format_line(fields: dict[str, Any], as_json: bool) -> str:
    if as_json:  # (its own time: the line is the object alone, see configure_logging)
        when = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        return json.dumps({"time": when, **fields}, ensure_ascii=False)
    return (f'{fields["client"]} "{fields["method"]} {fields["path"]}" {fields["status"]} '
            f'{fields["bytes"]} {fields["ms"]}ms rid={fields["rid"]} '
            f'ref="{fields["referer"] or "-"}"')


class EveryRequest:
    """WSGI middleware, innermost around Flask: the clock starts here, before a link, a group or
    the session is looked up, and a request that no Flask hook wrote or counted (one that failed
    before or inside them) is written and counted here, from its status — so every answer the
    app gives has its access line and its count in ``/metrics``, 404 and 500 included."""

    def __init__(self, app: Any, as_json: bool) -> None:
        self.app = app
        self.as_json = as_json

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        environ[STARTED] = started = time.perf_counter()
        seen: list[Any] = []

        def capture(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            seen[:] = [status, headers]  # (read only if the hooks kept no count or line)
            return start_response(status, headers, exc_info)

        try:
            body = self.app(environ, capture)
        except BaseException:
            self._missed(environ, [], started)
            raise
        self._missed(environ, seen, started)
        return body

    def _missed(self, environ: dict[str, Any], seen: list[Any], started: float) -> None:
        """The request's count and access line, once: those the Flask hooks kept for its final
        answer (:func:`_answered`, :func:`companion.web.metrics._answered`), else made here from
        the answer's status line and headers (``seen``; none: a 500)."""
        seconds = time.perf_counter() - started
        counted, line = environ.get(COUNTED), environ.get(LOGGED)
        status = int(seen[0].split(" ", 1)[0]) if seen else 500
        if callable(counted):
            counted()
        else:
            metrics.count_request(metrics.NO_ROUTE, str(environ.get("REQUEST_METHOD", "-")),
                                  status, seconds)
        if isinstance(line, str):
            write_line(line)
            return
        headers = dict((k.lower(), v) for k, v in seen[1]) if seen else {}
        log_wsgi_request(environ, status, headers.get("content-length", "-"), seconds,
                         headers.get("x-request-id") or wsgi_request_id(environ), self.as_json)


def _started() -> None:
    request_id()


def _answered(response: Response) -> Response:
    from flask import current_app

    app = itself(current_app)
    response.headers["X-Request-ID"] = request_id()
    # Kept for EveryRequest to write once the answer is final (a second run of the hooks, after
    # one of them failed, replaces it: one line per request, the answer's own).
    itself(request).environ[LOGGED] = format_line(
        access_fields(response, time.perf_counter() - started_at()),
        bool(app.config.get("ACCESS_LOG_JSON")))
    return response


def _log_exception(app: Flask, exc_info: Any) -> None:
    """Flask's log of an unhandled error, once, with the request id and the path masked
    (Flask's own line would carry the address, token and all)."""
    errors.error("unhandled error rid=%s %s %s", request_id(), request.method,
                 mask(request.path), exc_info=exc_info)


def _server_error(error: InternalServerError) -> tuple[str, int]:
    try:
        return render_template("errors/500.html", request_id=request_id()), 500
    except Exception:  # the page itself failed: the id, in plain words
        errors.exception("the error page failed rid=%s", request_id())
        return (f"<!doctype html><title>Error</title><p>Something went wrong on the server. "
                f"Reference: {request_id()}</p>"), 500


class OncePerMinute(logging.Filter):
    """Lets one record through per minute and logger when it is about the shared store being
    unreachable (a Redis error), without its traceback; every other record passes untouched."""

    EVERY = 60.0

    def __init__(self) -> None:
        super().__init__()
        self.last: dict[str, float] = {}

    @staticmethod
    def isOUTAGE_FILTER(record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        text = f"{type(error).__module__}.{type(error).__name__} {error}" if error else ""
        return "redis" in text.lower() or "redis" in record.getMessage().lower() or (
            error is not None and "storage" in record.getMessage().lower())

    def filter(self, record: logging.LogRecord) -> bool:
        if not self.isOUTAGE_FILTER(record):
            return True
        now = time.monotonic()
        if now - self.last.get(record.name, -self.EVERY) < self.EVERY:
            return False
        self.last[record.name] = now
        error = record.exc_info[1] if record.exc_info else None
        if error is not None:
            record.msg = f"{record.getMessage()}: {type(error).__name__}: {error}" \
                         " (the shared store is unreachable; logged once a minute)"
            record.args = ()
            record.exc_info = None
            record.exc_text = None
        return True


OUTAGE_LOGGERS = ("flask-limiter", "flask_limiter", "limits", "flask_caching", "companion")
"""The loggers that report a shared store's outage (Flask-Limiter, limits, Flask-Caching, and
ours: the page store)."""
OUTAGE_FILTER = OncePerMinute()


REDIS_PARTS = {
    "companion.limits": "the rate limits count in each server process meanwhile (same limits, "
                        "one count per process: never a refusal for the outage)",
    "companion.page_store": "pages are drawn afresh meanwhile",
    "companion.ops.jobs": "imports run in the server that takes them meanwhile",
}
"""The parts that use the shared Redis, and what each does while it does not answer."""


def redis_down(part: str, error: object = None, *, at_start: bool = False) -> bool:
    """Say that the shared Redis does not answer ``part`` (a name of :data:`REDIS_PARTS`) and
    what that part does meanwhile — at most once a minute per part (:data:`OUTAGE_FILTER`'s
    clock, shared with the other outage lines); whether it was said now."""
    logger = logging.getLogger(part)
    if OUTAGE_FILTER not in logger.filters:
        logger.addFilter(OUTAGE_FILTER)
    why = f" ({type(error).__name__}: {error})" if isinstance(error, BaseException) else (
        f" ({error})" if error else "")
    before = OUTAGE_FILTER.last.get(part)
    logger.warning("redis unreachable%s%s: %s", " at start" if at_start else "", why,
                   REDIS_PARTS[part])
    return OUTAGE_FILTER.last.get(part) != before


def redis_ping(url: str) -> Exception | None:
    """Ask the shared Redis at ``url`` once (half a second at most): None when it answers, else
    what went wrong (the start's warnings and ``/readyz`` read it)."""
    try:
        import redis

        client = redis.Redis.from_url(url, socket_timeout=0.5, socket_connect_timeout=0.5)
        try:
            client.ping()
        finally:
            client.close()
    except Exception as error:
        return error
    return None


def redis_at_start(url: str | None) -> bool:
    """Whether the shared Redis at ``url`` answers as the server starts; if it does not, each
    part that uses it says so, once, so a server started during an outage is not silent."""
    if url is None:
        return True
    error = redis_ping(url)
    if error is not None:
        for name in REDIS_PARTS:
            redis_down(name, error, at_start=True)
        return False
    return True


class SecondFormatter(logging.Formatter):
    """``logging.Formatter``, whose time (``%(asctime)s`` without a ``datefmt``) is the same
    text, its date and time to the second made once a second rather than for each line (a
    fifth of writing an access line, issue 36): ``2026-11-29 21:34:59,123``."""

    def __init__(self, fmt: str | None = None, datefmt: str | None = None) -> None:
        super().__init__(fmt, datefmt)
        self._second: tuple[int, str] = (-1, "")

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:
        if datefmt is not None or self.converter is not time.localtime:
            return super().formatTime(record, datefmt)
        second = int(record.created)
        kept = self._second
        if kept[0] != second:
            kept = self._second = (second, time.strftime(self.default_time_format,
                                                         time.localtime(second)))
        if not self.default_msec_format:
            return kept[1]
        return self.default_msec_format % (kept[1], record.msecs)


def configure_logging(as_json: bool = False) -> None:
    """Send the access lines and errors to standard error when nothing else is set up (gunicorn
    passes a process's standard error to its error log; systemd to the journal). With
    ``as_json`` the access lines are written alone, each one JSON object and nothing else (its
    ``time`` inside), for a log shipper to read as they are."""
    if as_json and not access.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(message)s"))
        access.addHandler(handler)
        access.setLevel(os.environ.get("LOG_LEVEL", "INFO").upper())
        access.propagate = False
    for name in ("companion",):
        logger = logging.getLogger(name)
        if not logger.handlers:
            handler = logging.StreamHandler(sys.stderr)
            handler.setFormatter(SecondFormatter(
                "%(asctime)s %(levelname)s %(name)s %(message)s"))
            logger.addHandler(handler)
            logger.setLevel(os.environ.get("LOG_LEVEL", "INFO").upper())
            logger.propagate = False


def init_app(app: Flask) -> None:
    """The request id, the access line, the error log and the error page."""
    if not app.testing:
        configure_logging(bool(app.config.get("ACCESS_LOG_JSON")))
    for name in OUTAGE_LOGGERS:
        logger = logging.getLogger(name)
        if OUTAGE_FILTER not in logger.filters:
            logger.addFilter(OUTAGE_FILTER)
    app.logger.addFilter(OUTAGE_FILTER)
    app.log_exception = lambda exc_info: _log_exception(app, exc_info)  # type: ignore[method-assign]
    app.wsgi_app = EveryRequest(app.wsgi_app, bool(app.config.get("ACCESS_LOG_JSON")))  # type: ignore[method-assign]
    app.before_request(_started)
    app.after_request(_answered)
    app.register_error_handler(InternalServerError, _server_error)
