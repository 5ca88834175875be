"""Engine benchmark: random full rounds per second and card plays per second, with an anchor.

Run ``python -m bench.engine`` (``--seconds`` per run, ``--repeat``, ``--seed``, ``--profile``,
``--no-anchor``, ``--anchor-ways``). Each player count deals and plays random full rounds, full
information, cycling through every Round card of both editions (Deluxe a-z, classic A-U). A round
is a deal (shuffle included) plus one uniformly random legal card at a time until the round is
over, through one of two paths:

- **fast**: ``legal_mask`` then ``push_id`` (ints, nothing checked: the path of a simulation);
- **checked**: ``legal_plays()`` (a set of cards) then ``play(card)``, which checks the card
  before playing it, and required Round-card steps through ``play_step`` (the path of a client).

Each 4-player rate is measured twice: **full rounds** (the deal on the clock) and **play only**
(a batch of rounds dealt off the clock, then only their plays timed).

The **anchor** is OpenSpiel's Hearts (``pip install -e '.[bench]'``, the ``open_spiel`` package;
C++ driven from Python through pybind11), driven from Python one action at a time like our paths,
the fastest way its Python API allows:

- the deal: the pass direction drawn with ``random()``, the 52 cards shuffled in Python
  (Fisher-Yates, as our deal does) and the state built from those 53 chance outcomes by one
  ``game.deserialize_state`` call (the same uniform deal as sampling each chance node, and the
  fastest way found: ``python -m bench.engine --anchor-ways`` compares it, in turns, with 53
  ``apply_action`` calls, with ``legal_actions()`` at each chance node as OpenSpiel's own Python
  benchmark ``python/examples/benchmark_games.py`` samples, and with ``chance_outcomes()``);
- the play: ``legal_actions()``, one drawn with ``random()``, ``apply_action``, until
  ``legal_actions()`` is empty (the game's end; no ``is_terminal()`` call), the card passing
  included, 52 cards played per game.

Next to it, for reference, **the same Hearts played entirely in C++**
(``pyspiel.evaluate_bots`` with four ``make_uniform_random_bot``: OpenSpiel samples the deal
with ``ChanceOutcomes()`` and picks each action, no Python per card). Ours has no such route: it
is Python throughout.

The anchor and our 4-player rounds on both paths take turns in the same run (ours fast, ours
checked, Hearts from Python, Hearts in C++, each full then play only, again ``--repeat`` times),
so one busy moment of the shared machine hits all of them; the ratios compare rates of the same
run.

Rates are per second of this process's CPU time, and the best of ``--repeat`` runs is reported,
as ``timeit`` does, because a shared machine only slows runs down.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import platform
import pstats
import random
import time
from collections.abc import Callable
from typing import Any

from companion.scoring.rebel_princess.cards import Edition
from companion.scoring.rebel_princess.engine.modifiers import round_card_letters
from companion.scoring.rebel_princess.engine.simulate import play_random, random_step
from companion.scoring.rebel_princess.engine.state import RoundState

CARDS = [(edition, letter) for edition in Edition for letter in round_card_letters(edition)]

Run = tuple[int, int, float]  # (rounds or games, cards, CPU seconds)
Play = Callable[[RoundState, random.Random], int]

#: Hearts games dealt (off the clock when the deal is) and played per timed batch.
HEARTS_BATCH = 20


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


def run(players: int, seconds: float, seed: int, play: Play = play_random,
        deal_timed: bool = True) -> Run:
    """Play random rounds for about ``seconds`` of CPU; returns (rounds, cards, CPU seconds).
    With ``deal_timed`` false each batch of rounds (one per Round card) is dealt off the clock
    and only the plays are timed."""
    rng = random.Random(seed)
    rounds = cards = 0
    spent = 0.0
    clock = time.process_time  # CPU time of this process: other load on the machine is ignored
    while spent < seconds:
        if deal_timed:
            start = clock()
            for edition, letter in CARDS:
                state = RoundState.deal(players, edition=edition, round_card=letter, rng=rng,
                                        leader=rounds % players)
                cards += play(state, rng)
                rounds += 1
            spent += clock() - start
        else:
            states = [RoundState.deal(players, edition=edition, round_card=letter, rng=rng,
                                      leader=(rounds + i) % players)
                      for i, (edition, letter) in enumerate(CARDS)]
            start = clock()
            for state in states:
                cards += play(state, rng)
            spent += clock() - start
            rounds += len(states)
    return rounds, cards, spent


def shuffled_deck(rand: Callable[[], float]) -> list[int]:
    """Hearts' 52 card actions in a random order (Fisher-Yates, as our deal shuffles)."""
    ids = list(range(52))
    for i in range(51, 0, -1):
        j = int(rand() * (i + 1))
        ids[i], ids[j] = ids[j], ids[i]
    return ids


_ACTIONS = [str(action) for action in range(52)]


def hearts_deal(game: Any, rand: Callable[[], float]) -> Any:
    """A new Hearts game past its chance nodes (the anchor's deal): a random pass direction and
    the deck shuffled, dealt in that order by one ``deserialize_state`` (actions as text, one a
    line: OpenSpiel applies them in C++)."""
    direction = _ACTIONS[int(rand() * 4)]  # the first chance node: 4 pass directions
    return game.deserialize_state("\n".join([direction]
                                             + [_ACTIONS[card] for card in shuffled_deck(rand)]))


def hearts_deal_apply(game: Any, rand: Callable[[], float]) -> Any:
    """The same deal with one ``apply_action`` call per chance node."""
    state = game.new_initial_state()
    apply = state.apply_action
    apply(int(rand() * 4))
    for card in shuffled_deck(rand):
        apply(card)
    return state


def hearts_deal_outcomes(game: Any, rand: Callable[[], float]) -> Any:
    """The deal sampled node by node from ``chance_outcomes()`` (the anchor until 2026-11-26)."""
    state = game.new_initial_state()
    while state.is_chance_node():
        outcomes = state.chance_outcomes()
        state.apply_action(outcomes[int(rand() * len(outcomes))][0])
    return state


def hearts_deal_legal(game: Any, rand: Callable[[], float]) -> Any:
    """The deal sampled node by node from ``legal_actions()``, as OpenSpiel's own Python
    benchmark (``python/examples/benchmark_games.py``) samples every node."""
    state = game.new_initial_state()
    apply, legal_actions = state.apply_action, state.legal_actions
    for _ in range(53):  # the pass direction, then the 52 cards
        legal = legal_actions()
        apply(legal[int(rand() * len(legal))])
    return state


#: Ways to deal Hearts from Python, compared by ``--anchor-ways`` (the anchor uses the fastest).
HEARTS_DEALS: dict[str, Callable[[Any, Callable[[], float]], Any]] = {
    "`chance_outcomes()` at each chance node": hearts_deal_outcomes,
    "`legal_actions()` at each chance node (OpenSpiel's own benchmark)": hearts_deal_legal,
    "the deck shuffled in Python, one `apply_action` a card": hearts_deal_apply,
    "the deck shuffled in Python, one `deserialize_state` (**the anchor**)": hearts_deal,
}


def hearts_play(state: Any, rand: Callable[[], float]) -> None:
    """Random legal actions from Python until the game is over (the card passing included)."""
    apply, legal_actions = state.apply_action, state.legal_actions
    legal = legal_actions()
    while legal:  # empty once the game is over
        apply(legal[int(rand() * len(legal))])
        legal = legal_actions()


def run_hearts(seconds: float, seed: int, deal_timed: bool = True, native: bool = False,
               deal: Callable[[Any, Callable[[], float]], Any] = hearts_deal) -> Run | None:
    """OpenSpiel's Hearts: random legal playouts for about ``seconds`` of CPU, driven from Python
    (or, ``native``, played in C++ by ``evaluate_bots``); ``None`` when ``open_spiel`` is not
    installed."""
    try:
        import pyspiel  # type: ignore[import-not-found]
    except ImportError:
        return None
    game = pyspiel.load_game("hearts")
    rand = random.Random(seed).random
    bots = [pyspiel.make_uniform_random_bot(p, seed + p) for p in range(4)]
    evaluate = pyspiel.evaluate_bots
    games = 0
    spent = 0.0
    clock = time.process_time
    while spent < seconds:
        if native:
            if deal_timed:  # OpenSpiel deals too (ChanceOutcomes, in C++)
                start = clock()
                for i in range(HEARTS_BATCH):
                    evaluate(game.new_initial_state(), bots, seed + games + i)
            else:
                states = [deal(game, rand) for _ in range(HEARTS_BATCH)]
                start = clock()
                for i, state in enumerate(states):
                    evaluate(state, bots, seed + games + i)
        elif deal_timed:
            start = clock()
            for _ in range(HEARTS_BATCH):
                hearts_play(deal(game, rand), rand)
        else:
            states = [deal(game, rand) for _ in range(HEARTS_BATCH)]
            start = clock()
            for state in states:
                hearts_play(state, rand)
        spent += clock() - start
        games += HEARTS_BATCH
    return games, games * 52, spent


def best(runs: list[Run]) -> Run:
    return max(runs, key=lambda r: r[1] / r[2])


def rate(result: Run) -> float:
    return result[1] / result[2]


def verdict(ratio: float, aim: float) -> str:
    return f"**{ratio:.2f}x** (aim {aim:g}x: {'met' if ratio >= aim else 'missed'})"


def anchor_ways(seconds: float, repeat: int, seed: int, say: Callable[[str], None]) -> None:
    """Hearts dealt each way from Python then played from Python, and all in C++, in turns."""
    ways: dict[str, list[Run]] = {}
    for i in range(repeat):
        for name, deal in HEARTS_DEALS.items():
            for timed in (True, False):
                found = run_hearts(seconds, seed + i, timed, deal=deal)
                if found is None:
                    say("`open_spiel` is not installed (`pip install -e '.[bench]'`).")
                    return
                ways.setdefault(f"{name}|{timed}", []).append(found)
        for timed in (True, False):
            ways.setdefault(f"all in C++ (`evaluate_bots`)|{timed}", []).append(
                run_hearts(seconds, seed + i, timed, native=True) or (0, 0, 1.0))
    say(f"OpenSpiel Hearts, the ways to deal it, played from Python (`legal_actions()` until "
        f"empty), CPU time, best of {repeat} runs of {seconds:g} s in turns; load average "
        f"{' / '.join(f'{x:.1f}' for x in os.getloadavg())} at the start.")
    say()
    say("| deal | cards/s, full games | cards/s, play only (deal off the clock) |")
    say("| --- | --: | --: |")
    for name in [*HEARTS_DEALS, "all in C++ (`evaluate_bots`)"]:
        say(f"| {name} | {rate(best(ways[f'{name}|True'])):,.0f} "
            f"| {rate(best(ways[f'{name}|False'])):,.0f} |")


def main(argv: list[str] | None = None, out: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.engine", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=1.0, help="per run (default 1)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per row (default 3)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--profile", action="store_true", help="profile 4 players instead")
    parser.add_argument("--no-anchor", action="store_true", help="skip OpenSpiel's Hearts")
    parser.add_argument("--anchor-ways", action="store_true",
                        help="compare the ways to deal and play Hearts instead")
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
    if args.anchor_ways:
        anchor_ways(args.seconds, args.repeat, args.seed, say)
        return
    say(f"Engine: {platform.python_implementation()} {platform.python_version()}, "
        f"{len(CARDS)} Round cards, full information, random legal plays, CPU time, best of "
        f"{args.repeat} runs of {args.seconds:g} s; load average "
        f"{' / '.join(f'{x:.1f}' for x in os.getloadavg())} at the start.")
    say()
    say("| players | path | rounds/s | cards/s, full rounds | cards/s, play only |")
    say("| --: | --- | --: | --: | --: |")
    for players in (3, 5, 6):
        result = best([run(players, args.seconds, args.seed + i) for i in range(args.repeat)])
        say(f"| {players} | fast | {result[0] / result[2]:,.0f} | {rate(result):,.0f} | |")
    # 4 players and the anchor take turns, so the ratios compare runs of the same moments.
    paths: dict[str, Play] = {"fast": play_random, "checked": play_checked}
    runs: dict[tuple[str, bool], list[Run]] = {}
    for i in range(args.repeat):
        seed = args.seed + i
        for path, play in paths.items():
            for timed in (True, False):
                runs.setdefault((path, timed), []).append(run(4, args.seconds, seed, play, timed))
        if args.no_anchor:
            continue
        for name, native in (("hearts", False), ("hearts-c++", True)):
            for timed in (True, False):
                found = run_hearts(args.seconds, seed, timed, native)
                if found is not None:
                    runs.setdefault((name, timed), []).append(found)
    rows = {key: best(value) for key, value in runs.items()}
    titles = {"fast": "fast", "checked": "checked",
              "hearts": "OpenSpiel Hearts from Python (**the anchor**, 52 cards a game)",
              "hearts-c++": "OpenSpiel Hearts all in C++ (`evaluate_bots`, for reference)"}
    for name, title in titles.items():
        if (name, True) in rows:
            full, alone = rows[(name, True)], rows[(name, False)]
            say(f"| 4 | {title} | {full[0] / full[2]:,.0f} | {rate(full):,.0f} "
                f"| {rate(alone):,.0f} |")
    say()
    if ("hearts", True) not in rows:
        say("- Anchor not measured: `open_spiel` is not installed (`pip install -e '.[bench]'`).")
        return
    for path, aim in (("fast", 1.5), ("checked", 1.0)):
        say(f"- The {path} path against the anchor, cards/s, same run: full rounds "
            f"{verdict(rate(rows[(path, True)]) / rate(rows[('hearts', True)]), aim)}, "
            f"play only "
            f"{verdict(rate(rows[(path, False)]) / rate(rows[('hearts', False)]), aim)}.")
    say(f"- Against Hearts all in C++ (no Python per card), same run: fast path "
        f"{rate(rows[('fast', True)]) / rate(rows[('hearts-c++', True)]):.2f}x full, "
        f"{rate(rows[('fast', False)]) / rate(rows[('hearts-c++', False)]):.2f}x play only; "
        f"checked path "
        f"{rate(rows[('checked', True)]) / rate(rows[('hearts-c++', True)]):.2f}x full, "
        f"{rate(rows[('checked', False)]) / rate(rows[('hearts-c++', False)]):.2f}x play only.")


if __name__ == "__main__":
    main()
