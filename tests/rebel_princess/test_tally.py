"""The live tally of a round being entered: one core function per entry mode (by cards, by
counts), the counts read as cards in one place (taken_from_counts / counts_from_taken)."""

from __future__ import annotations

from companion.scoring.rebel_princess import (
    FROG,
    Edition,
    RoundCounts,
    RoundEntry,
    counts_from_taken,
    princes,
    taken_from_counts,
    tally,
    tally_counts,
)


def test_counts_stand_for_princes_in_rank_order_and_back():
    """Counts 3, 0, 6, 1 at four players: ten Princes handed out lowest first."""
    counts = RoundCounts((3, 0, 6, 1), 2)
    taken = taken_from_counts(4, counts)
    assert [len(cards) for cards in taken] == [3, 0, 7, 1] and FROG in taken[2]
    assert counts_from_taken(4, taken) == counts
    assert set().union(*taken) == set(princes(4)) | {FROG}


def test_counts_tally_names_what_is_still_to_enter():
    """Ana 4 and the Frog to Ben at four players (10 Princes): 6 Princes still to count."""
    found = tally_counts(Edition.DELUXE, "a", 4, RoundCounts((4, None, None, None), 1))
    assert found.score.scores == [4, 5, 0, 0]
    assert (found.princes_left, found.frog_missing, found.unset) == (6, False, (1, 2, 3))
    assert found.problems == () and found.still_to_enter == 6


def test_counts_tally_flags_too_many_princes():
    found = tally_counts(Edition.DELUXE, "a", 4, RoundCounts((8, 5, None, None), None))
    assert [p.code for p in found.problems] == ["princes-total"]
    assert found.princes_left == 0 and found.frog_missing


def test_cards_tally_names_the_cards_still_to_give():
    taken = (frozenset(princes(4)[:9]), frozenset({FROG}), frozenset(), frozenset())
    found = tally(RoundEntry(Edition.DELUXE, "a", 4, taken))
    assert found.score.scores == [9, 5, 0, 0]
    assert found.missing == (princes(4)[9],) and found.still_to_enter == 1
