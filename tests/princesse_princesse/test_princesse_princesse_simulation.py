"""Seeded random rounds with real hidden cards, told to the public engine as a table would.

Invariants: the 21 cards are accounted for after every turn (hands + deck + set-aside + face-up +
discards), the public deck and unseen counts match the truth, every round ends exactly once, proven
faults are real breaches, and the round end filled from the log settles.
"""

from __future__ import annotations

import random

import pytest

from companion.scoring.princesse_princesse import (
    DECK_SIZE,
    EndReason,
    PublicRound,
    judge_turn_log,
    settle_round,
    simulate_round,
)

ROUNDS_PER_COUNT = 120


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_random_rounds_keep_every_invariant(players):
    """21 cards accounted for, one round end, faults only where a breach happened."""
    rng = random.Random(1000 + players)
    reasons = set()
    for index in range(ROUNDS_PER_COUNT):
        sim = simulate_round(players, index % players, rng, breach_rate=0.3)  # checks each turn
        round_ = sim.round_
        # Exactly one round end: not over before the last turn, over after it.
        replay = PublicRound(players, sim.first, sim.face_up)
        for number, turn in enumerate(sim.turns, start=1):
            assert not replay.is_over()
            replay.push(turn)
            assert replay.is_over() == (number == len(sim.turns))
        ending = round_.ending()
        assert ending is not None
        reasons.add(ending.reason)
        assert (ending.reason is EndReason.LAST_IN) == (len(ending.still_in) == 1)
        assert set(sim.final) == set(ending.still_in)
        # All 21 cards: what is face up plus what is unseen.
        shown = sum(len(round_.discards(seat)) for seat in range(players)) + len(sim.face_up)
        assert shown + sum(round_.unseen().values()) == DECK_SIZE
        # A proven fault is always a real breach (honest answers: no lie, no wrong answer).
        for fault in round_.faults(sim.final):
            assert fault.code == "celeste-not-played"
            assert fault.params["turn"] in sim.breaches
        # The round end filled from the log settles; tokens given >= 1.
        result = settle_round(round_.reveal(sim.final), [0] * players)
        assert sum(result.tokens_gained) >= 1 and result.round_winners
        verdict = judge_turn_log(players, sim.first, sim.turns, sim.face_up, sim.final)
        assert verdict.is_valid and verdict.reveal == round_.reveal(sim.final)
    assert reasons == {EndReason.LAST_IN, EndReason.DECK_EMPTY}


def test_simulation_with_breaches_sometimes_proves_them():
    """The bookkeeping does find forced-Céleste breaches that later reveals prove."""
    rng = random.Random(7)
    proven = sum(len(sim.round_.faults(sim.final))
                 for sim in (simulate_round(4, 0, rng, breach_rate=1.0) for _ in range(200)))
    assert proven > 0


def test_simulation_without_breaches_proves_no_fault():
    """Honest tables never get a fault."""
    rng = random.Random(11)
    for _ in range(150):
        sim = simulate_round(3, 0, rng)
        assert sim.breaches == () and sim.round_.faults(sim.final) == ()


def test_undoing_every_turn_returns_to_the_start():
    """``pop`` undoes turn by turn back to the deal."""
    sim = simulate_round(5, 2, random.Random(5))
    round_ = sim.round_
    while round_.turns:
        round_.pop()
    fresh = PublicRound(5, 2)
    assert (round_.current_seat, round_.deck_count, round_.unseen(), round_.seats_in()) == (
        fresh.current_seat, fresh.deck_count, fresh.unseen(), fresh.seats_in())
