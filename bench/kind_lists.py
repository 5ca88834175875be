"""History filtered by a game kind played rarely in a big group, read without and with the
kind's index (migration 0016), in one process.

A group's history filtered by a kind read the group's (group, updated_at) index from its
newest game, keeping that kind's games until the page was full: its cost was the group's
newer games of the other kinds — all of them when a kind was played once, long ago. It is now
read from ``ix_game_group_kind_updated`` (group, kind, time). The bench makes one group of 100
finished games (``bench/stats.py``) copied into itself in SQL to each size
(``bench/groups.py``'s ``copy_within``), then makes one kind rare: its 100 first games only,
moved before every other game in time, the copies of that kind given another kind. It reads
the rare kind's first page (``summaries.records``, 30 games, as history's page does) with the
index and with it dropped (the query the app sent before 0016 then takes the group's index),
in turns, the index made again between turns. Median CPU ms of ``--repeat`` reads each turn.

Run: ``python -m bench.kind_lists [--sizes 1000,10000,100000] [--repeat 15]``.
"""

from __future__ import annotations

import os
import statistics
import time

from sqlalchemy import text

from .scaling import by_size, one_group_at_each_size, sizes_main

GAMES = 100
RARE, OTHER = "reveillez", "rebel_princess"
INDEX = "ix_game_group_kind_updated"


def _make_rare(app) -> int:  # type: ignore[no-untyped-def]
    """The rare kind's first games moved before the others, its copies given another kind;
    the group's id."""
    with app.extensions["companion.engine"].begin() as connection:
        group = int(connection.execute(text("SELECT MIN(id) FROM playgroup")).scalar_one())
        first = int(connection.execute(text("SELECT MIN(id) FROM game")).scalar_one())
        connection.execute(text(
            "UPDATE game SET kind = :other WHERE kind = :rare AND id >= :first + :games"),
            {"other": OTHER, "rare": RARE, "first": first, "games": GAMES})
        connection.execute(text(
            "UPDATE game SET updated_at = datetime('2000-01-01', '+' || id || ' minutes') "
            "WHERE kind = :rare"), {"rare": RARE})
    return group


def _read(app, group: int) -> tuple[float, list[str]]:  # type: ignore[no-untyped-def]
    from companion.db import get_session
    from companion.play import summaries

    with app.app_context():
        session = get_session()
        cpu = time.process_time()
        _, found = summaries.records(session, group_id=group, kind=RARE, limit=30, count=False)
        return (time.process_time() - cpu) * 1000, [record.game.code for record in found]


def measure(app, group: int, repeat: int, turns: int = 3) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    """Median CPU ms of the rare kind's page without the kind's index and with it."""
    engine = app.extensions["companion.engine"]
    times: dict[bool, list[float]] = {False: [], True: []}
    listed = {}
    for _ in range(turns):
        for indexed in (False, True):
            with engine.begin() as connection:
                connection.execute(text(f"DROP INDEX IF EXISTS {INDEX}"))
                if indexed:
                    connection.execute(text(
                        f"CREATE INDEX {INDEX} ON game (group_id, kind, updated_at)"))
                connection.execute(text("ANALYZE"))
            _read(app, group)  # (warm)
            for _ in range(repeat):
                spent, listed[indexed] = _read(app, group)
                times[indexed].append(spent)
    assert listed[False] == listed[True] and listed[True]  # (the same games either way)
    return statistics.median(times[False]), statistics.median(times[True])


def run(sizes: tuple[int, ...], repeat: int) -> list[str]:
    load_start = os.getloadavg()[0]
    results: dict[int, tuple[float, float]] = {}
    for size, app in one_group_at_each_size(sizes, GAMES):
        results[size] = measure(app, _make_rare(app), repeat)
    return by_size(
        f"History filtered by a kind played rarely (its {GAMES} first games, the oldest), "
        f"first page of 30, in one group of {sizes[0]:,} to {sizes[-1]:,} games; SQLite, "
        f"median CPU ms of {repeat} reads in each of 3 turns", sizes,
        {label: [results[size][index] for size in sizes]
         for label, index in (("the group's index (before 0016)", 0),
                              ("the kind's index (0016)", 1))}, load_start)


def main() -> None:
    sizes_main(__doc__, run, repeat=15)


if __name__ == "__main__":
    main()
