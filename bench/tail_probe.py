"""Inside each gunicorn worker of :mod:`bench.entry_tail` (``COMPANION_BENCH_TAIL`` set, read by
:mod:`bench.wsgi`): one line per request the app answers, appended to ``<folder>/<pid>.jsonl``
as it ends — its method and path, when the app began and ended it (``time.monotonic``: the
same clock as the load generator's, on Linux one clock for the whole machine), its thread's CPU,
its thread's time waiting for a core (``/proc/thread-self/schedstat``), its time inside
round trips to PostgreSQL (psycopg's waits, and the pipelines a save sends through libpq alone,
:func:`companion.play.save_pipeline._pipeline`: its reads, its writes, its ``COMMIT``),
of which the ``COMMIT``'s, and the collector's collections that ran meanwhile.

Not part of the app: only the benches' WSGI module installs it. Its own cost (two clock reads
and two ``/proc`` reads a request, one short write) is in the figures.
"""

from __future__ import annotations

import gc
import json
import os
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any


def _queued() -> float:
    """Seconds this thread has waited for a core so far (the kernel's run-queue time)."""
    with open("/proc/thread-self/schedstat", "rb") as found:
        return int(found.read().split()[1]) / 1e9


class Probe:
    """The running sums of the request in hand (one at a time: a sync worker)."""

    def __init__(self, folder: str) -> None:
        self.path = Path(folder) / f"{os.getpid()}.jsonl"
        self.database = 0.0
        self.commit = 0.0
        self.collecting = 0.0
        self.collected: list[int] = []
        self._gc_started = 0.0

    def on_gc(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._gc_started = time.perf_counter()
        else:
            self.collecting += time.perf_counter() - self._gc_started
            self.collected.append(int(info["generation"]))

    def timed(self, function: Callable[..., Any], commit: bool = False) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                spent = time.perf_counter() - start
                if commit:
                    self.commit += spent
                else:
                    self.database += spent
        return call

    def wrap(self, app: Callable[..., Iterable[bytes]]) -> Callable[..., Iterable[bytes]]:
        def probed(environ: dict[str, Any], start_response: Callable[..., Any]
                   ) -> Iterable[bytes]:
            self.database = self.commit = self.collecting = 0.0
            self.collected = []
            began, cpu, queued = time.monotonic(), time.thread_time(), _queued()
            answer = app(environ, start_response)
            try:
                body = list(answer)  # (the whole answer made here, timed)
            finally:
                close = getattr(answer, "close", None)
                if close is not None:
                    close()
            line = {"method": environ["REQUEST_METHOD"], "path": environ.get("PATH_INFO", ""),
                    "began": began, "ended": time.monotonic(), "cpu": time.thread_time() - cpu,
                    "queued": _queued() - queued, "database": self.database,
                    "commit": self.commit, "gc": self.collecting, "collected": self.collected}
            with self.path.open("a") as out:
                out.write(json.dumps(line) + "\n")
            return body
        return probed


def install(app: Any, folder: str) -> None:
    """Probe ``app`` (its WSGI callable, psycopg's waits and commits, a save's own libpq
    pipelines, the collector)."""
    import psycopg
    from sqlalchemy.dialects.postgresql.psycopg import PGDialect_psycopg

    from companion.play import save_pipeline

    probe = Probe(folder)
    app.wsgi_app = probe.wrap(app.wsgi_app)
    psycopg.Connection.wait = probe.timed(psycopg.Connection.wait)  # type: ignore[method-assign]
    save_pipeline._pipeline = probe.timed(save_pipeline._pipeline)  # noqa: SLF001
    PGDialect_psycopg.do_commit = probe.timed(  # type: ignore[method-assign]
        PGDialect_psycopg.do_commit, commit=True)
    gc.callbacks.append(probe.on_gc)
