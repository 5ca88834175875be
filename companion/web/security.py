"""What every response carries to keep a game night safe: security headers, cookie flags, the
real client address behind a proxy, and rate limits.

- **Headers.** A Content-Security-Policy that allows scripts and styles from this site only (no
  inline script, no inline event handler, no ``eval``, no style attribute or ``<style>`` element:
  a player's colour is a class), ``frame-ancestors 'none'`` (no page of a game
  inside someone else's frame), ``nosniff``, a referrer policy that never sends a game's link to
  another site, and a permissions policy that asks for nothing but the screen wake lock.
- **Behind a proxy.** ``TRUSTED_PROXIES`` (config or environment; 0 by default) is how many
  proxies stand in front of the app: with 1 or more, werkzeug's ``ProxyFix`` takes the client's
  address from ``X-Forwarded-For`` and the scheme from ``X-Forwarded-Proto`` as that many proxies
  set them; with 0 those headers are ignored (anyone could send them) and the socket's address
  and scheme are used. They are believed only from the proxy's own addresses
  (``PROXY_ADDRESSES``, loopback by default: :class:`TrustedProxyFix`).
- **Cookies.** The session and language cookies are HttpOnly and SameSite=Lax; a request that
  came over HTTPS (directly or, with trusted proxies, through one) gets them Secure — decided
  when Flask writes the cookie (see :class:`companion.factory`'s session interface), so nothing
  rewrites headers afterwards. Plain HTTP on a home network keeps working.
- **Rate limits** (Flask-Limiter, per client address, each one count for all the routes it
  covers — never per route): every write outside the JSON API (any POST, PUT, PATCH or DELETE,
  refused ones included, to any address) counts against :data:`WRITE_LIMITS`; each game started,
  of any kind, and each import of an export file, counts against :data:`CREATE_LIMIT` as well
  (a restore, which needs no link, also against :data:`RESTORE_LIMIT`); every request to the
  JSON API counts against :data:`API_LIMIT`; every export counts against :data:`EXPORT_LIMIT`
  per link (the group's or the game's, hashed: a counter's key never holds a token), whoever
  asks. A tap at the table (a write that only :data:`WRITE_LIMITS` counts) is counted before
  Flask-Limiter's own check, in the same counters (:class:`WriteCount`). The counts live in
  each server process (`make run` starts one process with threads, so one count for the
  machine) unless
  ``RATELIMIT_STORAGE_URI`` names a shared store (``redis://…``), which makes them one count
  for every process and every
  server. While that store does not answer, each process counts on its own (the same limits,
  per process: a client can make that many requests in each process, and is never refused for
  the outage), and says so in the log once a minute (:func:`_say_an_outage`). A limited client
  gets a page (or, under ``/api/``, the JSON error shape) saying to wait, with ``Retry-After``.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Iterable
from datetime import timedelta
from ipaddress import IPv4Network, IPv6Network, ip_address, ip_network
from typing import TYPE_CHECKING, Any

from flask import Flask, Response, current_app, g, render_template, request
from flask.globals import request_ctx
from flask_limiter import ApplicationLimit, Limiter, RateLimitExceeded
from limits import parse_many
from limits.storage import MemoryStorage
from werkzeug.datastructures import Headers
from werkzeug.middleware.proxy_fix import ProxyFix

from .requests import itself

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIEnvironment

WRITE_LIMITS = "120 per minute; 3000 per day"
CREATE_LIMIT = "30 per hour"
RESTORE_LIMIT = "4 per hour; 12 per day"
"""Restores (a backup into a new group, which needs no link) taken from one client; each counts
against :data:`CREATE_LIMIT` too, as every import does."""
API_LIMIT = "600 per minute"
"""Generous: the JSON API stores nothing; this only keeps one client from taking every worker."""
EXPORT_LIMIT = "10 per minute; 60 per hour"
"""Exports (a group's or a game's: JSON, packed or CSV) fetched through one link, from any
address: an export reads every game the link shows, so it is counted per link (a link passed
around a table counts once, and many addresses do not multiply it)."""
EXPORTS = frozenset({"history.export_all", "history.export_all_packed", "history.export_all_csv",
                     "records.export_game", "records.export_game_csv", "exports.download"})
"""The endpoints :data:`EXPORT_LIMIT` counts: a group's export asked for (sent at once, or a job
started or found), a game's, and a job's file downloaded (its progress page is not counted)."""

READS = frozenset({"GET", "HEAD", "OPTIONS"})
IMPORTS = frozenset({"history.import_page", "restore.restore"})
"""The imports of an export file: each one accepted stores games, and counts as a game started."""
RESTORES = frozenset({"restore.restore"})
"""The restore into a new group, which needs no link: limited on its own too."""

CSP = "; ".join([
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",  # no inline style either: classes in the site's stylesheets
    "img-src 'self' data:",
    "connect-src 'self'",
    "manifest-src 'self'",
    "worker-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
])


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


def _remote_address() -> str:
    """Flask-Limiter's ``get_remote_address``: the client's address (once the trusted proxies'
    fix has run), read from the request itself (:func:`.requests.itself`)."""
    return itself(request).remote_addr or "127.0.0.1"


def _not_a_write() -> bool:
    asked = itself(request)
    return asked.method in READS or asked.path.startswith("/api/")


def _posted_to(asked: Any, app: Flask, endpoints: str) -> bool:
    """Whether the request ``asked`` is a POST to one of ``app``'s ``endpoints`` (the name of
    their set in its extensions: ``companion.creating``, ``companion.restoring``)."""
    return asked.method == "POST" and asked.endpoint in app.extensions.get(endpoints, ())


def _not_a_new_game() -> bool:
    return not _posted_to(itself(request), itself(current_app), "companion.creating")


def _not_a_restore() -> bool:
    return not _posted_to(itself(request), itself(current_app), "companion.restoring")


def _started(response: Response) -> bool:
    return 300 <= response.status_code < 400


def _not_the_api() -> bool:
    return not itself(request).path.startswith("/api/")


def _not_an_export() -> bool:
    return itself(request).endpoint not in EXPORTS


def export_link() -> str:
    """The export limit's key: the link the export was fetched through, hashed (a counter's key
    never holds a token, nor does the store that keeps it)."""
    args = request.view_args or {}
    group = g.get("group")  # (a group's page: its link was taken out of the view's arguments)
    token = str(group.token if group is not None else args.get("token") or "")
    return "export:" + hashlib.sha256(token.encode()).hexdigest()[:32]


def _counted_by_none() -> bool:
    """A request no limit counts (a read outside the JSON API that is not an export):
    Flask-Limiter is told so before it weighs each limit's exemption (a third of a page's
    request cycle otherwise, issue 36)."""
    return _not_a_write() and _not_the_api() and _not_an_export()


class WriteLimitExceeded(RateLimitExceeded):
    """A write refused by :class:`WriteCount`: Flask-Limiter's own refusal (the same handler,
    :func:`_too_many`), with when the limit's window ends (its ``Retry-After``)."""

    def __init__(self, limit: Any, reset_at: float) -> None:
        super().__init__(limit)
        self.reset_at = reset_at


class WriteCount:
    """The count of a write that :data:`WRITE_LIMITS` alone counts (any write outside the JSON
    API that starts no game, restores nothing and is no export: a tap at the table), before
    Flask-Limiter's own check (:class:`CompanionLimiter`): the same counters as Flask-Limiter
    keeps for the limit (its limits' own key and scope, its key prefix, its store and
    strategy), hit in turn, shortest window first, the first one used up refusing the write
    (:class:`WriteLimitExceeded`, answered by :func:`_too_many` as Flask-Limiter's refusals
    are). Flask-Limiter's check resolves every application limit, their exemptions and the
    blueprint's on each request (a fifth of a save's request cycle: issue 36); this counts the
    two counters only.

    Left to Flask-Limiter (this answers False, having counted nothing): every other request;
    every request while the shared store is down (it counts in its in-memory fallback, and
    checks whether the store is back); a write the store failed to count (Flask-Limiter's
    check then meets the failure itself, and falls back). Keep in step with the limits of
    :func:`make_limiter`: no route or blueprint limit of Flask-Limiter's own
    (``limiter.limit``) may apply to such a write; a blueprint exempted (``limiter.exempt``)
    is named in ``app.extensions["companion.unlimited"]``."""

    def __init__(self, limiter: Limiter) -> None:
        self.limiter = limiter
        self.limits: list[Any] | None = None

    def _write_limits(self) -> list[Any]:
        if self.limits is None:  # (bound to the limiter once it is set up: at the first write)
            self.limits = sorted((limit for limit in self.limiter.limit_manager.application_limits
                                  if limit.scope == "writes"), key=lambda limit: limit.limit)
        return self.limits

    def __call__(self) -> bool:
        """True when the request was such a write, and counted (else False, nothing counted)."""
        asked = itself(request)
        method = asked.method
        if method in READS:
            return False
        endpoint = asked.endpoint or asked.path
        app = itself(current_app)  # (the request and the app read once: not per exemption)
        if (asked.path.startswith("/api/") or _posted_to(asked, app, "companion.creating")
                or _posted_to(asked, app, "companion.restoring") or asked.endpoint in EXPORTS
                or endpoint.rsplit(".", 1)[-1] == "static"  # (Flask-Limiter never counts those)
                or asked.blueprint in app.extensions.get("companion.unlimited", ())
                or getattr(self.limiter, "_storage_dead", False)):
            return False
        prefix = app.config.get("RATELIMIT_KEY_PREFIX")
        strategy = self.limiter.limiter
        for limit in self._write_limits():
            args = [limit.key_func(), limit.scope_for(endpoint, method)]
            if prefix:
                args.insert(0, prefix)
            try:
                counted = strategy.hit(limit.limit, *args, cost=limit.deduction_amount)
            except Exception:  # the store failed: Flask-Limiter's check meets it and falls back
                return False
            if not counted:
                self.limiter.logger.info("ratelimit %s (%s) exceeded at endpoint: %s",
                                         limit.limit, args[-2], args[-1])
                window = strategy.get_window_stats(limit.limit, *args)
                raise WriteLimitExceeded(limit, int(window.reset_time + 1))  # (as its reset_at)
        return True


class CompanionLimiter(Limiter):
    """Flask-Limiter's limiter, a tap at the table counted by :class:`WriteCount` before (and
    instead of) its own check; a request no limit counts (:func:`_counted_by_none`: a page, a
    read outside the JSON API that is no export) let through at once; every other request
    checked by Flask-Limiter as it is.

    Letting such a request through is what Flask-Limiter's check does with it, the same filter
    deciding (:func:`make_limiter` installs it), without what it does before asking: the view's
    name, the exemptions of the endpoint and the blueprint, an empty list of limits to weigh
    (issue 35: a page read from the page store pays it on every request). Only while no meta
    limit is set: Flask-Limiter tests those on every request, even one its filters let
    through."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.write_count = WriteCount(self)

    def _check_request_limit(self, callable_name: str | None = None,
                             in_middleware: bool = True) -> None:
        if in_middleware and callable_name is None and self.enabled and self.initialized:
            if self.write_count():
                return
            if (not self._meta_limits and _counted_by_none in self._request_filters
                    and _counted_by_none()):
                return
        super()._check_request_limit(callable_name, in_middleware)

    # Flask-Limiter's after-request hook (its deductions, its headers) and its teardown read
    # the request's state of the limits, which they make first when nothing made it — as for a
    # request its check let through or :class:`WriteCount` counted (every page and every tap
    # at the table, issue 36). Such a request has no deduction to make, no limit to name in a
    # header and nothing to forget: the hooks are left out for it, where they do nothing.

    def _has_state(self) -> bool:
        """Whether this request has its state of the limits (Flask-Limiter's check made it)."""
        found = vars(itself(request_ctx))
        return self in found.get("_limiter_request_context", ())

    def _Limiter__check_conditional_deductions(self, response: Response) -> None:
        if self._has_state():
            vars(Limiter)["_Limiter__check_conditional_deductions"](self, response)

    @property
    def current_limit(self) -> Any:
        return super().current_limit if self._has_state() else None

    def _Limiter__release_context(self, error: BaseException | None = None) -> None:
        if self._has_state():
            vars(Limiter)["_Limiter__release_context"](self, error)


def make_limiter() -> Limiter:
    """A limiter for one app (its own store, and its own memory of whether that store answers)."""
    limiter = CompanionLimiter(
        key_func=_remote_address,  # the real client's address once ProxyFix has run
        # Every request counts, even one to an address that does not exist (Flask-Limiter
        # would otherwise skip a request with no endpoint); the scopes below are shared, so
        # the path never enters a counter's key.
        request_identifier=lambda: request.endpoint or request.path,
        application_limits=[
            # Application limits are shared by every route: one count per address and scope.
            ApplicationLimit(WRITE_LIMITS, scope="writes", exempt_when=_not_a_write),
            # Games started (a set-up form answered by a redirect to the new game), not tries:
            # the set-up page's own refreshes and refused forms count as writes only.
            ApplicationLimit(CREATE_LIMIT, scope="new-game", exempt_when=_not_a_new_game,
                             deduct_when=_started),
            ApplicationLimit(RESTORE_LIMIT, scope="restore", exempt_when=_not_a_restore,
                             deduct_when=_started),
            ApplicationLimit(API_LIMIT, scope="api", exempt_when=_not_the_api),
            # Exports: per link, from any address (see EXPORT_LIMIT).
            ApplicationLimit(EXPORT_LIMIT, scope="export", key_function=export_link,
                             exempt_when=_not_an_export),
        ],
    )
    # Keep in step with the limits above: a request this lets through, no limit may count.
    limiter.request_filter(_counted_by_none)
    return limiter


def limit_figures(limits: str) -> list[tuple[int, int]]:
    """``"120 per minute; 3000 per day"`` as ``[(120, 60), (3000, 86400)]`` (how many, in how
    many seconds): what the README and the audit state."""
    return [(item.amount, item.get_expiry()) for item in parse_many(limits)]


def trusted_proxies(app: Flask) -> int:
    """How many proxies in front of the app set ``X-Forwarded-For`` and ``-Proto`` (0: none)."""
    value = app.config.get("TRUSTED_PROXIES") or 0
    try:
        count = int(value)
    except (TypeError, ValueError):
        count = -1
    if count < 0:
        raise ValueError(f"TRUSTED_PROXIES must be a whole number of proxies, not {value!r}")
    return count


HEADERS = (
    ("Content-Security-Policy", CSP),
    ("X-Content-Type-Options", "nosniff"),
    ("X-Frame-Options", "DENY"),
    ("Referrer-Policy", "same-origin"),
    ("Permissions-Policy", "camera=(), microphone=(), geolocation=(), payment=()"),
)
"""The security headers every response carries (the live polls' fast path too:
:mod:`companion.web.polls`)."""


def _checked(pairs: tuple[tuple[str, str], ...]) -> tuple[tuple[str, str, str], ...]:
    """``pairs`` as (lower-case name, name, value), each value checked once as werkzeug checks
    every value it is given (no line break: it would start a header of its own)."""
    for name, value in pairs:
        if "\n" in value or "\r" in value:
            raise ValueError(f"the value of {name} holds a line break")
    return tuple((name.lower(), name, value) for name, value in pairs)


_HEADER_NAMES = _checked(HEADERS)


def _headers(response: Response) -> Response:
    """Each security header the answer does not set itself (the answer's names read once, not
    per header), added at the end of its headers as ``headers.extend`` adds them — without
    werkzeug's check of each value for a line break (:data:`HEADERS` are checked once, above:
    a third of the hook's time, issue 36)."""
    headers = response.headers
    present = {name.lower() for name, _ in headers}
    missing = [(name, value) for lower, name, value in _HEADER_NAMES if lower not in present]
    if type(headers) is Headers:  # (werkzeug's own class: its pairs are its list)
        headers._list.extend(missing)  # noqa: SLF001
    else:
        headers.extend(missing)
    return response


def _say_an_outage(response: Response) -> Response:
    """While the shared store of the counts (Redis) does not answer, Flask-Limiter counts in this
    process (its in-memory fallback: the same limits, one count per process, so no request is
    refused for the outage and none goes uncounted) and says so once, to a logger with no
    handler: say it here, once a minute, with what the limits do meanwhile."""
    limiter = current_app.extensions["companion.limiter"]
    if getattr(limiter, "_storage_dead", False):  # (Flask-Limiter's own flag: no public one)
        from . import logs

        logs.redis_down("companion.limits", "the rate limits' store")
    return response


def _too_many(error: RateLimitExceeded) -> tuple[Response | str, int, dict[str, str]]:
    from . import api_schema, metrics

    metrics.count_refusal()
    try:
        if isinstance(error, WriteLimitExceeded):
            reset_at: float | None = error.reset_at
        else:
            current = current_app.extensions["companion.limiter"].current_limit
            reset_at = current.reset_at if current else None
        wait = max(1, int(reset_at - time.time())) if reset_at is not None else 60
    except Exception:  # the store went away meanwhile: a minute is a fair guess
        wait = 60
    retry = {"Retry-After": str(wait)}
    answer = api_schema.http_error(error)
    if answer is not None:
        return answer[0], answer[1], retry
    return render_template("errors/429.html", wait=timedelta(seconds=wait)), 429, retry


class TrustedProxyFix(ProxyFix):
    """werkzeug's ``ProxyFix``, believed only when the request comes from the proxy itself:
    from an address of ``PROXY_ADDRESSES`` (loopback by default, where the shipped nginx and
    Caddy sites reach the app). A request from anywhere else — a server bound to a public
    address by mistake — keeps its socket's address and scheme, whatever it says it was
    forwarded for (else ``X-Forwarded-For: 127.0.0.1`` would open ``/metrics`` and escape every
    limit)."""

    def __init__(self, app: Any, *, proxies: int, addresses: str) -> None:
        super().__init__(app, x_for=proxies, x_proto=proxies)
        self.networks = networks(addresses)

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse
                 ) -> Iterable[bytes]:
        if is_within(environ.get("REMOTE_ADDR", ""), self.networks):
            return super().__call__(environ, start_response)
        return self.app(environ, start_response)


def networks(addresses: str) -> list[IPv4Network | IPv6Network]:
    """``"127.0.0.0/8, ::1"`` as networks; raises ValueError for one that is not."""
    return [ip_network(item.strip(), strict=False) for item in addresses.split(",")
            if item.strip()]


def is_within(address: str, found: list[IPv4Network | IPv6Network]) -> bool:
    try:
        ip = ip_address(address)
    except ValueError:  # (a Unix socket has no address: only the proxy reaches it)
        return True
    return any(ip in network for network in found)


def init_app(app: Flask) -> None:
    """Install the proxy fix, the headers and the limits. Called before anything else installs
    a ``before_request`` hook, so that every write is counted, CSRF refusals included."""
    proxies = trusted_proxies(app)
    if proxies:
        app.wsgi_app = TrustedProxyFix(  # type: ignore[method-assign]
            app.wsgi_app, proxies=proxies,
            addresses=str(app.config.get("PROXY_ADDRESSES") or "127.0.0.0/8, ::1"))
    app.config.setdefault("RATELIMIT_ENABLED", not app.config.get("TESTING", False))
    app.config.setdefault("RATELIMIT_HEADERS_ENABLED", False)
    # Counted in each server process unless a shared store such as "redis://…" is named, which
    # makes it one count across processes and servers. If that store stops answering, each
    # process counts on its own until it is back, rather than refusing every write.
    if not app.config.get("RATELIMIT_STORAGE_URI"):
        app.config["RATELIMIT_STORAGE_URI"] = "companion-memory://"
    app.config.setdefault("RATELIMIT_IN_MEMORY_FALLBACK_ENABLED", True)
    app.config.setdefault("RATELIMIT_SWALLOW_ERRORS", True)  # never a 500 for a lost count
    app.config.setdefault("RATELIMIT_KEY_PREFIX", "companion")

    from ..games import registry

    app.extensions["companion.creating"] = frozenset(
        kind.new_endpoint for kind in registry() if kind.new_endpoint) | IMPORTS
    app.extensions["companion.restoring"] = RESTORES
    limiter = make_limiter()
    app.extensions["companion.limiter"] = limiter
    limiter.init_app(app)
    app.after_request(_headers)
    if str(app.config["RATELIMIT_STORAGE_URI"]).startswith(("redis", "rediss")):
        app.after_request(_say_an_outage)
    app.register_error_handler(RateLimitExceeded, _too_many)
