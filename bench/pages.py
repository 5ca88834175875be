"""CPU per viewer load of each game's page, drawn every time or served from its drawing.

    python -m bench.pages [--requests 300] [--redis redis://127.0.0.1:6391]

In one process, on one SQLite database in a temporary folder, one game of each kind with a few
saves: the viewer link's page loaded through the WSGI app (the test client: request in, HTML
out, no network) by three apps on that database — one that keeps no page (``NullCache``: every
load draws, as before), one on the shared file store (what ``make run`` uses) and one on Redis
(``--redis``, optional) — in turns of 20 loads, so that the machine's load weighs on each alike;
the median CPU time per load over the turns. Then a load whose drawing is missing (each address
new: drawn, compressed and kept), and the store's own cost of one hit (get + decompress).

Not a test: nothing asserts on a timing. The machine is shared: the load average is printed.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
import zlib
from pathlib import Path

from companion import create_app
from companion.db import get_session
from companion.extensions import page_store
from companion.play import store

TURN = 20


def _config(folder: Path, **store_config: object) -> dict[str, object]:
    return {"TESTING": True, "SECRET_KEY": "bench", "WTF_CSRF_ENABLED": False,
            "RATELIMIT_ENABLED": False, "DATABASE": str(folder / "bench.sqlite"),
            "DATABASE_URL": None, **store_config}


def _version(client, path: str) -> str:
    import re

    return re.search(r'data-version="(\d+)"', client.get(path).text)[1]


def _games(client) -> dict[str, str]:
    """One game of each kind with a few saves: the scorer's address of each."""
    made = {}
    names = {f"names-{s}": n for s, n in enumerate(("Ana", "Ben", "Cléo", "Dan"))}
    answer = client.post("/rebel-princess/new", data={
        "edition": "deluxe", "length": "5", "first_leader": "0", "create": "1", **names,
        **{f"cards-{i}": c for i, c in enumerate("abcde")}})
    made["Rebel Princess (score pad)"] = path = answer.headers["Location"]
    for number, scores in ((1, "0384"), (2, "3804")):
        client.post(f"{path}/round/{number}/numbers",
                    data={f"score_{s}": v for s, v in enumerate(scores)})
    answer = client.post("/princesse-princesse/new", data={**names, "first": "0"})
    made["Princesse Princesse (tokens board)"] = path = answer.headers["Location"]
    for seat in (1, 2):
        client.post(f"{path}/round", data={"version": _version(client, path), "key": "",
                                           "step": "2", "in": [str(seat)],
                                           f"card-{seat}": "5"})
    answer = client.post("/reveillez/new", data={**{k: v for k, v in names.items()
                                                    if k != "names-3"}, "first": "0"})
    made["Réveillez (table)"] = path = answer.headers["Location"]
    for slot, value in ((3, 15), (5, 10)):
        client.post(f"{path}/act", data={"version": _version(client, path),
                                         "key": f"bench-{slot}", "do": "wake",
                                         "slot": str(slot), "value": str(value)})
    answer = client.post("/kanai-duel/new", data={
        "first": "Ana", "second": "Ben", "mode": "referee", "wins": "4", "abilities": "all",
        "set_aside": "none"})
    made["Kanai duel (game)"] = path = answer.headers["Location"]
    for first, second in (("spy", "general"), ("clown", "minister")):
        client.post(f"{path}/round", data={"first": first, "second": second,
                                           "version": _version(client, path)})
    return made


def _viewer(app, path: str) -> str:
    base, _, token = path.rpartition("/")
    with app.app_context():
        db = get_session()
        return f"{base}/{store.links_of(db, store.game_by_token(db, token))['viewer'].token}"


def _cpu_per_load(client, path: str, count: int) -> float:
    start = time.process_time()
    for _ in range(count):
        response = client.get(path)
        assert response.status_code == 200
    return (time.process_time() - start) / count * 1000


def _hit_cost(app, runs: int = 2000) -> float:
    """CPU µs of one hit on the store alone: get a drawing of about 7 kB, decompress it."""
    page = zlib.compress(os.urandom(3500).hex().encode() * 4, 1)  # about 7 kB compressed
    with app.app_context():
        page_store.set("bench-hit", page)
        start = time.process_time()
        for _ in range(runs):
            zlib.decompress(page_store.get("bench-hit"))
        return (time.process_time() - start) / runs * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--requests", type=int, default=300, help="loads per row (in turns)")
    parser.add_argument("--redis", default=os.environ.get("BENCH_REDIS_URL"),
                        help="a Redis URL: a row for the page store on Redis too")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder_name:
        folder = Path(folder_name)
        stores = {"drawn every time": {"CACHE_TYPE": "NullCache"},
                  "from the drawing, files": {"CACHE_TYPE": "FileSystemCache",
                                              "CACHE_DIR": str(folder / "pages")}}
        if args.redis:
            stores["from the drawing, Redis"] = {
                "CACHE_TYPE": "RedisCache", "CACHE_REDIS_URL": args.redis,
                "CACHE_KEY_PREFIX": f"bench-{os.getpid()}:"}
        apps = {name: create_app(_config(folder, **config)) for name, config in stores.items()}
        first = next(iter(apps.values()))
        games = _games(first.test_client())
        load = os.getloadavg()
        print(f"load average at start: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
        print(f"CPU ms per viewer load, median of turns of {TURN} ({args.requests} loads a row)")
        header = " | ".join(["game", *stores, "drawing missing (drawn and kept)"])
        print(f"| {header} |")
        for game, path in games.items():
            viewer = _viewer(first, path)
            clients = {name: app.test_client() for name, app in apps.items()}
            for client in clients.values():
                client.get(viewer)  # warm: the drawing made, templates compiled
            turns: dict[str, list[float]] = {name: [] for name in apps}
            for _ in range(max(1, args.requests // TURN)):
                for name, client in clients.items():
                    turns[name].append(_cpu_per_load(client, viewer, TURN))
            files = clients["from the drawing, files"]
            misses = []
            for turn in range(max(1, args.requests // TURN // 3)):
                start = time.process_time()
                for n in range(TURN):
                    files.get(f"{viewer}?miss={turn}-{n}")
                misses.append((time.process_time() - start) / TURN * 1000)
            cells = [f"{statistics.median(turns[name]):.2f}" for name in apps]
            print(f"| {game} | " + " | ".join(cells) + f" | {statistics.median(misses):.2f} |")
        for name, app in apps.items():
            if name != "drawn every time":
                print(f"one hit on the store alone ({name.split(', ')[1]}): "
                      f"{_hit_cost(app):.1f} µs CPU (get + decompress)")
        load = os.getloadavg()
        print(f"load average at end: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
        for app in apps.values():
            app.extensions["companion.engine"].dispose()


if __name__ == "__main__":
    main()
