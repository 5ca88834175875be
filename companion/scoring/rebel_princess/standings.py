"""Standings and the end-of-game tie-breaks.

Lowest total wins (both editions, "End of the game" / "Fin de partie"). Ties:

- Deluxe: the tied player with the most rounds scored at zero **or below** wins. Still tied: a
  play-off round with a random black-hourglass Round card, played by everyone; the lowest total
  after it wins (anyone may win it). The app's reading (RULINGS.md, and the app's rulings page):
  after a play-off only the totals count; a tie among the lowest totals calls another play-off
  round.
- Classic: the tied player with the most rounds scored **exactly 0** wins. Still tied: they share
  the victory.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .cards import Edition, check_player_count
from .errors import IncompleteEntryError, Problem
from .problems import CATALOGUE
from .round_cards import parse_edition

MAX_ROUNDS = 5

TIEBREAKS = {Edition.DELUXE: "rounds_at_or_below_zero", Edition.CLASSIC: "rounds_at_zero"}
"""What breaks a tie for the lowest total in each edition: the count of rounds scored at zero or
below (Deluxe) or at exactly 0 (classic). The name is also the ``decided_by`` of a tie it broke."""


def tiebreak_rounds(edition: Edition, rounds: Sequence[Sequence[int]]) -> tuple[int, ...]:
    """Each seat's count of the regular ``rounds`` (scores per seat) that the edition's
    tie-break counts (:data:`TIEBREAKS`): scored at zero or below (Deluxe), at exactly 0
    (classic). The one place that count is made: the end of a game and the statistics read it."""
    edition = parse_edition(edition)
    players = len(rounds[0]) if rounds else 0
    if edition is Edition.DELUXE:
        return tuple(sum(1 for r in rounds if r[seat] <= 0) for seat in range(players))
    return tuple(sum(1 for r in rounds if r[seat] == 0) for seat in range(players))


@dataclass(frozen=True)
class RebelStandings:
    """Totals, the order of seats (best first), the winners and how they were decided.

    ``decided_by`` is ``total``, ``rounds_at_or_below_zero`` (Deluxe), ``rounds_at_zero``
    (classic), ``shared`` (classic) or ``playoff`` (Deluxe: nobody has won yet; ``playoff`` lists
    the tied seats).
    ``tiebreak`` holds each seat's count of rounds at or below zero (Deluxe) or at zero (classic)
    (:func:`tiebreak_rounds`).
    """

    totals: tuple[int, ...]
    ranking: tuple[int, ...]
    winners: tuple[int, ...]
    decided_by: str
    playoff: tuple[int, ...]
    tiebreak: tuple[int, ...]
    playoffs_played: int = 0


def _check_rounds(rounds: Sequence[Sequence[int]], players: int) -> list[Problem]:
    problems = []
    for scores in rounds:
        if len(scores) != players:
            problems.append(CATALOGUE.problem("wrong-seat-count",
                                    **{"expected": players, "got": len(scores)}))
        for seat, value in enumerate(scores):
            if isinstance(value, bool) or not isinstance(value, int):
                problems.append(CATALOGUE.problem("bad-score", seat=seat))
    return problems


def standings(edition: Edition, rounds: Sequence[Sequence[int]],
              playoffs: Sequence[Sequence[int]] = ()) -> RebelStandings:
    """Rank the seats after the given rounds (and Deluxe play-off rounds).

    Raises :class:`IncompleteEntryError` for no rounds, more than five regular rounds, rows of
    different lengths, non-integer scores, or play-offs in the classic edition.
    """
    edition = parse_edition(edition)  # "deluxe" as stored must not fall through to classic rules
    if not rounds:
        raise IncompleteEntryError([CATALOGUE.problem("no-rounds")])
    players = len(rounds[0])
    check_player_count(players)
    problems = []
    if len(rounds) > MAX_ROUNDS:
        problems.append(CATALOGUE.problem("too-many-rounds", **{"expected": MAX_ROUNDS}))
    if playoffs and edition is Edition.CLASSIC:
        problems.append(CATALOGUE.problem("playoffs-classic"))
    problems += _check_rounds(rounds, players) + _check_rounds(playoffs, players)
    if problems:
        raise IncompleteEntryError(problems)

    totals = tuple(sum(r[seat] for r in [*rounds, *playoffs]) for seat in range(players))
    tiebreak = tiebreak_rounds(edition, rounds)
    lowest = min(totals)
    tied = tuple(seat for seat in range(players) if totals[seat] == lowest)

    if playoffs:
        # After a play-off only the totals count; a tie calls another play-off round.
        ranking = tuple(sorted(range(players), key=lambda s: (totals[s], s)))
        if len(tied) == 1:
            return RebelStandings(totals, ranking, tied, "total", (), tiebreak, len(playoffs))
        return RebelStandings(totals, ranking, (), "playoff", tied, tiebreak, len(playoffs))

    ranking = tuple(sorted(range(players), key=lambda s: (totals[s], -tiebreak[s], s)))
    if len(tied) == 1:
        return RebelStandings(totals, ranking, tied, "total", (), tiebreak)
    best = max(tiebreak[s] for s in tied)
    still = tuple(s for s in tied if tiebreak[s] == best)
    if len(still) == 1:
        return RebelStandings(totals, ranking, still, TIEBREAKS[edition], (), tiebreak)
    if edition is Edition.CLASSIC:
        return RebelStandings(totals, ranking, still, "shared", (), tiebreak)
    return RebelStandings(totals, ranking, (), "playoff", still, tiebreak)
