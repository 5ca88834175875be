"""The live polls against a plain hello, in server CPU per request, in one run.

Every open page of a game asks ``/live/<token>`` once a second (``app.js``): most of a table's
requests. Rows, each ``--duration`` seconds of the bounded Python client of :mod:`bench.http`
(16 connections) against ``gunicorn -w 2 --no-control-socket`` on a free loopback port, SQLite,
the server's CPU (master and workers, from ``/proc``) divided by the answers:

- **hello**: :mod:`bench.hello` (a plain Flask "hello"), first and last: the anchor;
- **poll, nothing changed**: ``GET /live/<viewer token>`` with ``If-None-Match`` → 304, through
  the fast path (:mod:`companion.web.polls`) — what nearly every poll is;
- **poll, changed**: the same without ``If-None-Match`` → 200 and the version;
- **poll through Flask**: the 304 poll on a server whose fast path is off (``/live`` answered
  by the Flask view, as before issue 31), for comparison in the same run.

Aim: a poll ≤ 1.3× a hello's CPU. Run: ``python -m bench.polls [--duration 6]``.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import subprocess
import tempfile
import time
from pathlib import Path

from . import ROOT, gunicorn, table
from .http import Result, measured, run_python_client
from .matrix import _etag, _send, prepare
from .wsgi_note import NOT_AS_SHIPPED

AIM = 1.3
WARM = 8
START = 120.0  # seconds a server may take to answer first (a busy shared machine)


def run(duration: float = 6.0, out: list[str] | None = None) -> list[str]:
    out = [] if out is None else out
    results: list[tuple[str, Result]] = []
    with contextlib.ExitStack() as stack:
        tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="companion-polls-")))
        db = tmp / "bench.sqlite"
        viewer = prepare(db, 0)["reveillez"][0].viewer
        live = f"/live/{viewer}"
        load_before = os.getloadavg()[0]

        def load(server, label: str, result: Result, headers: dict[str, str],  # type: ignore[no-untyped-def]
                 path: str = live) -> None:
            for _ in range(WARM):
                _send(server.base, "GET", path, b"", headers)
            print(f"[polls] {label} for {duration:.0f} s", flush=True)
            measured(server, result, lambda: run_python_client(
                server.base, lambda i: ("GET", path, b"", headers), duration, result))
            results.append((label, result))

        def hello() -> None:
            with gunicorn("bench.hello:app", timeout=START) as server:
                load(server, "hello (plain Flask)", Result("hello", 200), {}, "/")

        hello()
        env = {"COMPANION_BENCH_DB": str(db)}
        with gunicorn("bench.wsgi:app", env=env, probe=live, timeout=START) as server:
            etag = _etag(server.base, live)
            load(server, "poll, nothing changed (304)", Result("304", 304),
                 {"If-None-Match": etag})
            load(server, "poll, changed (200)", Result("200", 200), {})
        with gunicorn("bench.wsgi:app", env={**env, "COMPANION_BENCH_FLASK_LIVE": "1"},
                      probe=live, timeout=START) as server:
            load(server, "poll through Flask's request cycle (304)", Result("flask", 304),
                 {"If-None-Match": etag})
        hello()
        load_after = os.getloadavg()[0]
    anchors = [r.cpu_ms_per_request for label, r in results if label.startswith("hello")]
    anchor = sum(anchors) / len(anchors)
    rows = [[label, f"{r.rate:,.0f}", f"{r.p50_ms:.1f}", f"{r.p99_ms:.1f}", r.errors,
             f"{r.cpu_ms_per_request:.3f}", f"{r.cpu_ms_per_request / anchor:.2f}×"]
            for label, r in results]
    poll = next(r for label, r in results if label.startswith("poll, nothing")).cpu_ms_per_request
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, text=True,
                            capture_output=True).stdout.strip()
    out += [f"Live polls: gunicorn -w 2 (sync) --no-control-socket, 16 connections, "
            f"~{duration:.0f} s per row, the bounded Python client of bench.http on the same "
            f"machine, SQLite; commit {commit}, "
            f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}.", "",
            table(["request", "req/s", "p50 ms", "p99 ms", "errors", "server CPU ms/req",
                   "× hello"], rows, align="lrrrlrr"), "",
            f"- Anchor: hello {anchors[0]:.3f} ms CPU/req first, {anchors[-1]:.3f} last; "
            f"ratios against their mean, {anchor:.3f} ms.",
            f"- Aim: a poll ≤ {AIM}× a hello — {'met' if poll / anchor <= AIM else 'NOT met'} "
            f"({poll / anchor:.2f}×).",
            f"- Load average (1 min) before/after: {load_before:.2f} / {load_after:.2f} on "
            f"{os.cpu_count()} cores (shared machine: compare rows of this run only).",
            NOT_AS_SHIPPED]
    print("\n".join(out), flush=True)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=float, default=6.0)
    args = parser.parse_args()
    run(args.duration)


if __name__ == "__main__":
    main()
