"""The trick commands of :class:`~.state.RoundState`: parse a trick, check and play it, push it
on trust (stored history), undo it, and the same one card at a time (:meth:`~RoundPlay.play`,
:meth:`~RoundPlay.push_card`, :meth:`~RoundPlay.pop_card`). A complete trick is resolved at once:
the highest card of the suit to follow wins, as the Round card and the powers in effect decide.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from companion.scoring.problems import Problem
from companion.scoring.rebel_princess.cards import RebelCard

from .cards import (
    CARD_IDS,
    PRINCE,
    SUIT_MASKS,
    card_at,
    card_id,
    deck_mask,
    format_mask,
    mask_of,
    parse_cards,
)
from .errors import EngineError, IllegalTrickError, InvalidEntryError, ViolationCode
from .round_base import RoundBase
from .steps import Step, StepKind
from .values import Trick

if TYPE_CHECKING:
    pass

__all__ = ["RoundPlay"]


class RoundPlay(RoundBase):
    """Trick and card commands, and how a trick is decided."""

    if TYPE_CHECKING:  # (defined by the other parts of RoundState)
        def legal_mask(self, seat: int | None = None) -> int: ...
        def check_play(self, card: RebelCard, seat: int | None = None) -> list[Problem]: ...
        def check_trick(self, trick: Trick) -> list[Problem]: ...
        def notation(self) -> str: ...
        def _reactivate(self) -> None: ...
        def _after_trick(self, winner: int) -> None: ...
        def _undo(self, entry: tuple[int, int, Any, Any, StepKind | None]) -> None: ...
        def _gift_pile_before(self, done: int) -> int: ...

    def parse_trick(self, entry: str) -> Trick:
        """Turn ``"[leader:] card card ... [> winner]"`` into the next :class:`Trick`.

        The leader defaults to the current leader. Raises :class:`InvalidEntryError` for an unknown
        card, a card outside the deck, a duplicate or a wrong number of cards. Legality is not
        checked (see :meth:`check_trick`).
        """
        text = entry.strip()
        winner: int | None = None
        if ">" in text:
            text, _, winner_text = text.partition(">")
            winner = _parse_seat(winner_text, self.players)
        leader = self.leader
        if ":" in text:
            leader_text, _, text = text.partition(":")
            leader = _parse_seat(leader_text, self.players)
        cards = parse_cards(text)
        if len(cards) != self._trick_size:
            raise InvalidEntryError(
                f"a trick has {self._trick_size} cards, {len(cards)} given in {entry!r}",
                ViolationCode.WRONG_CARD_COUNT)
        if len(set(cards)) != len(cards):
            raise InvalidEntryError(f"a card is given twice in {entry!r}",
                                    ViolationCode.DUPLICATE_CARD)
        outside = mask_of(cards) & ~deck_mask(self.players)
        if outside:
            raise InvalidEntryError(
                f"{format_mask(outside)} not in the {self.players}-player deck ({entry!r})",
                ViolationCode.CARD_NOT_IN_DECK)
        return Trick(leader, cards, winner)

    def play_trick(self, trick: Trick) -> int:
        """Check ``trick`` then push it; returns the winner.

        Raises :class:`IllegalTrickError` carrying every violation (see :meth:`check_trick`).
        """
        violations = self.check_trick(trick)
        if violations:
            raise IllegalTrickError(f"trick {trick} in {self.notation()}", violations)
        return self.push(trick)

    def push(self, trick: Trick) -> int:
        """Play a whole trick WITHOUT CHECKING it (the trusted path for stored history); returns
        the winner. The trick's leader becomes the leader; a stated winner is ignored. Raises
        :class:`EngineError` only if a trick is in progress or a step is due."""
        if self.trick_ids or self._pending is not None:
            raise EngineError(f"cannot start a trick now in {self.notation()}")
        self.leader = trick.leader
        for card in trick.cards:
            self.push_id(card_id(card))
        return self.history[-1][2]

    def pop(self) -> Trick | Step:
        """Undo the last completed trick or step (a power used during the trick in progress
        included) and return it.

        Raises :class:`EngineError` while a trick is in progress and its last action is a card
        (undo it with :meth:`pop_card`), :class:`IndexError` if nothing was played.
        """
        log = self._log
        if log and log[-1][:2] == (len(self.history), len(self.trick_ids)) and \
                log[-1][2] != "return":
            step = log[-1][2]
            self._undo(log.pop())
            return step  # type: ignore[no-any-return]
        if self.trick_ids:
            raise EngineError("a trick is in progress: undo its cards with pop_card()")
        if not self.history:
            raise IndexError("nothing to pop")
        trick = self.tricks[-1]
        for _ in range(self._trick_size):
            self.pop_card()
        return trick

    def play(self, card: RebelCard) -> None:
        """Check then play ``card`` for the seat to play. Raises :class:`IllegalTrickError`."""
        cid = CARD_IDS[card]  # (card_id, without the call)
        if not self.legal_mask() >> cid & 1:  # (see check_play for every reason)
            raise IllegalTrickError(f"{card} in {self.notation()}", self.check_play(card))
        self.push_id(cid)

    def push_card(self, card: RebelCard) -> None:
        """Play ``card`` for the seat to play WITHOUT CHECKING it."""
        self.push_id(card_id(card))

    def push_id(self, cid: int) -> None:
        """Play card id ``cid`` for the seat to play WITHOUT CHECKING it (the fast path)."""
        plays = self.trick_ids
        played = len(plays)
        bit = 1 << cid
        self.hands[(self.leader + played) % self.players] &= ~bit
        self.cards_left -= 1
        if played:
            if cid >> 4 == PRINCE and not self.princes_in and self.follow_id != PRINCE:
                # A void player played a Prince: the Princes have snuck in (basic rules).
                self.princes_in = True
                self._sneak_at = (len(self.history), played)
            if self._follow_hooks:
                follow = self.follow_id
                for hook in self._follow_hooks:
                    follow = hook(self, cid, follow)
                self.follow_id = follow
        else:
            self.follow_id = cid >> 4  # the lead sets the suit to follow
        plays.append(cid)
        self._tmask |= bit
        if played + 1 == self._trick_size:
            self._resolve()

    def value(self, cid: int) -> int:
        """A card's value in this trick: its rank, or 0 for Snow White's zero."""
        return 0 if cid == self.zero_id else cid & 15

    def key(self, cid: int) -> int:
        """The value of a card for winning this trick: its rank, 0 for Snow White's zero, negated
        while Cinderella reverses the order (so the highest key always wins)."""
        value = 0 if cid == self.zero_id else cid & 15
        return -value if self.reversed_order else value

    def _resolve(self) -> None:
        plays = self.trick_ids
        if self.active_powers:  # a power may have changed the values of the cards
            follow = self.follow_id
            index = max((i for i, cid in enumerate(plays) if cid >> 4 == follow),
                        key=lambda i: self.key(plays[i]))
        else:
            # Basic rules: the highest card of the suit to follow (ids order ranks in a suit).
            index = plays.index((self._tmask & SUIT_MASKS[self.follow_id]).bit_length() - 1)
        for hook in self._winner_hooks:
            index = hook(self, plays, index)
        winner = (self.leader + index) % self.players
        self.taken[winner] |= self._tmask
        self.tricks_won[winner] += 1
        self.history.append((self.leader, plays, winner, tuple(self.active_powers)))
        self.leader = winner
        self.trick_ids = []
        self._tmask = 0
        self.follow_id = -1
        if self.active_powers:
            self.active_powers = []
            self._reactivate()
        if self._stepped:
            self._after_trick(winner)

    def pop_card(self) -> RebelCard:
        """Undo the last card played (reopening the last trick if needed) and return it.

        Raises :class:`IndexError` when nothing was played and :class:`EngineError` when the last
        action was a step (undo it with :meth:`pop`).
        """
        return self._pop_card(False)

    def _pop_card(self, through_powers: bool) -> RebelCard:
        """pop_card; with ``through_powers``, powers used during the trick stay in effect."""
        log = self._log
        if not self.trick_ids:
            if not self.history:
                raise IndexError("no card to pop")
            while log and log[-1][0] == len(self.history):
                if log[-1][2] != "return":
                    raise EngineError("the last action is a step: undo it with pop()")
                self._undo(log.pop())
            leader, ids, winner, active = self.history.pop()
            mask = 0
            for cid in ids:
                mask |= 1 << cid
            self.taken[winner] &= ~mask
            self.tricks_won[winner] -= 1
            if self._gift_on:
                self._gift = self._gift_pile_before(len(self.history))
                self.gifts[winner] &= ~self._gift
            self.leader = leader
            self.trick_ids = list(ids)
            self._tmask = mask
            self._pending = None
            self.active_powers = list(active)
            self._reactivate()
        elif log and log[-1][:2] == (len(self.history), len(self.trick_ids)) and \
                not through_powers:
            raise EngineError("a power was used after this card: undo it with pop()")
        cid = self.trick_ids.pop()
        bit = 1 << cid
        self._tmask &= ~bit
        self.hands[(self.leader + len(self.trick_ids)) % self.players] |= bit
        if self._sneak_at == (len(self.history), len(self.trick_ids)):
            self.princes_in = False
            self._sneak_at = None
        self.cards_left += 1
        self.follow_id = -1
        if self.trick_ids:
            follow = self.trick_ids[0] >> 4
            for played in self.trick_ids[1:]:
                for hook in self._follow_hooks:
                    follow = hook(self, played, follow)
            self.follow_id = follow
        return card_at(cid)

    def replay_last_trick(self, old: int, new: int) -> None:
        """Take the last trick back and play it again with card ``new`` instead of ``old``
        (Mulan's swap): every Round card and power rule then decides it afresh."""
        ids = list(self.history[-1][1])
        for _ in ids:
            self._pop_card(True)
        ids[ids.index(old)] = new
        for cid in ids:
            self.push_id(cid)


def _parse_seat(text: str, players: int) -> int:
    text = text.strip()
    if not text.isdigit() or int(text) >= players:
        raise InvalidEntryError(f"{text!r} is not a seat of {players}")
    return int(text)
