"""A live poll's read on PostgreSQL, in CPU per lookup (this process + PostgreSQL's backends),
as interleaved A/B blocks in one process — so a busy machine slows every row alike.

Rows, each the same lookup of one game's version by its viewer token
(:func:`companion.play.versions.version_by_token`):

- **the app's engine**: the pool every page and save uses (``pool_pre_ping``, a transaction per
  checkout, a rollback on return: what the polls used before issue 36);
- **the polls' reader**: :func:`companion.db.reader` (autocommit, no pre-ping, no reset on
  return; since issue 36's second step the SELECT skips SQLAlchemy's statement execution, and
  since session 8 psycopg's cursor too: libpq runs it, prepared by name on each connection after
  five uses, :func:`companion.play.page_reads.read_row`);
- **the polls' reader before session 8**: a reader pool of its own, the SELECT on the pooled
  driver connection's cursor (psycopg prepares it after five uses): the A/B of that change;
- **floor**: the same SELECT on one bare psycopg connection in autocommit (no SQLAlchemy).

Blocks of ``--block`` lookups take turns (A, B, floor, then B, floor, A …) for ``--rounds``
rounds; the figure is each row's median over its blocks of (CPU of this process + CPU of the
database's backends, from ``/proc``) per lookup. Run: ``python -m bench.poll_reads --postgres
URL`` (``BENCH_DATABASE_URL``; ``make bench-tables``' database does).
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
import urllib.parse
from collections.abc import Callable
from pathlib import Path

from . import table
from .procstat import _all, _title


def _backends(database: str) -> list[int]:
    """The pids of PostgreSQL's backends connected to ``database`` (from their titles)."""
    return [pid for pid, (name, _, _) in _all().items()
            if name in ("postgres", "postmaster") and f" {database} " in f" {_title(pid)} "]


def _cpu(pids: list[int]) -> float:
    stats = _all()
    return sum(stats[pid][2] for pid in pids if pid in stats)


def run(url: str, rounds: int, block: int) -> list[list[str]]:
    import psycopg
    from sqlalchemy import text

    from companion.db import database_url, make_engine, reader
    from companion.play.versions import version_by_token

    from .tables import _empty_postgres, _games

    with tempfile.TemporaryDirectory() as folder:
        config = {"SECRET_KEY": "bench", "DATABASE": str(Path(folder) / "x.sqlite"),
                  "DATABASE_URL": url}
        _empty_postgres(config)
        token = _games(config, 1, ["reveillez"])[0].viewer
    engine = make_engine("", url)
    polls = reader(engine)
    bare = psycopg.connect(url.replace("postgresql+psycopg://", "postgresql://"), autocommit=True)
    sql = ("SELECT game.id, game.updated_at FROM game JOIN gamelink ON gamelink.game_id = "
           "game.id WHERE gamelink.token = %s AND gamelink.revoked_at IS NULL")
    before = reader(make_engine("", url))  # (a pool of its own: the old row's connections)

    def cursor_read() -> object:
        """The polls' read before session 8: the pooled driver connection's cursor."""
        connection = before.raw_connection()
        try:
            cursor = connection.cursor()
            cursor.execute(sql, (token,))
            return cursor.fetchone()
        finally:
            connection.close()

    rows: dict[str, Callable[[], object]] = {
        "the app's engine (pre-ping, a transaction, a rollback on return)":
            lambda: version_by_token(engine, token),
        "the polls' reader (autocommit, no pre-ping, no reset; libpq, prepared)":
            lambda: version_by_token(polls, token),
        "the polls' reader before session 8 (psycopg's cursor)": cursor_read,
        "floor: the SELECT on a bare psycopg connection": lambda: bare.execute(
            sql, (token,), prepare=True).fetchone()}
    with engine.connect() as connection:
        assert connection.execute(text("SELECT 1")).scalar() == 1
    database = urllib.parse.urlsplit(database_url(url)).path.lstrip("/")
    for do in rows.values():  # warm: every connection open, statements prepared
        for _ in range(50):
            do()
    pids = _backends(database)
    per: dict[str, list[float]] = {name: [] for name in rows}
    names = list(rows)
    for r in range(rounds):
        order = names[r % len(names):] + names[:r % len(names)]
        for name in order:
            do = rows[name]
            own, server = time.process_time(), _cpu(pids)
            for _ in range(block):
                do()
            per[name].append((time.process_time() - own + _cpu(pids) - server) / block)
    bare.close()
    engine.dispose()
    before.dispose()
    floor = statistics.median(per[names[-1]])
    return [[name, f"{statistics.median(values) * 1e6:.0f} µs",
             f"{statistics.median(values) / floor:.2f}×"] for name, values in per.items()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--postgres", default=os.environ.get("BENCH_DATABASE_URL"))
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--block", type=int, default=300)
    args = parser.parse_args()
    if not args.postgres:
        parser.error("needs --postgres URL (or BENCH_DATABASE_URL)")
    load = os.getloadavg()
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    rows = run(args.postgres, args.rounds, args.block)
    print(table(["a poll's read on PostgreSQL", "CPU per lookup (client + server)", "÷ floor"],
                rows, "lrr"))
    print(f"\n{started}; load average {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} at start, "
          f"{os.getloadavg()[0]:.1f} at the end; {os.cpu_count()} cores; {args.rounds} rounds "
          f"of interleaved blocks of {args.block} lookups; medians over the blocks.")


if __name__ == "__main__":
    main()
