"""The steps of :class:`~.state.RoundState` outside the tricks: check, play, push and undo a pass,
a set-aside, a reveal, a gift, musical chairs, a haggle or a Princess power (see :mod:`.steps`
for the step values), and what the Round card does once a trick is won.

A pass must come first and be even; set-aside, reveal, gift and musical-chairs steps must be the
step due; a haggle must follow the trick its seat won; a power is checked for whose it is, once
per round, its timing, conflicts with the powers already in effect and Round card limits, then
its own arguments (:class:`~.powers.Power`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, cast

from companion.scoring.problems import Problem
from companion.scoring.rebel_princess.cards import RebelCard

from .cards import SUIT_INDEX, SUIT_MASKS, card_id, mask_of
from .errors import BASIC, IllegalTrickError, InvalidEntryError, ViolationCode
from .modifiers import HALF, Timing, TrickTime, barred, timing_refusal
from .round_base import RoundBase
from .steps import Chairs, Gift, Haggle, Pass, PowerUse, Reveal, SetAside, Step, StepKind

if TYPE_CHECKING:
    from .state import RoundState

__all__ = ["RoundSteps"]


class RoundSteps(RoundBase):
    """Step queries and commands (:meth:`check_step`, :meth:`play_step`, :meth:`push_step`)."""

    if TYPE_CHECKING:  # (defined by the other parts of RoundState)
        def notation(self) -> str: ...
        def _reactivate(self) -> None: ...
        def _due_after(self, done: StepKind | None) -> StepKind | None: ...

    def set_aside_size(self) -> int:
        """Cards each seat sets aside now: the Round card's number or half the hand (0: none)."""
        if self._aside_cards == HALF:
            return self.hands[0].bit_count() // 2
        return int(self._aside_cards)

    def haggle_option(self) -> tuple[int, int] | None:
        """``(winner, cards they may take)`` while the last trick's winner may haggle (p / T)."""
        if not self._haggle_on or self.trick_ids or not self.cards_left:
            return None
        if not self.history:
            return self._haggle_seed if not self._log else None
        since = [step for at, _, step, _, _ in self._log if at == len(self.history)]
        if any(not (isinstance(step, PowerUse) and self._redecides(step)) for step in since):
            return None  # something happened since the trick: the chance has passed
        leader, ids, winner, _ = self.history[-1]
        takeable = 0
        for index, cid in enumerate(ids):
            if (leader + index) % self.players != winner:  # not a card the winner played
                takeable |= 1 << cid
        return (winner, takeable) if self.hands[winner] else None

    def check_step(self, step: Step) -> list[Problem]:
        """Every problem with ``step`` as the next action; empty if it may be taken. Never raises.

        A pass must come first and be even (every seat gives as many cards each way); set-aside,
        reveal, gift and musical-chairs steps must be the step due; a haggle must follow the
        trick its seat won. Every card must come from its seat's hand, with the right count.
        """
        players = self.players
        rule = BASIC if isinstance(step, Pass) else self._card_slug
        not_due = [self._violation(ViolationCode.STEP_NOT_DUE, rule=rule)]
        if self.cards_left == 0:
            return [self._violation(ViolationCode.ROUND_OVER)]
        if isinstance(step, PowerUse):
            return self._check_power(step)
        if self.trick_ids:
            return not_due
        if isinstance(step, Haggle):
            return self._check_haggle(step)
        if isinstance(step, Pass):
            if self.history or self.trick_ids or self._log:
                return not_due
            return self._check_pass(step)
        expected = {SetAside: StepKind.SET_ASIDE, Reveal: StepKind.REVEAL, Gift: StepKind.GIFT,
                    Chairs: StepKind.CHAIRS}[type(step)]
        if self._pending is not expected:
            return not_due
        violations: list[Problem] = []
        if isinstance(step, Reveal):
            if len(step.suits) != players:
                return [self._violation(ViolationCode.WRONG_CARD_COUNT, rule=rule)]
            for seat, suit in enumerate(step.suits):
                if not self.hands[seat] & SUIT_MASKS[SUIT_INDEX[suit]]:
                    violations.append(self._violation(ViolationCode.SUIT_NOT_HELD, seat, rule=rule))
            return violations
        per_seat: Sequence[Iterable[RebelCard]]
        if isinstance(step, SetAside):
            per_seat, size = step.cards, self.set_aside_size()
        else:
            per_seat, size = [(card,) for card in step.cards], 1
        if len(per_seat) != players:
            return [self._violation(ViolationCode.WRONG_CARD_COUNT, rule=rule)]
        for seat, cards in enumerate(per_seat):
            cards = list(cards)
            if len(cards) != size:
                violations.append(self._violation(ViolationCode.WRONG_CARD_COUNT, seat, rule=rule))
            for card in cards:
                if not self.hands[seat] >> card_id(card) & 1:
                    violations.append(self._violation(ViolationCode.NOT_IN_HAND, seat, card, rule))
        return violations

    def _check_pass(self, step: Pass) -> list[Problem]:
        players = self.players
        if len(step.left) != players or len(step.right) != players:
            return [self._violation(ViolationCode.WRONG_CARD_COUNT)]
        violations = []
        for seat in range(players):
            if (len(step.left[seat]), len(step.right[seat])) != (len(step.left[0]),
                                                                  len(step.right[0])):
                violations.append(self._violation(ViolationCode.WRONG_CARD_COUNT, seat))
            for card in sorted(step.left[seat] & step.right[seat], key=card_id):
                violations.append(self._violation(ViolationCode.DUPLICATE_CARD, seat, card))
            for card in sorted(step.left[seat] | step.right[seat], key=card_id):
                if not self.hands[seat] >> card_id(card) & 1:
                    violations.append(self._violation(ViolationCode.NOT_IN_HAND, seat, card))
        return violations

    def _check_haggle(self, step: Haggle) -> list[Problem]:
        rule = self._card_slug
        option = self.haggle_option()
        if option is None:
            return [self._violation(ViolationCode.STEP_NOT_DUE, step.seat, rule=rule)]
        winner, takeable = option
        if step.seat != winner:
            return [self._violation(ViolationCode.NOT_TRICK_WINNER, step.seat, rule=rule)]
        violations = []
        if not self.hands[winner] >> card_id(step.give) & 1:
            violations.append(self._violation(ViolationCode.NOT_IN_HAND, winner, step.give, rule))
        if not takeable >> card_id(step.take) & 1:
            own = self.history[-1][1] if self.history else []  # (the winner's own card)
            code = (ViolationCode.HAGGLE_OWN_CARD if card_id(step.take) in own
                    else ViolationCode.NOT_IN_TRICK)
            violations.append(self._violation(code, winner, step.take, rule))
        return violations

    def _check_power(self, use: PowerUse) -> list[Problem]:
        """Problems with a power use: whose power, once per round, timing, conflicts, Round card
        limits, then the power's own arguments."""
        V = ViolationCode
        if not 0 <= use.seat < self.players:
            return [self._violation(V.BAD_POWER_ARGUMENT, rule=use.power)]
        power = self.powers[use.seat]
        if power is None or power.slug != use.power:
            return [self._violation(V.POWER_NOT_IN_PLAY, use.seat, rule=use.power)]
        if self.used[use.seat]:
            return [self._violation(V.POWER_ALREADY_USED, use.seat, rule=use.power)]
        not_now = [self._violation(V.POWER_NOT_NOW, use.seat, rule=use.power)]
        timing = power.when()
        if timing is Timing.BEFORE:
            if self.trick_ids or self._pending not in (None, StepKind.GIFT):
                return not_now
        elif timing is Timing.TURN:
            played = {(self.leader + i) % self.players for i in range(len(self.trick_ids))}
            if self._pending is not None or use.seat in played:
                return not_now
        else:  # after a trick, before anything else but other after-trick powers
            if self.trick_ids or not self.history:
                return not_now
            since = [step for at, _, step, _, _ in self._log if at == len(self.history)]
            if any(step != "return" and (power.first_after_trick or
                                         not isinstance(step, PowerUse)) for step in since):
                return not_now
        found = power.blocker(use, self.active_powers, self.leader)
        if found is not None:
            return [power.blocked(use, found, self.leader)]
        if timing is not Timing.AFTER and self.cards_left == self.trick_size:
            source = barred(self.modifiers[0], power, TrickTime.LAST_TRICK)
            if source is not None:  # a declared timing rule (Late to the Ball)
                return [timing_refusal(source, power, TrickTime.LAST_TRICK, use.seat)]
        if power.before_gift_pile and self._gift_on and self._pending is not StepKind.GIFT:
            return not_now  # Wedding Gift: before the gift cards are laid down (Deluxe o)
        return power.check(cast("RoundState", self), use)

    def play_step(self, step: Step) -> None:
        """Check ``step`` then push it. Raises :class:`IllegalTrickError` with the violations."""
        violations = self.check_step(step)
        if violations:
            raise IllegalTrickError(f"step {step} in {self.notation()}", violations)
        self.push_step(step)

    def push_step(self, step: Step) -> None:
        """Carry out ``step`` WITHOUT CHECKING it (the trusted path for stored history)."""
        players = self.players
        hands = self.hands
        at, pos = len(self.history), len(self.trick_ids)
        before = self._pending
        data: Any = None
        if isinstance(step, PowerUse):
            power = self.powers[step.seat]
            if power is None:
                raise InvalidEntryError(f"seat {step.seat} has no Princess power")
            data = power.apply(cast("RoundState", self), step)
            self.used[step.seat] = True
            if power.when() is not Timing.AFTER:
                self.active_powers.append((power, step))
                self._reactivate()
            self._log.append((at, pos, step, data, before))
            return
        if isinstance(step, Pass):
            left = [mask_of(cards) for cards in step.left]
            right = [mask_of(cards) for cards in step.right]
            for seat in range(players):  # simultaneous: take every card out first
                hands[seat] &= ~(left[seat] | right[seat])
            for seat in range(players):
                hands[(seat + 1) % players] |= left[seat]
                hands[(seat - 1) % players] |= right[seat]
            data = (left, right)
        elif isinstance(step, SetAside):
            data = [mask_of(cards) for cards in step.cards]
            for seat, mask in enumerate(data):
                hands[seat] &= ~mask
                self.aside[seat] |= mask
            self._pending = self._due_after(StepKind.SET_ASIDE)
        elif isinstance(step, Reveal):
            data = list(self.revealed)
            self.revealed = [hands[seat] & SUIT_MASKS[SUIT_INDEX[suit]]
                             for seat, suit in enumerate(step.suits)]
            self._pending = self._due_after(StepKind.REVEAL)
        elif isinstance(step, Gift):
            data = mask_of(step.cards)
            for seat, card in enumerate(step.cards):
                hands[seat] &= ~(1 << card_id(card))
            self._gift |= data
            self._pending = None
        elif isinstance(step, Chairs):
            data = [1 << card_id(card) for card in step.cards]
            for seat, bit in enumerate(data):
                hands[seat] &= ~bit
            for seat, bit in enumerate(data):
                hands[(seat - 1) % players] |= bit  # to the right
            self._pending = StepKind.GIFT if self._gift_on else None
        elif isinstance(step, Haggle):
            give, take = 1 << card_id(step.give), 1 << card_id(step.take)
            hands[step.seat] = hands[step.seat] & ~give | take
            self.taken[step.seat] = self.taken[step.seat] & ~take | give
            data = (give, take)
        else:
            raise InvalidEntryError(f"not a step: {step!r}")
        self._log.append((at, pos, step, data, before))

    def _undo(self, entry: tuple[int, int, Any, Any, StepKind | None]) -> None:
        """Reverse one logged step (or the automatic return of set-aside cards)."""
        _, _, step, data, before = entry
        players = self.players
        hands = self.hands
        if step == "return":
            for seat, mask in enumerate(data):
                hands[(seat + self._aside_to) % players] &= ~mask
            self.aside = list(data)
        elif isinstance(step, Pass):
            left, right = data
            for seat in range(players):
                hands[(seat + 1) % players] &= ~left[seat]
                hands[(seat - 1) % players] &= ~right[seat]
            for seat in range(players):
                hands[seat] |= left[seat] | right[seat]
        elif isinstance(step, SetAside):
            for seat, mask in enumerate(data):
                hands[seat] |= mask
                self.aside[seat] &= ~mask
        elif isinstance(step, Reveal):
            self.revealed = data
        elif isinstance(step, Gift):
            for seat, card in enumerate(step.cards):
                hands[seat] |= 1 << card_id(card)
            self._gift &= ~data
        elif isinstance(step, Chairs):
            for seat, bit in enumerate(data):
                hands[(seat - 1) % players] &= ~bit
            for seat, bit in enumerate(data):
                hands[seat] |= bit
        elif isinstance(step, Haggle):
            give, take = data
            hands[step.seat] = hands[step.seat] & ~take | give
            self.taken[step.seat] = self.taken[step.seat] & ~give | take
        elif isinstance(step, PowerUse):
            power = self.powers[step.seat]
            assert power is not None
            if power.when() is not Timing.AFTER:
                self.active_powers.pop()
                self._reactivate()
            power.undo(cast("RoundState", self), step, data)
            self.used[step.seat] = False
        self._pending = before

    def _after_trick(self, winner: int) -> None:
        """Round-card effects once a trick is won: the gift pile goes to the winner (o / M), the
        set-aside cards come back once the hands are empty (b / G, m / N, q / Q), and the next
        required step is set (musical chairs k / E, then the next gift)."""
        if self._gift:
            self.gifts[winner] |= self._gift
            self._gift = 0
        if self._aside_cards and any(self.aside) and not any(self.hands):
            moved = list(self.aside)
            for seat, mask in enumerate(moved):
                self.hands[(seat + self._aside_to) % self.players] |= mask
            self.aside = [0] * self.players
            self._log.append((len(self.history), 0, "return", moved, self._pending))
        if not self.cards_left:
            self._pending = None
        elif self._chairs_on:
            self._pending = StepKind.CHAIRS
        elif self._gift_on:
            self._pending = StepKind.GIFT

    def active_hand(self, seat: int) -> int:
        """``seat``'s hand as it was when the last trick ended, before set-aside cards came back
        (powers only touch the active hand: After Party, Blind Man's Bluff)."""
        hand = self.hands[seat]
        for at, _, step, data, _ in self._log:
            if step == "return" and at == len(self.history):
                for giver, mask in enumerate(data):
                    if (giver + self._aside_to) % self.players == seat:
                        hand &= ~mask
        return hand

    def hold_gift_pile(self, seat: int) -> int:
        """Alice under Wedding Gift (o / M): the gift pile ``seat`` won with the trick she deals
        back goes back to the table for the redone trick, and no new gift comes before it.
        Returns that pile (0: no Wedding Gift)."""
        if not self._gift_on:
            return 0
        pile = self._gift_pile_before(len(self.history) - 1)
        self.gifts[seat] &= ~pile
        self._gift = pile
        self._pending = None
        return pile

    def release_gift_pile(self, seat: int, pile: int) -> None:
        """Undo :meth:`hold_gift_pile`."""
        if pile:
            self.gifts[seat] |= pile
            self._gift = 0

    def _gift_pile_before(self, done: int) -> int:
        """The gift pile placed after ``done`` completed tricks, for the next one (o / M)."""
        for at, _, step, data, _ in reversed(self._log):
            if at < done:
                break
            if isinstance(step, Gift) and at == done:
                return data  # type: ignore[no-any-return]
        return 0

    def _redecides(self, use: PowerUse) -> bool:
        """Whether ``use`` changed the trick just played and decided it again (Mulan)."""
        power = self.powers[use.seat]
        return power is not None and power.redecides_trick
