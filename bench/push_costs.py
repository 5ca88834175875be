"""Where the app's CPU goes in a push row of ``bench.tables``: the same row (PostgreSQL behind
nginx with Nchan, the same tables, saves, streams and catch-up polls), with each gunicorn worker
timing every request it answers (thread CPU around the WSGI app, :mod:`bench.cost_probe`) by
kind — a save of each game, the scorer's page after it (from the page store; none where the
save was answered with the page, as the phone's outbox asks), a catch-up poll —
and inside a save its publisher calls (each HTTP call to nginx's publisher location: how many
per save) and the viewers' part drawn for the stream. What the workers spent outside the app
(gunicorn reading the request and writing the answer, its loop) is the workers' CPU minus the
requests', per request.

Run: ``python -m bench.push_costs --postgres postgresql://… [--tables 200] [--seconds 15]
[--row 'PostgreSQL behind nginx, push']`` (the hello row runs first, as in bench.tables: its CPU
per request is the floor of a plain Flask view). The probe's own cost (a file test and two CPU
clock reads per request, a JSON write a second per worker) is in the figures.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from . import table, tables
from .cost_probe import GAMES


@contextlib.contextmanager
def _measured(folder: Path) -> Iterator[None]:
    """bench.tables' load driven with the workers' probe on (only the row's own requests)."""
    drive = tables._drive  # noqa: SLF001

    def probed(bases: list[str], *args: Any, **kwargs: Any) -> None:
        flag = folder / "measuring"
        flag.touch()
        try:
            drive(bases, *args, **kwargs)
        finally:
            flag.unlink()
            time.sleep(1.5)
            for _ in range(40):  # a request each worker answers after: it writes its sums
                tables._request(bases[0], "GET", "/live/0")  # noqa: SLF001
    tables._drive = probed  # noqa: SLF001
    try:
        yield
    finally:
        tables._drive = drive  # noqa: SLF001


def _sums(folder: Path) -> tuple[dict[str, list[float]], float]:
    sums: dict[str, list[float]] = {}
    worker = 0.0
    for path in folder.glob("*.json"):
        found = json.loads(path.read_text())
        worker += found["worker"]
        for kind, (count, cpu) in found["sums"].items():
            mine = sums.setdefault(kind, [0, 0.0])
            mine[0] += count
            mine[1] += cpu
    return sums, worker


def report(sums: dict[str, list[float]], worker: float, seconds: float) -> str:
    top = {k: v for k, v in sums.items() if " in " not in k}
    requests = sum(count for count, _ in top.values())
    inside = sum(cpu for _, cpu in top.values())
    rows = []
    for kind in sorted(sums, key=lambda k: (k.split(" in ")[-1], " in " in k, k)):
        count, cpu = sums[kind]
        rows.append([kind, f"{count:,.0f}", f"{count / seconds:.1f}",
                     f"{cpu / count * 1000:.2f}", f"{cpu / seconds:.3f}",
                     f"{cpu / worker:.0%}" if worker else "–"])
    floor = (worker - inside) / max(requests, 1)
    rows.append(["gunicorn, outside the app (per request)", f"{requests:,.0f}",
                 f"{requests / seconds:.1f}", f"{floor * 1000:.2f}",
                 f"{(worker - inside) / seconds:.3f}",
                 f"{(worker - inside) / worker:.0%}" if worker else "–"])
    rows.append(["the workers in all", "", "", "", f"{worker / seconds:.3f}", "100%"])
    lines = [table(["request kind (nested: … in the request named)", "count", "per s",
                    "CPU ms each", "CPU s/s", "of the workers' CPU"], rows)]
    saves = {game: sums.get(f"save {game}", [0, 0.0]) for game in GAMES}
    cycle = []
    for game in GAMES:
        count, cpu = saves[game]
        if not count:
            continue
        page = sums.get(f"page {game}", [0, 0.0])
        calls = sum(sums.get(f"publisher {m} in save {game}", [0, 0.0])[0]
                    for m in ("GET", "POST", "DELETE"))
        publish = sum(sums.get(f"publisher {m} in save {game}", [0, 0.0])[1]
                      for m in ("GET", "POST", "DELETE"))
        drawn = sums.get(f"viewers' part in save {game}", [0, 0.0])[1]
        # (a save answered with its page is followed by no GET: bench.tables' scorer; a
        # viewer's page loaded by a request, a stream's message late, is counted here too)
        asked = 1 + page[0] / count
        cycle.append([game, f"{cpu / count * 1000:.2f}", f"{drawn / count * 1000:.2f}",
                      f"{publish / count * 1000:.2f} ({calls / count:.1f} calls)",
                      f"{page[1] / max(page[0], 1) * 1000:.2f} ({page[0] / count:.2f} per save)",
                      f"{(cpu + page[1]) / count * 1000 + asked * floor * 1000:.2f} "
                      f"({asked:.2f} requests)"])
    lines.append("")
    lines.append(table(["game", "save (POST) ms", "of which the viewers' part", "of which "
                        "publishing", "game's page (GET) ms",
                        "cycle ms (POST + its GETs + gunicorn each)"], cycle))
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--postgres", default=os.environ.get("BENCH_DATABASE_URL"),
                        required=not os.environ.get("BENCH_DATABASE_URL"))
    parser.add_argument("--row", default="PostgreSQL" + tables.PUSH)
    args = parser.parse_args()
    load = os.getloadavg()
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    with tempfile.TemporaryDirectory() as folder:
        os.environ["COMPANION_BENCH_COSTS"] = folder
        notes: dict[str, float] = {}
        with _measured(Path(folder)):
            rows = tables.run(args.tables, args.seconds, 4.0, args.postgres, tables.GAMES,
                              notes, True, [args.row])
        sums, worker = _sums(Path(folder))
    print(table(tables.HEADERS, rows, "ll" + "r" * 6 + "l" + "r" * 6))
    print()
    print(report(sums, worker, args.seconds))
    print(f"\n{started}; load average at start {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f}, "
          f"at the end {os.getloadavg()[0]:.1f}; {os.cpu_count()} cores. A hello (plain Flask "
          f"view, same gunicorn): {notes.get(f'hello {args.tables}', 0) * 1000:.2f} ms of "
          f"server CPU per request.")


if __name__ == "__main__":
    main()
