"""What every response carries to keep a game night safe: security headers and rate limits.

- **Headers.** A Content-Security-Policy that allows scripts from this site only (no inline
  script, no inline event handler, no ``eval``), ``frame-ancestors 'none'`` (no page of a game
  inside someone else's frame), ``nosniff``, a referrer policy that never sends a game's link to
  another site, and a permissions policy that asks for nothing but the screen wake lock.
- **Cookies.** The session and language cookies are HttpOnly and SameSite=Lax; when the app is
  served over HTTPS they are Secure too.
- **Rate limits** (Flask-Limiter, per client address): writes are limited so that a loop cannot
  fill the disk — :data:`WRITE_LIMITS` for every POST of a game's pages, and
  :data:`CREATE_LIMIT` for starting new games. A limited client gets a page (or, under
  ``/api/``, the JSON error shape) saying to wait.
"""

from __future__ import annotations

import time

from flask import Flask, Response, render_template, request
from flask_limiter import Limiter, RateLimitExceeded
from flask_limiter.util import get_remote_address
from limits.storage import MemoryStorage

WRITE_LIMITS = ["120 per minute", "3000 per day"]
CREATE_LIMIT = "30 per hour"

CSP = "; ".join([
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",  # style attributes only; never scripts
    "img-src 'self' data:",
    "connect-src 'self'",
    "manifest-src 'self'",
    "worker-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
])

limiter = Limiter(key_func=get_remote_address, default_limits=WRITE_LIMITS,
                  default_limits_exempt_when=lambda: request.method in ("GET", "HEAD", "OPTIONS")
                  or request.path.startswith(("/api/", "/static/")))


class QuietMemoryStorage(MemoryStorage):
    """The ``memory://`` counters of ``limits``, without a thread per write: ``MemoryStorage``
    starts a new ``threading.Timer`` on any hit that comes more than 10 ms after its last sweep,
    which at a table's pace (a tap every few seconds) is every POST. Each counter is already
    checked for expiry when it is read, so nothing is counted differently; the sweep that frees
    the expired counters runs inline instead, at most once a minute."""

    STORAGE_SCHEME = ["companion-memory"]
    SWEEP_EVERY = 60.0  # seconds

    def __init__(self, uri: str | None = None, wrap_exceptions: bool = False,
                 **options: str) -> None:
        super().__init__(uri, wrap_exceptions=wrap_exceptions, **options)
        self._swept = time.time()

    def _MemoryStorage__schedule_expiry(self) -> None:  # (replaces the timer of MemoryStorage)
        now = time.time()
        if now - self._swept >= self.SWEEP_EVERY:
            self._swept = now
            self._MemoryStorage__expire_events()  # type: ignore[attr-defined]


def _headers(response: Response) -> Response:
    response.headers.setdefault("Content-Security-Policy", CSP)
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    response.headers.setdefault("X-Frame-Options", "DENY")
    response.headers.setdefault("Referrer-Policy", "same-origin")
    response.headers.setdefault("Permissions-Policy",
                                "camera=(), microphone=(), geolocation=(), payment=()")
    if request.is_secure:
        cookies = response.headers.getlist("Set-Cookie")
        if cookies:
            del response.headers["Set-Cookie"]
            for cookie in cookies:
                secure = cookie if "; Secure" in cookie else cookie + "; Secure"
                response.headers.add("Set-Cookie", secure)
    return response


def limit_creation(endpoints: set[str]) -> None:
    """Count a POST to a game's set-up page against :data:`CREATE_LIMIT` (raises
    ``RateLimitExceeded`` past it)."""
    if request.method == "POST" and request.endpoint in endpoints:
        with limiter.limit(CREATE_LIMIT, scope="new-game"):
            pass


def _too_many(error: RateLimitExceeded) -> tuple[Response | str, int]:
    from .routes import api

    answer = api.http_error(error)
    if answer is not None:
        return answer
    return render_template("errors/429.html"), 429


def init_app(app: Flask) -> None:
    app.config.setdefault("RATELIMIT_ENABLED", not app.config.get("TESTING", False))
    app.config.setdefault("RATELIMIT_HEADERS_ENABLED", False)
    # Counted in each server process (a modest limit is all this needs); a shared store such as
    # "redis://…" makes it one count across processes.
    app.config.setdefault("RATELIMIT_STORAGE_URI", "companion-memory://")
    limiter.init_app(app)
    app.after_request(_headers)
    app.register_error_handler(RateLimitExceeded, _too_many)

    from .games import registry

    creating = {kind.new_endpoint for kind in registry() if kind.new_endpoint}
    app.before_request(lambda: limit_creation(creating))
