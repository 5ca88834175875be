"""Where an entry's time goes in ``bench.tables``' PostgreSQL row (issue 36: entry p99 ≤ 3× hello
p99 on one PostgreSQL server): the same hello row and the same polling row (the same tables,
saves, polls and pages, the shipped gunicorn settings), with each gunicorn worker writing down
every request it answers (:mod:`bench.tail_probe`) and the load generator every request it
sends, on one clock (``time.monotonic``: on Linux the same for every process). Each save the
load generator timed (the *entry*: its POST, as ``bench.tables`` times it) is split into:

* **before the app**: from the load generator's send to the app's first line — connecting,
  waiting in the listen queue for a free worker, gunicorn reading the request;
* **in the app**: its thread's CPU; its time runnable but waiting for a core (the kernel's
  run-queue time); *other waits*, its time neither on a core nor waiting for one (mostly
  PostgreSQL's answers); beside them, its time in its round trips (psycopg's waits and the
  save's own libpq pipelines, :func:`companion.play.save_pipeline._pipeline`: every round trip, a
  core's wait after each answer included), of which the ``COMMIT``'s (the log flushed to
  disk), and the collector's collections inside it;
* **after the app**: gunicorn writing the answer, the load generator's thread taking it.

Printed by game at the median and at the 90th and 99th percentiles of the entry, and the
slowest saves one by one with how many of the server's workers were answering something else
when each was sent. The hello row's p99 is the figure the issue's ratio divides by.

**Several runs** (``--runs N``): the rows are run N times, one after the other, and the issue's
ratio is read on all of them at once, as well as run by run: ``bench.tables``' entry p99 is
the 2nd-slowest of the row's ~190 saves, which moves by a few tenths of the ratio from one
quiet run to the next, where the hello's p99 is read on its ~4,000 requests. Pooled, the
entry's p99 is read on N × ~190 saves (the 6th-slowest of ~570 at N = 3) and the hello's on
every hello request of the same runs, each as ``bench.tables`` reads one run's (the same
quantile, the same requests: the hello's all, the entry's saves).

Run: ``python -m bench.entry_tail --postgres URL [--tables 50] [--seconds 15] [--runs 1]`` (not
in ``bench.all``). The probe's cost (two clock and two ``/proc`` reads a request, one short
write) is in the figures: compare its ratio with ``bench.tables``' own only roughly.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from . import MEMORY, table, tables
from .cost_probe import GAMES

Sent = tuple[str, str, float, float]
"""A request as the load generator sent it: method, path, sent at, answered at."""


def _recorded(sent: list[Sent], seconds: float, postgres: str, count: int,
              folder: str, timed_rows: list[tables.Measures] | None = None) -> list[list[str]]:
    """``bench.tables``' hello and PostgreSQL rows, every request of the PostgreSQL row's
    measure kept in ``sent``; each row's own measures (the hello's, then the PostgreSQL
    row's) appended to ``timed_rows``."""
    request, drive = tables._request, tables._drive  # noqa: SLF001
    lock = threading.Lock()
    on = [False]

    def timed(base: str, method: str, path: str, *args: Any, **kwargs: Any) -> Any:
        began = time.monotonic()
        try:
            return request(base, method, path, *args, **kwargs)
        finally:
            if on[0]:
                with lock:
                    sent.append((method, path, began, time.monotonic()))

    def measured(*args: Any, hello: bool, **kwargs: Any) -> None:
        if timed_rows is not None:
            timed_rows.append(args[4])  # (_drive's measures: the row's timings as it reads them)
        on[0] = not hello
        try:
            drive(*args, hello=hello, **kwargs)
        finally:
            on[0] = False

    tables._request, tables._drive = timed, measured  # noqa: SLF001
    os.environ["COMPANION_BENCH_TAIL"] = folder
    try:
        return tables.run(count, seconds, 4.0, postgres, tables.GAMES, {}, False, ["PostgreSQL"])
    finally:
        tables._request, tables._drive = request, drive  # noqa: SLF001
        del os.environ["COMPANION_BENCH_TAIL"]


def _answered(folder: str) -> list[dict[str, Any]]:
    found = []
    for path in Path(folder).glob("*.jsonl"):
        for line in path.read_text().splitlines():
            found.append({**json.loads(line), "pid": path.stem})
    return sorted(found, key=lambda r: r["began"])


def _saves(sent: list[Sent], answered: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each save sent, with the app's record of it (the one of its method and path the app
    began while it was on its way) and its phases in seconds."""
    by_request: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for record in answered:
        by_request[(record["method"], record["path"])].append(record)
    taken: set[int] = set()
    saves = []
    for method, path, began, ended in sorted(sent, key=lambda s: s[2]):
        if method != "POST":
            continue
        record = next((r for r in by_request[(method, path)] if id(r) not in taken
                       and began - 0.001 <= r["began"] <= ended), None)
        if record is None:
            continue
        taken.add(id(record))
        inside = record["ended"] - record["began"]
        saves.append({
            "game": path.split("/")[1], "sent": began, "entry": ended - began,
            "before the app": record["began"] - began, "CPU": record["cpu"],
            "waiting for a core": record["queued"],
            "other waits (database)": max(inside - record["cpu"] - record["queued"], 0.0),
            "in round trips": record["database"], "of which COMMIT": record["commit"],
            "collector": record["gc"], "after the app": ended - record["ended"],
            "pid": record["pid"]})
    return saves


PHASES = ["before the app", "CPU", "waiting for a core", "other waits (database)",
          "in round trips", "of which COMMIT", "collector", "after the app"]


def _at(saves: list[dict[str, Any]], q: float) -> list[dict[str, Any]]:
    """The saves around quantile ``q`` of the entry (the one there and its two neighbours)."""
    ordered = sorted(saves, key=lambda s: s["entry"])
    at = min(len(ordered) - 1, int(q * len(ordered)))
    return ordered[max(at - 1, 0):at + 2]


def report(saves: list[dict[str, Any]], answered: list[dict[str, Any]]) -> str:
    rows = []
    for game in [*GAMES, "all"]:
        mine = [s for s in saves if game in ("all", s["game"])]
        if not mine:
            continue
        for q, name in ((.5, "p50"), (.9, "p90"), (.99, "p99")):
            near = _at(mine, q)
            rows.append([game if q == .5 else "", f"{name} ({len(mine)})",
                         *(f"{statistics.mean(s[k] for s in near) * 1000:.2f}"
                           for k in ["entry", *PHASES])])
    lines = [table(["game", "entry at (saves)", "entry ms", *PHASES], rows),
             "", "(each cell: the mean of the save at that quantile of the entry and its two "
             "neighbours, ms)", ""]
    busy = []
    for save in sorted(saves, key=lambda s: -s["entry"])[:8]:
        others = sum(1 for r in answered if r["pid"] != save["pid"]
                     and r["began"] <= save["sent"] < r["ended"])
        busy.append([save["game"], f"{save['entry'] * 1000:.2f}",
                     *(f"{save[k] * 1000:.2f}" for k in PHASES), str(others)])
    lines.append(table(["slowest saves", "entry ms", *PHASES,
                        "other workers busy when sent"], busy))
    return "\n".join(lines)


def pooled(runs: list[tuple[tables.Measures, tables.Measures]]) -> str:
    """The issue's ratio (entry p99 ÷ hello p99, as ``bench.tables`` reads it) run by run, and
    on every run's requests at once."""
    def hello_times(measures: tables.Measures) -> list[float]:
        return [t for times in measures.latency.values() for t in times]

    rows = []
    for name, pairs in [*((f"run {n}", [pair]) for n, pair in enumerate(runs, 1)),
                        *([("all runs", runs)] if len(runs) > 1 else [])]:
        hello = [t for h, _ in pairs for t in hello_times(h)]
        entry = [t for _, m in pairs for t in m.latency.get("save", [])]
        hello_p99, entry_p99 = tables._p(hello, .99), tables._p(entry, .99)  # noqa: SLF001
        at = min(len(entry) - 1, int(.99 * len(entry))) if entry else 0
        rows.append([name, f"{len(hello):,}", tables._ms(hello_p99), f"{len(entry)}",  # noqa: SLF001
                     f"{len(entry) - at}", tables._ms(entry_p99),  # noqa: SLF001
                     f"{entry_p99 / hello_p99:.1f}×" if entry_p99 and hello_p99 else "–"])
    return table(["runs", "hello requests", "hello p99", "saves", "p99 = the nth slowest",
                  "entry p99", "entry p99 ÷ hello p99"], rows, "l" + "r" * 6)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--postgres", default=os.environ.get("BENCH_DATABASE_URL"),
                        required=not os.environ.get("BENCH_DATABASE_URL"))
    parser.add_argument("--runs", type=int, default=1,
                        help="read the rows this many times; the ratio also on all at once")
    args = parser.parse_args()
    load = os.getloadavg()
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    sent: list[Sent] = []
    answered: list[dict[str, Any]] = []
    rows: list[list[str]] = []
    runs: list[tuple[tables.Measures, tables.Measures]] = []
    loads = []
    for _ in range(args.runs):
        timed_rows: list[tables.Measures] = []
        loads.append(os.getloadavg()[0])
        with tempfile.TemporaryDirectory(dir=MEMORY) as folder:  # (its records: not on disk)
            rows += _recorded(sent, args.seconds, args.postgres, args.tables, folder, timed_rows)
            answered += _answered(folder)  # (each worker's pid: its own, run after run)
        runs.append((timed_rows[0], timed_rows[-1]))
    print(table(tables.HEADERS, rows, "ll" + "r" * 6 + "l" + "r" * 6))
    print()
    print(pooled(runs))
    print()
    print(report(_saves(sent, answered), answered))
    print(f"\n{started}; load average at start {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f}, "
          f"at each run's start {' / '.join(f'{one:.1f}' for one in loads)}, at the end "
          f"{os.getloadavg()[0]:.1f}; {os.cpu_count()} cores; {args.tables} tables, "
          f"{args.seconds:.0f} s, {args.runs} run{'s' if args.runs > 1 else ''}; the shipped "
          f"gunicorn settings.")


if __name__ == "__main__":
    main()
