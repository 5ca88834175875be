"""Many tables at once: one scorer and five viewers per table, against gunicorn, on SQLite, on
PostgreSQL, and on two app servers sharing PostgreSQL, next to a plain Flask "hello" answering the
same requests in the same run.

**A table** is one game with its scorer link and five phones following its viewer link. The
tables take the four games in turn (``--games``; Rebel Princess alone with
``--games rebel-princess``):

* the **scorer** saves the next entry every ``--save-every`` seconds, five in all, and gets the
  page the save leads to as the phone does (drafts.js' outbox, with its service worker): the
  save asks for the page in its answer (``Companion-Outbox: page``); where the server drew that
  page with the save (a push row: the viewers' part is cut from it) the answer is the page (200,
  ``Companion-Page``) and nothing more is asked, else the answer is a redirect and the page is
  loaded once (the fetch that follows it; the worker shows that page without asking again).
  The entries: Rebel Princess a round by numbers, Princesse Princesse a round end (one player
  still in), Réveillez the waking of a Princess (one tap with the slot and value), the duel a
  referee round (two equal cards: on hold, so the game never ends);
* each of the five **viewers** asks whether the game changed as that game's pages do — Rebel
  Princess, Princesse Princesse and Réveillez ``GET /live/<viewer token>`` once a second, the duel
  the same every 1.5 s, with ``If-None-Match`` (304 while nothing changed) — and loads the page
  (the duel: its board) once per change.

Every server is gunicorn with the shipped settings (``deploy/gunicorn.conf.py``: sync workers,
2 per core), the hello's too. On two servers (each with half the workers, so the same workers in
all as the one-server rows, on the same machine) a table's scorer uses one server and its
viewers the other, so every change is seen across servers, as behind a proxy that spreads the
phones of a table. The **live polls only** rows run the same tables with no saves: every poll a
304, what following the games costs on its own.

**CPU per table-second**: the CPU of the gunicorn processes plus PostgreSQL's (the backends of
the bench's database and the cluster's background processes, read from ``/proc``:
:mod:`bench.procstat`; SQLite's work is inside gunicorn's), divided by tables × ``--seconds``
(the work due, even when the server falls behind and takes longer to answer it). The **hello**
row of each size sends a plain Flask view exactly the requests the polling tables send (a save
and its page, a poll and the page loaded after a change: two requests), spread the same way,
under the same gunicorn settings, in the same run: the floor of this stack for that traffic.
(A push row's scorer, answered with its page, sends one request per save where the hello sends
two: its "÷ hello-equivalent" is against the polling traffic's floor, as its polls already were.)
*tables per busy core* is 1,000 ms over the CPU per table-second. The **load generator** (this
process's threads) shares the machine's cores: its CPU is shown beside.

Requests are bounded in time and go to 127.0.0.1 only. Afterwards the database is read: every
entry a scorer was told "saved" must be stored exactly once.

Run: ``python -m bench.tables [--tables 50 200] [--seconds 20] [--postgres URL]``
(``make bench-tables`` starts the local PostgreSQL of ``make test-postgres`` and passes it).
"""

from __future__ import annotations

import argparse
import contextlib
import heapq
import http.client
import math
import os
import re
import resource
import selectors
import socket
import sys
import tempfile
import threading
import time
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from . import MEMORY, NAMES4, SHIPPED_CONFIG, free_port, gunicorn, table
from .procstat import PostgresCpu, children, pss_mb
from .push import Nginx, nginx
from .wsgi_note import NOT_AS_SHIPPED

VIEWERS = 5
SAVES = 5
THREADS = 16
GAMES = ["rebel-princess", "princesse-princesse", "reveillez", "kanai-duel"]
RP_SCORES = [[3, 4, 4, 4], [4, 3, 4, 4], [4, 4, 3, 4], [4, 4, 4, 3], [5, 4, 3, 3]]
RV_VALUES = [5, 10, 15, 5, 10]
CATCH_UP = 30.0
"""Seconds between a viewer's polls while its stream is open (app.js: the catch-up check)."""
DUEL_ROUNDS = [("wizard", "wizard"), ("general", "general"), ("minister", "minister"),
               ("assassin", "assassin"), ("clown", "clown")]


@dataclass
class Table:
    kind: str
    scorer: str
    viewer: str
    number: int = 0
    saved: int = 0
    # The version each viewer's page last saw: each viewer loads the page once per change.
    versions: list[str] = field(default_factory=lambda: [""] * VIEWERS)
    # Push rows: the game's channel path on nginx (its viewer page's data-push-url), and when its
    # last save was sent (the start of each save → viewer-page-shown time).
    push_path: str = ""
    save_started: float = 0.0

    def save(self) -> tuple[str, dict[str, str | list[str]]]:
        """The address and form of the scorer's next save (version = entries saved so far)."""
        n, base = self.saved, f"/{self.kind}/g/{self.scorer}"
        if self.kind == "rebel-princess":
            return (f"{base}/round/{n + 1}/numbers",
                    {f"score_{s}": str(v) for s, v in enumerate(RP_SCORES[n])} | {"confirm": "y"})
        if self.kind == "princesse-princesse":
            return f"{base}/round", {"version": str(n), "step": "2", "in": [str(n % 4)]}
        if self.kind == "reveillez":
            return f"{base}/act", {"version": str(n), "key": f"bench-{self.number}-{n}",
                                   "do": "wake", "slot": str(n), "value": str(RV_VALUES[n])}
        first, second = DUEL_ROUNDS[n]
        return f"{base}/round", {"version": str(n), "first": first, "second": second}

    def page(self, token: str) -> str:
        return f"/{self.kind}/g/{token}"

    def poll(self) -> str:
        return f"/live/{self.viewer}"

    def viewer_page(self) -> str:
        if self.kind == "kanai-duel":
            return f"/kanai-duel/g/{self.viewer}/board"
        return self.page(self.viewer)

    @property
    def poll_every(self) -> float:
        return 1.5 if self.kind == "kanai-duel" else 1.0


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

    def count(self, *kinds: str) -> int:
        return sum(len(self.latency.get(kind, [])) for kind in kinds)


def _request(base: str, method: str, path: str, body: dict[str, str | list[str]] | None = None,
             headers: dict[str, str] | None = None) -> tuple[int, dict[str, str]]:
    parts = urllib.parse.urlsplit(base)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    try:
        data = urllib.parse.urlencode(body, doseq=True) if body is not None else None
        sent = dict(headers or {})
        if data is not None:
            sent["Content-Type"] = "application/x-www-form-urlencoded"
        connection.request(method, path, body=data, headers=sent)
        response = connection.getresponse()
        response.read()
        return response.status, {k.lower(): v for k, v in response.getheaders()}
    finally:
        connection.close()


def _stored(status: int, headers: dict[str, str]) -> bool:
    """A save stored: its redirect, or its page (200 naming its address, live.PAGE_HEADER)."""
    return status in (302, 303) or (status == 200 and "companion-page" in headers)


class Client:
    """Sends a table's requests and times them; with ``hello``, sends ``GET /`` of the hello app
    instead of each, keeping the table's versions itself, so that the hello run sends exactly
    the requests of the app run (its saves all succeed)."""

    def __init__(self, measures: Measures, hello: bool) -> None:
        self.measures = measures
        self.hello = hello

    def __call__(self, kind: str, base: str, method: str, path: str,
                 ok: tuple[int, ...] | Callable[[int, dict[str, str]], bool],
                 **kwargs: object) -> tuple[int, dict[str, str]]:
        if self.hello:
            method, path, ok, kwargs = "GET", "/", (200,), {}
        start = time.perf_counter()
        try:
            status, headers = _request(base, method, path, **kwargs)  # type: ignore[arg-type]
        except OSError:
            self.measures.add(kind, time.perf_counter() - start, False)
            return 0, {}
        self.measures.add(kind, time.perf_counter() - start,
                          ok(status, headers) if callable(ok) else status in ok)
        return status, headers


class Streams:
    """The EventSource each viewer's page holds on nginx (the push rows): one socket per viewer
    on its table's channel, all read by one thread (:meth:`read`)."""

    def __init__(self, base: str, tables: list[Table]) -> None:
        parts = urllib.parse.urlsplit(base)
        self.selector = selectors.DefaultSelector()
        self.sockets: list[socket.socket] = []
        self.partial: dict[tuple[int, int], bytes] = {}
        for number, game in enumerate(tables):
            for viewer in range(VIEWERS):
                held = socket.create_connection((parts.hostname, parts.port), timeout=30)
                held.sendall(f"GET {game.push_path} HTTP/1.1\r\nHost: bench\r\n"
                             "Accept: text/event-stream\r\n\r\n".encode())
                held.setblocking(False)
                self.selector.register(held, selectors.EVENT_READ, (number, viewer))
                self.sockets.append(held)

    def read(self, timeout: float) -> list[tuple[int, int, str]]:
        """(table, viewer, message) of every whole message line read within ``timeout``."""
        found = []
        for key, _ in self.selector.select(timeout):
            held: socket.socket = key.fileobj  # type: ignore[assignment]
            try:
                data = held.recv(65536)
            except BlockingIOError:
                continue
            if not data:  # nginx closed it: counted as an error of the row
                self.selector.unregister(held)
                found.append((*key.data, ""))
                continue
            # One message per event: its data lines joined (a viewer's version, then its page's
            # part), as EventSource gives it to the page.
            *events, self.partial[key.data] = (self.partial.get(key.data, b"")
                                               + data).split(b"\n\n")
            for event in events:
                lines = [line[6:].decode() for line in event.split(b"\n")
                         if line.startswith(b"data: ")]
                if lines:
                    found.append((*key.data, "\n".join(lines)))
        return found

    def close(self) -> None:
        for held in self.sockets:
            held.close()
        self.selector.close()


def _drive(bases: list[str], tables: list[Table], seconds: float, save_every: float,
           measures: Measures, hello: bool, saves: bool = True,
           streams: Streams | None = None) -> None:
    """Play every table's events on schedule, from a pool of client threads. With several
    servers, table ``n``'s scorer uses server ``n`` and its viewers server ``n + 1`` (modulo
    their number). With ``streams`` (push), a viewer polls only every :data:`CATCH_UP` seconds
    (app.js, a stream open) and loads its page when its stream brings a new version."""
    start = time.monotonic()
    deadline = start + seconds
    events: list[tuple[float, int, str, int]] = []
    for number, game in enumerate(tables):
        offset = (number / max(len(tables), 1)) % 1.0
        every = CATCH_UP if streams else game.poll_every
        if saves:
            heapq.heappush(events, (start + offset * save_every + 0.5, number, "save", 0))
        for viewer in range(VIEWERS):
            heapq.heappush(events, (start + (offset + viewer / VIEWERS) % 1.0 * every,
                                    number, "poll", viewer))
    lock = threading.Lock()
    send = Client(measures, hello)

    def listen() -> None:
        assert streams is not None
        while time.monotonic() < deadline:
            for number, viewer, message in streams.read(0.2):
                game = tables[number]
                version, _, part = message.partition("\n")
                if not message:
                    measures.add("stream", 0.0, False)
                elif version != game.versions[viewer] and version not in ("closed", "gone"):
                    game.versions[viewer] = version
                    if part:  # the page's part came with it: swapped in, nothing asked
                        measures.add("save → viewer", time.monotonic() - game.save_started,
                                     True)
                        continue
                    with lock:
                        heapq.heappush(events, (time.monotonic(), number, "pushed", viewer))

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
            if kind == "save" and game.saved < SAVES:
                path, body = game.save()
                game.save_started = time.monotonic()
                # As the phone's outbox sends it (drafts.js): asking for the page in the answer.
                status, headers = send("save", base, "POST", path, _stored, body=body,
                                       headers={"Companion-Outbox": "page"})
                answered = status == 200 and "companion-page" in headers
                if status in (302, 303) or answered or (hello and status == 200):
                    game.saved += 1
                    if not answered:  # (the phone's fetch follows the redirect: one GET)
                        send("page", base, "GET", game.page(game.scorer), (200,))
            elif kind == "poll":
                seen = game.versions[viewer]
                status, headers = send("live", base, "GET", game.poll(), (200, 304),
                                       headers={"If-None-Match": f'"{seen}"'} if seen else {})
                if hello:  # the version the app would answer: the saves made so far
                    status, headers = ((304, {}) if seen == str(game.saved)
                                       else (200, {"etag": str(game.saved)}))
                if status == 200:
                    if seen:
                        send("viewer page", base, "GET", game.viewer_page(), (200,))
                    game.versions[viewer] = headers.get("etag", "").strip('"')
            elif kind == "pushed":  # a stream told this viewer: its page is loaded at once
                send("viewer page", base, "GET", game.viewer_page(), (200,))
                measures.add("save → viewer", time.monotonic() - game.save_started, True)
                continue
            gap = (save_every if kind == "save" else CATCH_UP if streams else game.poll_every)
            with lock:
                heapq.heappush(events, (when + gap, number, kind, viewer))

    threads = [threading.Thread(target=worker) for _ in range(THREADS)]
    if streams is not None:
        threads.append(threading.Thread(target=listen))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def _warm(bases: list[str], tables: list[Table]) -> None:
    """Open every page and poll of the given spare tables (:data:`WARM_EACH` per game) a few
    times on every server, and make their saves, before a row is measured: a fresh worker
    imports, compiles templates and fills its caches on its first requests, which no real server
    does every 20 s. The spare tables are warmed all at once, one thread each, so that every
    worker takes every game's requests: one after another they mostly reached the same worker,
    and the first save of a game in each other worker fell in the measured row (9–12 ms of CPU
    against 4–5; at a quiet moment, most of the PostgreSQL row's entry p99: issue 36, session
    10). Not measured; these tables are not in the row."""
    send = Client(Measures(), hello=False)

    def warm(game: Table) -> None:
        for base in bases:
            for _ in range(4):
                send("live", base, "GET", game.poll(), (200, 304))
                send("page", base, "GET", game.page(game.scorer), (200,))
                send("viewer page", base, "GET", game.viewer_page(), (200,))
        while game.saved < SAVES:
            path, body = game.save()
            send("save", bases[game.saved % len(bases)], "POST", path, (302, 303), body=body)
            game.saved += 1
            for base in bases:
                send("viewer page", base, "GET", game.viewer_page(), (200,))

    threads = [threading.Thread(target=warm, args=(game,)) for game in tables]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def _games(config: dict[str, object], count: int, kinds: list[str]) -> list[Table]:
    from companion import create_app
    from companion.db import get_session
    from companion.play import kanai_duel, princesse_princesse, reveillez, store
    from companion.play import rebel_princess as play
    from companion.scoring.rebel_princess import Edition

    app = create_app(config)  # migrates before the workers start
    tables = []
    with app.app_context():
        session = get_session()
        for number in range(count):
            kind = kinds[number % len(kinds)]
            if kind == "rebel-princess":
                game = play.create_game(session=session, edition=Edition.DELUXE, names=NAMES4,
                                        first_leader=0, round_cards="abcde")
            elif kind == "princesse-princesse":
                game = princesse_princesse.create_game(session=session, names=NAMES4, first=0)
            elif kind == "reveillez":
                game = reveillez.create_game(session=session, names=NAMES4, first=0,
                                             variant=False, show_values=False)
            else:
                game, _ = kanai_duel.create(session=session, names=NAMES4[:2], mode="referee",
                                            variants=[])
            session.commit()
            links = store.links_of(session, game)
            tables.append(Table(kind, links["scorer"].token, links["viewer"].token, number))
    app.extensions["companion.engine"].dispose()
    return tables


def _stored_once(config: dict[str, object], tables: list[Table]) -> bool:
    """Every entry a scorer was told was saved is stored exactly once, and nothing else."""
    from sqlalchemy import text

    from companion import create_app

    app = create_app(config)
    engine = app.extensions["companion.engine"]
    good = True
    with engine.connect() as db:
        for game in tables:
            sql = ("SELECT r.number FROM roundrecord r JOIN gamelink k ON k.game_id = r.game_id "
                   "WHERE k.token = :token ORDER BY r.number" if game.kind == "rebel-princess"
                   else "SELECT e.seq FROM entry e JOIN gamelink k ON k.game_id = e.game_id "
                        "WHERE k.token = :token ORDER BY e.seq")
            rows = db.execute(text(sql), {"token": game.scorer}).all()
            good &= [row[0] for row in rows] == list(range(1, game.saved + 1))
    engine.dispose()
    return good


def _p(values: list[float], q: float) -> float | None:
    if not values:
        return None
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def _ms(seconds: float | None) -> str:
    return "–" if seconds is None else f"{seconds * 1000:.1f} ms"


def _own_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


@dataclass
class Row:
    load: str
    database: str
    requests: int
    took: float
    app_cpu: float
    db_cpu: float | None
    generator_cpu: float
    table_seconds: float
    entry: list[float]
    viewers: list[float]
    errors: int
    stored: str
    polls: int = 0
    background: float = 0.0
    proxy_cpu: float | None = None  # nginx's, in the push rows

    @property
    def cpu(self) -> float:
        return self.app_cpu + (self.db_cpu or 0.0) + (self.proxy_cpu or 0.0)

    @property
    def per_table_second(self) -> float:
        return self.cpu / self.table_seconds

    def cells(self, hello: Row) -> list[str]:
        p99, hello_p99 = _p(self.entry, .99), _p(hello.entry, .99)
        server = f"{self.cpu / self.took:.2f}"
        parts = [self.app_cpu] + [cpu for cpu in (self.db_cpu, self.proxy_cpu) if cpu is not None]
        if len(parts) > 1:
            server += f" ({' + '.join(f'{cpu / self.took:.2f}' for cpu in parts)})"
        return [self.load, self.database, f"{self.requests / self.took:,.0f}",
                _ms(_p(self.entry, .5)), _ms(p99),
                f"{p99 / hello_p99:.1f}×" if p99 and hello_p99 and self is not hello else "–",
                _ms(_p(self.viewers, .99)), str(self.errors), self.stored, server,
                f"{self.per_table_second * 1000:.2f} ms",
                f"{self.per_table_second / hello.per_table_second:.1f}×"
                if self is not hello else "1×",
                f"{1 / self.per_table_second:,.0f}",
                f"{self.generator_cpu / self.took:.2f}", f"{self.took:.0f} s"]


WORKERS = int(os.environ.get("WEB_CONCURRENCY") or 2 * (os.cpu_count() or 1))
"""The workers of deploy/gunicorn.conf.py: ``WEB_CONCURRENCY``, else 2 per core."""
WARM_EACH = 2 * WORKERS
"""Spare tables of each game warmed at once before a row (:func:`_warm`): twice as many
requests at a time as the workers, so that every worker takes some of each game's."""


def _shipped(folder: str, name: str, servers: int) -> dict[str, str]:
    """The environment of a server with the shipped settings: :data:`WORKERS` in all (shared
    by ``servers``), its /metrics counts in a folder of its own in ``folder`` (the run's in
    memory, as the unit's /run/companion, a tmpfs; the shipped file empties it at start; its
    workers' heartbeat files in memory too, as the shipped file puts them)."""
    return {"WEB_CONCURRENCY": str(max(WORKERS // servers, 1)),
            "PROMETHEUS_MULTIPROC_DIR": str(Path(folder) / f"metrics-{name}")}


def _postgres_database(url: str) -> str:
    return urllib.parse.urlsplit(url).path.lstrip("/")


def _measure(bases: list[str], servers: list[object], games: list[Table], seconds: float,
             save_every: float, hello: bool, saves: bool, postgres: str | None,
             proxy: Nginx | None = None, streams: Streams | None = None
             ) -> tuple[Measures, float, float, float, PostgresCpu | None, float | None]:
    """Drive the load; returns (measures, took, gunicorn CPU, load generator CPU, PG CPU, nginx
    CPU)."""
    measures = Measures()
    database = PostgresCpu(_postgres_database(postgres)).start() if postgres else None
    cpu = sum(s.cpu_seconds() for s in servers)  # type: ignore[attr-defined]
    proxy_cpu = proxy.cpu_seconds() if proxy else 0.0
    own, start = _own_cpu(), time.monotonic()
    _drive(bases, games, seconds, save_every, measures, hello=hello, saves=saves, streams=streams)
    took = time.monotonic() - start
    own = _own_cpu() - own
    cpu = sum(s.cpu_seconds() for s in servers) - cpu  # type: ignore[attr-defined]
    if database is not None:
        database.stop()
        own -= database.sampler_cpu
    return (measures, took, cpu, own, database,
            proxy.cpu_seconds() - proxy_cpu if proxy else None)


def _page(base: str, path: str) -> str:
    parts = urllib.parse.urlsplit(base)
    connection = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port, timeout=30)
    try:
        connection.request("GET", path)
        return connection.getresponse().read().decode()
    finally:
        connection.close()


def _follow(base: str, games: list[Table]) -> Streams:
    """Each viewer opens its page (its version and its stream's address, as a phone's page
    has them) and holds its stream; then a moment for the streams' first answers (not
    measured)."""
    for game in games:
        page = _page(base, game.page(game.viewer))
        found = re.search(r'data-push-url="([^"]+)"', page)
        version = re.search(r'data-live-version="([^"]+)"', page)
        if not found or not version:
            raise RuntimeError(f"{game.kind}: the viewer page names no stream (push not set?)")
        game.push_path, game.versions = found.group(1), [version.group(1)] * VIEWERS
    streams = Streams(base, games)
    deadline = time.monotonic() + 2
    while time.monotonic() < deadline:
        for number, viewer, message in streams.read(0.2):
            version = message.partition("\n")[0]
            if version and version not in ("closed", "gone"):
                games[number].versions[viewer] = version
    return streams


def run(tables: int, seconds: float, save_every: float, postgres: str | None,
        kinds: list[str], notes: dict[str, float], push: bool = True,
        only: list[str] | None = None) -> list[list[str]]:
    rows: list[Row] = []
    with tempfile.TemporaryDirectory() as folder, tempfile.TemporaryDirectory(dir=MEMORY) as memory:
        with gunicorn("bench.hello:app", env=_shipped(memory, "hello", 1), timeout=START,
                      workers=None, config=SHIPPED_CONFIG) as server:
            for _ in range(20):
                _request(server.base, "GET", "/")
            fake = [Table(kinds[n % len(kinds)], "", "", n) for n in range(tables)]
            measures, took, cpu, own, _, _ = _measure([server.base], [server], fake, seconds,
                                                      save_every, True, True, None)
        hello = Row(f"hello, {tables} tables' worth", "–", measures.count(*measures.latency),
                    took, cpu, None, own, tables * seconds,
                    [t for times in measures.latency.values() for t in times], [],
                    sum(measures.errors.values()), "–")
        rows.append(hello)
        notes[f"hello {tables}"] = cpu / max(measures.count(*measures.latency), 1)
        backends: list[tuple[str, dict[str, str], int, bool, bool]] = [
            ("SQLite", {"DATABASE": str(Path(folder) / "tables.sqlite")}, 1, True, False),
            (FULL, {"DATABASE": str(Path(folder) / "steady.sqlite")}, 1, True, False)]
        if postgres:
            backends += [("PostgreSQL", {"DATABASE_URL": postgres}, 1, True, False),
                         ("PostgreSQL, two servers", {"DATABASE_URL": postgres}, 2, True, False)]
        backends += [("SQLite", {"DATABASE": str(Path(folder) / "polls.sqlite")}, 1, False, False)]
        if postgres:
            backends += [("PostgreSQL", {"DATABASE_URL": postgres}, 1, False, False)]
        if push and postgres:
            backends += [("PostgreSQL" + PUSH, {"DATABASE_URL": postgres}, 1, True, True),
                         ("PostgreSQL, two servers" + PUSH, {"DATABASE_URL": postgres}, 2, True,
                          True)]
        elif push:
            backends += [("SQLite" + PUSH, {"DATABASE": str(Path(folder) / "push.sqlite")}, 1,
                          True, True)]
        if only:  # --rows: the rows named, in that order (the hello row is always run first)
            backends = [b for row in only for b in backends
                        if (b[0] if b[3] else b[0] + POLLS_ONLY) == row]
        for name, db, count, saves, pushed in backends:
            config = {"SECRET_KEY": "bench", "WTF_CSRF_ENABLED": False,
                      "RATELIMIT_ENABLED": False, "DATABASE": str(Path(folder) / "x.sqlite"),
                      **db}
            if "DATABASE_URL" in db:
                _empty_postgres(config)
            games = _games(config, tables + len(kinds) * WARM_EACH, kinds)
            games, spare = games[:tables], games[tables:]
            pages = Path(folder) / f"pages-{len(rows)}"  # each row's own page store
            if name == FULL:
                _fill_page_store(pages)
            env = {"COMPANION_BENCH_DB": str(config["DATABASE"]),
                   "COMPANION_BENCH_DATABASE_URL": str(db.get("DATABASE_URL", "")),
                   "COMPANION_BENCH_CACHE_DIR": str(pages)}
            publisher = free_port()
            if pushed:
                env["COMPANION_BENCH_PUSH_URL"] = f"http://127.0.0.1:{publisher}/pub/"
            with contextlib.ExitStack() as stack:
                running = [stack.enter_context(gunicorn(
                    "bench.wsgi:app", env={**env, **_shipped(memory, f"{len(rows)}-{n}", count)},
                    timeout=START, workers=None, config=SHIPPED_CONFIG)) for n in range(count)]
                proxy = (stack.enter_context(nginx([r.base for r in running], publisher))
                         if pushed else None)
                bases = [proxy.base] if proxy else [r.base for r in running]
                _warm(bases, spare)
                streams = None
                if proxy:
                    before = proxy.pss_mb()
                    streams = stack.enter_context(contextlib.closing(_follow(proxy.base, games)))
                    notes[f"nginx kB {name} {tables}"] = ((proxy.pss_mb() - before) * 1024
                                                          / (len(games) * VIEWERS))
                measures, took, cpu, own, pg, proxy_cpu = _measure(
                    bases, running, games, seconds, save_every, False, saves,
                    db.get("DATABASE_URL"), proxy, streams)
                if name == "SQLite" and saves:
                    sizes = [pss_mb(pid) for pid in children(running[0].pid)]
                    notes["worker MB"] = max((s for s in sizes if s), default=math.nan)
            row = Row(f"{tables} tables" + ("" if saves else ", live polls only"), name,
                      measures.count(*measures.latency), took, cpu,
                      pg.seconds if pg else None, own, tables * seconds,
                      measures.latency.get("save", []),
                      measures.latency.get("live", []) + measures.latency.get("viewer page", []),
                      sum(measures.errors.values()),
                      ("yes" if _stored_once(config, games) else "NO") if saves else "–",
                      polls=measures.count("live"), background=pg.background if pg else 0.0,
                      proxy_cpu=proxy_cpu)
            rows.append(row)
            if pushed:
                shown = measures.latency.get("save → viewer", [])
                notes[f"push p50 {name} {tables}"] = _p(shown, .5) or math.nan
                notes[f"push p95 {name} {tables}"] = _p(shown, .95) or math.nan
                notes[f"push shown {name} {tables}"] = len(shown)
                # Pages a viewer loaded: after a message with the version alone, or a catch-up
                # poll that found a change (none while every part comes whole).
                notes[f"push loaded {name} {tables}"] = measures.count("viewer page")
                polled = next((r for r in rows if r.database == name.removesuffix(PUSH)
                               and r.stored != "–"), None)
                if polled is not None:  # (--rows may leave the polling row out)
                    notes[f"push ÷ polls {name} {tables}"] = (row.per_table_second
                                                              / polled.per_table_second)
            print(f"{row.load}, {name}: took {took:.0f} s", file=sys.stderr, flush=True)
            if name == FULL:
                notes["store full"] = row.per_table_second / next(
                    r for r in rows if r.database == "SQLite").per_table_second
            if not saves:
                full = next((r for r in rows if r.database == name and r.stored != "–"), None)
                if full is not None:  # (--rows may leave the row with saves out)
                    notes[f"polls {name} {tables}"] = row.per_table_second / full.per_table_second
                notes[f"poll ms {name} {tables}"] = row.cpu / max(row.polls, 1)
            if pg:
                notes[f"background {name} {tables}"] = pg.background / max(pg.seconds, 1e-9)
    return [row.cells(hello) for row in rows]


POLLS_ONLY = ", live polls only"
"""What ``--rows`` adds to a backend's name for its row without saves."""
PUSH = " behind nginx, push"
"""The push rows: nginx with Nchan in front of the app (bench.push's site: the shipped publisher
and subscriber locations), its CPU counted with the app's and PostgreSQL's; each viewer holds an
EventSource on its table's viewers' channel (its page's language), polls every :data:`CATCH_UP` s,
and takes the page's part a pushed message brings (no request; a message with the version alone
loads the page, as app.js reloads)."""
STORE_BOUND = 1000  # the app's CACHE_THRESHOLD
START = 120.0  # seconds a server may take to answer first (a busy shared machine)
FULL = "SQLite, page store full"
"""The steady state: the same row on a page store already at its bound (``CACHE_THRESHOLD``
drawings, as after a few minutes of play), where the other SQLite row starts empty."""


def _fill_page_store(folder: Path) -> None:
    """The page store of a row filled to its bound with drawings of a score pad's size."""
    from companion.web.page_files import PageFiles

    store = PageFiles(str(folder), threshold=STORE_BOUND, default_timeout=2 * 3600)
    for n in range(STORE_BOUND):
        store.set(f"an earlier page {n}", os.urandom(7 * 1024))


def _empty_postgres(config: dict[str, object]) -> None:
    """The bench's PostgreSQL database at this code's schema, every table emptied."""
    from sqlalchemy import text
    from sqlmodel import SQLModel

    from companion import create_app
    from companion.db import upgrade

    app = create_app(config)
    upgrade(app.extensions["companion.engine"])  # a bench database kept from an older release
    names = ", ".join(f'"{t.name}"' for t in SQLModel.metadata.sorted_tables)
    with app.extensions["companion.engine"].begin() as db:
        db.execute(text(f"TRUNCATE {names} RESTART IDENTITY CASCADE"))
    app.extensions["companion.engine"].dispose()


HEADERS = ["load", "database", "req/s", "entry p50", "entry p99", "p99 ÷ hello", "viewers p99",
           "errors", "each entry stored once", "server CPU s/s (app + database)",
           "CPU per table-second", "÷ hello", "tables per busy core", "load generator CPU s/s",
           "took"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, nargs="+", default=[50, 200])
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--save-every", type=float, default=4.0)
    parser.add_argument("--games", nargs="+", choices=GAMES, default=GAMES)
    parser.add_argument("--postgres", default=os.environ.get("BENCH_DATABASE_URL"))
    parser.add_argument("--no-push", dest="push", action="store_false",
                        help="leave out the push rows (nginx with Nchan in front)")
    parser.add_argument("--rows", nargs="+", metavar="ROW",
                        help="only these rows, in this order (after the hello row), by their "
                             "database column, "
                             "e.g. 'PostgreSQL, two servers behind nginx, push'; the rows "
                             "without saves end in ', live polls only'")
    args = parser.parse_args()
    load = os.getloadavg()
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    rows: list[list[str]] = []
    notes: dict[str, float] = {}
    for count in args.tables:
        rows += run(count, args.seconds, args.save_every, args.postgres, args.games, notes,
                    args.push, args.rows)
    print(table(HEADERS, rows, "ll" + "r" * 6 + "l" + "r" * 6))
    print(f"\n{NOT_AS_SHIPPED}")
    print(f"\n{started}; load average at start {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} "
          f"(1 / 5 / 15 min), at the end {os.getloadavg()[0]:.1f}; {os.cpu_count()} cores. "
          f"Tables: {', '.join(args.games)} in turn; {args.seconds:.0f} s of load per row; "
          f"gunicorn with deploy/gunicorn.conf.py ({WORKERS} sync workers), or two servers of "
          f"{WORKERS // 2} (a table's scorer on one, its viewers "
          f"on the other); a save every {args.save_every:.0f} s per table ({SAVES} in all); "
          f"{VIEWERS} viewers per table; *server CPU s/s*: CPU seconds of the gunicorn processes "
          f"plus PostgreSQL's (its backends for this database and its background processes, "
          f"from /proc) per second of the row (2.00 at most on 2 cores); *CPU per "
          f"table-second*: that CPU over tables × {args.seconds:.0f} s; *÷ hello*: over the "
          f"hello row's, which sent the same requests to a plain Flask view; *tables per busy "
          f"core*: 1,000 ms over it; *load generator*: this process's CPU per second, on the "
          f"same cores; *took*: how long the row's requests ran (longer than "
          f"{args.seconds:.0f} s when the server fell behind: the events due are all still "
          f"sent, late; req/s is over this time).")
    for count in args.tables:
        for name in ("SQLite", "PostgreSQL"):
            if f"poll ms {name} {count}" in notes:
                share = (f"the live polls alone cost {notes[f'polls {name} {count}']:.0%} of a "
                         f"table's CPU; " if f"polls {name} {count}" in notes else "")
                print(f"- {count} tables, {name}: {share}one poll answered "
                      f"304 costs {notes[f'poll ms {name} {count}'] * 1000:.2f} ms of server "
                      f"CPU (a hello: {notes[f'hello {count}'] * 1000:.2f} ms per request).")
        for name in ("PostgreSQL", "PostgreSQL, two servers"):
            if f"background {name} {count}" in notes:
                print(f"- {count} tables, {name}: PostgreSQL's background processes are "
                      f"{notes[f'background {name} {count}']:.0%} of its CPU.")
    for count in args.tables:
        for name in ("SQLite", "PostgreSQL", "PostgreSQL, two servers"):
            key = f"{name + PUSH} {count}"
            if f"push p50 {key}" in notes:
                ratio = (f"{notes[f'push ÷ polls {key}']:.2f}× the CPU per table-second of the "
                         f"same tables polling ({name}, this run); "
                         if f"push ÷ polls {key}" in notes else "")
                print(f"- {count} tables, {name} behind nginx with push: {ratio}save → viewer's "
                      f"page shown p50 "
                      f"{_ms(notes[f'push p50 {key}'])}, p95 {_ms(notes[f'push p95 {key}'])} "
                      f"({notes[f'push shown {key}']:.0f} pages, "
                      f"{notes[f'push loaded {key}']:.0f} of them loaded by a request); nginx "
                      f"{notes[f'nginx kB {key}']:.1f} kB per held phone (PSS).")
    if "store full" in notes:
        print(f"- SQLite on a page store already at its bound (1,000 drawings) against an empty "
              f"one, same run: {notes['store full']:.2f}× the CPU per table-second.")
    if "worker MB" in notes:
        mb = notes["worker MB"]
        phones = [count * (VIEWERS + 1) for count in args.tables]
        print(f"- A sync worker of the app: {mb:.0f} MB (PSS, after the SQLite row). A "
              f"connection held open per page (server-sent events, long polling) holds a sync "
              f"worker each: " + ", ".join(f"{p:,} phones ({p // (VIEWERS + 1)} tables) ≈ "
                                            f"{p * mb / 1024:.1f} GB" for p in phones) + ".")


if __name__ == "__main__":
    main()
