"""One push save cycle of a table in process, per game: what the app's CPU goes to between two
saves of a table of ``bench.tables``' push rows, where the load of a shared machine disturbs a
figure least.

A table's scorer posts the next entry as ``bench.tables`` does (the same forms, CSRF and rate
limits off as in ``bench.wsgi``), the app publishes to a proxy that says every viewers' channel
has listeners (the publisher calls are answered in process: their cost, about 0.65 ms a save,
is nginx's and the socket's, measured by bench.tables), so the save draws the viewers' part;
the scorer gets the page the save leads to as the phone's outbox does: in the save's answer
where the save drew it (``Companion-Outbox: page``), else by loading the page its redirect
names. Timed with the thread's CPU clock around the WSGI app: **save** (the POST, its
publishing and its drawing, and the page when it answers with it), of which **drawing** (the
viewers' part), and **page** (the scorer's GET after it, if any); and the SQL statements of
each.

Run: ``python -m bench.save_cycle [--tables 8] [--database-url postgresql://…] [--profile]``
(``--profile``: the cycle's functions by their own CPU, cProfile, on top).
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import pstats
import re
import statistics
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from sqlalchemy import event

from . import table
from .tables import GAMES, SAVES, Table, _games

COLUMNS = ("save", "drawing", "page", "cycle", "wall")
KINDS = {"rebel-princess": "Rebel Princess", "princesse-princesse": "Princesse Princesse",
         "reveillez": "Réveillez", "kanai-duel": "Kanai duel"}


def _fake_calls(monkey: dict[str, Any], listening: set[str]) -> None:
    """The publisher location answered in process: the channels of ``listening`` have five
    listeners each (the viewers' channel of their page's language), the others none; a
    channel's ``GET`` and a publish answered with its channel info, as Nchan answers them."""
    from companion.play import push

    def call(base: str, method: str, name: str, body: str | None = None) -> tuple[int, bytes]:
        info = b'{"messages": 1, "requested": 0, "subscribers": %d}' % (
            5 if name in listening else 0)
        if method == "GET":
            return 200, info
        return (202, info) if method == "POST" else (200, b"")
    monkey["call"] = push._call  # noqa: SLF001  (the proxy's calls, answered here)
    push._call = call  # noqa: SLF001


@contextlib.contextmanager
def _counting(engines: list[Any], seen: list[str]) -> Iterator[None]:
    def note(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        seen.append(statement)
    for engine in engines:
        event.listen(engine, "before_cursor_execute", note)
    try:
        yield
    finally:
        for engine in engines:
            event.remove(engine, "before_cursor_execute", note)


def run(tables: int, database_url: str | None, profile: bool) -> None:
    from companion import create_app
    from companion.db import reader
    from companion.play import push

    monkey: dict[str, Any] = {}
    listening: set[str] = set()
    _fake_calls(monkey, listening)
    with tempfile.TemporaryDirectory() as folder:
        config: dict[str, object] = {
            "SECRET_KEY": "bench", "WTF_CSRF_ENABLED": False, "RATELIMIT_ENABLED": False,
            "DATABASE": str(Path(folder) / "cycle.sqlite"), "CACHE_DIR": str(Path(folder) / "p"),
            "LIVE_PUSH_PUBLISH_URL": "http://127.0.0.1:9/pub/"}
        if database_url:
            from .tables import _empty_postgres
            config["DATABASE_URL"] = database_url
            _empty_postgres(config)
        games = _games(config, tables * len(GAMES), GAMES)
        app = create_app(config)
        engine = app.extensions["companion.engine"]
        engines = [engine] + ([reader(engine)] if reader(engine) is not engine else [])
        publisher = push._PUBLISHERS[engine]  # noqa: SLF001  (its drawing timed)
        drawn: list[float] = []
        draw = publisher.draw
        assert draw is not None

        def timed_draw(game_id: int, lang: str) -> str | None:
            start = time.thread_time()
            try:
                return draw(game_id, lang)
            finally:
                drawn.append(time.thread_time() - start)
        push._PUBLISHERS[engine] = publisher.__class__(  # noqa: SLF001
            publisher.settings, publisher.count, draw=timed_draw, languages=publisher.languages)
        client = app.test_client()
        viewers = app.test_client()
        figures: dict[str, dict[str, list[float]]] = {}
        queries: dict[str, dict[str, list[int]]] = {}
        profiler = cProfile.Profile() if profile else None
        for game in games:  # each viewer's page says which channel it listens on
            found = re.search(r'data-push-url="[^"]*/([0-9a-f]+)"',
                              viewers.get(game.page(game.viewer)).get_data(as_text=True))
            assert found is not None
            listening.add(found[1])
        warm = games[:len(GAMES)]
        for game in warm:  # a worker's first pages compile templates: not measured
            _cycle(client, viewers, game, [], [], [], None)
        for _ in range(SAVES):
            for game in games[len(GAMES):]:
                if game.saved >= SAVES:
                    continue
                seen: list[str] = []
                with _counting(engines, seen):
                    times = _cycle(client, viewers, game, drawn, seen, [], profiler)
                mine = figures.setdefault(game.kind, {})
                for kind, value in times.items():
                    mine.setdefault(kind, []).append(value)
                counts = queries.setdefault(game.kind, {})
                for kind, value in _split(seen).items():
                    counts.setdefault(kind, []).append(value)
        push._call = monkey["call"]  # noqa: SLF001
        rows = []
        for kind in GAMES:
            if kind not in figures:
                continue
            mine = figures[kind]
            rows.append([KINDS[kind]] + [f"{statistics.median(mine[k]) * 1000:.2f}"
                                         for k in COLUMNS]
                        + [f"{statistics.median(queries[kind]['all']):.0f}"])
        every = [(figures[k], queries[k]) for k in GAMES if k in figures]
        mean = {k: statistics.fmean(statistics.median(m[k]) for m, _ in every) for k in COLUMNS}
        rows.append(["mean of the games"] + [f"{mean[k] * 1000:.2f}" for k in COLUMNS]
                    + [f"{statistics.fmean(statistics.median(q['all']) for _, q in every):.2f}"])
        print(f"{'PostgreSQL' if database_url else 'SQLite'}: median CPU ms per save cycle "
              f"(thread CPU, in process), {tables} tables per game × {SAVES} saves")
        print(table(["game", "save (with drawing)", "drawing", "scorer's page", "cycle",
                     "cycle, wall", "SQL statements"], rows))
        if profiler is not None:
            stats = pstats.Stats(profiler)
            stats.sort_stats("tottime").print_stats(40)
            stats.sort_stats("cumulative").print_stats(60)
        app.extensions["companion.engine"].dispose()


def _split(seen: list[str]) -> dict[str, int]:
    return {"all": len(seen)}


def _cycle(client: Any, viewers: Any, game: Table, drawn: list[float], seen: list[str],
           _unused: list[float], profiler: cProfile.Profile | None) -> dict[str, float]:
    path, body = game.save()
    drawn.clear()
    if profiler:
        profiler.enable()
    wall = time.perf_counter()
    start = time.thread_time()
    # As the phone's outbox sends it: the page in the answer where the save drew it (push).
    answer = client.post(path, data=body, headers={"Companion-Outbox": "page"})
    saved = time.thread_time()
    answered = answer.status_code == 200 and "Companion-Page" in answer.headers
    assert answered or answer.status_code in (302, 303), (
        path, answer.status_code, answer.text[:500])
    if not answered:
        page = client.get(game.page(game.scorer))
        assert page.status_code == 200
    done = time.thread_time()
    waited = time.perf_counter() - wall
    if profiler:
        profiler.disable()
    game.saved += 1
    return {"save": saved - start, "drawing": sum(drawn), "page": done - saved,
            "cycle": done - start, "wall": waited}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=8, help="tables per game (default 8)")
    parser.add_argument("--database-url", help="PostgreSQL (e.g. scripts/postgres.sh's URL)")
    parser.add_argument("--profile", action="store_true", help="cProfile the cycles")
    options = parser.parse_args()
    run(options.tables, options.database_url, options.profile)


if __name__ == "__main__":
    main()
