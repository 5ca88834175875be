"""Which round totals can happen: the check behind "by numbers" entry.

All cards are taken in every round, so the sum of the round's scores over all players is fixed or
limited by the Round card. A typed score sheet whose sum is not among :func:`possible_round_totals`
has a counting or typing mistake. Derivations, with P the number of Princes (= ranks in the deck)
and n the number of players:

- plain (also kept cards, gift piles): P + 5. A Rebel of the Ball makes it -10 (others score 0).
- Three Times a Lady: P + 5 - 12 (four 3s). Rebel: -10 minus 3 for each of Q3, F3, A3 held by
  others.
- Pet's Revenge: P + 5 + P (every Pet +1). Rebel: -10 plus the other Pets (0 to P - 1) held by
  others.
- Single Fairy: P + 5 - P. Rebel: -10 minus the Fairies (0 to P) held by others.
- Arranged Marriage: P + 5 + 5m, m players with no trick (0 to n - 2: a player winning every trick
  would be Rebel of the Ball). Rebel: -10 + 5m, m from 0 to n - 1.
- Bathroom Break: P + 5 + x, x the Princes held by non-exempt players (0 to P; 0 only when everyone
  is exempt). Rebel: -10. Without ``totals_before`` nobody knows who is exempt, so every x is
  possible (our decision: an unknown must never produce a false "impossible total" warning).
- Dancing Queens: P + 5 + x, x = 2 per same-rank couple + 1 per mixed couple: 0 to 2P, except
  2P - 1. That would need P - 1 same-rank couples and one mixed couple, but then the only Queen left
  over is of the last Prince's own rank, so no mixed couple can form. With k ranks whose Prince and
  Queen sit apart, x runs from 2P - 2k to 2P - k (k >= 2), or is 2P - 2 (k = 1) or 2P (k = 0), and
  those ranges cover every other value. Rebel: -10.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from .cards import Edition, check_player_count, princes
from .round_cards import Scoring, round_card
from .round_score import bathroom_exempt, can_have_rebel


def possible_round_totals(edition: Edition, letter: str, players: int,
                          totals_before: Sequence[int] | None = None) -> frozenset[int]:
    """Every value the sum of one round's scores can take for this Round card and player count."""
    check_player_count(players)
    card = round_card(edition, letter)
    everyone_exempt = (card.scoring is Scoring.BATHROOM and totals_before is not None
                       and len(bathroom_exempt(totals_before)) == len(totals_before))
    return _possible_totals(edition, card.letter, players, everyone_exempt)


@cache
def _possible_totals(edition: Edition, letter: str, players: int,
                     everyone_exempt: bool) -> frozenset[int]:
    """:func:`possible_round_totals` of a known Round card (its ``letter`` as the card has it),
    ``everyone_exempt`` telling a Bathroom Break that nobody's Princes count: worked out once
    for each (the replay of every round by numbers asks again, issue 36)."""
    scoring = round_card(edition, letter).scoring
    p = len(princes(players))
    base = p + 5
    normal: set[int]
    rebel: set[int] = {-10}
    if scoring is Scoring.THREES:
        normal = {base - 12}
        rebel = {-10 - 3 * k for k in range(4)}
    elif scoring is Scoring.PETS:
        normal = {base + p}
        rebel = {-10 + k for k in range(p)}
    elif scoring is Scoring.FAIRIES:
        normal = {base - p}
        rebel = {-10 - k for k in range(p + 1)}
    elif scoring is Scoring.NO_TRICKS:
        normal = {base + 5 * m for m in range(players - 1)}
        rebel = {-10 + 5 * m for m in range(players)}
    elif scoring is Scoring.BATHROOM:
        normal = {base} if everyone_exempt else {base + x for x in range(p + 1)}
    elif scoring is Scoring.DANCING:
        normal = {base + x for x in range(2 * p + 1) if x != 2 * p - 1}
    else:
        normal = {base}
    if can_have_rebel(edition, letter):
        normal |= rebel
    return frozenset(normal)


def describe_totals(values: frozenset[int]) -> str:
    """A short phrase for a set of totals: ``15``, ``15 to 25``, ``-10 or 15``."""
    ordered = sorted(values)
    runs: list[tuple[int, int]] = []
    for value in ordered:
        if runs and value == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], value)
        else:
            runs.append((value, value))
    parts = [str(a) if a == b else (f"{a} or {b}" if b == a + 1 else f"{a} to {b}")
             for a, b in runs]
    if len(parts) <= 2:
        return " or ".join(parts)
    return ", ".join(parts[:-1]) + " or " + parts[-1]
