"""Who leads the next round.

- Deluxe ("Once the round has ended", step 4; scorepad footer; RULINGS.md "Who leads"): the
  lowest total after the round just played leads. Ties: scan clockwise starting with the seat to
  the left of the player who led the first trick of the round just played; the first tied seat
  found leads, and that previous leader comes last in the scan.
- Classic (French "Une fois la manche terminée", step 4): the winner of the last trick of the round
  just played leads.
- First round: Deluxe, the player to the left of the dealer; classic, the player who chose a
  Princess first. The app asks for that seat.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .cards import check_player_count
from .errors import InvalidValueError


@dataclass(frozen=True)
class Leader:
    """The seat that leads a round, and why.

    ``reason`` is one of ``first-round``, ``lowest-total``, ``tie-broken`` (then ``tied`` lists the
    tied seats and ``after`` the previous leader the scan started after) or ``last-trick``.
    """

    seat: int
    reason: str
    tied: tuple[int, ...] = ()
    after: int | None = None


def check_seat(seat: object, players: int) -> int:
    """``seat`` if it is one of the seats 0 to ``players`` - 1; raises ``bad-leader`` otherwise."""
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < players:
        raise InvalidValueError("bad-leader", value=str(seat))
    return seat


def next_leader_deluxe(totals: Sequence[int], last_leader: int) -> Leader:
    """Deluxe: lowest total leads; ties go to the first tied seat clockwise after ``last_leader``
    (the seat that led the first trick of the round just played), which itself comes last."""
    players = len(totals)
    check_player_count(players)
    check_seat(last_leader, players)
    lowest = min(totals)
    tied = tuple(seat for seat, total in enumerate(totals) if total == lowest)
    if len(tied) == 1:
        return Leader(tied[0], "lowest-total")
    for step in range(1, players + 1):
        seat = (last_leader + step) % players
        if seat in tied:
            return Leader(seat, "tie-broken", tied, last_leader)
    raise AssertionError("unreachable: a tied seat is always found")  # pragma: no cover


def next_leader_classic(players: int, last_trick_winner: int) -> Leader:
    """Classic: the winner of the last trick of the round just played leads the next."""
    check_player_count(players)
    return Leader(check_seat(last_trick_winner, players), "last-trick")
