"""Standings and the end-of-game tie-breaks (Deluxe "End of the game", French "Fin de partie",
RULINGS.md "End of the game")."""

from __future__ import annotations

import pytest

from companion.scoring.rebel_princess import (
    TIEBREAKS,
    Edition,
    IncompleteEntryError,
    InvalidValueError,
    standings,
    tiebreak_rounds,
)

D, C = Edition.DELUXE, Edition.CLASSIC


def by_seat(*rows: list[int]) -> list[list[int]]:
    """Rounds from one row of scores per seat (easier to read than one row per round)."""
    return [list(scores) for scores in zip(*rows, strict=True)]


@pytest.mark.parametrize("edition", list(Edition))
def test_lowest_total_wins(edition):
    """The player with the fewest proposals wins; the ranking is by total, lowest first."""
    rounds = by_seat([1, 2, 3, 0, 4], [5, 5, 5, 5, 5], [0, 0, 0, 1, 0], [2, 2, 2, 2, 2])
    result = standings(edition, rounds)
    assert result.totals == (10, 25, 1, 10)
    assert (result.winners, result.decided_by, result.playoff) == ((2,), "total", ())
    assert result.ranking[0] == 2 and result.ranking[-1] == 1


# Seat 0 has two rounds below zero and two at zero; seat 1 three rounds at zero; both total 10.
NEGATIVE_VS_ZERO = by_seat([-1, -1, 12, 0, 0], [0, 0, 5, 5, 0], [3, 3, 3, 3, 3])


def test_deluxe_tie_broken_by_most_rounds_at_or_below_zero():
    """Deluxe: tied players are split by the most rounds scored at zero or below; negative rounds
    count."""
    result = standings(D, NEGATIVE_VS_ZERO)
    assert result.tiebreak == (4, 3, 0)
    assert (result.winners, result.decided_by) == ((0,), "rounds_at_or_below_zero")
    assert result.ranking == (0, 1, 2)


def test_classic_tie_broken_by_most_rounds_at_exactly_zero():
    """Classic: tied players are split by the most rounds scored exactly 0; negative rounds do not
    count."""
    result = standings(C, NEGATIVE_VS_ZERO)
    assert result.tiebreak == (2, 3, 0)
    assert (result.winners, result.decided_by) == ((1,), "rounds_at_zero")
    assert result.ranking == (1, 0, 2)


def test_tie_break_only_among_the_tied():
    """The zero-round count only matters between players tied on the lowest total."""
    rounds = by_seat([0, 0, 0, 0, 9], [2, 2, 2, 2, 0], [1, 1, 1, 1, 1])
    result = standings(D, rounds)
    assert (result.winners, result.decided_by) == ((2,), "total")


STILL_TIED = by_seat([0, 5, 5, 0, 0], [5, 0, 0, 5, 0], [1, 3, 3, 3, 3], [0, 0, 10, 0, 9])


def test_deluxe_still_tied_calls_a_playoff():
    """Deluxe: still tied after the zero-round count, nobody has won yet: a play-off is due."""
    result = standings(D, STILL_TIED)
    assert result.totals == (10, 10, 13, 19)
    assert (result.winners, result.decided_by, result.playoff) == ((), "playoff", (0, 1))


def test_classic_still_tied_shares_the_victory():
    """Classic: still tied after the zero-round count, the tied players share the victory."""
    result = standings(C, STILL_TIED)
    assert (result.winners, result.decided_by, result.playoff) == ((0, 1), "shared", ())


def test_deluxe_playoff_lowest_total_after_it_wins():
    """Deluxe play-off: the lowest total after the play-off round wins."""
    result = standings(D, STILL_TIED, playoffs=[[4, 2, 5, 0]])
    assert result.totals == (14, 12, 18, 19)
    assert (result.winners, result.decided_by, result.playoffs_played) == ((1,), "total", 1)
    assert result.ranking == (1, 0, 2, 3)


def test_deluxe_playoff_can_be_won_by_a_player_who_was_not_tied():
    """Everyone plays the play-off, and anyone may win it."""
    result = standings(D, STILL_TIED, playoffs=[[6, 6, -4, 0]])
    assert (result.winners, result.decided_by) == ((2,), "total")


def test_deluxe_playoff_tie_calls_another_playoff():
    """A tie for the lowest total after a play-off calls another play-off, then it is settled."""
    again = standings(D, STILL_TIED, playoffs=[[3, 3, 5, 5]])
    assert (again.winners, again.decided_by, again.playoff) == ((), "playoff", (0, 1))
    assert again.playoffs_played == 1
    done = standings(D, STILL_TIED, playoffs=[[3, 3, 5, 5], [1, 0, 9, 9]])
    assert (done.winners, done.decided_by, done.playoffs_played) == ((1,), "total", 2)


def test_deluxe_playoff_ignores_the_zero_round_count():
    """After a play-off only totals count: rounds at or below zero break no tie."""
    result = standings(D, STILL_TIED, playoffs=[[0, 0, 9, 9]])
    assert result.decided_by == "playoff"


def test_classic_has_no_playoff():
    """The classic edition has no play-off round: ties are shared."""
    with pytest.raises(IncompleteEntryError) as caught:
        standings(C, STILL_TIED, playoffs=[[1, 0, 0, 0]])
    assert [p.code for p in caught.value.problems] == ["playoffs-classic"]


def test_at_most_five_rounds():
    """A game has at most five rounds (play-off rounds go apart)."""
    with pytest.raises(IncompleteEntryError) as caught:
        standings(D, [[1, 2, 3]] * 6)
    assert [p.code for p in caught.value.problems] == ["too-many-rounds"]


def test_shortened_three_round_game():
    """A shortened Deluxe game of three rounds is ranked the same way."""
    result = standings(D, [[1, 0, 2], [0, 0, 5], [3, 2, 0]])
    assert (result.totals, result.winners) == ((4, 2, 7), (1,))


def test_no_rounds():
    """Standings need at least one round."""
    with pytest.raises(IncompleteEntryError) as caught:
        standings(D, [])
    assert [p.code for p in caught.value.problems] == ["no-rounds"]


@pytest.mark.parametrize(("rounds", "code"), [
    ([[1, 2, 3], [1, 2]], "wrong-seat-count"),
    ([[1, 2, 3], [1, 2, 3, 4]], "wrong-seat-count"),
    ([[1, 2, 3], [1, 2.5, 3]], "bad-score"),
    ([[1, 2, 3], [1, None, 3]], "bad-score"),
    ([[1, True, 3]], "bad-score"),
])
def test_malformed_rows(rounds, code):
    """Every round has one whole-number score per seat."""
    with pytest.raises(IncompleteEntryError) as caught:
        standings(D, rounds)
    assert code in [p.code for p in caught.value.problems]


def test_player_count_from_the_rows():
    """Standings are for 3 to 6 players."""
    with pytest.raises(InvalidValueError):
        standings(D, [[1, 2]])


def test_ranking_orders_by_total_then_tie_break_then_seat():
    """The ranking lists every seat, lowest total first, ties by the tie-break, then by seat."""
    rounds = by_seat([5, 5, 0, 0, 0], [0, 0, 10, 0, 0], [3, 3, 3, 3, 3], [2, 2, 2, 2, 2],
                     [10, 0, 0, 0, 0], [1, 1, 1, 1, 11])
    result = standings(D, rounds)
    assert result.totals == (10, 10, 15, 10, 10, 15)
    assert result.tiebreak == (3, 4, 0, 0, 4, 0)
    assert result.ranking == (1, 4, 0, 3, 2, 5)
    assert (result.winners, result.decided_by, result.playoff) == ((), "playoff", (1, 4))


@pytest.mark.parametrize(("edition", "winners", "how"), [
    ("deluxe", (0,), "rounds_at_or_below_zero"), ("classic", (1,), "rounds_at_zero"),
])
def test_edition_given_by_name_applies_its_own_rules(edition, winners, how):
    """An edition passed by name (as stored) gets that edition's tie-break, never the other's."""
    result = standings(edition, NEGATIVE_VS_ZERO)
    assert (result.winners, result.decided_by) == (winners, how)
    if edition == "deluxe":
        assert standings(edition, STILL_TIED, playoffs=[[1, 0, 5, 5]]).winners == (1,)


def test_the_tie_break_count_is_the_editions_rule():
    """One count per edition, the one standings and the statistics read: rounds at zero or
    below (Deluxe), at exactly 0 (classic); its name is the ``decided_by`` of a tie it breaks."""
    assert tiebreak_rounds(D, NEGATIVE_VS_ZERO) == (4, 3, 0)
    assert tiebreak_rounds(C, NEGATIVE_VS_ZERO) == (2, 3, 0)
    assert (TIEBREAKS[D], TIEBREAKS[C]) == ("rounds_at_or_below_zero", "rounds_at_zero")
