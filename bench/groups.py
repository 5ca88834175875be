"""A group's pages cost what the group holds, not what the server holds.

One group's 100 finished games (of all four kinds, stored through each game's glue, as
``bench/stats.py`` makes them) are measured twice **in the same run**, in-process (Flask's test
client; the server's whole work for a request, no network):

- **alone**: on a database holding that group only;
- **crowded**: on a database holding the same group and 999 others of 100 games each (100,000
  games in all). The 999 are copies of the first group's rows made in SQL (new ids, codes,
  tokens and people for each), with their cached results, so the database is as large and as
  varied in size as 100,000 stored games make it.

Each page is asked ``--repeat`` times warm (after one request that fills the caches); the table
gives the median CPU milliseconds of a request and the ratio crowded / alone. Aim: within 1.5×.
Run: ``python -m bench.groups [--groups 1000] [--games 100]`` (``make bench-groups``; about two
minutes, mostly storing the games).
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

from sqlalchemy import text

from . import table
from .stats import _timed, fill

AIM = 1.5
COPIED_TOKEN = "printf('k%dl%d', :k, id)"
"""A copied link's token: the copy's number and the first link's id. Unique however many copies
are made (a copy number and a link id name one copy of one link), and never a stored token's
(those are hex digits: no ``k``, no ``l``). Cutting the first token and adding the copy number
was not: a token whose last six hex digits happened to read ``000540`` was its own copy 540."""
TABLES = ("game", "person", "player", "entry", "roundrecord", "tricklog", "gamelink", "total")


def copy_group(app, copies: int) -> None:  # type: ignore[no-untyped-def]
    """Copy every row of the database's first group ``copies`` times, each copy a group of its
    own (ids shifted, codes, tokens and group names made unique), in one transaction. May be
    called again: the copies go on from the groups already there (all of them copies of the
    first, so their ids follow it)."""
    engine = app.extensions["companion.engine"]
    with engine.begin() as connection:
        source = int(connection.execute(text("SELECT MIN(id) FROM playgroup")).scalar_one())
        made = int(connection.execute(text("SELECT COUNT(*) FROM playgroup")).scalar_one()) - 1
        # Copy n of a row of the first group gets id + start + (n - 1) * span: past every id
        # stored, copies side by side (ids grow linearly however often this is called).
        start, span = {}, {}
        for t in TABLES:
            top = int(connection.execute(text(f"SELECT COALESCE(MAX(id), 0) FROM {t}"))
                      .scalar_one())
            low, high = connection.execute(text(
                f"SELECT MIN(id), MAX(id) FROM {t} WHERE " + (
                    "group_id = :s" if t in ("game", "person", "total") else
                    "game_id IN (SELECT id FROM game WHERE group_id = :s)")), {"s": source}).one()
            low, high = int(low or 0), int(high or 0)
            start[t], span[t] = top + 1 - low, high - low + 1
        columns = {t: [row[1] for row in connection.exec_driver_sql(f"PRAGMA table_info({t})")]
                   for t in (*TABLES, "gameresult", "playedby")}
        for copy_number in range(1, copies + 1):
            k = made + copy_number  # unique over every call: codes, tokens, names
            group = source + k
            connection.execute(text(
                "INSERT INTO playgroup (id, name, token, created_at) SELECT :g, name || :k, "
                "printf('g%d', :k), created_at FROM playgroup "
                "WHERE id = :s"), {"g": group, "k": k, "s": source})

            params = {"s": source, "g": group, "k": k,
                      **{f"{t}_shift": start[t] + (copy_number - 1) * span[t]
                         for t in TABLES}}

            def copy(table_name: str, changes: dict[str, str], params: dict = params) -> None:
                names = columns[table_name]
                values = [changes.get(c, c) for c in names]
                connection.execute(text(
                    f"INSERT INTO {table_name} ({', '.join(names)}) SELECT {', '.join(values)} "
                    f"FROM {table_name} WHERE " + (
                        "group_id = :s" if "group_id" in names else
                        "game_id IN (SELECT id FROM game WHERE group_id = :s)")), params)

            copy("game", {"id": "id + :game_shift", "group_id": ":g",
                          "code": "code || '-' || :k"})
            copy("person", {"id": "id + :person_shift", "group_id": ":g"})
            copy("player", {"id": "id + :player_shift", "game_id": "game_id + :game_shift",
                            "person_id": "person_id + :person_shift"})
            copy("entry", {"id": "id + :entry_shift", "game_id": "game_id + :game_shift"})
            copy("roundrecord", {"id": "id + :roundrecord_shift",
                                 "game_id": "game_id + :game_shift",
                                 "undoes": "undoes + :roundrecord_shift"})
            copy("tricklog", {"id": "id + :tricklog_shift", "game_id": "game_id + :game_shift"})
            copy("gamelink", {"id": "id + :gamelink_shift", "game_id": "game_id + :game_shift",
                              "token": COPIED_TOKEN})
            copy("gameresult", {"game_id": "game_id + :game_shift", "group_id": ":g"})
            copy("total", {"id": "id + :total_shift", "group_id": ":g", "person_id":
                           "CASE WHEN person_id = 0 THEN 0 ELSE person_id + :person_shift END"})
            copy("playedby", {"game_id": "game_id + :game_shift", "low": "low + :person_shift",
                              "high": "high + :person_shift"})


GAME_TABLES = ("player", "entry", "roundrecord", "tricklog", "gamelink")


def copy_within(app, copies: int) -> None:  # type: ignore[no-untyped-def]
    """Copy every game of the database's first group ``copies`` times into that same group
    (one big group: the same people, new ids, codes and link tokens, the cached summaries
    with them), in one transaction, then make the group's totals again (as an import does).
    Called once per database (the copies are numbered from 1)."""
    from companion.play import group_totals

    engine = app.extensions["companion.engine"]
    with engine.begin() as connection:
        source = int(connection.execute(text("SELECT MIN(id) FROM playgroup")).scalar_one())
        columns = {t: [row[1] for row in connection.exec_driver_sql(f"PRAGMA table_info({t})")]
                   for t in ("game", *GAME_TABLES, "gameresult")}
        low, high = connection.execute(text(
            "SELECT MIN(id), MAX(id) FROM game WHERE group_id = :s"), {"s": source}).one()
        shifts = {}
        for t in ("game", *GAME_TABLES):
            top = int(connection.execute(text(f"SELECT COALESCE(MAX(id), 0) FROM {t}"))
                      .scalar_one())
            shifts[t] = top
        for k in range(1, copies + 1):
            params = {"s": source, "k": k, "low": low, "high": high,
                      **{f"{t}_shift": shifts[t] * k for t in shifts}}

            def copy(table_name: str, changes: dict[str, str], params: dict = params) -> None:
                names = columns[table_name]
                values = [changes.get(c, c) for c in names]
                connection.execute(text(
                    f"INSERT INTO {table_name} ({', '.join(names)}) SELECT {', '.join(values)} "
                    f"FROM {table_name} WHERE " + (
                        "group_id = :s AND id BETWEEN :low AND :high" if table_name == "game"
                        else "game_id BETWEEN :low AND :high AND game_id IN "
                             "(SELECT id FROM game WHERE group_id = :s)")), params)

            copy("game", {"id": "id + :game_shift", "code": "code || '-' || :k"})
            copy("player", {"id": "id + :player_shift", "game_id": "game_id + :game_shift"})
            copy("entry", {"id": "id + :entry_shift", "game_id": "game_id + :game_shift"})
            copy("roundrecord", {"id": "id + :roundrecord_shift",
                                 "game_id": "game_id + :game_shift",
                                 "undoes": "undoes + :roundrecord_shift"})
            copy("tricklog", {"id": "id + :tricklog_shift", "game_id": "game_id + :game_shift"})
            copy("gamelink", {"id": "id + :gamelink_shift", "game_id": "game_id + :game_shift",
                              "token": COPIED_TOKEN})
            copy("gameresult", {"game_id": "game_id + :game_shift"})
        group_totals.rebuild(connection, [source])


def measure(client, base: str, repeat: int) -> dict[str, float]:  # type: ignore[no-untyped-def]
    """Median CPU ms of each page of the group, warm."""
    found = {}
    for label, path in PAGES:
        _timed(client, base + path)  # fills the caches (the results are cached already)
        found[label] = statistics.median(_timed(client, base + path)[1] for _ in range(repeat))
    return found


PAGES = (("statistics", "/history/stats"), ("history (newest 30)", "/history/"),
         ("players", "/history/players/"), ("the group's page", "/"))


def run(groups: int = 1000, games: int = 100, repeat: int = 15,
        out: list[str] | None = None) -> list[str]:
    from companion import create_app

    out = [] if out is None else out
    results: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as folder:
        apps = {name: create_app({"SECRET_KEY": "bench", "TESTING": True,
                                  "DATABASE": str(Path(folder) / f"{name}.sqlite")})
                for name in ("alone", "crowded")}
        started = time.perf_counter()
        tokens = {name: fill(app, games)[1] for name, app in apps.items()}  # the same games
        for name, app in apps.items():  # every summary computed and cached once
            app.test_client().get(f"/group/{tokens[name]}/history/stats")
        copy_group(apps["crowded"], groups - 1)
        stored = time.perf_counter() - started
        with apps["crowded"].app_context():
            from companion.db import get_session

            counted = get_session().connection().execute(text(
                "SELECT (SELECT count(*) FROM playgroup), (SELECT count(*) FROM game)")).one()
        # Alternate the two so that a change in the machine's load hits both alike.
        for _ in range(2):
            for name, app in apps.items():
                found = measure(app.test_client(), f"/group/{tokens[name]}", repeat)
                for label, value in found.items():
                    results.setdefault(name, {}).setdefault(label, []).append(value)
        for app in apps.values():
            app.extensions["companion.engine"].dispose()
    rows = []
    worst = 0.0
    for label, _ in PAGES:
        alone = min(results["alone"][label])
        crowded = min(results["crowded"][label])
        worst = max(worst, crowded / alone)
        rows.append((label, f"{alone:.1f}", f"{crowded:.1f}", f"{crowded / alone:.2f}×"))
    out += [f"One group of {games} finished games, alone on its database and among "
            f"{counted[0]:,} groups ({counted[1]:,} games), measured in the same run "
            f"(stored in {stored:.0f} s); SQLite, in-process (Flask test client), median CPU ms "
            f"of {repeat} warm requests, the better of two rounds.", "",
            table(["page of the group", "alone (CPU ms)",
                   f"among {counted[0]:,} groups (CPU ms)", "ratio"], rows), "",
            f"- Aim: within {AIM}× — {'met' if worst <= AIM else 'NOT met'} (worst "
            f"{worst:.2f}×).",
            f"- Load average (1 min) at the end: {os.getloadavg()[0]:.2f} on {os.cpu_count()} "
            "cores."]
    print("\n".join(out), flush=True)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--groups", type=int, default=1000)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    run(args.groups, args.games, args.repeat)


if __name__ == "__main__":
    main()
