"""Secret picks for a round played on two phones, and who may see what before the reveal.

Both players pick a card secretly; the round is revealed (played) only once both picks are in
(rulebook 004, « Comment jouer »: the cards are revealed together). A pick cannot be changed once
made. After a standing Spy (« Spy »), the opponent must pick first and the Spy's player sees that
card before choosing: that is the only case where a player sees the other's card before the reveal.

Under variant B the players first set a card aside the same way (« Variantes », B: chosen secretly,
revealed together): while :meth:`Duel.awaits_set_aside`, the picks are those cards, any of the
eight, and revealing them sets them aside instead of playing a round.
"""

from __future__ import annotations

from dataclasses import dataclass

from companion.scoring.problems import EntryError, Problem

from .cards import DuelCard
from .problems import CATALOGUE
from .resolve import DuelRoundResult
from .state import Duel

__all__ = ["Picks"]


@dataclass(frozen=True)
class Picks:
    """The cards picked so far for the next round, by seat (``None``: not picked yet)."""

    cards: tuple[DuelCard | None, DuelCard | None] = (None, None)

    def has_picked(self, seat: int) -> bool:
        return self.cards[seat] is not None

    def is_complete(self) -> bool:
        """Both picks are in: the round can be revealed."""
        return None not in self.cards

    def can_pick(self, duel: Duel, seat: int) -> bool:
        """Whether ``seat`` may pick now: the game goes on, it has not picked, and it is not the
        Spy's player waiting for the opponent to pick first."""
        return not duel.is_over() and not self.has_picked(seat) and not self._waits(duel, seat)

    def _waits(self, duel: Duel, seat: int) -> bool:
        first = duel.reveals_first()
        return first is not None and first != seat and not self.has_picked(first)

    def check(self, duel: Duel, seat: int, card: DuelCard) -> list[Problem]:
        """Every reason ``seat`` may not pick ``card`` now: ``game-over``, ``already-picked``,
        ``reveal-first-pending`` (the Spy's player before the opponent), ``card-played-twice``,
        ``card-set-aside``; while the cards set aside under B are chosen, only
        ``already-set-aside``. Never raises."""
        if duel.awaits_set_aside():
            return [CATALOGUE.problem("already-set-aside", seat=seat)] if self.has_picked(
                seat) else []
        if duel.is_over():
            return duel.check_card(seat, card)
        if self.has_picked(seat):
            return [CATALOGUE.problem("already-picked", seat=seat)]
        problems: list[Problem] = []
        if self._waits(duel, seat):
            first = duel.reveals_first()
            assert first is not None
            problems.append(CATALOGUE.problem("reveal-first-pending", seat=seat, first=first,
                                              first_n=first + 1))
        problems += duel.check_card(seat, card)
        return problems

    def pick(self, duel: Duel, seat: int, card: DuelCard) -> Picks:
        """These picks with ``seat``'s card added. Raises :class:`EntryError` (see
        :meth:`check`)."""
        problems = self.check(duel, seat, card)
        if problems:
            raise EntryError(problems)
        cards = list(self.cards)
        cards[seat] = card
        return Picks((cards[0], cards[1]))

    def seen_by(self, duel: Duel, seat: int) -> DuelCard | None:
        """The other player's card that ``seat`` may see before the reveal: only the Spy's player
        sees the card of the player who had to pick first. ``None`` otherwise."""
        first = duel.reveals_first()
        if first is not None and first != seat:
            return self.cards[first]
        return None

    def reveal(self, duel: Duel) -> DuelRoundResult | None:
        """Play the round once both picks are in, or under B set both cards aside (``None``).
        Checked; raises :class:`EntryError` ``picks-missing`` if a pick is not in."""
        first, second = self.cards
        if first is None or second is None:
            raise EntryError([CATALOGUE.problem("picks-missing", seat=seat)
                              for seat, card in enumerate(self.cards) if card is None])
        if duel.awaits_set_aside():
            duel.set_aside(first, second)
            return None
        return duel.play(first, second)
