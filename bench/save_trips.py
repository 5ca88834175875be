"""A PostgreSQL save with its COMMIT sent with its writes (two round trips) against the same save
with its COMMIT on its own (three, as before session 14), interleaved in one process (issue 36).

Run ``python -m bench.save_trips --database-url postgresql://…`` (``--games N``). The app as
shipped (CSRF, rate limits, a browser's cookie), as :mod:`bench.saves` drives it: Kanai duel
rounds (referee mode, three rounds that end nothing) posted through the app, timed around the
WSGI app (request in, the 303 out: wall and the process's CPU). Every other save is made with
the COMMIT on its own — :func:`companion.play.save_pipeline.commit_follows` made to say nothing,
so the summary's write is sent unguarded and the save commits in a third round trip, exactly
the path of a save before this change — and which kind goes first turns at every pair, so a
busy machine slows both alike. Printed: median, p90 and p99 of each, the median of the paired
differences (two round trips minus three), and the load average at the start and the end.
Not a test: nothing asserts on a timing.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
from pathlib import Path
from typing import Any

from sqlalchemy.engine import Connection

from . import table
from .saves import ROUNDS, new_duel, round_form
from .server_clock import ServerClock


def _p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def run(games: int, database_url: str) -> dict[str, Any]:
    from companion import create_app
    from companion.db import upgrade
    from companion.play import save_pipeline

    folder = Path(tempfile.mkdtemp(prefix="bench-save-trips-"))
    app = create_app({"DATABASE": str(folder / "app.sqlite"), "SECRET_KEY": "bench",
                      "DATABASE_URL": database_url})  # as shipped: CSRF and rate limits on
    upgrade(app.extensions["companion.engine"])
    clock = ServerClock(app.wsgi_app)
    app.wsgi_app = clock  # type: ignore[method-assign]
    says, guarded = save_pipeline.commit_follows, save_pipeline.guarded
    early = [0]

    def counted(update: tuple[str, Any]) -> tuple[str, Any]:
        early[0] += 1
        return guarded(update)

    save_pipeline.guarded = counted

    def said_nothing(connection: Connection) -> None:  # (the save as before: COMMIT alone)
        return None

    timed: dict[str, list[tuple[float, float]]] = {"two": [], "three": []}
    pairs: list[tuple[float, float]] = []  # (two − three) wall, CPU, by pair
    try:
        for phone in range(games + 5):  # the first five pairs warm up, untimed
            tables = []
            for side in ("two", "three"):
                client = app.test_client()
                environ = {"REMOTE_ADDR": f"10.3.{phone >> 7 & 255}.{(phone * 2) & 255}"
                           if side == "two" else
                           f"10.3.{phone >> 7 & 255}.{(phone * 2 + 1) & 255}"}
                tables.append((side, client, environ, new_duel(client, environ)))
            for number, (first, second) in enumerate(ROUNDS):
                order = tables if (phone + number) % 2 == 0 else tables[::-1]
                got: dict[str, tuple[float, float]] = {}
                for side, client, environ, url in order:
                    page = client.get(url, environ_base=environ)
                    assert page.status_code == 200, page.status_code
                    if side == "three":
                        save_pipeline.commit_follows = said_nothing
                    try:
                        answer = client.post(f"{url}/round", environ_base=environ, data={
                            **round_form(page.text, url), "first": first, "second": second})
                    finally:
                        save_pipeline.commit_follows = says
                    assert answer.status_code == 303, answer.status_code
                    got[side] = clock.last
                if phone >= 5:
                    for side in got:
                        timed[side].append(got[side])
                    pairs.append((got["two"][0] - got["three"][0],
                                  got["two"][1] - got["three"][1]))
    finally:
        save_pipeline.guarded = guarded
        app.extensions["companion.engine"].dispose()
        shutil.rmtree(folder, ignore_errors=True)
    return {"timed": timed, "pairs": pairs, "early": early[0]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100,
                        help="pairs of duels of three rounds each (default 100: 300 saves "
                             "of each kind)")
    parser.add_argument("--database-url", required=True, help="PostgreSQL")
    arguments = parser.parse_args()
    load = os.getloadavg()
    found = run(arguments.games, arguments.database_url)
    timed, pairs = found["timed"], found["pairs"]
    print(f"A PostgreSQL save, COMMIT with the writes (two round trips) or on its own (three): "
          f"{len(timed['two'])} Kanai duel rounds of each, interleaved, one process, the app as "
          f"shipped; load average {load[0]:.2f} / {load[1]:.2f} (1 / 5 min) at the start, "
          f"{os.getloadavg()[0]:.2f} at the end; {found['early']} saves sent their COMMIT "
          "with their writes.\n")
    rows = []
    for side, label in (("two", "COMMIT with the writes (2 round trips)"),
                        ("three", "COMMIT on its own (3 round trips, as before)")):
        walls = [wall for wall, _ in timed[side]]
        cpus = [cpu for _, cpu in timed[side]]
        rows.append([label, f"{statistics.median(walls):.2f}", f"{_p(walls, 0.9):.2f}",
                     f"{_p(walls, 0.99):.2f}", f"{statistics.median(cpus):.2f}"])
    print(table(["save", "wall p50 ms", "wall p90", "wall p99", "CPU p50 ms"], rows,
                align="lrrrr"))
    print(f"\n- paired (two − three), median: wall **{statistics.median(w for w, _ in pairs):+.2f} "
          f"ms**, CPU {statistics.median(c for _, c in pairs):+.2f} ms; the two-trip save "
          f"faster in {sum(1 for w, _ in pairs if w < 0)} of {len(pairs)} pairs.")


if __name__ == "__main__":
    main()
