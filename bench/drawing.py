"""The drawing alone: CPU per drawing of each game's page as a save draws it (the scorer's whole
page drawn once, kept in the page store, the viewers' part cut from it), and of the duel's board
as each role loads it, in English and French, in process.

The saves are ``bench.save_cycle``'s (the same tables, forms and in-process publisher, so that
each save draws the viewers' part); only the drawing is timed, with the thread's CPU clock
around the publisher's ``draw``. The duel's board is drawn through the viewer link and through
the scorer link after each duel save, the page store emptied first (each load a drawing).

Run: ``python -m bench.drawing [--tables 8] [--lang en fr] [--database-url postgresql://…]
[--profile]`` (``--profile``: cProfile of the drawings only, by own and by cumulative CPU).

Not a test: nothing asserts on a timing. The machine is shared: the load average is printed.
"""

from __future__ import annotations

import argparse
import cProfile
import logging
import os
import pstats
import re
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from . import table
from .save_cycle import KINDS, _fake_calls
from .tables import GAMES, SAVES, _games

BOARD = "duel's board"


def run(tables: int, langs: list[str], database_url: str | None, profile: bool) -> None:
    from companion import create_app
    from companion.extensions import page_store
    from companion.play import push

    monkey: dict[str, Any] = {}
    listening: set[str] = set()
    _fake_calls(monkey, listening)
    profiler = cProfile.Profile() if profile else None
    figures: dict[tuple[str, str], list[float]] = {}
    with tempfile.TemporaryDirectory() as folder:
        config: dict[str, object] = {
            "SECRET_KEY": "bench", "WTF_CSRF_ENABLED": False, "RATELIMIT_ENABLED": False,
            "DATABASE": str(Path(folder) / "drawing.sqlite"),
            "CACHE_DIR": str(Path(folder) / "p"), "LIVE_PUSH_PUBLISH_URL": "http://127.0.0.1:9/pub/"}
        if database_url:
            from .tables import _empty_postgres
            config["DATABASE_URL"] = database_url
            _empty_postgres(config)
        games = _games(config, (tables + 1) * len(GAMES) * len(langs), GAMES)
        app = create_app(config)
        logging.getLogger("companion.access").setLevel(logging.WARNING)  # (a line a request)
        engine = app.extensions["companion.engine"]
        publisher = push._PUBLISHERS[engine]  # noqa: SLF001  (its drawing timed)
        drawn: list[float] = []
        draw = publisher.draw
        assert draw is not None

        def timed_draw(game_id: int, lang: str) -> str | None:
            if profiler is not None:
                profiler.enable()
            start = time.thread_time()
            try:
                return draw(game_id, lang)
            finally:
                drawn.append(time.thread_time() - start)
                if profiler is not None:
                    profiler.disable()
        push._PUBLISHERS[engine] = publisher.__class__(  # noqa: SLF001
            publisher.settings, publisher.count, draw=timed_draw, languages=publisher.languages)
        clients = {}
        for lang in langs:
            client = app.test_client()
            client.environ_base["HTTP_ACCEPT_LANGUAGE"] = lang
            clients[lang] = client
        per_lang = len(games) // len(langs)
        for number, lang in enumerate(langs):
            for game in games[number * per_lang:(number + 1) * per_lang]:
                found = re.search(r'data-push-url="[^"]*/([0-9a-f]+)"', clients[lang].get(
                    game.page(game.viewer)).get_data(as_text=True))
                assert found is not None
                listening.add(found[1])
        for number, lang in enumerate(langs):
            mine = games[number * per_lang:(number + 1) * per_lang]
            client = clients[lang]
            for turn in range(SAVES):
                for index, game in enumerate(mine):
                    warm = index < len(GAMES)  # a first drawing compiles templates: not counted
                    path, body = game.save()
                    drawn.clear()
                    answer = client.post(path, data=body)
                    assert answer.status_code in (302, 303), (path, answer.status_code)
                    assert len(drawn) == 1, (game.kind, len(drawn))
                    game.saved += 1
                    if not warm:
                        figures.setdefault((game.kind, lang), []).append(drawn[0])
                    if game.kind != "kanai-duel":
                        continue
                    for role, token in (("viewer", game.viewer), ("scorer", game.scorer)):
                        page_store.clear()
                        start = time.thread_time()
                        if profiler is not None and not warm:
                            profiler.enable()
                        board = client.get(f"/kanai-duel/g/{token}/board")
                        if profiler is not None:
                            profiler.disable()
                        took = time.thread_time() - start
                        assert board.status_code == 200
                        if not warm and turn:
                            figures.setdefault((f"{BOARD}, {role}", lang), []).append(took)
        push._call = monkey["call"]  # noqa: SLF001
        engine.dispose()
    rows = []
    for kind in [*GAMES, f"{BOARD}, viewer", f"{BOARD}, scorer"]:
        row = [KINDS.get(kind, kind)]
        for lang in langs:
            values = figures.get((kind, lang), [])
            row.append(f"{statistics.median(values) * 1000:.2f}" if values else "–")
        rows.append(row)
    load = os.getloadavg()
    print(f"{'PostgreSQL' if database_url else 'SQLite'}: median CPU ms per drawing (thread CPU, "
          f"in process): the viewers' part in a save (the scorer's page drawn to be shared) and "
          f"the duel's board loaded after a save (a store miss: a whole request), {tables} "
          f"tables per game and language × {SAVES} saves")
    print(table(["page", *langs], rows))
    print(f"load average {load[0]:.2f} / {load[1]:.2f} / {load[2]:.2f}")
    if profiler is not None:
        stats = pstats.Stats(profiler)
        stats.sort_stats("tottime").print_stats(45)
        stats.sort_stats("cumulative").print_stats(90)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=8, help="tables per game (default 8)")
    parser.add_argument("--lang", nargs="+", default=["en", "fr"], help="languages (en fr)")
    parser.add_argument("--database-url", help="PostgreSQL (e.g. scripts/postgres.sh's URL)")
    parser.add_argument("--profile", action="store_true", help="cProfile the drawings")
    options = parser.parse_args()
    run(options.tables, options.lang, options.database_url, options.profile)


if __name__ == "__main__":
    main()
