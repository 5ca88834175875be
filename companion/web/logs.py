"""What the app writes to its log: one access line per request, each error once with a request
id, and an outage of the shared store (Redis) once a minute — never a link token.

**The access line** (logger ``companion.access``, level INFO), one per request::

    198.51.100.7 "POST /rebel-princess/g/…3f2a/round/1/numbers" 302 0 12.3ms rid=5f0c2a9d1e7b4c3a ref="https://games.example.org/rebel-princess/g/…3f2a"

that is: the client's address (as the trusted proxies report it), the method and the path (with
its query), the status, the body's size in bytes, the time to answer, the request id and the
Referer. With ``ACCESS_LOG_JSON`` (config or environment) the same fields are one JSON object
per line: ``{"client", "method", "path", "status", "bytes", "ms", "rid", "referer"}``.

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

import json
import logging
import os
import re
import secrets
import sys
import time
from typing import Any

from flask import Flask, Response, g, render_template, request
from werkzeug.exceptions import InternalServerError

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
    if "request_id" not in g:
        given = request.headers.get("X-Request-ID", "")
        g.request_id = given if _REQUEST_ID.fullmatch(given) else secrets.token_hex(8)
    return str(g.request_id)


def access_fields(response: Response, seconds: float) -> dict[str, Any]:
    """The access line's fields for the current request and its ``response``, tokens masked."""
    path = request.full_path if request.query_string else request.path
    size = response.calculate_content_length()
    return {"client": request.remote_addr or "-", "method": request.method, "path": mask(path),
            "status": response.status_code, "bytes": size if size is not None else "-",
            "ms": round(seconds * 1000, 1), "rid": request_id(),
            "referer": mask(request.referrer or "")}


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
    access.info(format_line({
        "client": environ.get("REMOTE_ADDR") or "-", "method": environ.get("REQUEST_METHOD", "-"),
        "path": mask(path), "status": status, "bytes": size, "ms": round(seconds * 1000, 1),
        "rid": rid, "referer": mask(str(environ.get("HTTP_REFERER", "")))}, as_json))


def format_line(fields: dict[str, Any], as_json: bool) -> str:
    if as_json:
        return json.dumps(fields, ensure_ascii=False)
    return (f'{fields["client"]} "{fields["method"]} {fields["path"]}" {fields["status"]} '
            f'{fields["bytes"]} {fields["ms"]}ms rid={fields["rid"]} '
            f'ref="{fields["referer"] or "-"}"')


def _started() -> None:
    g.log_started = time.perf_counter()
    request_id()


def _answered(response: Response) -> Response:
    started = g.pop("log_started", None)
    response.headers["X-Request-ID"] = request_id()
    if started is not None:
        from flask import current_app

        access.info(format_line(access_fields(response, time.perf_counter() - started),
                                bool(current_app.config.get("ACCESS_LOG_JSON"))))
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


def configure_logging() -> None:
    """Send the access lines and errors to standard error when nothing else is set up (gunicorn
    passes a process's standard error to its error log; systemd to the journal)."""
    for name in ("companion",):
        logger = logging.getLogger(name)
        if not logger.handlers:
            handler = logging.StreamHandler(sys.stderr)
            handler.setFormatter(logging.Formatter(
                "%(asctime)s %(levelname)s %(name)s %(message)s"))
            logger.addHandler(handler)
            logger.setLevel(os.environ.get("LOG_LEVEL", "INFO").upper())
            logger.propagate = False


def init_app(app: Flask) -> None:
    """The request id, the access line, the error log and the error page."""
    if not app.testing:
        configure_logging()
    for name in OUTAGE_LOGGERS:
        logger = logging.getLogger(name)
        if OUTAGE_FILTER not in logger.filters:
            logger.addFilter(OUTAGE_FILTER)
    app.logger.addFilter(OUTAGE_FILTER)
    app.log_exception = lambda exc_info: _log_exception(app, exc_info)  # type: ignore[method-assign]
    app.before_request(_started)
    app.after_request(_answered)
    app.register_error_handler(InternalServerError, _server_error)
