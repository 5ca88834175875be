"""Entry by counts: offered exactly where how many Princes each player took and who took the Frog
decide the scores, and then scoring the same as every by-cards entry with those counts."""

from __future__ import annotations

import random

import pytest

from companion.scoring.rebel_princess import (
    FROG,
    Edition,
    IncompleteEntryError,
    RoundCounts,
    RoundEntry,
    Suit,
    check_counts,
    deck,
    entry_from_counts,
    is_counted_by_princes,
    needs_no_tricks,
    princes,
    round_cards,
    score_entry,
)

CASES = [(edition, card.letter, players) for edition in Edition
         for card in round_cards(edition) for players in (3, 4, 5, 6)]
OFFERED = [case for case in CASES if is_counted_by_princes(*case)]
NOT_OFFERED = [case for case in CASES if not is_counted_by_princes(*case)]
DEALS = 150


def _deal(rng: random.Random, players: int, rebel: bool) -> tuple[frozenset, ...]:
    """Every card of the deck to a random seat; a Rebel of the Ball takes all Princes and the
    Frog."""
    taken: list[set] = [set() for _ in range(players)]
    rebel_seat = rng.randrange(players)
    for card in deck(players):
        if rebel and (card.suit is Suit.PRINCE or card == FROG):
            taken[rebel_seat].add(card)
        else:
            taken[rng.randrange(players)].add(card)
    return tuple(frozenset(t) for t in taken)


def _counts(taken: tuple[frozenset, ...]) -> RoundCounts:
    return RoundCounts(tuple(sum(1 for c in t if c.suit is Suit.PRINCE) for t in taken),
                       next(s for s, t in enumerate(taken) if FROG in t))


def _extras(rng: random.Random, edition: Edition, letter: str, taken: tuple[frozenset, ...]
            ) -> tuple[frozenset[int] | None, tuple[int, ...]]:
    no_tricks = None
    if needs_no_tricks(edition, letter):
        no_tricks = frozenset(s for s, t in enumerate(taken) if not t and rng.random() < 0.8)
    return no_tricks, tuple(rng.randrange(-10, 30) for _ in taken)


def _sparse_deal(rng: random.Random, players: int) -> tuple[frozenset, ...]:
    """Only the Princes and the Frog given out, some seats left empty (for Arranged Marriage)."""
    seats = rng.sample(range(players), rng.randint(1, players))
    taken: list[set] = [set() for _ in range(players)]
    for card in [*princes(players), FROG]:
        taken[rng.choice(seats)].add(card)
    return tuple(frozenset(t) for t in taken)


@pytest.mark.parametrize(("edition", "letter", "players"), OFFERED)
def test_counts_score_like_every_deal_with_those_counts(edition, letter, players):
    """Where counts are offered, they score exactly as each sampled deal (Rebel included)."""
    rng = random.Random(f"{edition}-{letter}-{players}")
    for index in range(DEALS):
        maker = index % 3
        taken = (_deal(rng, players, rebel=True) if maker == 0 else _deal(rng, players, False)
                 if maker == 1 else _sparse_deal(rng, players))
        no_tricks, totals = _extras(rng, edition, letter, taken)
        by_cards = score_entry(RoundEntry(edition, letter, players, taken, no_tricks, totals))
        counted = score_entry(entry_from_counts(edition, letter, players, _counts(taken),
                                                no_tricks=no_tricks, totals_before=totals))
        assert counted.scores == by_cards.scores, (taken, no_tricks, totals)
        assert counted.rebels == by_cards.rebels


@pytest.mark.parametrize(("edition", "letter", "players"), NOT_OFFERED)
def test_counts_never_offered_where_identities_matter(edition, letter, players):
    """Where counts are not offered, two deals with the same counts score differently."""
    rng = random.Random(f"{edition}-{letter}-{players}")
    seen: dict[str, list[int]] = {}
    for _ in range(20_000):
        taken = _deal(rng, players, rebel=False)
        no_tricks, _totals = _extras(rng, edition, letter, taken)
        scores = score_entry(RoundEntry(edition, letter, players, taken, no_tricks,
                                        (0,) * players)).scores
        key = f"{_counts(taken)}:{sorted(no_tricks) if no_tricks else ''}"
        if key in seen and seen[key] != scores:
            break
        seen[key] = scores
    else:
        pytest.fail("no two deals with the same counts scored differently")
    assert [p.code for p in check_counts(edition, letter, players,
                                          _counts(taken))] == ["counts-not-enough"]


def test_counts_must_add_up():
    """The counts add up to the Princes in the deck; a missing count and the Frog are named."""
    problems = check_counts(Edition.DELUXE, "a", 6, RoundCounts((3, 2, 2, 2, 2, 2), 0))
    assert [(p.code, p.params) for p in problems] == [
        ("princes-total", {"expected": 12, "got": 13})]
    problems = check_counts(Edition.DELUXE, "a", 4, RoundCounts((3, None, 2, 2), None))
    assert [(p.code, p.seat, p.card) for p in problems] == [
        ("missing-prince-count", 1, None), ("missing-card", None, "A8")]
    with pytest.raises(IncompleteEntryError):
        entry_from_counts(Edition.DELUXE, "a", 6, RoundCounts((3, 2, 2, 2, 2, 2), 0))


def test_counts_notation_round_trips():
    """``3,2,,1/0`` reads back to the same counts."""
    counts = RoundCounts((3, 2, None, 5), 0)
    assert RoundCounts.from_notation(str(counts)) == counts
    assert str(RoundCounts((0, 10, 0), None)) == "0,10,0/"
