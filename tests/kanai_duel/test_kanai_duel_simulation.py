"""Seeded random games under every rule set, checked against invariants, plus a property test that
the game favours no seat."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.scoring.kanai_duel import (
    HAND,
    Duel,
    DuelCard,
    DuelSetAside,
    Result,
    Rules,
    resolve,
)

RULE_SETS = {
    "standard": Rules(),
    "G": Rules.with_variants(["impatience"]),
    "H": Rules.with_variants(["numbers"]),
    "H-clown-minister": Rules.with_variants(["numbers-clown-minister"]),
    "Q": Rules.with_variants(["until-dawn"]),
    "B": Rules.with_variants(["seven"]),
    "C": Rules.with_variants(["wanderlust"]),
    "G+H+B": Rules.with_variants(["impatience", "numbers-clown-minister", "seven"]),
}
GAMES = 250


def random_game(rng: random.Random, rules: Rules) -> Duel:
    """A game played to its end with random picks (and random cards set aside under B/C)."""
    out = (None, None)
    if rules.set_aside is not DuelSetAside.NONE:
        out = (rng.choice(sorted(HAND)), rng.choice(sorted(HAND)))
    duel = Duel(rules, out=out)
    while not duel.is_over():
        duel.play(rng.choice(sorted(duel.hand(0))), rng.choice(sorted(duel.hand(1))))
    return duel


def check_invariants(duel: Duel) -> None:
    rules = duel.rules
    results = duel.results
    outcome = duel.outcome()
    assert outcome is not None and 1 <= len(results) <= rules.rounds
    # Each card at most once per player, never a card set aside.
    for seat in (0, 1):
        cards = [r.cards[seat] for r in results]
        assert len(set(cards)) == len(cards) and duel.out[seat] not in cards
    # The score is the sum of the points, and every round is counted once: by its winner, by the
    # winner of the round that took it from the hold, or lost at the end.
    assert outcome.score == tuple(sum(r.points[s] for r in results) for s in (0, 1))
    taken = [h.number for r in results for h in r.taken]
    assert len(taken) == len(set(taken))
    held = [r.number for r in results if r.held]
    assert set(taken) <= set(held)
    assert all(h.number < r.number for r in results for h in r.taken)
    assert len(held) == len(taken) + outcome.lost
    for r in results:
        if r.winner is not None and not r.game_won:
            expected = r.worth[r.winner] + sum(h.worth[r.winner] for h in r.taken)
            assert r.points[r.winner] == expected and r.points[1 - r.winner] == 0
        else:
            assert r.points == (0, 0)
        assert set(r.worth) <= {1, 2} and set(r.next_bonus) <= {0, 2}
        for step in r.steps:
            assert "{" not in step.text("en") and "{" not in step.text("fr")
    # The game ends exactly when it should, and not earlier.
    running = [0, 0]
    for r in results[:-1]:
        running = [running[s] + r.points[s] for s in (0, 1)]
        assert not r.game_won and r.outcome is None
        assert rules.until_dawn or max(running) < rules.wins_needed
    last = results[-1]
    if outcome.result is Result.PRINCESS:
        assert last.game_won and last.cards[1 - outcome.winner] is DuelCard.PRINCE
    elif outcome.result is Result.WIN and not rules.until_dawn:
        assert outcome.score[outcome.winner] >= rules.wins_needed
    else:
        assert len(results) == rules.rounds
        if outcome.result is Result.WIN:
            assert outcome.score[outcome.winner] > outcome.score[1 - outcome.winner]
        else:
            assert rules.until_dawn or max(outcome.score) < rules.wins_needed
            assert not rules.until_dawn or outcome.score[0] == outcome.score[1]
    assert duel.held() == () and duel.bonus() == (0, 0) and duel.reveals_first() is None


@pytest.mark.parametrize("name", RULE_SETS)
def test_random_games_keep_every_invariant(name):
    """Seeded random games: cards once each, the score adds up, every round counted once, the game
    ends exactly when it should; undo goes back to the start."""
    rng = random.Random(f"kanai-{name}")
    rules = RULE_SETS[name]
    for _ in range(GAMES):
        duel = random_game(rng, rules)
        check_invariants(duel)
        start = Duel(rules, out=duel.out).standing
        while duel.results:
            duel.pop()
        assert duel.standing == start


def test_random_games_agree_with_the_api_function():
    """The stateless API function gives the same answer as the game state, round after round."""
    rng = random.Random("kanai-api")
    for _ in range(GAMES):
        duel = random_game(rng, Rules())
        answer = resolve([[r.cards[0].value, r.cards[1].value] for r in duel.results]).as_dict()
        assert answer["score"] == list(duel.score())
        assert answer["winner"] == duel.outcome().winner
        assert answer["result"] == duel.outcome().result.value
        assert [r["points"] for r in answer["rounds"]] == [list(r.points) for r in duel.results]


@settings(max_examples=150, deadline=None)
@given(st.permutations(sorted(HAND)), st.permutations(sorted(HAND)))
def test_swapping_the_players_swaps_the_whole_game(first, second):
    """Played with seats swapped, every round and the outcome are the mirror image."""
    a, b = Duel(), Duel()
    for x, y in zip(first, second, strict=True):
        if a.is_over():
            break
        a.play(x, y)
        b.play(y, x)
    assert a.score() == b.score()[::-1]
    oa, ob = a.outcome(), b.outcome()
    assert (oa is None) == (ob is None)
    if oa is not None:
        assert oa.result is ob.result
        assert oa.winner == (None if ob.winner is None else 1 - ob.winner)
