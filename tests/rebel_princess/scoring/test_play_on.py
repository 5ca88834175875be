"""``play_on``: a game played on by one round is the game replayed with that round.

A save judges a new round on the game as its page showed it (``play_on(state, round)``) instead
of replaying every stored round again; ``play_through`` is ``play_on`` from the game before its
first round. For every game here, from the state after k rounds, round k + 1 gives exactly what
replaying the k + 1 rounds gives: the rounds and their warnings, totals, leaders, standings and
the problems that stop a replay (what a save refuses)."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterator

import pytest

from companion.scoring.rebel_princess import (
    Edition,
    GameSetup,
    PlayedRound,
    RebelGameState,
    RoundCounts,
    deck,
    play_on,
    play_through,
    princes,
    round_cards,
)
from tests.rebel_princess.scoring.test_game import (
    CLASSIC_ROUNDS,
    CLASSIC_SETUP,
    DELUXE_ROUNDS,
    DELUXE_SETUP,
    TIED_AFTER_THREE,
    by_cards,
    by_numbers,
)

D, C = Edition.DELUXE, Edition.CLASSIC

FIXTURE_GAMES = [
    (DELUXE_SETUP, DELUXE_ROUNDS),
    (CLASSIC_SETUP, CLASSIC_ROUNDS),
    (CLASSIC_SETUP, [*CLASSIC_ROUNDS[:4],
                     dataclasses.replace(CLASSIC_ROUNDS[4], last_trick_winner=None)]),
    (CLASSIC_SETUP, [dataclasses.replace(CLASSIC_ROUNDS[0], last_trick_winner=None),
                     *CLASSIC_ROUNDS[1:]]),  # stopped: who leads round 2 is not known
    (CLASSIC_SETUP, [dataclasses.replace(CLASSIC_ROUNDS[0], last_trick_winner=3)]),
    (DELUXE_SETUP, [*TIED_AFTER_THREE,
                    by_cards("P1 P2 P3 P4 P5 P6 P7 P8 P9 P10 A8", "", "", "", round_card="Y")]),
    (DELUXE_SETUP, [*TIED_AFTER_THREE, by_numbers(5, 5, -5, 5, round_card="x"),
                    by_numbers(1, 0, 14, 0, round_card="z"), by_numbers(0, 0, 0, 15)]),
    (DELUXE_SETUP, [*TIED_AFTER_THREE, by_numbers(5, 5, 0, 5)]),  # play-off without its card
    (DELUXE_SETUP, [*TIED_AFTER_THREE, by_numbers(5, 5, 0, 5, round_card="?")]),
    (DELUXE_SETUP, [*DELUXE_ROUNDS, by_numbers(0, 0, 0, 15, round_card="a")]),  # ignored
    (DELUXE_SETUP, [by_numbers(5, 0, 0, 10), by_numbers(0, 5, 5, 0, leader=2)]),
    (DELUXE_SETUP, [DELUXE_ROUNDS[0], by_cards("P1 P2", "", "", ""), DELUXE_ROUNDS[2]]),
    (DELUXE_SETUP, [by_numbers(15, 0, 0)]),
    (DELUXE_SETUP, [by_numbers(15, 0, 0, 0), by_numbers(0, 1.5, 0, 15)]),  # type: ignore[arg-type]
    (DELUXE_SETUP, [by_numbers(15, 0, 0, 0, leader=4)]),
    (DELUXE_SETUP, [by_numbers(3, 4, 4, 4), by_numbers(1, 2, 3, 50), by_numbers(9, 0, 0, 9)]),
    (GameSetup(D, 4, 0, ("y", "a", "b")), [by_numbers(5, 5, 5, 0), by_numbers(0, 0, 0, 15),
                                           by_numbers(0, 10, 0, 5)]),
    (GameSetup(D, 4, 0, ("e", "a", "b", "c", "d")),
     [by_cards("P1 P2 P3 P4 P5 P6 P7 P8 P9 P10 A8", "Q1", "", "", no_tricks=frozenset({2, 3}))]),
]


def _deal(rng: random.Random, players: int) -> tuple[frozenset, ...]:
    """Every card of the deck to a seat at random (the cards taken in a round)."""
    seats: list[set] = [set() for _ in range(players)]
    for card in deck(players):
        seats[rng.randrange(players)].add(card)
    return tuple(frozenset(cards) for cards in seats)


def _random_round(rng: random.Random, setup: GameSetup, number: int,
                  tied: bool = False) -> PlayedRound:
    """One round entered at random: by numbers (some impossible, some ties, now and then a
    score that is not a number), by cards (now and then a card missing) or by counts, with now
    and then an entered leader or last trick winner that is not a seat, and for a round after
    the planned ones a play-off Round card in either case, unknown or missing."""
    players = setup.players
    extra: dict[str, object] = {}
    if rng.random() < 0.1:
        extra["leader"] = rng.choice([*range(players), players])
    if setup.edition is C:
        extra["last_trick_winner"] = rng.choice([*range(players)] * 4 + [None, players])
    if number > setup.rounds_planned:
        letter = rng.choice(round_cards(setup.edition)).letter
        extra["round_card"] = rng.choice([letter] * 4 + [letter.swapcase(), None, "?"])
    kind = rng.random()
    if kind < 0.15 or (tied and number <= setup.rounds_planned):
        return PlayedRound(scores=(rng.choice([0, 5]),) * players, **extra)  # type: ignore[arg-type]
    if kind < 0.45:
        scores: list[object] = [rng.randint(-13, 16) for _ in range(players)]
        if rng.random() < 0.03:
            scores[rng.randrange(players)] = rng.choice(["3", 1.5, None])
        if rng.random() < 0.02:
            scores.pop()
        return PlayedRound(scores=tuple(scores), **extra)  # type: ignore[arg-type]
    if kind < 0.8:
        taken = _deal(rng, players)
        if rng.random() < 0.05:
            seat = max(range(players), key=lambda s: len(taken[s]))
            taken = (*taken[:seat], frozenset(sorted(taken[seat])[1:]), *taken[seat + 1:])
        no_tricks = frozenset(s for s in range(players) if not taken[s] or rng.random() < 0.2)
        return PlayedRound(taken=taken, no_tricks=no_tricks, **extra)  # type: ignore[arg-type]
    counts = [0] * players
    for _ in princes(players):
        counts[rng.randrange(players)] += 1
    return PlayedRound(counts=RoundCounts(tuple(counts), rng.randrange(players)),
                       **extra)  # type: ignore[arg-type]


def random_games(count: int, seed: int) -> Iterator[tuple[GameSetup, list[PlayedRound]]]:
    """``count`` games of each edition, 3 to 6 seats, whose Round cards go through the whole
    catalogue of the edition in turn (every card is played), with up to three rounds more than
    planned (play-offs, or rounds ignored after the end). A game in four has its planned rounds
    tied for every seat (a Deluxe play-off is then due)."""
    rng = random.Random(seed)
    for edition in Edition:
        letters = [card.letter for card in round_cards(edition)]
        for game in range(count):
            planned = rng.choice((3, 5)) if edition is D else 5
            start = game * planned % len(letters)
            chosen = tuple((letters * 2)[start:start + planned])
            players = rng.randint(3, 6)
            setup = GameSetup(edition, players, rng.randrange(players), chosen)
            tied = game % 4 == 3
            yield setup, [_random_round(rng, setup, n, tied)
                          for n in range(1, planned + rng.randint(0, 3) + 1)]


RANDOM_GAMES = list(random_games(150, seed=36))


def _replays(setup: GameSetup, played: list[PlayedRound]) -> list[RebelGameState]:
    """The game replayed after 0, 1, ... all of its rounds."""
    return [play_through(setup, played[:k]) for k in range(len(played) + 1)]


@pytest.mark.parametrize(("setup", "played"), FIXTURE_GAMES)
def test_each_round_played_on_is_the_game_replayed_with_it(setup, played):
    """The games of the replay's tests: played on from each state, round by round."""
    replays = _replays(setup, played)
    for k, entry in enumerate(played):
        assert play_on(replays[k], entry) == replays[k + 1]


def test_random_games_played_on_are_the_games_replayed():
    """Random games through every Round card of both editions, entered every way, with what
    stops a replay, warnings and play-offs: each round played on is the game replayed with it."""
    seen: dict[str, set[object]] = {"cards": set(), "errors": set(), "ends": set()}
    for setup, played in RANDOM_GAMES:
        replays = _replays(setup, played)
        for k, entry in enumerate(played):
            after = play_on(replays[k], entry)
            assert after == replays[k + 1], (setup, played[:k + 1])
            seen["cards"].update((setup.edition, r.round_card) for r in after.rounds)
            seen["errors"].update(p.code for _, problems in after.errors for p in problems)
            seen["ends"].update(w.code for r in after.rounds for w in r.warnings)
            if after.next_is_playoff:
                seen["ends"].add("playoff-due")
            if any(r.playoff for r in after.rounds):
                seen["ends"].add("playoff-played")
            if after.finished and k + 1 < len(played) and after is replays[k]:
                seen["ends"].add("ignored")
    assert seen["cards"] == {(e, card.letter) for e in Edition for card in round_cards(e)}
    assert {"bad-score", "bad-leader", "wrong-seat-count", "unknown-round-card",
            "missing-card", "counts-not-enough"} <= seen["errors"]
    assert {"impossible-round-total", "playoff-due", "playoff-played", "ignored"} <= seen["ends"]


def test_a_stopped_or_finished_game_is_not_played_on():
    """A replay stops at a round it cannot score, and ignores rounds after the end: played on,
    such a game stays the very same state."""
    stopped = play_through(DELUXE_SETUP, [DELUXE_ROUNDS[0], by_cards("P1 P2", "", "", "")])
    assert stopped.errors and play_on(stopped, DELUXE_ROUNDS[2]) is stopped
    over = play_through(DELUXE_SETUP, DELUXE_ROUNDS)
    assert over.finished and play_on(over, by_numbers(0, 0, 0, 15, round_card="a")) is over


def test_played_on_keeps_the_rounds_before():
    """Playing on adds one round and leaves every round before it as it was."""
    for setup, played in RANDOM_GAMES[:40]:
        state = play_through(setup, [])
        for entry in played:
            after = play_on(state, entry)
            assert after.rounds[:len(state.rounds)] == state.rounds
            assert len(after.rounds) - len(state.rounds) in (0, 1)
            if len(after.rounds) > len(state.rounds):
                added = after.rounds[-1]
                assert after.totals == tuple(t + s for t, s in zip(state.totals, added.scores,
                                                                    strict=True))
            state = after
