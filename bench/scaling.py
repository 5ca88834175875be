"""History, statistics, players, home and a save cost what the page shows, not what the server
holds: the same pages at 1,000, 10,000 and 100,000 stored games.

One group of 100 finished games of all four kinds is stored through each game's glue (as
``bench/stats.py`` makes them), then the database file is copied three times and each copy
filled in SQL with copies of that group (``bench/groups.py``: new ids, codes, tokens; their
stored summaries with them) until it holds 1,000, 10,000 and 100,000 games in 10, 100 and
1,000 groups. On each database, in-process (Flask's test client: the server's whole work for a
request, no network), median CPU ms of ``--repeat`` warm requests of:

- the first group's statistics, history (newest 30), players, and the group's page;
- home, on a phone that remembers 30 of the group's games (the most a phone remembers);
- a save: round 1 of a new Rebel Princess game entered by scores (a game of a group of its own,
  made before the timing), through the web form, redirect included.

The three databases are measured in turns, twice, and the better of the two medians is kept,
so that a change in the machine's load hits every size alike. Aim: at most 1.5× from 1,000 to
100,000 stored games. Run: ``python -m bench.scaling`` (``make bench-scaling``).

``--one-group`` measures **one big group** instead (issue 31): the group itself holds 1,000 and
10,000 games (its games copied into it in SQL, ``bench/groups.py``'s ``copy_within``, its totals
made again as an import does); aim: at most 1.5× from 1,000 to 10,000. Issue 36 adds the pages
that grew with it: head to head (two of its players), history's last page (its "Oldest" link)
and its second page (the first page's "Older" link), a person's page; and the export
(``export.json``, a job since session 7): CPU ms of the tap that starts its job, of the job
writing the file (in no request), of the download to its first chunk and whole (read in
Python by the test client; a server hands the file to the kernel), and the most memory the
export's job held (``tracemalloc`` peak, MB; one job, outside
the timings).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import tempfile
import time
import tracemalloc
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from sqlalchemy import text

from . import load_line, table
from .groups import copy_group, copy_within
from .stats import _timed, fill

AIM = 1.5
SIZES = (1_000, 10_000, 100_000)
ONE_GROUP_SIZES = (1_000, 10_000)
GAMES = 100  # per group
PAGES = (("statistics", "/history/stats"), ("history (newest 30)", "/history/"),
         ("players", "/history/players/"), ("the group's page", "/"))
NAMES = ["Ann", "Bob", "Cid", "Dee"]


def _app(path: Path):  # type: ignore[no-untyped-def]
    from companion import create_app

    return create_app({"SECRET_KEY": "bench", "TESTING": True, "WTF_CSRF_ENABLED": False,
                       "RATELIMIT_ENABLED": False, "DATABASE": str(path)})


def one_group_at_each_size(sizes: Sequence[int], games: int) -> Iterator[tuple[int, Any]]:
    """``(size, app)`` for each of ``sizes``: an app on its own SQLite database holding one group
    of ``games`` finished games (:func:`bench.stats.fill`, made once) copied into itself
    (:func:`copy_within`) to that size; the database is deleted once the caller moves on."""
    with tempfile.TemporaryDirectory() as folder:
        seed = Path(folder) / "seed.sqlite"
        app = _app(seed)
        fill(app, games)
        app.extensions["companion.engine"].dispose()
        for size in sizes:
            path = Path(folder) / f"games-{size}.sqlite"
            shutil.copyfile(seed, path)
            app = _app(path)
            copy_within(app, size // games - 1)
            try:
                yield size, app
            finally:
                app.extensions["companion.engine"].dispose()
                path.unlink()


def sizes_of(text: str) -> tuple[int, ...]:
    """``--sizes 1000,10000,100000``."""
    return tuple(int(n) for n in text.split(","))


def sizes_main(doc: str, run: Callable[[tuple[int, ...], int], object], repeat: int) -> None:
    """The command line of a bench that measures one big group at each size (``--sizes``,
    ``--repeat``): ``run(sizes, repeat)``."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--sizes", type=sizes_of, default=(1_000, 10_000, 100_000))
    parser.add_argument("--repeat", type=int, default=repeat)
    arguments = parser.parse_args()
    run(arguments.sizes, arguments.repeat)


def by_size(title: str, sizes: Sequence[int], lines: dict[str, list[float]],
            load_start: float) -> list[str]:
    """A bench's report of figures at each size (one line each, in ``sizes``' order), with
    each size against the first, under ``title`` and over the load average; printed too."""
    rows = [(label, *(f"{value:.2f}" for value in figures),
             *(f"{value / figures[0]:.2f}×" for value in figures[1:]))
            for label, figures in lines.items()]
    out = [f"{title}; commit {_commit()}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}.",
           "", table(["CPU ms", *(f"{size:,} games" for size in sizes),
                      *(f"{size:,} / {sizes[0]:,}" for size in sizes[1:])], rows), "",
           load_line(load_start)]
    print("\n".join(out), flush=True)
    return out

def _save_games(app, count: int) -> list[str]:  # type: ignore[no-untyped-def]
    """``count`` new Rebel Princess games (in a group of their own), their scorer tokens."""
    from companion.db import get_session
    from companion.play import groups, rebel_princess, store
    from companion.scoring.rebel_princess import Edition

    with app.app_context():
        session = get_session()
        group = groups.new_group(session, name="Saves")
        session.commit()
        tokens = []
        for _ in range(count):
            game = rebel_princess.create_game(session=session, edition=Edition.DELUXE,
                                              names=NAMES, first_leader=0,
                                              round_cards=list("adyzc"), group_id=group.id)
            tokens.append(store.links_of(session, game)["scorer"].token)
        return tokens


def _remembered(app, group_token: str) -> list[str]:  # type: ignore[no-untyped-def]
    """The scorer tokens of 30 games of the group: what a phone of the group remembers."""
    with app.extensions["companion.engine"].connect() as connection:
        return list(connection.execute(text(
            "SELECT l.token FROM gamelink l JOIN game g ON g.id = l.game_id JOIN playgroup p "
            "ON p.id = g.group_id WHERE p.token = :t AND l.role = 'scorer' "
            "AND l.revoked_at IS NULL ORDER BY g.id LIMIT 30"), {"t": group_token}).scalars())


def _save(client, token: str) -> float:  # type: ignore[no-untyped-def]
    """CPU ms of entering round 1 by scores in the game of ``token`` (and following the
    redirect to the pad, as a phone does)."""
    data = {f"score_{seat}": str(score) for seat, score in enumerate((3, 0, 5, 7))}
    cpu = time.process_time()
    response = client.post(f"/rebel-princess/g/{token}/round/1/numbers", data=data)
    assert response.status_code in (302, 303), response.status_code
    assert client.get(response.headers["Location"]).status_code == 200
    return (time.process_time() - cpu) * 1000


def measure(app, group_token: str, saves: list[str], repeat: int,  # type: ignore[no-untyped-def]
            exports: bool = True) -> dict[str, float]:
    """Median CPU ms of each page and of a save, warm."""
    found = {}
    client = app.test_client()
    base = f"/group/{group_token}"
    for label, path in (*PAGES, *_deep_pages(app, client, group_token)):
        _timed(client, base + path)
        found[label] = statistics.median(_timed(client, base + path)[1] for _ in range(repeat))
    export = f"{base}/history/export.json"
    if not exports:  # the tap alone (its job not run)
        found["export.json: the tap that starts its job"] = statistics.median(
            _tap(app, client, export)[0] for _ in range(repeat))
    else:
        starts, written, first, sent = zip(
            *(_export(app, client, export) for _ in range(max(3, repeat // 3))), strict=True)
        found["export.json: the tap that starts its job"] = statistics.median(starts)
        found["export.json: download, to its first chunk"] = statistics.median(first)
        found["export.json: download, read whole in process (no request)"] = statistics.median(sent)
        found["export.json: the job writing it (no request)"] = statistics.median(written)
    phone = app.test_client()
    with phone.session_transaction() as cookie:
        cookie["games"] = _remembered(app, group_token)
    _timed(phone, "/")
    found["home (30 games remembered)"] = statistics.median(
        _timed(phone, "/")[1] for _ in range(repeat))
    _save(client, saves.pop())
    found["a save (round by scores, pad drawn)"] = statistics.median(
        _save(client, saves.pop()) for _ in range(repeat))
    return found


def _deep_pages(app, client, group_token: str  # type: ignore[no-untyped-def]
                ) -> list[tuple[str, str]]:
    """The pages issue 36 measures, by their paths under the group's: head to head of the
    group's two first players, a person's page, history's last and second pages (by the links
    its first page shows)."""
    with app.extensions["companion.engine"].connect() as connection:
        first, second = connection.execute(text(
            "SELECT person.id FROM person JOIN playgroup ON playgroup.id = person.group_id"
            " WHERE playgroup.token = :t ORDER BY person.id LIMIT 2"), {"t": group_token}
        ).scalars().all()
    page = client.get(f"/group/{group_token}/history/").text
    older = re.search(r'href="([^"]+)" data-action="older"', page)
    oldest = re.search(r'href="([^"]+)" data-action="oldest"', page)
    assert older and oldest, "the group has fewer than three pages of history"
    prefix = f"/group/{group_token}"
    return [("head to head (versus)", f"/history/versus?a={first}&b={second}"),
            ("a person's page", f"/history/players/{first}"),
            ("history's second page (Older)",
             older.group(1).replace("&amp;", "&").removeprefix(prefix)),
            ("history's last page (Oldest)",
             oldest.group(1).replace("&amp;", "&").removeprefix(prefix))]


def _tap(app, client, path: str) -> tuple[float, str, object]:  # type: ignore[no-untyped-def]
    """CPU ms of the tap that starts an export's job (a new one: the folder emptied first), its
    job's token (not run), and the answer."""
    from companion.ops import jobs

    shutil.rmtree(app.config["EXPORT_DIR"], ignore_errors=True)
    started: list[str] = []
    real = jobs.start_export
    jobs.start_export = started.append  # type: ignore[assignment]
    try:
        cpu = time.process_time()
        response = client.get(path)
        tap = (time.process_time() - cpu) * 1000
    finally:
        jobs.start_export = real
    assert response.status_code == 303 and len(started) == 1, response.status_code
    return tap, started[0], response


def _export(app, client, path: str  # type: ignore[no-untyped-def]
            ) -> tuple[float, float, float, float]:
    """CPU ms of the tap that starts an export's job (a new job: the folder emptied first), of
    the job writing the file (run here, after the request: on a server it runs on the export
    runner or a worker, in no request), and of the request that sends the written file, to its
    first chunk and whole (the test client reads it in Python, 8 kB at a time; gunicorn hands
    the file to the kernel, ``sendfile``: no request reads it so)."""
    from companion.ops import jobs

    tap, started, response = _tap(app, client, path)
    cpu = time.process_time()
    jobs.run_export(app, started)
    written = (time.process_time() - cpu) * 1000
    page = response.headers["Location"]  # type: ignore[attr-defined]
    cpu = time.process_time()
    sent = client.get(page + "/file")
    assert sent.status_code == 200, sent.status_code
    chunks = sent.iter_encoded()
    next(chunks)
    first = (time.process_time() - cpu) * 1000
    for _ in chunks:
        pass
    sent.close()
    return tap, written, first, (time.process_time() - cpu) * 1000


def export_memory(app, group_token: str) -> tuple[float, int]:  # type: ignore[no-untyped-def]
    """The most memory (MB, ``tracemalloc``) the export's job held writing the file, and the
    file's size in bytes."""
    from companion.ops import jobs

    client = app.test_client()
    shutil.rmtree(app.config["EXPORT_DIR"], ignore_errors=True)
    started: list[str] = []
    real = jobs.start_export
    jobs.start_export = started.append  # type: ignore[assignment]
    try:
        assert client.get(f"/group/{group_token}/history/export.json").status_code == 303
    finally:
        jobs.start_export = real
    tracemalloc.start()
    try:
        jobs.run_export(app, started[0])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    size = sum(f.stat().st_size for f in Path(app.config["EXPORT_DIR"]).glob("*.json"))
    return peak / 2**20, size


def _aim(size: int) -> float:
    """The aim at ``size`` games: 1.5× up to 10,000, 2× beyond (issue 36)."""
    return AIM if size <= 10_000 else 2.0


def _commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "?"


def run(repeat: int = 15, rounds: int = 2, sizes: tuple[int, ...] = SIZES,
        out: list[str] | None = None, games: int = GAMES, one_group: bool = False,
        exports: bool = True) -> list[str]:
    out = [] if out is None else out
    load_start = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as folder:
        started = time.perf_counter()
        seed = Path(folder) / "seed.sqlite"
        app = _app(seed)
        _, token = fill(app, games)
        app.test_client().get(f"/group/{token}/history/stats")
        app.extensions["companion.engine"].dispose()
        apps = {}
        for size in sizes:
            path = Path(folder) / f"games-{size}.sqlite"
            shutil.copyfile(seed, path)
            apps[size] = _app(path)
            left = size // games - 1
            if one_group:  # the group's own games, copied into it (one transaction)
                copy_within(apps[size], left)
                left = 0
            while left:  # in steps: one transaction per 100 groups
                step = min(left, 100)
                copy_group(apps[size], step)
                left -= step
        saves = {size: _save_games(app, (repeat + 1) * rounds) for size, app in apps.items()}
        stored = time.perf_counter() - started
        counted = {}
        for size, app in apps.items():
            with app.extensions["companion.engine"].connect() as connection:
                counted[size] = connection.execute(text(
                    "SELECT (SELECT count(*) FROM playgroup), (SELECT count(*) FROM game)")
                ).one()
        results: dict[int, dict[str, list[float]]] = {}
        for _ in range(rounds):  # in turns, so that the machine's load hits every size alike
            for size, app in apps.items():
                for label, value in measure(app, token, saves[size], repeat,
                                            exports).items():
                    results.setdefault(size, {}).setdefault(label, []).append(value)
        memory = ({size: export_memory(app, token) for size, app in apps.items()} if exports
                  else {})
        for app in apps.values():
            app.extensions["companion.engine"].dispose()
    labels = list(results[sizes[0]])
    rows, whole_export = [], False
    worst = {size: 0.0 for size in sizes[1:]}  # each size against the first
    for label in labels:
        best = [min(results[size][label]) for size in sizes]
        if label.endswith("(no request)"):
            whole_export = True  # (linear by nature: not a page)
        else:
            for size, value in zip(sizes[1:], best[1:], strict=True):
                worst[size] = max(worst[size], value / best[0])
        rows.append((label, *(f"{value:.1f}" for value in best),
                     *(f"{value / best[0]:.2f}×" for value in best[1:])))
    for row, at in ((0, "most memory its job held (MB, tracemalloc)"), (1, "its size (MB)")
                    ) if exports else ():
        figures = [memory[size][row] / (1 if row == 0 else 2**20) for size in sizes]
        rows.append((f"export.json: {at}", *(f"{value:.1f}" for value in figures),
                     *(f"{value / figures[0]:.2f}×" for value in figures[1:])))
    heads = [f"{counted[size][1]:,} games ({counted[size][0]:,} groups)" for size in sizes]
    what = (f"Pages of one group as it grows from {sizes[0]:,} to {sizes[-1]:,} games (its "
            f"{games} finished games copied into it in SQL; stored in {stored:.0f} s)"
            if one_group else
            f"Pages of one group of {games} finished games, and a save, as the server holds "
            f"more games (copies of the group in SQL; stored in {stored:.0f} s)")
    out += [f"{what}; SQLite, "
            f"in-process (Flask test client), median CPU ms of {repeat} warm requests, the "
            f"better of {rounds} rounds taken in turns; commit {_commit()}, "
            f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}.", "",
            table(["CPU ms", *heads, *(f"{size:,} / {sizes[0]:,}" for size in sizes[1:])],
                  rows), "",
            *(f"- Aim: within {_aim(size)}× from {sizes[0]:,} to {size:,} games — "
              f"{'met' if worst[size] <= _aim(size) else 'NOT met'} (worst "
              f"{worst[size]:.2f}×"
              f"{', the rows marked (no request) aside' if whole_export else ''})."
              for size in sizes[1:]),
            load_line(load_start)]
    print("\n".join(out), flush=True)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--sizes", type=sizes_of,
                        default=None, help="stored games, comma-separated (multiples of "
                        "--games)")
    parser.add_argument("--games", type=int, default=GAMES,
                        help="finished games in the group measured (and in each copy)")
    parser.add_argument("--pages-only", action="store_true",
                        help="no export rows (the 100,000-game export job alone takes minutes)")
    parser.add_argument("--one-group", action="store_true",
                        help="one big group of each size (default sizes 1,000 and 10,000)")
    args = parser.parse_args()
    sizes = args.sizes or (ONE_GROUP_SIZES if args.one_group else SIZES)
    run(args.repeat, args.rounds, sizes, games=args.games, one_group=args.one_group,
        exports=not args.pages_only)


if __name__ == "__main__":
    main()
