"""What the app counts for its operator, in Prometheus' text format (``GET /metrics``).

Counted with ``prometheus_client``. Under gunicorn every worker process keeps its own counts;
with ``PROMETHEUS_MULTIPROC_DIR`` set (``deploy/gunicorn.conf.py`` sets and empties it), they
are written there and ``/metrics`` adds them up, whichever worker answers.

The labels are route templates (``/rebel-princess/g/<token>``, never the address asked for),
status codes, game keys and a few fixed words: never a link token, never a name.

- ``companion_requests_total{route, method, status}`` and the latency histogram
  ``companion_request_seconds{route, method}``;
- ``companion_saves_total{game}``: writes a game's pages accepted (2xx/3xx);
- ``companion_page_store_total{result="hit"|"miss"}``: pages found drawn, or drawn now;
- ``companion_rate_limited_total``: requests refused by the rate limits (429);
- ``companion_live_polls_total{result="changed"|"unchanged"}``: the live polls, 200 or 304.

Other modules count through the small functions below (:func:`count_save`,
:func:`count_page_store`, :func:`count_refusal`, :func:`count_live_poll`), never the metric
objects themselves, so a fast path outside Flask's request cycle can count the same way.
"""

from __future__ import annotations

import ipaddress
import os
import time

from flask import Flask, Response, current_app, g, request
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
)
from prometheus_client import multiprocess as _multiprocess

NO_ROUTE = "(none)"
"""The route label of a request that matched no route (a 404): the address is not a label."""

REQUESTS = Counter("companion_requests", "Requests answered, by route template and status.",
                   ["route", "method", "status"])
LATENCY = Histogram("companion_request_seconds", "Time to answer, by route template.",
                    ["route", "method"],
                    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 180))
SAVES = Counter("companion_saves", "Writes a game's pages accepted, by game.", ["game"])
PAGE_STORE = Counter("companion_page_store", "Pages found drawn in the page store (hit) or "
                     "drawn now (miss).", ["result"])
RATE_LIMITED = Counter("companion_rate_limited", "Requests refused by the rate limits.")
LIVE_POLLS = Counter("companion_live_polls", "Live polls: the game changed (200) or not (304).",
                     ["result"])

def count_save(game: str) -> None:
    """One write accepted by ``game``'s pages (its registry key)."""
    SAVES.labels(game=game).inc()


def count_page_store(*, hit: bool) -> None:
    """A page found in the page store (``hit``) or drawn because it was not there."""
    PAGE_STORE.labels(result="hit" if hit else "miss").inc()


def count_refusal() -> None:
    """A request refused by the rate limits."""
    RATE_LIMITED.inc()


def count_live_poll(*, changed: bool) -> None:
    """A live poll answered: the game changed since the phone's version (200), or not (304)."""
    LIVE_POLLS.labels(result="changed" if changed else "unchanged").inc()


def count_request(route: str, method: str, status: int, seconds: float) -> None:
    """One request answered (``route`` is its template, :data:`NO_ROUTE` for none)."""
    REQUESTS.labels(route=route, method=method, status=str(status)).inc()
    LATENCY.labels(route=route, method=method).observe(seconds)


def allowed_networks(setting: str) -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
    """``METRICS_ALLOW`` ("127.0.0.0/8, ::1, 10.0.0.5"; loopback by default: companion.config):
    the networks that may read /metrics. Raises ValueError on a word that is not one."""
    return [ipaddress.ip_network(part, strict=False) for part in setting.replace(",", " ").split()]


def is_allowed(address: str | None) -> bool:
    """Whether the client at ``address`` (after the trusted proxies) may read ``/metrics``."""
    try:
        client = ipaddress.ip_address(address or "")
    except ValueError:
        return False
    return any(client in network for network in current_app.extensions["companion.metrics"])


def exposition() -> tuple[bytes, str]:
    """Every count in Prometheus' text format: summed over gunicorn's workers when
    ``PROMETHEUS_MULTIPROC_DIR`` is set, else this process's."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry = CollectorRegistry()
        # prometheus_client leaves this constructor unannotated (the library is wrong, not us)
        _multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
        return generate_latest(registry), CONTENT_TYPE_LATEST
    return generate_latest(REGISTRY), CONTENT_TYPE_LATEST


def _started() -> None:
    g.metrics_started = time.perf_counter()


def _answered(response: Response) -> Response:
    started = g.pop("metrics_started", None)
    if started is None:
        return response
    rule = request.url_rule
    count_request(rule.rule if rule is not None else NO_ROUTE, request.method,
                  response.status_code, time.perf_counter() - started)
    if request.method not in ("GET", "HEAD", "OPTIONS") and response.status_code < 400:
        game = request.blueprint
        if game is not None and game in current_app.extensions.get("companion.games", ()):
            count_save(game)
    if rule is not None and rule.rule.startswith("/live/") and response.status_code in (200, 304):
        count_live_poll(changed=response.status_code == 200)
    return response


def init_app(app: Flask) -> None:
    """Count every request (its route template, status and time) and every save by game."""
    from ..games import registry

    app.extensions["companion.metrics"] = allowed_networks(str(app.config["METRICS_ALLOW"]))
    app.extensions["companion.games"] = frozenset(kind.key for kind in registry())
    app.before_request(_started)
    app.after_request(_answered)
