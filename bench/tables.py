"""Many tables at once: one scorer and five viewers per table, against gunicorn, on SQLite, on
PostgreSQL, and on two app servers sharing PostgreSQL, next to a plain Flask "hello" measured in
the same run.

Each simulated table is a Rebel Princess game with its scorer and viewer links:

* the **scorer** saves the next round every ``--save-every`` seconds (``POST`` of the by-numbers
  form, then the score pad it is sent to);
* each of the five **viewers** asks the game's live version once a second, as the app's pages
  do (``GET /live/<viewer token>`` with ``If-None-Match``: 304 while nothing changed), and loads
  the score pad when it changed.

On two servers (each ``gunicorn -w 1``, so the same two workers as the one-server rows, on the
same machine) a table's scorer uses one server and its viewers the other, so every change is
seen across servers, as behind a proxy that spreads the phones of a table.

The anchor row sends the same number of requests per second, spread the same way, to a plain
Flask "hello" under the same gunicorn settings, in the same run. Requests are bounded in time
(``--seconds``) and go to 127.0.0.1 only. Afterwards the database is read: every round a scorer
was told "saved" must be stored exactly once.

Run: ``python -m bench.tables [--tables 50 200] [--seconds 20] [--postgres URL]``
(``make bench-tables`` starts the local PostgreSQL of ``make test-postgres`` and passes it).
"""

from __future__ import annotations

import argparse
import contextlib
import heapq
import http.client
import os
import tempfile
import threading
import time
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path

from . import NAMES4, gunicorn, table

VIEWERS = 5
THREADS = 16
SCORES = [[3, 4, 4, 4], [4, 3, 4, 4], [4, 4, 3, 4], [4, 4, 4, 3], [5, 4, 3, 3]]


@dataclass
class Table:
    scorer: str
    viewer: str
    saved: int = 0
    # The version each viewer's page last saw: each viewer loads the pad once per change.
    versions: list[str] = field(default_factory=lambda: [""] * VIEWERS)


@dataclass
class Measures:
    latency: dict[str, list[float]] = field(default_factory=dict)
    errors: dict[str, int] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, kind: str, seconds: float, ok: bool) -> None:
        with self.lock:
            self.latency.setdefault(kind, []).append(seconds)
            if not ok:
                self.errors[kind] = self.errors.get(kind, 0) + 1


def _request(base: str, method: str, path: str, body: dict[str, str] | None = None,
             headers: dict[str, str] | None = None) -> tuple[int, dict[str, str]]:
    parts = urllib.parse.urlsplit(base)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    try:
        data = urllib.parse.urlencode(body) if body is not None else None
        sent = dict(headers or {})
        if data is not None:
            sent["Content-Type"] = "application/x-www-form-urlencoded"
        connection.request(method, path, body=data, headers=sent)
        response = connection.getresponse()
        response.read()
        return response.status, {k.lower(): v for k, v in response.getheaders()}
    finally:
        connection.close()


def _timed(measures: Measures, kind: str, base: str, method: str, path: str,
           ok: tuple[int, ...], **kwargs: object) -> tuple[int, dict[str, str]]:
    start = time.perf_counter()
    try:
        status, headers = _request(base, method, path, **kwargs)  # type: ignore[arg-type]
    except OSError:
        measures.add(kind, time.perf_counter() - start, False)
        return 0, {}
    measures.add(kind, time.perf_counter() - start, status in ok)
    return status, headers


def _drive(bases: list[str], tables: list[Table], seconds: float, save_every: float,
           measures: Measures, hello: bool) -> None:
    """Play every table's events on schedule, from a pool of client threads. With several
    servers, table ``n``'s scorer uses server ``n`` and its viewers server ``n + 1`` (modulo
    their number)."""
    start = time.monotonic()
    deadline = start + seconds
    events: list[tuple[float, int, str, int]] = []
    for number, _ in enumerate(tables):
        offset = (number / max(len(tables), 1)) % 1.0
        heapq.heappush(events, (start + offset * save_every + 0.5, number, "save", 0))
        for viewer in range(VIEWERS):
            heapq.heappush(events, (start + (offset + viewer / VIEWERS) % 1.0, number, "poll",
                                    viewer))
    lock = threading.Lock()

    def worker() -> None:
        while True:
            with lock:
                if not events:
                    return
                when, number, kind, viewer = heapq.heappop(events)
            if when >= deadline:
                return
            delay = when - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            game = tables[number]
            base = bases[(number + (kind != "save")) % len(bases)]
            if hello:
                _timed(measures, "hello", base, "GET", "/", (200,))
            elif kind == "save" and game.saved < len(SCORES):
                body = {f"score_{s}": str(v) for s, v in enumerate(SCORES[game.saved])}
                status, headers = _timed(measures, "save", base, "POST",
                                         "/rebel-princess"
                                         f"/g/{game.scorer}/round/{game.saved + 1}/numbers",
                                         (302,), body=body | {"confirm": "y"})
                if status == 302:
                    game.saved += 1
                    _timed(measures, "pad", base, "GET", f"/rebel-princess/g/{game.scorer}", (200,))
            elif kind == "poll":
                seen = game.versions[viewer]
                status, headers = _timed(
                    measures, "live", base, "GET", f"/live/{game.viewer}", (200, 304),
                    headers={"If-None-Match": seen} if seen else {})
                if status == 200:
                    if seen:
                        _timed(measures, "viewer pad", base, "GET", "/rebel-princess"
                                                                    f"/g/{game.viewer}", (200,))
                    game.versions[viewer] = headers.get("etag", "")
            gap = save_every if kind == "save" else 1.0
            with lock:
                heapq.heappush(events, (when + gap, number, kind, viewer))

    threads = [threading.Thread(target=worker) for _ in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def _games(config: dict[str, object], count: int) -> list[Table]:
    from companion import create_app
    from companion.db import get_session
    from companion.play import rebel_princess as play
    from companion.play import store
    from companion.scoring.rebel_princess import Edition

    app = create_app(config)  # migrates before the workers start
    tables = []
    with app.app_context():
        session = get_session()
        for _ in range(count):
            game = play.create_game(session=session, edition=Edition.DELUXE, names=NAMES4,
                                    first_leader=0, round_cards="abcde")
            links = store.links_of(session, game)
            tables.append(Table(links["scorer"].token, links["viewer"].token))
    app.extensions["companion.engine"].dispose()
    return tables


def _stored_once(config: dict[str, object], tables: list[Table]) -> bool:
    """Every round a scorer was told was saved is stored exactly once, and nothing else."""
    from sqlalchemy import text

    from companion import create_app

    app = create_app(config)
    engine = app.extensions["companion.engine"]
    good = True
    with engine.connect() as db:
        for game in tables:
            rows = db.execute(text(
                "SELECT r.number FROM roundrecord r JOIN gamelink k ON k.game_id = r.game_id "
                "WHERE k.token = :token ORDER BY r.number"), {"token": game.scorer}).all()
            good &= [row[0] for row in rows] == list(range(1, game.saved + 1))
    engine.dispose()
    return good


def _p(values: list[float], q: float) -> str:
    if not values:
        return "–"
    values = sorted(values)
    return f"{values[min(len(values) - 1, int(q * len(values)))] * 1000:.1f} ms"


def run(tables: int, seconds: float, save_every: float, postgres: str | None) -> list[list[str]]:
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        hello = Measures()
        with gunicorn("bench.hello:app") as server:
            fake = [Table("", "") for _ in range(tables)]
            cpu, start = server.cpu_seconds(), time.monotonic()
            _drive([server.base], fake, seconds, save_every, hello, hello=True)
            cpu, took = server.cpu_seconds() - cpu, time.monotonic() - start
        total = sum(len(v) for v in hello.latency.values())
        rows.append([f"hello, {tables} tables' worth", "–", f"{total / took:,.0f}",
                     _p(hello.latency["hello"], .5), _p(hello.latency["hello"], .99), "–", "–",
                     str(sum(hello.errors.values())), "–", f"{cpu / took:.2f}", f"{took:.0f} s"])
        backends = [("SQLite", {"DATABASE": str(Path(folder) / "tables.sqlite")}, 1)]
        if postgres:
            backends += [("PostgreSQL", {"DATABASE_URL": postgres}, 1),
                         ("PostgreSQL, two servers", {"DATABASE_URL": postgres}, 2)]
        for name, db, servers in backends:
            config = {"SECRET_KEY": "bench", "WTF_CSRF_ENABLED": False,
                      "RATELIMIT_ENABLED": False, "DATABASE": str(Path(folder) / "x.sqlite"),
                      **db}
            if "DATABASE_URL" in db:
                _empty_postgres(config)
            games = _games(config, tables)
            env = {"COMPANION_BENCH_DB": str(config["DATABASE"]),
                   "COMPANION_BENCH_DATABASE_URL": str(db.get("DATABASE_URL", ""))}
            measures = Measures()
            with contextlib.ExitStack() as stack:
                running = [stack.enter_context(gunicorn("bench.wsgi:app", env=env,
                                                        workers=2 // servers))
                           for _ in range(servers)]
                cpu, start = sum(r.cpu_seconds() for r in running), time.monotonic()
                _drive([r.base for r in running], games, seconds, save_every, measures,
                       hello=False)
                took = time.monotonic() - start
                cpu = sum(r.cpu_seconds() for r in running) - cpu
            total = sum(len(v) for v in measures.latency.values())
            live = measures.latency.get("live", []) + measures.latency.get("viewer pad", [])
            rows.append([f"{tables} tables", name, f"{total / took:,.0f}",
                         _p(measures.latency.get("save", []), .5),
                         _p(measures.latency.get("save", []), .99),
                         _p(live, .5), _p(live, .99), str(sum(measures.errors.values())),
                         "yes" if _stored_once(config, games) else "NO", f"{cpu / took:.2f}",
                         f"{took:.0f} s"])
    return rows


def _empty_postgres(config: dict[str, object]) -> None:
    from sqlalchemy import text
    from sqlmodel import SQLModel

    from companion import create_app

    app = create_app(config)
    names = ", ".join(f'"{t.name}"' for t in SQLModel.metadata.sorted_tables)
    with app.extensions["companion.engine"].begin() as db:
        db.execute(text(f"TRUNCATE {names} RESTART IDENTITY CASCADE"))
    app.extensions["companion.engine"].dispose()


HEADERS = ["load", "database", "req/s", "entry p50", "entry p99", "viewers p50", "viewers p99",
           "errors", "each round stored once", "server CPU s/s", "took"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, nargs="+", default=[50, 200])
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--save-every", type=float, default=4.0)
    parser.add_argument("--postgres", default=os.environ.get("BENCH_DATABASE_URL"))
    args = parser.parse_args()
    rows = []
    for count in args.tables:
        rows += run(count, args.seconds, args.save_every, args.postgres)
    print(table(HEADERS, rows, "ll" + "r" * 9))
    print(f"\n{args.seconds:.0f} s per row; gunicorn -w 2 (sync), or two servers of -w 1 "
          f"(a table's scorer on one, its viewers on the other); a save every "
          f"{args.save_every:.0f} s per table; {VIEWERS} viewers per table polling once a second; "
          f"the hello row sends the same request rate to a plain Flask view in the same run; "
          f"server CPU s/s: CPU seconds the gunicorn processes used per second (2 cores: 2.00 "
          f"at most), steadier than latencies on a shared machine; took: how long the row's "
          f"requests ran (longer than {args.seconds:.0f} s when the server fell behind: the "
          f"events due are all still sent, late, and req/s is over this time).")


if __name__ == "__main__":
    main()
