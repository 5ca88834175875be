"""Server time of the statistics page (and the history list) with 1,000 finished games stored.

A temporary database is filled through each game's own glue (every write checked by its rules
core, as at the table) with finished games of all four kinds among a group of 12 players, in
fixed proportions and a fixed random seed: Rebel Princess (Rebelles Princesses, 5 rounds typed by
numbers), Princesse Princesse (rounds until someone has the tokens needed), the Kanai duel
(shuffled hands until the duel is over) and « Réveillez » (princesses woken in turn until a
win). The pages are then asked for in-process through Flask's test client: the time measured is
the server's whole work for a request (routing, queries, statistics, template), no network.

- **cold**: the first request after the games were stored, when every game's summary is computed
  by replaying it and cached (what the first visit after an upgrade or an import costs);
- **warm**: the next requests (median and best of ``--repeat``), from the cache.

Target: the warm statistics page under 100 ms. Run: ``python -m bench.stats [--games 1000]``.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from . import table

PEOPLE = ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay", "Gus", "Hal", "Ida", "Jo", "Kim", "Lou"]
SHARE = (("rebel_princess", 0.4), ("princesse_princesse", 0.25), ("kanai_duel", 0.2),
         ("reveillez", 0.15))
TARGET_MS = 100.0


def _rebel(session, rng: random.Random, group_id: int) -> None:  # type: ignore[no-untyped-def]
    from companion.play import rebel_princess
    from companion.scoring.rebel_princess import Edition, PlayedRound

    names = rng.sample(PEOPLE, rng.randint(3, 6))
    game = rebel_princess.create_game(session=session, edition=Edition.CLASSIC, names=names,
                                      first_leader=0, round_cards=list("ACBDM"),
                                      group_id=group_id)
    for number in range(1, 6):
        scores = tuple(rng.randint(-2, 8) for _ in names)
        rebel_princess.save_round(
            session=session, game=game, number=number, mode="numbers", base_id=None,
            played=PlayedRound(scores=scores, last_trick_winner=rng.randrange(len(names))))


def _princesse(session, rng: random.Random, group_id: int) -> None:  # type: ignore[no-untyped-def]
    from companion.play import princesse_princesse
    from companion.scoring.princesse_princesse import RoundReveal

    names = rng.sample(PEOPLE, rng.randint(2, 6))
    game = princesse_princesse.create_game(session=session, names=names, first=0,
                                           group_id=group_id)
    while True:
        view = princesse_princesse.view_game(session, game)
        if view.progress.game_over:
            return
        seat = rng.randrange(len(names))
        spies = {seat} if rng.random() < 0.2 else set()
        reveal = RoundReveal.of([None] * len(names), still_in={seat}, spies=spies)
        princesse_princesse.save_round(session=session, view=view, based_on=view.version,
                                       key=None, reveal=reveal)


def _kanai(session, rng: random.Random, group_id: int) -> None:  # type: ignore[no-untyped-def]
    from companion.play import kanai_duel
    from companion.scoring.kanai_duel import DuelCard

    game, _ = kanai_duel.create(session=session, names=rng.sample(PEOPLE, 2),
                                mode=kanai_duel.REFEREE, variants=[], group_id=group_id)
    hands = [rng.sample(list(DuelCard), 8), rng.sample(list(DuelCard), 8)]
    for number in range(8):
        if kanai_duel.view_game(session, game).duel.is_over():
            return
        kanai_duel.play_round(session=session, game=game, key=None, based_on=number,
                              cards=[hands[0][number].value, hands[1][number].value])


def _reveillez(session, rng: random.Random, group_id: int) -> None:  # type: ignore[no-untyped-def]
    from companion.play import reveillez
    from companion.scoring.reveillez import PrincessCard, Wake

    game = reveillez.create_game(session=session, names=rng.sample(PEOPLE, rng.randint(2, 5)),
                                 first=0, variant=False, show_values=False, group_id=group_id)
    version = 0
    while True:
        state = reveillez.view_game(session, game).state
        if state.is_over:
            return
        action = Wake(state.sleeping_slots()[0], PrincessCard(rng.choice((5, 10, 15, 20))))
        reveillez.record(session=session, game=game, action=action, based_on=version,
                         key=f"k{version}")
        version += 1


MAKERS: dict[str, Callable[..., None]] = {"rebel_princess": _rebel,
                                          "princesse_princesse": _princesse,
                                          "kanai_duel": _kanai, "reveillez": _reveillez}


def fill(app, games: int, seed: int = 14  # type: ignore[no-untyped-def]
         ) -> tuple[dict[str, int], str]:
    """Store ``games`` finished games in one new group of ``app``'s database; returns how many
    of each kind, and the group's link token."""
    from companion.db import get_session
    from companion.play import groups

    rng = random.Random(seed)
    counts = {kind: round(games * share) for kind, share in SHARE}
    counts["rebel_princess"] += games - sum(counts.values())
    with app.app_context():
        session = get_session()
        group = groups.new_group(session, name="Bench table")
        session.commit()
        for kind, count in counts.items():
            for _ in range(count):
                MAKERS[kind](session, rng, group.id)
        return counts, group.token


def _timed(client, path: str) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    """Wall and CPU milliseconds of one request (CPU time moves less with the machine's load)."""
    started, cpu = time.perf_counter(), time.process_time()
    response = client.get(path)
    elapsed = (time.perf_counter() - started) * 1000, (time.process_time() - cpu) * 1000
    assert response.status_code == 200, (path, response.status_code)
    return elapsed


def run(games: int = 1000, repeat: int = 20, out: list[str] | None = None) -> list[str]:
    from companion import create_app

    out = [] if out is None else out
    with tempfile.TemporaryDirectory() as folder:
        app = create_app({"SECRET_KEY": "bench", "TESTING": True,
                          "DATABASE": str(Path(folder) / "stats.sqlite")})
        t0 = time.perf_counter()
        counts, token = fill(app, games)
        filled = time.perf_counter() - t0
        client = app.test_client()
        rows = []
        base = f"/group/{token}/history"
        for label, path in (("GET …/history/stats", f"{base}/stats"),
                            ("GET …/history/ (newest 30 of all)", f"{base}/")):
            cold, _ = _timed(client, path)
            warm = [_timed(client, path) for _ in range(repeat)]
            wall = [w for w, _ in warm]
            rows.append((label, f"{cold:,.0f}", f"{statistics.median(wall):.1f}",
                         f"{min(wall):.1f}", f"{statistics.median(c for _, c in warm):.1f}"))
        app.extensions["companion.engine"].dispose()
    kinds = ", ".join(f"{n} {kind}" for kind, n in counts.items())
    out += [f"{games:,} finished games ({kinds}) in one group, among {len(PEOPLE)} players, "
            f"stored through each game's glue in {filled:.0f} s; SQLite, in-process (Flask "
            f"test client), {repeat} warm requests per row.", "",
            table(["page", "cold ms (summaries computed)", "warm ms median", "warm ms best",
                   "warm CPU ms median"], rows), "",
            f"- Load average (1 min) at the end: {os.getloadavg()[0]:.2f} on {os.cpu_count()} "
            "cores.",
            f"- Target: the warm statistics page under {TARGET_MS:.0f} ms of server time."]
    print("\n".join(out), flush=True)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    run(args.games, args.repeat)


if __name__ == "__main__":
    main()
