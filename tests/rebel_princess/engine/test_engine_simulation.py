"""Seeded random rounds through the engine: invariants, the simulate command and the oracle."""

from __future__ import annotations

import random

import pytest

from companion.scoring.rebel_princess.cards import deck, hand_size
from companion.scoring.rebel_princess.engine import Edition, RoundState, parse_cards
from companion.scoring.rebel_princess.engine import simulate as simulation
from companion.scoring.rebel_princess.engine.simulate import (
    expected_scores,
    main,
    play_random,
    random_haggle,
    random_pass,
    random_step,
    simulate,
)


def test_random_games_keep_every_invariant():
    """A few hundred seeded random rounds, both editions, 3-6 players: no invariant fails."""
    report = simulate(games=60, seed=2024)
    assert report.failures == []
    assert (report.games, report.rounds) == (60, 300)
    assert report.cards > 300 * 20


@pytest.mark.parametrize("edition", list(Edition))
@pytest.mark.parametrize("players", [3, 6])
def test_random_games_by_table_size(edition, players):
    """Fixed edition and player count: every invariant holds."""
    assert simulate(games=6, seed=players, players=players, edition=edition).failures == []


def test_simulate_command_reports_and_exits_cleanly(capsys):
    """``python -m companion.scoring.rebel_princess.engine.simulate --games N --seed S`` prints a
    summary, exit 0."""
    assert main(["--games", "3", "--seed", "5"]) == 0
    out = capsys.readouterr().out
    assert "3 games, 15 rounds" in out and "0 invariant failure(s)" in out


def test_invariant_checks_catch_a_corrupted_round():
    """The round checks are not vacuous: a card moved between seats' taken piles is caught."""
    rng = random.Random(1)
    state = RoundState.deal(4, round_card="a", rng=rng)
    dealt = list(state.hands)
    play_random(state, rng)
    giver = next(seat for seat in range(4) if state.taken[seat])
    low = state.taken[giver] & -state.taken[giver]
    state.taken[giver] ^= low
    state.taken[(giver + 1) % 4] |= low
    failures = simulation._check_round(state, dealt, [], [0] * 4, ())
    assert any("taken cards differ" in failure for failure in failures)


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_play_random_plays_every_card(players):
    """A random playout plays the whole deck, or all but the 3 kept cards each under n."""
    state = RoundState.deal(players, seed=players)
    assert play_random(state, random.Random(0)) == len(deck(players))
    kept = RoundState.deal(players, round_card="n", seed=players)
    assert play_random(kept, random.Random(0)) == len(deck(players)) - 3 * players
    assert sum(kept.tricks_won) == hand_size(players) - 3


@pytest.mark.parametrize("edition, letter, taken, won, totals, expected", [
    ("deluxe", "a", "P2 P7 A8", 1, (0, 0, 0), 7),
    ("deluxe", "z", "P2 P7 P9 Q2 Q5", 1, (0, 0, 0), 6),  # RULINGS.md Dancing Queens example
    ("deluxe", "d", "P3 Q3 A8", 1, (0, 0, 0), 0),  # 1 + 5 - 6
    ("deluxe", "e", "", 0, (0, 0, 0), 5),
    ("classic", "F", "A8 A2", 1, (0, 0, 0), 7),
    ("classic", "P", "F2 F3 P4", 1, (0, 0, 0), -1),
    ("deluxe", "y", "P2 P3", 1, (0, 4, 0), 4),
    ("deluxe", "y", "P2 P3", 1, (9, 4, 0), 2),
])
def test_score_oracle_follows_the_rulings(edition, letter, taken, won, totals, expected):
    """The simulation's independent score count follows RULINGS.md "Scoring a round"."""
    cards = [frozenset(parse_cards(taken)), frozenset(), frozenset()]
    scores = expected_scores(Edition(edition), letter, 3, cards, [won, 1, 1], totals)
    assert scores[0] == expected


def test_score_oracle_rebel_of_the_ball():
    """Deluxe only: every Prince and the Frog score exactly -10; never under Wedding Gift."""
    everything = [frozenset(deck(3)), frozenset(), frozenset()]
    assert expected_scores(Edition.DELUXE, "a", 3, everything, [12, 0, 0], [0, 0, 0])[0] == -10
    assert expected_scores(Edition.DELUXE, "o", 3, everything, [12, 0, 0], [0, 0, 0])[0] == 14
    assert expected_scores(Edition.CLASSIC, "A", 3, everything, [12, 0, 0], [0, 0, 0])[0] == 14


LETTERS = [(edition, letter) for edition in Edition
           for letter in simulation.round_card_letters(edition)]


@pytest.mark.parametrize("edition, letter", LETTERS)
def test_checked_and_fast_paths_agree(edition, letter):
    """For every card in the hand to play, check_play finds nothing exactly when the fast
    legal_mask allows it, and pop_card and pop undo the whole round back to the deal."""
    rng = random.Random(letter)
    for players in (3, 5):
        state = RoundState.deal(players, edition=edition, round_card=letter, rng=rng)
        start = state.notation()
        state.play_step(random_pass(state, rng, 1, 1))
        while not state.is_over():
            if state.step_due is not None:
                step = random_step(state, rng)
                assert state.check_step(step) == []
                state.push_step(step)
                continue
            hand = state.hand(state.turn)
            legal = state.legal_plays()
            assert legal and legal <= hand
            for card in hand:
                assert (state.check_play(card) == []) == (card in legal)
            state.push_card(rng.choice(sorted(legal)))
            haggle = random_haggle(state, rng)
            if haggle is not None:
                state.play_step(haggle)
        while True:
            if state.current_trick:
                state.pop_card()
                continue
            try:
                state.pop()
            except IndexError:
                break
        assert state.notation() == start
