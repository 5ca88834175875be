"""Which cards may be played now, and why not: the legality queries of
:class:`~.state.RoundState`.

The basic trick rules (follow suit if able; no Prince led before they snuck in unless only Princes
are held), then the Round card's layer, then each active power's (see :mod:`.modifiers`).
:meth:`~RoundLegality.check_play` and :meth:`~RoundLegality.check_trick` never raise; a refused
card names the last layer that removed it and kept it out.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any, cast

from companion.scoring.problems import Problem
from companion.scoring.rebel_princess.cards import RebelCard

from .cards import PRINCE_MASK, SUIT_MASKS, card_id, cards_of, deck_mask
from .errors import BASIC, ViolationCode
from .modifiers import Modifier
from .powers import Power
from .round_base import RoundBase
from .steps import PowerUse
from .values import Trick

if TYPE_CHECKING:
    from .state import RoundState

__all__ = ["RoundLegality"]

_NOT_PRINCES = ~PRINCE_MASK


class RoundLegality(RoundBase):
    """Legality queries: :meth:`legal_mask`, :meth:`check_play`, :meth:`check_trick`."""

    if TYPE_CHECKING:  # (defined by the other parts of RoundState)
        def copy(self) -> RoundState: ...

    def legal_mask(self, seat: int | None = None) -> int:
        """The cards (a mask) the seat to play may play now; 0 for any other seat, while a step is
        due, or once the round is over. Basic rules, then the Round card, then powers (see
        :mod:`.modifiers`)."""
        plays = self.trick_ids
        turn = (self.leader + len(plays)) % self.players
        if (seat is not None and seat != turn) or not self.cards_left or self._pending:
            return 0
        hand = self.hands[turn]
        if plays:
            legal = hand & SUIT_MASKS[self.follow_id] or hand  # follow suit if able
        elif self.princes_in:
            legal = hand
        else:
            legal = hand & _NOT_PRINCES or hand  # Princes not invited, unless only Princes held
        for hook in self._chain:  # the Round card, then the powers in effect (see _reactivate)
            legal = hook(self, turn, legal)
        return legal

    def legal_plays(self, seat: int | None = None) -> frozenset[RebelCard]:
        """The cards ``seat`` (default: the seat to play) may play now; empty if not its turn."""
        return cards_of(self.legal_mask(seat))

    def is_legal_play(self, seat: int, card: RebelCard) -> bool:
        """Whether ``seat`` may play ``card`` now."""
        return bool(self.legal_mask(seat) >> card_id(card) & 1)

    def check_play(self, card: RebelCard, seat: int | None = None) -> list[Problem]:
        """Every reason the next play of ``card`` (by ``seat``, default the seat to play) breaks
        the rules; empty if it is legal. Never raises."""
        turn = self.turn
        if self.cards_left == 0:
            return [self._violation(ViolationCode.ROUND_OVER, seat, card)]
        if self._pending is not None:
            return [self._violation(ViolationCode.STEP_REQUIRED, seat, card, self._card_slug)]
        if seat is not None and seat != turn:
            return [self._violation(ViolationCode.NOT_YOUR_TURN, seat, card)]
        if self.legal_mask(turn) >> card_id(card) & 1:
            return []  # (a legal card is in the deck, in the hand and not played: done)
        return self._play_violations(turn, card, self._used_mask())

    def _used_mask(self) -> int:
        used = self._tmask | self._gift
        for mask in self.taken + self.gifts:
            used |= mask
        return used

    def _play_violations(self, seat: int, card: RebelCard, used: int) -> list[Problem]:
        cid = card_id(card)
        bit = 1 << cid
        if not bit & deck_mask(self.players):
            return [self._violation(ViolationCode.CARD_NOT_IN_DECK, seat, card)]
        if bit & used:
            return [self._violation(ViolationCode.CARD_ALREADY_PLAYED, seat, card)]
        if not bit & self.hands[seat]:
            return [self._violation(ViolationCode.NOT_IN_HAND, seat, card)]
        if self.legal_mask(seat) & bit:
            return []
        return [self._explain(seat, card, cid)]

    def _explain(self, seat: int, card: RebelCard, cid: int) -> Problem:
        """Name the layer that forbids ``card``: the last one that removed it and kept it out."""
        bit = 1 << cid
        hand = self.hands[seat]
        if self.trick_ids:
            legal = hand & SUIT_MASKS[self.follow_id] or hand
        elif self.princes_in:
            legal = hand
        else:
            legal = hand & _NOT_PRINCES or hand
        blame: Any = None
        basic_forbids = not legal & bit
        layers: list[tuple[Modifier, Callable[[Any, int], int]]] = [
            (mod, lambda m, mask: int(m.legal(self, seat, mask))) for mod in self._legal_mods]
        layers += [(power, partial(_restrict, cast("RoundState", self), seat, use))
                   for power, use in self.active_powers]
        for layer, apply in layers:
            new = apply(layer, legal)
            if legal & bit and not new & bit:
                blame = layer
            elif not legal & bit and new & bit:
                blame, basic_forbids = None, False
            legal = new
        if isinstance(blame, Power):
            return blame.violation(seat, card)
        if blame is not None:
            return self._violation(blame.restriction, seat, card, blame.slug)
        if basic_forbids and not self.trick_ids:
            return self._violation(ViolationCode.PRINCES_NOT_INVITED, seat, card, BASIC)
        return self._violation(ViolationCode.MUST_FOLLOW_SUIT, seat, card, BASIC)

    def check_trick(self, trick: Trick) -> list[Problem]:
        """Every problem with ``trick`` as the next trick; empty if it may be played. Never raises.

        Checks that no step is due, the leader, the card count, duplicates, cards outside the deck
        or already played or not in the player's hand, every play against the trick rules in
        force, and the winner if the trick names one.
        """
        if self.cards_left == 0:
            return [self._violation(ViolationCode.ROUND_OVER)]
        if self._pending is not None:
            return [self._violation(ViolationCode.STEP_REQUIRED, rule=self._card_slug)]
        if self.trick_ids:
            return [self._violation(ViolationCode.WRONG_CARD_COUNT)]
        if trick.leader != self.leader:
            return [self._violation(ViolationCode.WRONG_LEADER, trick.leader)]
        if len(trick.cards) != self._trick_size:
            return [self._violation(ViolationCode.WRONG_CARD_COUNT)]
        violations: list[Problem] = []
        seen: set[RebelCard] = set()
        probe = self.copy()
        for index, card in enumerate(trick.cards):
            seat = (trick.leader + index) % self.players
            if card in seen:
                violations.append(self._violation(ViolationCode.DUPLICATE_CARD, seat, card))
            else:
                violations.extend(probe.check_play(card))
            seen.add(card)
            probe.push_id(card_id(card))
        if trick.winner is not None and probe.history:
            winner = probe.history[-1][2]  # (leader, ids, winner, powers)
            if winner != trick.winner:
                violations.append(self._violation(ViolationCode.WRONG_WINNER, trick.winner))
        return violations

    def winner_of(self, trick: Trick) -> int:
        """The seat that wins ``trick`` if it is played next (trusted, like :meth:`push`)."""
        probe = self.copy()
        probe.push(trick)
        return probe.history[-1][2]


def _restrict(state: RoundState, seat: int, use: PowerUse, power: Power, mask: int) -> int:
    return power.restrict(state, seat, mask, use)
