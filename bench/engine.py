"""Engine benchmark: random full rounds per second and card plays per second, 3 to 6 players.

Run ``python -m bench.engine`` (``--seconds`` per run, ``--repeat``, ``--seed``, ``--profile``).
Each player count deals and plays random full rounds, full information, cycling through every Round
card of both editions (Deluxe a-z, classic A-U). A round is a deal (shuffle included) plus one
uniformly random legal card at a time (``legal_mask`` then ``push_id``, the engine's fast path)
until the round is over. Rates are per second of this process's CPU time, and the best of
``--repeat`` runs is reported, as ``timeit`` does, because a shared machine only slows runs down.
The target is about 350,000 cards/s in pure Python.
"""

from __future__ import annotations

import argparse
import cProfile
import platform
import pstats
import random
import time

from companion.scoring.rebel_princess.cards import Edition
from companion.scoring.rebel_princess.engine.modifiers import round_card_letters
from companion.scoring.rebel_princess.engine.simulate import play_random
from companion.scoring.rebel_princess.engine.state import RoundState

CARDS = [(edition, letter) for edition in Edition for letter in round_card_letters(edition)]


def run(players: int, seconds: float, seed: int) -> tuple[int, int, float]:
    """Play random rounds for about ``seconds``; returns (rounds, cards, elapsed seconds)."""
    rng = random.Random(seed)
    rounds = cards = 0
    start = time.process_time()  # CPU time of this process: other load on the machine is ignored
    deadline = start + seconds
    while True:
        for edition, letter in CARDS:
            state = RoundState.deal(players, edition=edition, round_card=letter, rng=rng,
                                    leader=rounds % players)
            cards += play_random(state, rng)
            rounds += 1
        now = time.process_time()
        if now >= deadline:
            return rounds, cards, now - start


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.engine", description=__doc__)
    parser.add_argument("--seconds", type=float, default=1.0, help="per run (default 1)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per player count (default 3)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--profile", action="store_true", help="profile 4 players instead")
    args = parser.parse_args(argv)
    if args.profile:
        profiler = cProfile.Profile()
        profiler.runcall(run, 4, args.seconds, args.seed)
        pstats.Stats(profiler).sort_stats("tottime").print_stats(12)
        return
    print(f"engine benchmark, {platform.python_implementation()} {platform.python_version()}, "
          f"{len(CARDS)} Round cards, full information, random legal plays")
    print(f"{'players':>7} {'rounds/s':>10} {'cards/s':>10}")
    for players in range(3, 7):
        runs = [run(players, args.seconds, args.seed + i) for i in range(args.repeat)]
        rounds, cards, elapsed = max(runs, key=lambda r: r[1] / r[2])
        print(f"{players:>7} {rounds / elapsed:>10,.0f} {cards / elapsed:>10,.0f}")


if __name__ == "__main__":
    main()
