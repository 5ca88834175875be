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
- ``companion_live_polls_total{result="changed"|"unchanged"}``: the live polls, 200 or 304;
- ``companion_push_publishes_total{result="ok"|"failed"}``: live updates published to the proxy;
- ``companion_push_parts_total{how="shared"|"drawn"|"refused"}``: viewers' parts taken from the
  scorer's page drawn in the save (shared), drawn through the viewer link (drawn), or refused
  (a part taken from the scorer's page held a link's token: drawn through the viewer link).

Other modules count through the small functions below (:func:`count_save`,
:func:`count_page_store`, :func:`count_refusal`, :func:`count_live_poll`), never the metric
objects themselves, so a fast path outside Flask's request cycle can count the same way.
"""

from __future__ import annotations

import ipaddress
import os
import re
import time
from collections.abc import Callable, Iterable
from typing import Any, cast

from flask import Flask, Response, current_app, request
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Histogram,
    ProcessCollector,
    generate_latest,
)
from prometheus_client import multiprocess as _multiprocess
from prometheus_client import values as _values
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from .requests import itself

_THIS_PROCESS = [os.getpid()]


def this_process() -> int:
    """This process's id, kept rather than asked of the kernel at every count: read again in a
    child as soon as it is forked (``os.register_at_fork``: gunicorn's workers, and
    ``multiprocessing``'s, are forked by ``os.fork``)."""
    return _THIS_PROCESS[0]


def _forked() -> None:
    _THIS_PROCESS[0] = os.getpid()


os.register_at_fork(after_in_child=_forked)


def counted_in_files() -> type:
    """prometheus_client's value class for ``PROMETHEUS_MULTIPROC_DIR`` (each process's counts
    written at once in its own file, ``counter_<pid>.db``), told this process's id by
    :func:`this_process`. Its own way asks ``os.getpid()`` on every count to notice a fork (a
    system call at each of a request's four or five counts: 2.7 % of the 50-table row's CPU in
    py-spy's samples, issue 36); this way notices it as surely, the id being read again in the
    child at the fork.
    Every count is still written to the file as it is made: ``/metrics`` is exact at any time,
    and a worker that exits, or is killed, loses none."""
    make = cast(Callable[..., type], _values.MultiProcessValue)  # (unannotated upstream)
    return make(process_identifier=this_process)


if getattr(_values.ValueClass, "_multiprocess", False):  # (before any metric below is made)
    _values.ValueClass = counted_in_files()

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
PUBLISHES = Counter("companion_push_publishes", "Live updates published to the proxy: taken "
                    "(ok) or not (failed: the pages' polling catches up).", ["result"])
PUSH_PARTS = Counter("companion_push_parts", "Viewers' parts taken from the scorer's page drawn "
                     "in the save (shared), drawn through the viewer link (drawn), or refused "
                     "(it held a link's token: drawn through the viewer link instead).", ["how"])

STARTED = "companion.started"
"""The WSGI environ key holding when :class:`companion.web.logs.EveryRequest` (the middleware the
access log starts in) took the request (``time.perf_counter``)."""
LOGGED = "companion.logged"
"""Set in the environ once the request's access line is written (by the Flask hook)."""
COUNTED = "companion.counted"
"""Set in the environ once the request is counted in the metrics (by the Flask hook)."""


def started_at() -> float:
    """When this request was taken: by :class:`companion.web.logs.EveryRequest` (before any
    lookup), else now."""
    return float(itself(request).environ.get(STARTED) or time.perf_counter())


def count_save(game: str) -> None:
    """One write accepted by ``game``'s pages (its registry key)."""
    _child(SAVES, game).inc()


def count_page_store(*, hit: bool) -> None:
    """A page found in the page store (``hit``) or drawn because it was not there."""
    _child(PAGE_STORE, "hit" if hit else "miss").inc()


def count_push_part(how: str) -> None:
    """A viewers' part made: ``"shared"``, ``"drawn"`` or ``"refused"`` (see PUSH_PARTS)."""
    _child(PUSH_PARTS, how).inc()


def count_refusal() -> None:
    """A request refused by the rate limits."""
    RATE_LIMITED.inc()


def count_live_poll(*, changed: bool) -> None:
    """A live poll answered: the game changed since the phone's version (200), or not (304)."""
    _child(LIVE_POLLS, "changed" if changed else "unchanged").inc()


def count_publish(*, ok: bool) -> None:
    """A live update published to the proxy (``ok``) or given up (timeout, refused)."""
    _child(PUBLISHES, "ok" if ok else "failed").inc()


def count_request(route: str, method: str, status: int, seconds: float) -> None:
    """One request answered (``route`` is its template, :data:`NO_ROUTE` for none)."""
    _child(REQUESTS, route, method, str(status)).inc()
    _child(LATENCY, route, method).observe(seconds)


_CHILDREN: dict[tuple[object, ...], Any] = {}


def _child(metric: Counter | Histogram, *values: str) -> Any:
    """``metric.labels(*values)``, looked up once per process: ``labels`` checks and joins its
    values and takes a lock each time (with the poll's other counts, a fifth of a 304's own
    work, issue 36). The label values are route templates, statuses and fixed words, so the
    children kept are few."""
    key = (id(metric), *values)
    child = _CHILDREN.get(key)
    if child is None:
        child = _CHILDREN[key] = metric.labels(*values)
    return child


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


class BuildInfo(Collector):
    """``companion_build_info{version="1.0.0"} 1``: the release this server runs."""

    def collect(self) -> Iterable[Metric]:
        from ..common.release import version

        info = GaugeMetricFamily("companion_build_info", "The release this server runs.",
                                 labels=["version"])
        info.add_metric([version()], 1)
        yield info


_PID = re.compile(r"_(\d+)\.db$")


def _pid_of(pid: int) -> Callable[[], int]:
    return lambda: pid


class Workers(Collector):
    """Each live gunicorn worker's memory, CPU time and open files (prometheus_client's process
    collector, read from ``/proc`` for every process that has counts in
    ``PROMETHEUS_MULTIPROC_DIR``), labelled by ``pid`` — whichever worker answers the scrape."""

    def __init__(self, folder: str) -> None:
        self.folder = folder

    def pids(self) -> list[int]:
        found = {int(m[1]) for name in os.listdir(self.folder) if (m := _PID.search(name))}
        return sorted(pid for pid in found | {os.getpid()} if os.path.exists(f"/proc/{pid}"))

    def collect(self) -> Iterable[Metric]:
        families: dict[str, Metric] = {}
        for pid in self.pids():
            for family in ProcessCollector(pid=_pid_of(pid), registry=None).collect():
                into = families.setdefault(family.name, Metric(
                    family.name, family.documentation, family.type))
                for sample in family.samples:
                    into.add_sample(sample.name, {**sample.labels, "pid": str(pid)},
                                    sample.value)
        yield from families.values()


REGISTRY.register(BuildInfo())


def exposition() -> tuple[bytes, str]:
    """Every count in Prometheus' text format: summed over gunicorn's workers when
    ``PROMETHEUS_MULTIPROC_DIR`` is set (with each worker's process figures), else this
    process's (its process figures included: prometheus_client's default registry)."""
    folder = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if folder:
        registry = CollectorRegistry()
        # prometheus_client leaves this constructor unannotated (the library is wrong, not us)
        _multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
        registry.register(BuildInfo())
        registry.register(Workers(folder))
        return generate_latest(registry), CONTENT_TYPE_LATEST
    return generate_latest(REGISTRY), CONTENT_TYPE_LATEST


def _answered(response: Response) -> Response:
    """The request's counts, kept in its environ for :class:`companion.web.logs.EveryRequest` to
    add once the answer is final: Flask runs these hooks a second time when one of them fails
    (its error page), and only that last answer is counted."""
    asked = itself(request)
    rule = asked.url_rule
    route = rule.rule if rule is not None else NO_ROUTE
    method, status = asked.method, response.status_code
    seconds = time.perf_counter() - started_at()
    game = asked.blueprint
    saved = (game if method not in ("GET", "HEAD", "OPTIONS") and status < 400 and game is not None
             and game in itself(current_app).extensions.get("companion.games", ()) else None)

    def count() -> None:
        count_request(route, method, status, seconds)
        if saved is not None:
            count_save(saved)
        if route.startswith("/live/") and status in (200, 304):
            count_live_poll(changed=status == 200)

    asked.environ[COUNTED] = count
    return response


def init_app(app: Flask) -> None:
    """Count every request (its route template, status and time) and every save by game."""
    from ..games import registry

    app.extensions["companion.metrics"] = allowed_networks(str(app.config["METRICS_ALLOW"]))
    app.extensions["companion.games"] = frozenset(kind.key for kind in registry())
    app.after_request(_answered)
