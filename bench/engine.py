"""Engine benchmark: random full rounds per second and card plays per second, with an anchor.

Run ``python -m bench.engine`` (``--seconds`` per run, ``--repeat``, ``--seed``, ``--profile``,
``--no-anchor``). Each player count deals and plays random full rounds, full information, cycling
through every Round card of both editions (Deluxe a-z, classic A-U). A round is a deal (shuffle
included) plus one uniformly random legal card at a time until the round is over, through one of
two paths:

- **fast**: ``legal_mask`` then ``push_id`` (ints, nothing checked: the path of a simulation);
- **checked**: ``legal_plays()`` (a set of cards) then ``play(card)``, which checks the card
  before playing it, and required Round-card steps through ``play_step`` (the path of a client).

The **anchor** is OpenSpiel's Hearts (``pip install -e '.[bench]'``, the ``open_spiel`` package;
C++ driven from Python through pybind11), played the same way: random legal playouts from a new
game, its chance nodes (the deal) and the card passing included, 52 cards played per game. The
anchor and our 4-player rounds on both paths take turns in the same run (ours fast, ours checked,
Hearts, again ``--repeat`` times), so one busy moment of the shared machine hits all of them;
the ratios compare rates of the same run.

Rates are per second of this process's CPU time, and the best of ``--repeat`` runs is reported,
as ``timeit`` does, because a shared machine only slows runs down.
"""

from __future__ import annotations

import argparse
import cProfile
import platform
import pstats
import random
import time
from collections.abc import Callable

from companion.scoring.rebel_princess.cards import Edition
from companion.scoring.rebel_princess.engine.modifiers import round_card_letters
from companion.scoring.rebel_princess.engine.simulate import play_random, random_step
from companion.scoring.rebel_princess.engine.state import RoundState

CARDS = [(edition, letter) for edition in Edition for letter in round_card_letters(edition)]

Run = tuple[int, int, float]  # (rounds or games, cards, CPU seconds)


def play_checked(state: RoundState, rng: random.Random) -> int:
    """Play random legal cards through the checked path until the round is over."""
    rand = rng.random
    played = 0
    while not state.is_over():
        if state.step_due is not None:
            state.play_step(random_step(state, rng))
            continue
        legal = tuple(state.legal_plays())
        state.play(legal[int(rand() * len(legal))])
        played += 1
    return played


def run(players: int, seconds: float, seed: int,
        play: Callable[[RoundState, random.Random], int] = play_random) -> Run:
    """Play random rounds for about ``seconds``; returns (rounds, cards, elapsed seconds)."""
    rng = random.Random(seed)
    rounds = cards = 0
    start = time.process_time()  # CPU time of this process: other load on the machine is ignored
    deadline = start + seconds
    while True:
        for edition, letter in CARDS:
            state = RoundState.deal(players, edition=edition, round_card=letter, rng=rng,
                                    leader=rounds % players)
            cards += play(state, rng)
            rounds += 1
        now = time.process_time()
        if now >= deadline:
            return rounds, cards, now - start


def run_hearts(seconds: float, seed: int) -> Run | None:
    """OpenSpiel's Hearts: random legal playouts for about ``seconds``, or ``None`` when
    ``open_spiel`` is not installed."""
    try:
        import pyspiel  # type: ignore[import-not-found]
    except ImportError:
        return None
    game = pyspiel.load_game("hearts")
    rand = random.Random(seed).random
    games = 0
    start = time.process_time()
    deadline = start + seconds
    while True:
        for _ in range(20):
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    outcomes = state.chance_outcomes()
                    state.apply_action(outcomes[int(rand() * len(outcomes))][0])
                else:
                    legal = state.legal_actions()
                    state.apply_action(legal[int(rand() * len(legal))])
            games += 1
        now = time.process_time()
        if now >= deadline:
            return games, games * 52, now - start


def best(runs: list[Run]) -> Run:
    return max(runs, key=lambda r: r[1] / r[2])


def rate(result: Run) -> float:
    return result[1] / result[2]


def main(argv: list[str] | None = None, out: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.engine", description=__doc__)
    parser.add_argument("--seconds", type=float, default=1.0, help="per run (default 1)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per row (default 3)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--profile", action="store_true", help="profile 4 players instead")
    parser.add_argument("--no-anchor", action="store_true", help="skip OpenSpiel's Hearts")
    args = parser.parse_args(argv)
    lines = out if out is not None else []

    def say(text: str = "") -> None:
        print(text, flush=True)
        lines.append(text)

    if args.profile:
        profiler = cProfile.Profile()
        profiler.runcall(run, 4, args.seconds, args.seed)
        pstats.Stats(profiler).sort_stats("tottime").print_stats(12)
        return
    say(f"Engine: {platform.python_implementation()} {platform.python_version()}, "
        f"{len(CARDS)} Round cards, full information, random legal plays, deal included, CPU "
        f"time, best of {args.repeat} runs of {args.seconds:g} s.")
    say()
    say("| players | path | rounds/s | cards/s |")
    say("| --: | --- | --: | --: |")
    for players in (3, 5, 6):
        result = best([run(players, args.seconds, args.seed + i) for i in range(args.repeat)])
        say(f"| {players} | fast | {result[0] / result[2]:,.0f} | {rate(result):,.0f} |")
    # 4 players and the anchor take turns, so the ratios compare runs of the same moments.
    fast, checked, hearts = [], [], []
    for i in range(args.repeat):
        fast.append(run(4, args.seconds, args.seed + i))
        checked.append(run(4, args.seconds, args.seed + i, play_checked))
        if not args.no_anchor:
            found = run_hearts(args.seconds, args.seed + i)
            if found is not None:
                hearts.append(found)
    ours = {"fast": best(fast), "checked": best(checked)}
    for path, result in ours.items():
        say(f"| 4 | {path} | {result[0] / result[2]:,.0f} | {rate(result):,.0f} |")
    if hearts:
        anchor = best(hearts)
        say(f"| 4 | OpenSpiel Hearts (anchor, 52 cards a game) | {anchor[0] / anchor[2]:,.0f} "
            f"| {rate(anchor):,.0f} |")
        say()
        say(f"- Against OpenSpiel's Hearts, cards/s, same run: fast path "
            f"{rate(ours['fast']) / rate(anchor):.2f}x, checked path "
            f"{rate(ours['checked']) / rate(anchor):.2f}x.")
    else:
        say()
        say("- Anchor not measured: `open_spiel` is not installed (`pip install -e '.[bench]'`).")


if __name__ == "__main__":
    main()
