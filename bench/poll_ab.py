"""A 304 poll through gunicorn against a hello, this checkout against an older commit, in
interleaved rounds of one process: server CPU per poll (gunicorn + PostgreSQL's backends).

Each server is gunicorn with the shipped settings (``deploy/gunicorn.conf.py``: its workers,
/metrics counted across them; each commit's own file), started once and kept for the whole run:

- **hello**: :mod:`bench.hello`, a plain Flask view (``GET /``);
- **this checkout** and **the older commit** (``--against``, default ``HEAD~1``: its files from
  ``git archive`` in a temporary folder), each serving :mod:`bench.wsgi` on PostgreSQL
  (``--postgres``) and, with ``--sqlite``, on SQLite: every viewer's ``GET /live/<token>`` with
  the ``If-None-Match`` its page sends (304).

A round sends each server, in turn (the order turns each round), ``--rate`` requests a second for
``--seconds`` — a new connection each, from 8 client threads, as :mod:`bench.tables`' phones do
(900 a second is its 200 tables' polls) — and reads the CPU used meanwhile: every process of the
server (``/proc/<pid>/schedstat``, nanoseconds) and, on PostgreSQL, the backends of the bench's
database. So a busy machine slows every row of a round alike: the medians over ``--rounds``
rounds are the figures, each with the load average beside it.

Run: ``python -m bench.poll_ab --postgres URL [--against REV] [--sqlite]``.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import socket
import statistics
import subprocess
import tempfile
import threading
import time
import urllib.parse
from pathlib import Path

from . import ROOT, SHIPPED_CONFIG, gunicorn, table
from .procstat import _all, _title
from .wsgi_note import NOT_AS_SHIPPED

THREADS = 8
DIFFERENCES: dict[str, tuple[float, int]] = {}
"""Per database: the median over the rounds of (this checkout − the older commit) server CPU per
request, and in how many rounds this checkout cost less."""
TABLES = 40  # games polled (each poll names one of them in turn)


def _cpu(pid: int) -> float:
    try:
        return int(Path(f"/proc/{pid}/schedstat").read_text().split()[0]) / 1e9
    except OSError:
        return 0.0


def _tree(root: int) -> list[int]:
    stats, found, todo = _all(), [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo += [child for child, (_, parent, _) in stats.items() if parent == pid]
    return found


def _backends(database: str) -> list[int]:
    return [pid for pid, (name, _, _) in _all().items()
            if name == "postgres" and f" {database} " in f" {_title(pid)} "]


def _get(port: int, path: str, etag: str | None = None) -> bytes:
    with socket.create_connection(("127.0.0.1", port)) as sock:
        request = (f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept-Language: en\r\n"
                   "User-Agent: bench\r\nConnection: close\r\n")
        if etag:
            request += f"If-None-Match: {etag}\r\n"
        sock.sendall((request + "\r\n").encode())
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    return data


def _drive(port: int, paths: list[tuple[str, str | None]], seconds: float, rate: float) -> int:
    """Send ``rate`` requests a second for ``seconds``; returns the answers not 200/304."""
    stop, errors = time.monotonic() + seconds, [0]

    def run(thread: int) -> None:
        mine, step, due, n = paths[thread::THREADS], THREADS / rate, time.monotonic(), 0
        while due < stop:
            path, etag = mine[n % len(mine)]
            n += 1
            if not _get(port, path, etag).startswith((b"HTTP/1.1 304", b"HTTP/1.1 200")):
                errors[0] += 1
            due += step
            time.sleep(max(0.0, due - time.monotonic()))

    threads = [threading.Thread(target=run, args=(t,)) for t in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return errors[0]


def _checkout(rev: str, folder: Path) -> Path:
    """The files of commit ``rev`` the servers need, in ``folder``."""
    folder.mkdir()
    archive = subprocess.run(["git", "archive", rev, "companion", "bench", "deploy"], cwd=ROOT,
                             check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    return folder


def run(url: str, against: str, rate: float, seconds: float, rounds: int,
        sqlite: bool) -> list[list[str]]:
    from .tables import _empty_postgres, _games

    with tempfile.TemporaryDirectory() as scratch, contextlib.ExitStack() as stack:
        folder = Path(scratch)
        database = urllib.parse.urlsplit(url).path.lstrip("/")
        stores = {"PostgreSQL": {"SECRET_KEY": "bench", "DATABASE": str(folder / "pg.sqlite"),
                                 "DATABASE_URL": url}}
        if sqlite:
            stores["SQLite"] = {"SECRET_KEY": "bench", "DATABASE": str(folder / "db.sqlite")}
        _empty_postgres(stores["PostgreSQL"])
        tokens = {name: [t.viewer for t in _games(config, TABLES, ["reveillez",
                                                                   "rebel-princess"])]
                  for name, config in stores.items()}
        trees = {"this checkout": ROOT, f"{against}": _checkout(against, folder / "older")}
        servers: dict[str, tuple[int, int, list[tuple[str, str | None]], bool]] = {}
        env = {"COMPANION_BENCH_DB": str(folder / "pg.sqlite")}
        hello = stack.enter_context(gunicorn(
            "bench.hello:app", workers=None, config=SHIPPED_CONFIG,
            env={**env, "PROMETHEUS_MULTIPROC_DIR": str(folder / "m-hello")}))
        servers["hello"] = (hello.pid, int(hello.base.rsplit(":", 1)[1]),
                            [("/", None)] * TABLES, False)
        for name, config in stores.items():
            for label, tree in trees.items():
                key = f"{name}, {label}"
                server = stack.enter_context(gunicorn(
                    # (each commit's own gunicorn settings: they are part of what it costs)
                    "bench.wsgi:app", workers=None, config=tree / "deploy" / "gunicorn.conf.py",
                    cwd=tree,
                    timeout=120, env={
                        "COMPANION_BENCH_DB": str(config["DATABASE"]),
                        "COMPANION_BENCH_DATABASE_URL": str(config.get("DATABASE_URL", "")),
                        "PYTHONPATH": str(tree),
                        "PROMETHEUS_MULTIPROC_DIR": str(folder / f"m-{len(servers)}")}))
                port = int(server.base.rsplit(":", 1)[1])
                paths: list[tuple[str, str | None]] = []
                for token in tokens[name]:
                    version = _get(port, f"/live/{token}").split(b"\r\n\r\n", 1)[1].decode()
                    paths.append((f"/live/{token}", f'"{version}"'))
                servers[key] = (server.pid, port, paths, name == "PostgreSQL")
        for _, port, paths, _ in servers.values():  # every worker warm
            _drive(port, paths, 2.0, rate)
        per: dict[str, list[tuple[float, float, float]]] = {key: [] for key in servers}
        names = list(servers)
        for turn in range(rounds):
            for key in names[turn % len(names):] + names[:turn % len(names)]:
                pid, port, paths, postgres = servers[key]
                pids, backends = _tree(pid), _backends(database) if postgres else []
                load = os.getloadavg()[0]
                app, pg = sum(map(_cpu, pids)), sum(map(_cpu, backends))
                errors = _drive(port, paths, seconds, rate)
                count = rate * seconds
                if errors:
                    raise RuntimeError(f"{key}: {errors} answers neither 200 nor 304")
                per[key].append(((sum(map(_cpu, pids)) - app) / count,
                                 (sum(map(_cpu, backends)) - pg) / count, load))
    hello_total = statistics.median(a + p for a, p, _ in per["hello"])
    for name in stores:  # each round's two checkouts side by side: their difference's median
        this, older = per[f"{name}, this checkout"], per[f"{name}, {against}"]
        paired = statistics.median((a + p) - (b + q) for (a, p, _), (b, q, _) in
                                   zip(this, older, strict=True))
        DIFFERENCES[name] = (paired, sum((a + p) < (b + q) for (a, p, _), (b, q, _) in
                                         zip(this, older, strict=True)))
    rows = []
    for key, values in per.items():
        app = statistics.median(a for a, _, _ in values)
        pg = statistics.median(p for _, p, _ in values)
        total = statistics.median(a + p for a, p, _ in values)
        loads = [load for _, _, load in values]
        rows.append([key, f"{app * 1e3:.3f} ms", f"{pg * 1e3:.3f} ms" if pg else "–",
                     f"{total * 1e3:.3f} ms", f"{total / hello_total:.2f}×",
                     f"{min(loads):.1f}–{max(loads):.1f}"])
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--postgres", default=os.environ.get("BENCH_DATABASE_URL"))
    parser.add_argument("--against", default="HEAD~1", help="the older commit (git revision)")
    parser.add_argument("--rate", type=float, default=900.0, help="requests a second")
    parser.add_argument("--seconds", type=float, default=4.0, help="of each row, each round")
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--sqlite", action="store_true", help="the SQLite rows too")
    args = parser.parse_args()
    if not args.postgres:
        parser.error("needs --postgres URL (or BENCH_DATABASE_URL)")
    load = os.getloadavg()
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    rows = run(args.postgres, args.against, args.rate, args.seconds, args.rounds, args.sqlite)
    print(table(["server (a poll: 304)", "app CPU per request", "PostgreSQL CPU",
                 "server CPU per request", "÷ hello", "load in its rounds"], rows, "lrrrrr"))
    print(f"\n{started}; load average {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} at start, "
          f"{os.getloadavg()[0]:.1f} at the end; {os.cpu_count()} cores; {args.rounds} rounds "
          f"of {args.seconds:.0f} s per server at {args.rate:.0f} requests/s, the order turning "
          f"each round; medians over the rounds; gunicorn with deploy/gunicorn.conf.py.")
    for name, (paired, fewer) in DIFFERENCES.items():
        print(f"- {name}: this checkout − {args.against}, round by round: median "
              f"{paired * 1e6:+.0f} µs per request; this checkout cost less in {fewer} of "
              f"{args.rounds} rounds.")
    print(f"\n{NOT_AS_SHIPPED}")


if __name__ == "__main__":
    main()
