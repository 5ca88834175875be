"""Who leads the next round (Deluxe "Once the round has ended" step 4 and scorepad footer; French
"Une fois la manche terminée" step 4; RULINGS.md "Who leads")."""

from __future__ import annotations

import pytest

from companion.scoring.rebel_princess import (
    InvalidValueError,
    next_leader_classic,
    next_leader_deluxe,
)


@pytest.mark.parametrize(("totals", "seat"), [
    ([5, 3, 4, 8], 1), ([0, 3, 4, 8], 0), ([9, 9, 9, 2], 3), ([7, -2, 4], 1),
    ([1, 2, 3, 4, 5, 0], 5),
])
def test_deluxe_lowest_total_leads(totals, seat):
    """Deluxe: the player with the lowest total leads the next round."""
    for last_leader in range(len(totals)):
        leader = next_leader_deluxe(totals, last_leader)
        assert (leader.seat, leader.reason, leader.tied) == (seat, "lowest-total", ())


@pytest.mark.parametrize(("totals", "last_leader", "seat"), [
    ([5, 3, 3, 8], 0, 1),  # scan starts left of seat 0: seat 1 is tied
    ([5, 3, 3, 8], 1, 2),  # the previous leader comes last: seat 2 first
    ([5, 3, 3, 8], 2, 1),  # scan 3, 0, 1
    ([5, 3, 3, 8], 3, 1),  # scan 0, 1
    ([4, 4, 4, 4], 0, 1),  # all tied: the seat after the previous leader
    ([4, 4, 4, 4], 3, 0),  # ... wrapping round the table
    ([4, 4, 4, 4, 4], 2, 3),
    ([3, 9, 3, 9], 0, 2),  # tie including the previous leader: he is found last
    ([3, 9, 3, 9], 2, 0),
    ([3, 3, 9, 9, 9, 9], 0, 1),
    ([3, 3, 9, 9, 9, 9], 1, 0),
    ([0, 9, 9, 0, 9], 3, 0),
])
def test_deluxe_tie_goes_to_the_first_tied_seat_clockwise_after_the_previous_leader(
        totals, last_leader, seat):
    """Deluxe ties: scan clockwise from the left of the player who led the first trick of the round
    just played; the first tied seat leads, the previous leader coming last."""
    leader = next_leader_deluxe(totals, last_leader)
    assert (leader.seat, leader.reason, leader.after) == (seat, "tie-broken", last_leader)
    assert leader.tied == tuple(s for s, t in enumerate(totals) if t == min(totals))


@pytest.mark.parametrize(("players", "winner"), [(3, 0), (4, 3), (6, 5), (5, 2)])
def test_classic_last_trick_winner_leads(players, winner):
    """Classic: the winner of the last trick of the round just played leads the next round."""
    leader = next_leader_classic(players, winner)
    assert (leader.seat, leader.reason) == (winner, "last-trick")


@pytest.mark.parametrize("seat", [-1, 4, 7, None, "1", 1.0, True])
def test_leader_must_be_a_seat(seat):
    """A previous leader or last-trick winner that is not a seat is ``bad-leader``."""
    with pytest.raises(InvalidValueError) as caught:
        next_leader_deluxe([1, 2, 3, 4], seat)
    assert caught.value.problem.code == "bad-leader"
    with pytest.raises(InvalidValueError) as caught:
        next_leader_classic(4, seat)
    assert caught.value.problem.code == "bad-leader"


@pytest.mark.parametrize("totals", [[], [1, 2], [0] * 7])
def test_deluxe_totals_for_three_to_six_seats(totals):
    """The totals must cover 3 to 6 seats."""
    with pytest.raises(InvalidValueError) as caught:
        next_leader_deluxe(totals, 0)
    assert caught.value.problem.code == "bad-player-count"
