"""The rulebooks' worked examples, stored as data in ``tests/data/rulebook_examples.toml`` and
replayed through the scoring core."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from companion.scoring.rebel_princess import RebelCard, parse_edition, required_cards, score_round

DATA = tomllib.loads((Path(__file__).parents[2] / "data" / "rulebook_examples.toml")
                     .read_text(encoding="utf-8"))


def by_id(cases: list[dict]) -> list:
    return [pytest.param(case, id=case["id"]) for case in cases]


def test_every_example_cites_its_source():
    """Each stored example names the rulebook passage it comes from."""
    for case in [*DATA["trick"], *DATA["round"]]:
        assert case["source"].strip() and case["id"].strip()
    assert len({case["id"] for case in [*DATA["trick"], *DATA["round"]]}) == (
        len(DATA["trick"]) + len(DATA["round"]))


def trick_winner(plays: list[str]) -> int:
    """The highest card of the led suit wins a plain trick (the rulebooks' 'Playing a trick')."""
    cards = [RebelCard.from_code(code) for code in plays]
    led = cards[0].suit
    return max((card.rank, seat) for seat, card in enumerate(cards) if card.suit is led)[1]


@pytest.mark.parametrize("case", by_id(DATA["trick"]))
def test_trick_example(case):
    """A rulebook trick: the highest card of the led suit wins, and the trick is worth the stated
    number of proposals to its winner at the end of the round."""
    assert len(case["plays"]) == len(case["names"])
    assert trick_winner(case["plays"]) == case["winner"]
    edition = parse_edition(case["edition"])
    taken: list[set[str]] = [set() for _ in range(case["players"])]
    taken[case["winner"]] |= set(case["plays"])
    other = 0 if case["winner"] != 0 else 1  # the rest of the proposals go to another seat
    for card in required_cards(edition, case["round_card"], case["players"]):
        if card.code not in case["plays"]:
            taken[other].add(card.code)
    result = score_round(edition=edition, round_card=case["round_card"], players=case["players"],
                         taken=[sorted(codes) for codes in taken])
    assert result.scores[case["winner"]] == case["proposals"]


@pytest.mark.parametrize("case", by_id(DATA["round"]))
def test_round_example(case):
    """A rulebook round: every seat's score, exactly."""
    result = score_round(edition=case["edition"], round_card=case["round_card"],
                         players=case["players"], taken=[text.split() for text in case["taken"]],
                         tricks_won=case.get("tricks_won"),
                         totals_before=case.get("totals_before"))
    assert result.scores == case["scores"]
    if "not_scores" in case:
        assert result.scores != case["not_scores"]
    for seat in result.seats:
        assert seat.points == sum(line.points for line in seat.lines)
