"""Which round totals can happen (the check behind entry by numbers), see ``totals.py``.

Two directions are checked: every scored round adds up to a value of
:func:`possible_round_totals` (a hypothesis property over random deals), and every value listed is
reached by some deal (a seeded search), so the set is exact, not just a safe superset.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.scoring.rebel_princess import (
    FROG,
    Edition,
    RebelCard,
    RoundEntry,
    Suit,
    deck,
    describe_totals,
    possible_round_totals,
    princes,
    required_cards,
    round_cards,
    score_entry,
)

D, C = Edition.DELUXE, Edition.CLASSIC
PLAYER_COUNTS = [3, 4, 5, 6]
ALL_CARDS = [(edition, card.letter) for edition in Edition for card in round_cards(edition)]


def random_owners(rng: random.Random, players: int) -> dict[RebelCard, int]:
    """A random owner for every card of the deck, biased towards the extremes: one seat holding
    every Prince and the Frog, one seat winning every trick, seats that win nothing, Queens and Pets
    following (or avoiding) the Prince of their rank."""
    seats = list(range(players))
    mode = rng.choice(["spread", "rebel", "rebel", "one-seat", "few-seats"])
    active = rng.sample(seats, rng.randint(1, players)) if mode == "few-seats" else seats
    weights = [rng.random() ** 2 + 1e-6 for _ in active]
    owner = {card: rng.choices(active, weights)[0] for card in deck(players)}
    if rng.random() < 0.5:
        follow, avoid = rng.random(), rng.random() < 0.3
        for card in deck(players):
            prince_seat = owner[RebelCard(Suit.PRINCE, card.rank)]
            if card.suit is Suit.PRINCE or rng.random() >= follow:
                continue
            if not avoid:
                owner[card] = prince_seat
            elif owner[card] == prince_seat:
                owner[card] = (prince_seat + 1) % players
    if mode == "rebel":
        rebel = rng.choice(seats)
        for card in (*princes(players), FROG):
            owner[card] = rebel
    elif mode == "one-seat":
        owner = dict.fromkeys(owner, rng.choice(seats))
    return owner


def entry_from(rng: random.Random, edition: Edition, letter: str, players: int,
               owner: dict[RebelCard, int], everything: bool,
               totals_before: tuple[int, ...]) -> RoundEntry:
    """The entry for these owners: the whole deck, or only the required cards. When the whole deck
    is out an empty seat won no trick; otherwise some empty seats are said to have won none."""
    wanted = set(deck(players)) if everything else set(required_cards(edition, letter, players))
    taken = tuple(frozenset(c for c, s in owner.items() if s == seat and c in wanted)
                  for seat in range(players))
    empty = [seat for seat in range(players) if not taken[seat]]
    if everything:
        no_tricks = frozenset(empty)
    else:
        no_tricks = frozenset(seat for seat in empty if rng.random() < 0.7)
    return RoundEntry(edition, letter, players, taken, no_tricks, totals_before)


def random_entry(rng: random.Random, edition: Edition, letter: str, players: int,
                 totals_before: tuple[int, ...]) -> RoundEntry:
    """A random but consistent round entry (see :func:`random_owners`)."""
    owner = random_owners(rng, players)
    return entry_from(rng, edition, letter, players, owner, rng.random() < 0.75, totals_before)


def round_total(entry: RoundEntry) -> int:
    result = score_entry(entry)
    for seat in result.seats:
        assert seat.points == sum(line.points for line in seat.lines)
    return sum(result.scores)


@pytest.mark.parametrize("players", PLAYER_COUNTS)
@pytest.mark.parametrize(("edition", "letter"), ALL_CARDS)
@settings(max_examples=40, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(min_value=0, max_value=2**32 - 1), tie=st.booleans())
def test_every_scored_round_adds_up_to_a_possible_total(edition, letter, players, seed, tie):
    """Whatever the deal, the sum of a round's scores is one of ``possible_round_totals``."""
    rng = random.Random(seed)  # a seed keeps examples cheap; hypothesis still reports it
    totals_before = tuple(0 if tie else rng.choice([-4, 0, 3, 7, 12]) for _ in range(players))
    entry = random_entry(rng, edition, letter, players, totals_before)
    assert round_total(entry) in possible_round_totals(edition, letter, players, totals_before)


def reached_totals(edition: Edition, letter: str, players: int, totals_before: tuple[int, ...],
                   wanted: frozenset[int]) -> set[int]:
    """The round totals a seeded search reaches: random deals, then for each wanted total not yet
    seen a hill climb that moves one card at a time towards it."""
    rng = random.Random(f"{edition}-{letter}-{players}-{totals_before}")
    found: set[int] = set()
    for _ in range(100):
        found.add(round_total(random_entry(rng, edition, letter, players, totals_before)))
    cards = list(deck(players))
    for target in sorted(wanted - found):
        for _restart in range(20):
            if target in found:
                break
            owner, everything = random_owners(rng, players), rng.random() < 0.5
            best = round_total(entry_from(rng, edition, letter, players, owner, everything,
                                          totals_before))
            for _step in range(150):
                moved = dict(owner)
                moved[rng.choice(cards)] = rng.randrange(players)
                total = round_total(entry_from(rng, edition, letter, players, moved, everything,
                                               totals_before))
                found.add(total)
                if abs(total - target) <= abs(best - target):
                    owner, best = moved, total
                if best == target:
                    break
    return found


SCORING_CARDS = [(D, "a"), (D, "d"), (D, "e"), (D, "j"), (D, "n"), (D, "o"), (D, "t"), (D, "y"),
                 (D, "z"), (C, "A"), (C, "F"), (C, "K"), (C, "M"), (C, "O"), (C, "P")]
SEARCH_CASES = [
    (edition, letter, players, totals_before)
    for edition, letter in SCORING_CARDS
    for players in PLAYER_COUNTS
    for totals_before in ([(0,) * players, (9,) + (2,) * (players - 1)] if letter in "yO"
                          else [(0,) * players])
]


@pytest.mark.parametrize(("edition", "letter", "players", "totals_before"), SEARCH_CASES)
def test_every_possible_total_is_reached_by_some_deal(edition, letter, players, totals_before):
    """``possible_round_totals`` lists exactly the totals that real deals produce, no more."""
    wanted = possible_round_totals(edition, letter, players, totals_before)
    assert reached_totals(edition, letter, players, totals_before, wanted) == wanted


@pytest.mark.parametrize(("edition", "letter", "players", "totals_before", "expected"), [
    (D, "a", 4, None, {15, -10}),
    (D, "a", 3, None, {14, -10}),
    (D, "a", 6, None, {17, -10}),
    (C, "A", 4, None, {15}),
    (C, "A", 6, None, {17}),
    (D, "n", 5, None, {15, -10}),
    (D, "o", 4, None, {15}),
    (C, "M", 4, None, {15}),
    (D, "d", 4, None, {3, -10, -13, -16, -19}),
    (D, "e", 4, None, {15, 20, 25, -10, -5, 0, 5}),
    (D, "e", 3, None, {14, 19, -10, -5, 0}),
    (D, "j", 4, None, {25, *range(-10, 0)}),
    (C, "F", 4, None, {25}),
    (D, "t", 4, None, {5, *range(-20, -9)}),
    (C, "P", 6, None, {5}),
    (D, "y", 4, None, {*range(15, 26), -10}),
    (D, "y", 4, (0, 0, 0, 0), {15, -10}),
    (D, "y", 4, (5, 5, 5, 5), {15, -10}),
    (D, "y", 4, (5, 0, 0, 0), {*range(15, 26), -10}),
    (C, "O", 4, (5, 5, 0, 0), {*range(15, 26)}),
    (C, "O", 3, (0, 0, 0), {14}),
    (D, "z", 4, None, {*range(15, 34), 35, -10}),
    (C, "K", 3, None, {*range(14, 31), 32}),
])
def test_possible_round_totals_values(edition, letter, players, totals_before, expected):
    """The totals a round can add up to, per Round card and player count (see totals.py)."""
    assert possible_round_totals(edition, letter, players, totals_before) == frozenset(expected)


@pytest.mark.parametrize("players", PLAYER_COUNTS)
@pytest.mark.parametrize(("edition", "letter"), [(D, "z"), (C, "K")])
def test_dancing_queens_cannot_pair_all_but_one_rank(edition, letter, players):
    """Under Dancing Queens the bonus 2P - 1 never happens: if all Princes but one sit in same-rank
    couples, the last Prince's Queen is of the same rank, so it cannot make a mixed couple."""
    p = len(princes(players))
    totals = possible_round_totals(edition, letter, players)
    assert p + 5 + 2 * p in totals
    assert p + 5 + 2 * p - 1 not in totals


@pytest.mark.parametrize("players", PLAYER_COUNTS)
@pytest.mark.parametrize(("edition", "letter"), [(D, "y"), (C, "O")])
def test_bathroom_break_without_totals_before_allows_any_doubling(edition, letter, players):
    """Without the totals before the round, Bathroom Break may double any number of Princes."""
    p = len(princes(players))
    everyone_exempt = possible_round_totals(edition, letter, players, (0,) * players)
    unknown = possible_round_totals(edition, letter, players)
    assert {p + 5 + x for x in range(p + 1)} <= unknown
    assert everyone_exempt <= unknown


@pytest.mark.parametrize(("values", "text"), [
    ({15}, "15"),
    ({-10, 15}, "-10 or 15"),
    ({15, 16}, "15 or 16"),
    (set(range(15, 26)), "15 to 25"),
    ({-10, *range(15, 26)}, "-10 or 15 to 25"),
    ({3, -10, -13, -16, -19}, "-19, -16, -13, -10 or 3"),
    ({-10, *range(15, 34), 35}, "-10, 15 to 33 or 35"),
])
def test_describe_totals(values, text):
    """Possible totals read as a short phrase: single values, runs ``a to b`` and ``or``."""
    assert describe_totals(frozenset(values)) == text
