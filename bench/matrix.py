"""The HTTP matrix: for every game, its save, its page and its live check, in server CPU per
request, next to a plain Flask "hello" measured in the same run.

Every row runs for ``--duration`` seconds (16 connections, the bounded Python client of
:mod:`bench.http`: each save posts to another game) against ``gunicorn -w 2
--no-control-socket`` on a free loopback port; the server's CPU (master and workers, from
``/proc``) over the row is divided by the answers. Rows:

* ``hello``: :mod:`bench.hello` under the same gunicorn settings — first and last, so the
  anchor brackets the rows (the table shows both and their mean);
* for each game, on :mod:`bench.wsgi` (the app, CSRF off for the load test only):

  - **save**: the game's ordinary entry on a fresh game per request, so every request stores
    something (Rebel Princess: round 1 by cards; Princesse Princesse: a round end; Réveillez: a
    princess woken; the Kanai duel: a referee round). Only the game's success status counts
    (302/303);
  - **page**: ``GET`` of the game's page through its viewer link, a game with one entry (what
    every phone at the table loads after a save);
  - **live**: ``GET /live/<viewer token>`` with ``If-None-Match`` (304: nothing changed), what
    every open page asks once a second (one route for every game).

``--before <git ref>`` also measures the saves of that commit, in the same run: its code is
checked out in a temporary ``git worktree`` and served by the same gunicorn from there, on a
copy of the same database. The anchor comparisons are only valid within one run; the load
average is printed.

Run: ``python -m bench.matrix [--duration 6] [--before <ref>]``.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import shutil
import sqlite3
import subprocess
import tempfile
import time
import urllib.parse
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import NAMES4, ROOT, Server, gunicorn, table
from .http import Result, measured, run_python_client

FORM = {"Content-Type": "application/x-www-form-urlencoded"}
RP_ROUND = {"base": "", "leader": "", "P1": "0", "P2": "1", "P3": "2", "P4": "0", "P5": "3",
            "P6": "1", "P7": "0", "P8": "2", "P9": "3", "P10": "0", "A8": "2"}
"""Round 1 of a 4-player Deluxe game on Round card a (Princes 1-10 and the Frog)."""
SAVES_PER_SECOND = 150
"""Fresh games prepared per game and second of a save row (``--rate``): a save costs 3-10 ms of
server CPU, so 2 cores serve 200-600 a second at most. A row that runs out stops early (the
table says so); its CPU per request stays right."""
WARM = 8  # untimed requests before each row (each worker's first answers)


@dataclass
class Fresh:
    """A game prepared for one request: its scorer and viewer tokens and its version."""

    scorer: str
    viewer: str
    version: int


@dataclass
class Game:
    """What the matrix sends for one game."""

    key: str
    label: str
    prefix: str
    save_status: int
    save_path: Callable[[Fresh], str]
    save_body: Callable[[Fresh, int], dict[str, Any]]


GAMES = (
    Game("rebel_princess", "Rebel Princess", "/rebel-princess", 302,
         lambda g: f"/rebel-princess/g/{g.scorer}/round/1/cards", lambda g, i: RP_ROUND),
    Game("princesse_princesse", "Princesse Princesse", "/princesse-princesse", 303,
         lambda g: f"/princesse-princesse/g/{g.scorer}/round",
         lambda g, i: {"version": g.version, "key": f"bench-key-{i:08d}", "step": "2",
                       "in": ["0", "1"], "card-0": "3", "card-1": "5"}),
    Game("reveillez", "Réveillez", "/reveillez", 303,
         lambda g: f"/reveillez/g/{g.scorer}/act",
         lambda g, i: {"version": g.version, "key": f"bench-key-{i:08d}", "do": "wake",
                       "slot": "3", "value": "15"}),
    Game("kanai_duel", "Kanai duel", "/kanai-duel", 303,
         lambda g: f"/kanai-duel/g/{g.scorer}/round",
         lambda g, i: {"first": "prince", "second": "clown", "version": g.version}),
)


def _create(key: str, session: Any) -> Any:
    """A new game of ``key`` through its glue, as its set-up page makes it."""
    from companion.play import kanai_duel, princesse_princesse, reveillez
    from companion.play import rebel_princess as rebel
    from companion.scoring.rebel_princess import Edition

    if key == "rebel_princess":
        return rebel.create_game(session=session, edition=Edition.DELUXE, names=NAMES4,
                                 first_leader=0, round_cards=list("abcde"))
    if key == "princesse_princesse":
        return princesse_princesse.create_game(session=session, names=NAMES4[:3], first=0)
    if key == "reveillez":
        return reveillez.create_game(session=session, names=NAMES4[:3], first=0,
                                     variant=False, show_values=False)
    return kanai_duel.create(session=session, names=NAMES4[:2], mode="referee",
                             variants=[])[0]


def prepare(path: Path, count: int) -> dict[str, list[Fresh]]:
    """The database with ``count`` fresh games of each kind (and one more, the page's)."""
    from sqlmodel import Session

    from companion import create_app
    from companion.db import get_engine
    from companion.play import store

    app = create_app({"DATABASE": str(path), "SECRET_KEY": "bench", "WTF_CSRF_ENABLED": False})
    found: dict[str, list[Fresh]] = {}
    with app.app_context():
        engine = get_engine()
        with Session(engine, expire_on_commit=False) as session:
            for game in GAMES:
                made = []
                for _ in range(count + 1):
                    row = _create(game.key, session)
                    links = store.links_of(session, row)
                    made.append(Fresh(links["scorer"].token, links["viewer"].token,
                                      store.version(session, row)))
                found[game.key] = made
        engine.dispose()
    return found


def copy_database(source: Path, target: Path) -> None:
    """A consistent copy of a SQLite database (WAL included)."""
    with sqlite3.connect(source) as src, sqlite3.connect(target) as dst:
        src.backup(dst)


@contextlib.contextmanager
def old_checkout(ref: str) -> Iterator[Path]:
    """The code of ``ref`` in a temporary git worktree (its compiled catalogues copied from
    this checkout), removed afterwards."""
    folder = Path(tempfile.mkdtemp(prefix="companion-bench-before-"))
    target = folder / "src"
    subprocess.run(["git", "worktree", "add", "--detach", str(target), ref], cwd=ROOT,
                   check=True, capture_output=True)
    try:
        for mo in (ROOT / "companion" / "translations").rglob("*.mo"):
            dest = target / mo.relative_to(ROOT)
            if dest.parent.exists():
                shutil.copyfile(mo, dest)
        yield target
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(target)], cwd=ROOT,
                       check=False, capture_output=True)
        shutil.rmtree(folder, ignore_errors=True)


def run(duration: float = 6.0, before: str | None = None,
        rate: int = SAVES_PER_SECOND) -> str:
    lines: list[str] = []

    def say(text: str = "") -> None:
        print(text, flush=True)
        lines.append(text)

    count = int(rate * duration)
    with contextlib.ExitStack() as stack:
        tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="companion-matrix-")))
        db = tmp / "bench.sqlite"
        started = time.monotonic()
        fresh = prepare(db, count)
        print(f"[matrix] {count + 1} games of each kind in {time.monotonic() - started:.0f} s",
              flush=True)
        before_db = tmp / "before.sqlite"
        if before:
            copy_database(db, before_db)
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, text=True,
                                capture_output=True).stdout.strip()
        load_before = os.getloadavg()
        results: list[tuple[str, str, Result]] = []

        def load(server: Server, game: str, what: str, result: Result,
                 make_request: Callable[[int], Any], warm: list[int]) -> None:
            for i in warm:  # each worker's first answers (templates, caches) are not timed
                spec = make_request(i)
                if spec is not None:
                    _send(server.base, *spec)
            print(f"[matrix] {game} {what} for {duration:.0f} s", flush=True)
            measured(server, result, lambda: run_python_client(server.base, make_request,
                                                                duration, result))
            results.append((game, what, result))

        def hello() -> None:
            with gunicorn("bench.hello:app") as server:
                load(server, "hello", "GET /", Result("hello", 200),
                     lambda i: ("GET", "/", b"", {}), list(range(WARM)))

        def save(server: Server, game: Game, todo: list[Fresh], tag: str) -> None:
            def request(i: int) -> Any:
                if i >= len(todo):
                    return None
                body = urllib.parse.urlencode(game.save_body(todo[i], i), doseq=True)
                return ("POST", game.save_path(todo[i]), body.encode(), FORM)

            # The warm-up takes the last games, which the timed requests never reach.
            load(server, game.label, f"save{tag}", Result(game.key, game.save_status), request,
                 [len(todo) - 1 - k for k in range(WARM)])
            label, what, result = results[-1]
            if result.requests >= len(todo) - WARM:  # every fresh game used: stopped early
                results[-1] = (label, f"{what}, ran out after {result.duration_s:.1f} s",
                               result)

        hello()
        env = {"COMPANION_BENCH_DB": str(db)}
        server = stack.enter_context(gunicorn("bench.wsgi:app", env=env,
                                              probe="/api/v1/openapi.json"))
        old = None
        if before:
            source = stack.enter_context(old_checkout(before))
            old = stack.enter_context(gunicorn(
                "bench.wsgi:app", env={"COMPANION_BENCH_DB": str(before_db),
                                       "PYTHONPATH": str(source)},
                probe="/api/v1/openapi.json", cwd=source))
        # Each game's page: a game with one entry, saved before the rows.
        for game in GAMES:
            first = fresh[game.key][0]
            _post(server.base, game.save_path(first), game.save_body(first, 10**8))
        for game in GAMES:  # this commit's save and the older one's, one after the other
            save(server, game, fresh[game.key][1:], "")
            if old is not None:
                save(old, game, fresh[game.key][1:], f" ({before})")
        for game in GAMES:
            first = fresh[game.key][0]
            page = f"{game.prefix}/g/{first.viewer}"
            load(server, game.label, "page", Result(game.key, 200),
                 lambda i, page=page: ("GET", page, b"", {}), list(range(WARM)))
            live = f"/live/{first.viewer}"
            etag = _etag(server.base, live)
            load(server, game.label, "live", Result(game.key, 304),
                 lambda i, live=live, etag=etag: ("GET", live, b"", {"If-None-Match": etag}),
                 list(range(WARM)))
        stack.close()  # servers stopped before the closing anchor
        hello()
        load_after = os.getloadavg()

    anchors = [r.cpu_ms_per_request for game, _, r in results if game == "hello"]
    anchor = sum(anchors) / len(anchors)
    rows = []
    for game, what, r in results:
        if game == "hello":
            continue
        rows.append([game, what, f"{r.rate:,.0f}", f"{r.p50_ms:.1f}", f"{r.p99_ms:.1f}",
                     r.errors, f"{r.cpu_ms_per_request:.2f}",
                     f"{r.cpu_ms_per_request / anchor:.1f}×"])
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    say(f"HTTP matrix: gunicorn -w 2 (sync) --no-control-socket, 16 connections, "
        f"~{duration:.0f} s per row, the bounded Python client of bench.http on the same "
        f"machine, SQLite; commit {commit}, {when}.")
    say()
    say(f"Anchor: hello (plain Flask) {anchors[0]:.2f} ms CPU/req at the start, {anchors[-1]:.2f} "
        f"at the end; the ratios are against their mean, {anchor:.2f} ms.")
    say()
    say(table(["game", "request", "req/s", "p50 ms", "p99 ms", "errors", "server CPU ms/req",
               "× hello"], rows, align="llrrrlrr"))
    say()
    say(f"- Load average (1 min) before/after: {load_before[0]:.2f} / {load_after[0]:.2f} on "
        f"{os.cpu_count()} cores (the machine is shared: compare rows of this run only).")
    say("- save: a fresh game per request, only the game's success status counted; page: the "
        "viewer link's page of a game with one entry; live: `/live/<viewer token>` answered "
        "304 (one route for every game).")
    if before:
        say(f"- `save ({before})`: the same saves served by the code of {before} (a temporary "
            "git worktree), on a copy of the same database, in the same run.")
    return "\n".join(lines)


def _post(base: str, path: str, body: dict[str, Any]) -> None:
    from .http import post_status

    status = post_status(base, path, urllib.parse.urlencode(body, doseq=True).encode())
    if status not in (302, 303):
        raise RuntimeError(f"pre-flight save of {path} answered {status}")


def _send(base: str, method: str, path: str, body: bytes, headers: dict[str, str]) -> None:
    import http.client

    url = urllib.parse.urlsplit(base)
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
    try:
        conn.request(method, path, body=body, headers=headers)
        conn.getresponse().read()
    finally:
        conn.close()


def _etag(base: str, path: str) -> str:
    import http.client

    url = urllib.parse.urlsplit(base)
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=10)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        response.read()
        return re.sub(r"^W/", "", response.getheader("ETag") or "")
    finally:
        conn.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=float, default=6.0, help="seconds per row")
    parser.add_argument("--before", default=None,
                        help="a git ref whose saves are measured too, in the same run")
    parser.add_argument("--rate", type=int, default=SAVES_PER_SECOND,
                        help="fresh games per game kind and second of a save row")
    args = parser.parse_args()
    run(args.duration, args.before, args.rate)


if __name__ == "__main__":
    main()
