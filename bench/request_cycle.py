"""One request's whole cycle in process, gunicorn's included: the thread's CPU per request.

gunicorn's sync worker (its own ``handle``: the request parsed from a socket, the environ, the
WSGI app, the answer written, ``post_request``), with the shipped settings
(``deploy/gunicorn.conf.py``, its ``post_worker_init`` run as a worker starts, its
``/metrics`` counted in ``PROMETHEUS_MULTIPROC_DIR``),
answers requests written to one end of a socket pair, in this process; the thread's CPU clock
is read around each. Three kinds, interleaved request by request so that a busy machine slows
each alike:

- **hello**: :mod:`bench.hello` (a plain Flask view) in the same worker;
- **poll**: ``GET /live/<token>`` with the ETag its page holds (a 304), as a phone sends it
  (User-Agent, Accept, Accept-Language, the session cookie, ``X-Forwarded-*`` from the proxy);
- **page**: ``GET`` of a viewer's page of a game (Réveillez, Rebel Princess, in turn).

The games are made on SQLite in a temporary folder (``--database-url`` for PostgreSQL), CSRF
and the rate limits off as in :mod:`bench.wsgi`. ``--profile KIND`` prints that kind's
functions by their own CPU (cProfile) instead. Not a test: nothing asserts on a timing.

Run: ``python -m bench.request_cycle [--requests 3000] [--database-url URL] [--profile poll]``.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import runpy
import socket
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from . import SHIPPED_CONFIG, table

HEADERS = (b"User-Agent: Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 Chrome/131 Mobile\r\n"
           b"Accept: */*\r\nAccept-Language: fr-FR,fr;q=0.9,en;q=0.8\r\n"
           b"X-Forwarded-For: 192.0.2.10\r\n"
           b"X-Forwarded-Proto: https\r\nConnection: close\r\n")


class Worker:
    """gunicorn's ``SyncWorker`` with the shipped settings, serving ``app`` in this thread."""

    def __init__(self, app: Any) -> None:
        from gunicorn.config import Config
        from gunicorn.workers.sync import SyncWorker

        settings = runpy.run_path(str(SHIPPED_CONFIG))
        cfg = Config()
        for name, value in settings.items():
            if name in cfg.settings and not name.startswith("_"):
                cfg.set(name, value)
        worker = SyncWorker.__new__(SyncWorker)
        worker.cfg, worker.wsgi, worker.nr = cfg, app, 0
        worker.max_requests, worker.alive = 10**9, True

        class Log:
            def access(self, *args: Any) -> None:
                pass

            def debug(self, *args: Any) -> None:
                pass

            exception = info = warning = debug

        worker.log = Log()
        cfg.post_worker_init(worker)  # (as a worker starts: its settings, its collector)
        self.worker = worker
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))

    def ask(self, raw: bytes) -> tuple[bytes, float]:
        """The answer to ``raw`` and the thread's CPU seconds the worker took for it."""
        client, server = socket.socketpair()
        client.sendall(raw)
        client.shutdown(socket.SHUT_WR)  # (the phone asks nothing more: gunicorn's close waits)
        started = time.thread_time()
        self.worker.handle(self.listener, server, ("127.0.0.1", 40000))
        took = time.thread_time() - started
        answer = b"".join(iter(lambda: client.recv(65536), b""))
        client.close()
        return answer, took


def _requests(config: dict[str, object]) -> dict[str, list[bytes]]:
    from .tables import _games

    tables = _games(config, 8, ["reveillez", "rebel-princess"])
    from companion import create_app

    app = create_app({**config, "WTF_CSRF_ENABLED": False, "RATELIMIT_ENABLED": False})
    client = app.test_client()
    polls, pages = [], []
    for t in tables:
        version = client.get(f"/live/{t.viewer}").get_data(as_text=True)
        cookie = b"Cookie: session=eyJsYW5nIjoiZnIifQ.Z0n1Qg.abcdefghijklmnopqrstuvwxyz0\r\n"
        polls.append(b"GET /live/%s HTTP/1.1\r\nHost: games.example.org\r\n%s"
                     b"If-None-Match: \"%s\"\r\n%s\r\n" % (t.viewer.encode(), HEADERS,
                                                        version.encode(), cookie))
        pages.append(b"GET %s HTTP/1.1\r\nHost: games.example.org\r\n%s%s\r\n" % (
            _page(t).encode(), HEADERS, cookie))
    hello = [b"GET / HTTP/1.1\r\nHost: games.example.org\r\n%s\r\n" % HEADERS]
    return {"hello": hello, "poll": polls, "page": pages}


def _page(t: Any) -> str:
    prefix = {"reveillez": "/reveillez/g/", "rebel-princess": "/rebel-princess/g/"}[t.kind]
    return prefix + t.viewer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=3000, help="of each kind")
    parser.add_argument("--database-url", default=None)
    parser.add_argument("--profile", choices=("hello", "poll", "page"), default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = str(folder / "metrics")
        (folder / "metrics").mkdir()
        config: dict[str, object] = {"SECRET_KEY": "bench", "DATABASE": str(folder / "db.sqlite"),
                                     "TESTING": False}
        if args.database_url:
            from .tables import _empty_postgres

            config["DATABASE_URL"] = args.database_url
            _empty_postgres(config)
        asked = _requests(config)
        from companion import create_app

        from .hello import app as hello_app

        app = create_app({**config, "WTF_CSRF_ENABLED": False, "RATELIMIT_ENABLED": False})
        workers = {"hello": Worker(hello_app), "poll": Worker(app), "page": Worker(app)}
        expect = {"hello": b"HTTP/1.1 200", "poll": b"HTTP/1.1 304", "page": b"HTTP/1.1 200"}
        import logging

        logging.getLogger("companion.access").disabled = False
        for kind, worker in workers.items():  # warm, and check the answers
            for raw in asked[kind] * 20:
                answer, _ = worker.ask(raw)
                assert answer.startswith(expect[kind]), (kind, answer[:300])
        if args.profile:
            profile = cProfile.Profile()
            worker, raws = workers[args.profile], asked[args.profile]
            profile.enable()
            for number in range(args.requests):
                worker.ask(raws[number % len(raws)])
            profile.disable()
            pstats.Stats(profile).sort_stats("tottime").print_stats(45)
            return
        load = os.getloadavg()
        took: dict[str, list[float]] = {kind: [] for kind in workers}
        for number in range(args.requests):
            for kind, worker in workers.items():
                raws = asked[kind]
                took[kind].append(worker.ask(raws[number % len(raws)])[1])
        hello = statistics.median(took["hello"])
        rows = [[kind, f"{statistics.median(v) * 1e6:.0f} µs",
                 f"{statistics.quantiles(v, n=10)[-1] * 1e6:.0f} µs",
                 f"{statistics.median(v) / hello:.2f}×"] for kind, v in took.items()]
        print(table(["request", "CPU median", "CPU p90", "÷ hello"], rows, "lrrr"))
        print(f"\n{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; load average "
              f"{load[0]:.1f} at start, {os.getloadavg()[0]:.1f} at the end; {args.requests} of "
              f"each, interleaved; {'PostgreSQL' if args.database_url else 'SQLite'}.")


if __name__ == "__main__":
    main()
