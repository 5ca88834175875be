"""A person's and a pair's latest finished games, read as before and as now, in one process.

Head to head's "latest games together" (10) and a person's page's last games (5) were read
from the group's (group, updated_at) index: from its newest game, keeping the games the
person (both people) sat in, until the list was full — the cost was the group's games newer
than that person's (pair's) latest one. They are now read from the people's own list
(``playedby``, migration 0015). This bench times both reads on the same database, taken in
turns (before, now, before, now …), so that the machine's load hits both alike: one group of
100 finished games (``bench/stats.py``) copied into itself in SQL (``bench/groups.py``'s
``copy_within``: the copies keep their times and players, so the first two people's shared
games fall further behind the group's newest as it grows) to each size; the first two people
of the group, as ``bench/scaling.py``'s head-to-head page. Median CPU ms of ``--repeat``
reads of each list (the query and its rows; the page around it is ``bench.scaling``'s).

Run: ``python -m bench.people_lists [--sizes 1000,10000,100000] [--repeat 31]``.
"""

from __future__ import annotations

import os
import statistics
import time

from sqlalchemy import or_, text
from sqlmodel import col, select

from .scaling import by_size, one_group_at_each_size, sizes_main

GAMES = 100


def _before(group_id: int, person: int, with_person: int | None, limit: int):  # type: ignore[no-untyped-def]
    """The list's query as ``summaries.records`` wrote it before ``playedby``."""
    from companion.models import Game, GameResult, Player
    from companion.play import summaries

    keys = [kind.key for kind in summaries.kinds_with_history()]
    where = [col(Game.kind).in_(keys), col(Game.group_id) == group_id,
             or_(col(GameResult.finished).is_(True), col(GameResult.game_id).is_(None))]
    for someone in (person, with_person):
        if someone is not None:
            where.append(col(Game.id).in_(select(Player.game_id).where(
                Player.person_id == someone)))
    return (select(Game, GameResult.stamp, GameResult.data, GameResult.progress)
            .join(GameResult, col(GameResult.game_id) == col(Game.id), isouter=True)
            .where(*where).order_by(col(Game.updated_at).desc(), col(Game.id).desc())
            .limit(limit))


def _now(group_id: int, person: int, with_person: int | None, limit: int):  # type: ignore[no-untyped-def]
    """The same list as ``summaries.records`` reads it now (through ``playedby``)."""
    from companion.models import Game, GameResult, PlayedBy
    from companion.play import summaries

    keys = [kind.key for kind in summaries.kinds_with_history()]
    low, high = sorted((person, person if with_person is None else with_person))
    return (select(Game, GameResult.stamp, GameResult.data, GameResult.progress)
            .select_from(PlayedBy).join(Game, col(Game.id) == col(PlayedBy.game_id))
            .join(GameResult, col(GameResult.game_id) == col(Game.id), isouter=True)
            .where(col(Game.kind).in_(keys), col(Game.group_id) == group_id,
                   or_(col(GameResult.finished).is_(True), col(GameResult.game_id).is_(None)),
                   col(PlayedBy.low) == low, col(PlayedBy.high) == high)
            .order_by(col(PlayedBy.updated_at).desc(), col(PlayedBy.game_id).desc())
            .limit(limit))


def _read(session, statement) -> tuple[float, list[int]]:  # type: ignore[no-untyped-def]
    cpu = time.process_time()
    rows = list(session.exec(statement))
    return (time.process_time() - cpu) * 1000, [game.id for game, *_ in rows]


def measure(app, repeat: int) -> dict[str, tuple[float, float]]:  # type: ignore[no-untyped-def]
    """Median CPU ms of each list, before and now (taken in turns); the two lists must be
    equal."""
    from companion.db import get_session

    with app.extensions["companion.engine"].connect() as connection:
        group_id, first, second = connection.execute(text(
            "SELECT p.group_id, MIN(p.id), (SELECT id FROM person WHERE group_id = p.group_id"
            " ORDER BY id LIMIT 1 OFFSET 1) FROM person p WHERE p.group_id ="
            " (SELECT MIN(id) FROM playgroup)")).one()
    found = {}
    with app.app_context():
        session = get_session()
        for label, args in (("head to head: latest 10 together", (first, second, 10)),
                            ("a person's page: last 5", (first, None, 5))):
            before, now = _before(group_id, *args), _now(group_id, *args)
            assert _read(session, before)[1] == _read(session, now)[1], label
            times: dict[str, list[float]] = {"before": [], "now": []}
            for _ in range(repeat):
                times["before"].append(_read(session, before)[0])
                times["now"].append(_read(session, now)[0])
            found[label] = (statistics.median(times["before"]), statistics.median(times["now"]))
    return found


def run(sizes: tuple[int, ...], repeat: int) -> list[str]:
    load_start = os.getloadavg()[0]
    results: dict[int, dict[str, tuple[float, float]]] = {}
    for size, app in one_group_at_each_size(sizes, GAMES):
        results[size] = measure(app, repeat)
    return by_size(
        f"A person's and a pair's latest finished games in one group of {sizes[0]:,} to "
        f"{sizes[-1]:,} games, read as before (the group's index) and now (playedby), taken in "
        f"turns; SQLite, median CPU ms of {repeat} reads", sizes,
        {f"{label}, {which}": [results[size][label][index] for size in sizes]
         for label in results[sizes[0]] for which, index in (("before", 0), ("now", 1))},
        load_start)


def main() -> None:
    sizes_main(__doc__, run, repeat=31)


if __name__ == "__main__":
    main()
