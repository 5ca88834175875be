"""The jester (bouffon): play again, or count around the table to the seat that wakes a princess.

Rulebook (seed 003), « Action : Jouer un bouffon et tenter sa chance ! »: the jester's player turns
over the top card of the deck. A power card (prince, chevalier, dragon, potion, baguette or bouffon)
goes into their hand and they play again. A number n: count n players clockwise **starting with the
jester's player as 1** (« comptez en commençant par vous »); the player the count ends on wakes a
princess from the centre and keeps her. Seats are numbered clockwise, so with ``players`` at the
table the seat reached is ``(jester_seat + n - 1) % players``.
"""

from __future__ import annotations

from dataclasses import dataclass

from companion.scoring.problems import EntryError, Problem

from .cards import ReveillezCard, check_players, read_card
from .problems import CATALOGUE


@dataclass(frozen=True, slots=True)
class JesterCount:
    """What a revealed card does: the seat that wakes a princess (None for a power card), whether
    the jester's player plays again, and the seats counted in order (the path the table screen
    highlights; empty for a power card)."""

    jester_seat: int
    revealed: ReveillezCard
    wakes: int | None
    path: tuple[int, ...] = ()

    @property
    def play_again(self) -> bool:
        """A power card goes into the jester's player's hand and they play again."""
        return self.wakes is None

    def as_dict(self) -> dict[str, object]:
        """The JSON API's answer: ``wakes`` and ``play_again``."""
        return {"wakes": self.wakes, "play_again": self.play_again}


def count_from(players: int, jester_seat: int, revealed: ReveillezCard) -> JesterCount:
    """The count for a card already read (trusted arguments; never raises)."""
    if revealed.number is None:
        return JesterCount(jester_seat, revealed, None)
    path = tuple((jester_seat + step) % players for step in range(revealed.number))
    return JesterCount(jester_seat, revealed, path[-1], path)


def check_jester_entry(players: object, jester_seat: object, revealed: object) -> list[Problem]:
    """Every problem with a jester entry: players outside 2–5 (``players-range``), a seat not at
    the table (``seat-range``), a number outside 1–10 or an unknown card."""
    problems = check_players(players)
    if not problems:
        assert isinstance(players, int)
        if (not isinstance(jester_seat, int) or isinstance(jester_seat, bool)
                or not 0 <= jester_seat < players):
            problems.append(CATALOGUE.problem("seat-range", given=jester_seat, players=players,
                                              high=players - 1))
    _, card_problem = read_card(revealed)
    if card_problem is not None:
        problems.append(card_problem)
    return problems


def jester_count(players: object, jester_seat: object, revealed: object) -> JesterCount:
    """The ``jester`` endpoint: who wakes a princess after ``revealed`` is turned over by the
    jester of ``jester_seat`` at a table of ``players``. Raises EntryError with every problem of
    :func:`check_jester_entry`."""
    problems = check_jester_entry(players, jester_seat, revealed)
    if problems:
        raise EntryError(problems)
    assert isinstance(players, int) and isinstance(jester_seat, int)
    return count_from(players, jester_seat, ReveillezCard.parse(revealed))
