"""The discard checker and the ``discard`` endpoint (rulebook « Action : Défausser une ou
plusieurs cartes »; REVEILLEZ.md « Discards »; issue 11)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.scoring.problems import EntryError
from companion.scoring.reveillez import DiscardKind, ReveillezCard, classify_discard, read_discard


def test_issue_examples():
    """The issue's two example answers, exactly."""
    assert classify_discard([1, 3, 4, 8]).as_dict() == {"valid": True, "kind": "addition",
                                                        "draw": 4}
    assert classify_discard([2, 3]).as_dict() == {"valid": False, "kind": None, "draw": 0}


@pytest.mark.parametrize("cards", [[2, 3, 5], [5, 3, 2], [1, 3, 4, 8], [8, 1, 4, 3]])
def test_rulebook_addition_examples(cards):
    """« si vous avez un 2, un 3 et un 5 … 2+3=5 » and « un 1, un 3, un 4 et un 8 … 1+3+4=8 »:
    discard them all and draw as many, in any order."""
    check = classify_discard(cards)
    assert check.kind is DiscardKind.ADDITION and check.draw == len(cards)


@pytest.mark.parametrize("card", [1, 7, 10, "prince", "chevalier", "dragon", "potion",
                                  "baguette", "bouffon"])
def test_any_single_card_draws_one(card):
    """Discard any one card and draw one."""
    check = classify_discard([card])
    assert check.kind is DiscardKind.SINGLE and check.draw == 1


@pytest.mark.parametrize("pair", [[4, 4], [10, 10], ["dragon", "dragon"], ["prince", "prince"],
                                  ["bouffon", "Bouffon"]])
def test_identical_pair_draws_two(pair):
    """A pair of identical cards draws two: equal numbers, or (our reading) identical power
    cards (REVEILLEZ.md « Discards »)."""
    check = classify_discard(pair)
    assert check.kind is DiscardKind.PAIR and check.draw == 2


@pytest.mark.parametrize("pair", [[4, 5], ["dragon", "chevalier"], [2, "prince"]])
def test_different_pair_is_not_a_discard(pair):
    """Two cards that are not identical are neither a pair nor an addition."""
    assert classify_discard(pair).as_dict() == {"valid": False, "kind": None, "draw": 0}


@pytest.mark.parametrize("cards", [[1, 1, 2], [2, 2, 4], [5, 5, 10], [1, 2, 3, 6],
                                   [1, 1, 1, 1, 4], [2, 2, 2, 6], [3, 4, 7]])
def test_addition_one_equals_the_sum_of_the_others(cards):
    """Three or more numbers where one equals the sum of all the others (1+1=2 included)."""
    check = classify_discard(cards)
    assert check.kind is DiscardKind.ADDITION and check.draw == len(cards)


@pytest.mark.parametrize("cards", [[1, 2, 4], [3, 3, 3], [2, 2, 2, 2], [1, 2, 3, 4],
                                   [1, 1, 1, 1, 1], [5, 5, 9]])
def test_not_an_addition(cards):
    """Numbers where none is the sum of the others are not a discard (three of a kind is no pair:
    a pair is exactly two cards)."""
    assert not classify_discard(cards).is_valid


@pytest.mark.parametrize("cards", [[2, 3, "prince"], ["prince", "prince", "prince"],
                                   ["dragon", 1, 1]])
def test_addition_uses_numbers_only(cards):
    """Power cards never take part in an addition."""
    assert not classify_discard(cards).is_valid


def test_equation_is_what_the_player_announces():
    """The app shows the addition to announce aloud (« Annoncez tout haut votre opération »)."""
    check = classify_discard([8, 1, 3, 4])
    assert check.equation() == "1 + 3 + 4 = 8"
    assert check.total == ReveillezCard(number=8) and check.addends == tuple(ReveillezCard(number=n)
                                                                     for n in (1, 3, 4))
    assert classify_discard([4, 4]).equation() is None


def test_read_discard_classifies_without_count_limits():
    """The classifier itself never raises; the count limits belong to the entry check."""
    assert read_discard(()).kind is None
    cards = [ReveillezCard(number=n) for n in (1, 1, 1, 1, 1, 5)]
    assert read_discard(cards).kind is DiscardKind.ADDITION


@pytest.mark.parametrize(("cards", "codes"), [
    ([], ["discard-empty"]),
    ([1, 1, 1, 1, 1, 5], ["discard-too-many"]),
    ([0, 3], ["number-range"]),
    ([11], ["number-range"]),
    (["joker", 3, "sword"], ["unknown-card", "unknown-card"]),
    ("1 3 4 8", ["unknown-card"]),
    (5, ["unknown-card"]),
    ([0, 1, 1, 1, 1, 1], ["number-range", "discard-too-many"]),
])
def test_discard_refuses(cards, codes):
    """No card, more than a hand of 5, a number outside 1–10, an unknown card: every problem is
    listed (issue 11, 422)."""
    with pytest.raises(EntryError) as caught:
        classify_discard(cards)
    assert caught.value.codes == codes


@given(st.lists(st.integers(1, 10), min_size=1, max_size=5))
def test_discard_agrees_with_the_rule_as_written(numbers):
    """For any 1–5 numbers: valid exactly when one card, two equal cards, or 3+ cards where some
    card equals the sum of all the others (checked by brute force)."""
    sum_of_others = any(n == sum(numbers) - n for n in numbers)
    expected = (len(numbers) == 1 or (len(numbers) == 2 and numbers[0] == numbers[1])
                or (len(numbers) >= 3 and sum_of_others))
    check = classify_discard(numbers)
    assert check.is_valid == expected
    assert check.draw == (len(numbers) if expected else 0)
