"""Refusals at once for table entry (:class:`~.table.TableRound`): why a card, a power use, a
haggle or a gift pile cannot be entered now, and the questions the entry screens ask (which
powers may act after a trick, the haggle, Snow White's zero, a power another one blocks). Never
raising; nothing is stored."""

from __future__ import annotations

from dataclasses import replace

from companion.scoring.problems import Problem
from companion.scoring.rebel_princess.cards import RebelCard

from .cards import FROG_ID, card_id, mask_of
from .errors import ViolationCode
from .modifiers import Timing, TrickTime, barred, timing_refusal
from .powers import Power
from .steps import Gift, Haggle, PowerUse
from .table_base import TableBase
from .table_trick import TableTrick

__all__ = ["TableChecks"]

V = ViolationCode


class TableChecks(TableBase):
    """The ``check_*`` refusals and the entry questions of a table round."""

    def check_card(self, card: RebelCard) -> list[Problem]:
        """Why ``card`` cannot be the next card: the round is over, it is not in this deck, it
        was named earlier in this trick or is in no hand. Never raises. The rules that need the
        hands are judged as findings once the card is in."""
        if self.is_over():
            return [self._problem(V.ROUND_OVER, card=card)]
        seat = self.turn
        bit = 1 << card_id(card)
        if not bit & self._deck:
            return [self._problem(V.CARD_NOT_IN_DECK, seat, card)]
        current = self.current
        if current is not None and bit & mask_of(current.cards):
            return [self._problem(V.DUPLICATE_CARD, seat, card)]
        if bit & self._out:
            return [self._problem(V.CARD_ALREADY_PLAYED, seat, card)]
        return []

    def check_power(self, use: PowerUse) -> list[Problem]:
        """Why ``use`` cannot be entered now: not this seat's Princess, already used, without
        what it needs, at a moment it cannot act, blocked by a power used before it for the same
        trick, cards out of every hand. Never raises. The power's own rules that the cards show
        are findings once it is in."""
        return self._check_power(use, shape=True)

    def power_refusal(self, seat: int, target: int | None = None) -> Problem | None:
        """Why ``seat``'s power cannot act now (on ``target``), whatever else it is entered
        with: no power, used, not at this moment, blocked; ``None`` when it may."""
        power = self.power_of(seat)
        found = self._check_power(PowerUse(seat, power.slug if power else "", target),
                                  shape=False)
        return found[0] if found else None

    def _check_power(self, use: PowerUse, shape: bool) -> list[Problem]:
        if not (isinstance(use.seat, int) and 0 <= use.seat < self.players):
            return [self._problem(V.BAD_POWER_ARGUMENT, rule=use.power)]
        power = self.powers[use.seat]
        if power is None or power.slug != use.power:
            return [self._problem(V.POWER_NOT_IN_PLAY, use.seat, rule=use.power)]
        if self._used >> use.seat & 1:
            return [self._problem(V.POWER_ALREADY_USED, use.seat, rule=use.power)]
        found = power.check_shape(use, self.players, self.trick_size) if shape else []
        if found:
            return [replace(problem, trick=self._number()) for problem in found]
        not_now = [self._problem(V.POWER_NOT_NOW, use.seat, rule=use.power)]
        when = self.trick_time()
        if when is not None and (power.when() is Timing.AFTER) == (
                when is TrickTime.AFTER_LAST_TRICK):  # a declared timing rule
            source = barred(self.card_rule, power, when)
            if source is not None:
                return [timing_refusal(source, power, when, use.seat, self._number())]
        if power.when() is Timing.AFTER:
            last = self._tricks[-1] if self._tricks else None
            if last is None or not last.complete or self._coming or self._coming_gift or \
                    any(power.first_after_trick or isinstance(event, Haggle)
                        for event in last.after):
                return not_now  # (Mulan before anything else; none after the haggle)
            return self._check_after(power, use, last) if shape else []
        if self.is_over() or self.current is not None:
            return not_now  # before or during a trick: entered before its first card
        blocker = self._blocker(power, use)
        if blocker is not None:
            return [power.blocked(use, blocker, self._leader, self._number())]
        return []

    def trick_time(self) -> TrickTime | None:
        """Where the round stands for the timing rules (:class:`~.modifiers.NotOn`): the last
        trick is the coming one (or in progress), or has been played; ``None`` otherwise."""
        if self.is_over():
            return TrickTime.AFTER_LAST_TRICK
        if self._complete == self.expected_tricks - 1:
            return TrickTime.LAST_TRICK
        return None

    def forced_card(self, seat: int) -> RebelCard | None:
        """The card a power in effect makes ``seat`` play in the trick in progress or the next
        one (the Ice Princess's frozen card), or ``None``."""
        current = self.current
        uses = current.effective if current is not None else self._effective(
            self._coming, self._leader, self._coming_blocked)
        for use in uses:
            card = self._power(use).forced_card(use, seat)
            if card is not None:
                return card
        return None

    def after_trick_seats(self) -> tuple[int, ...]:
        """The seats whose power may act now on the trick just finished (Timing.AFTER): not
        used, that trick's winner where the power asks it (Alice, classic Pocahontas), a card
        of hers in it to swap (Mulan), no Frog in it for a power that never moves the Frog
        (Alice), nothing else done with it that comes first (see :meth:`power_refusal`)."""
        last = self._tricks[-1] if self._tricks and self.current is None else None
        if last is None or not last.complete:
            return ()
        seats = []
        for seat, power in enumerate(self.powers):
            if power is None or power.when() is not Timing.AFTER or \
                    self.power_refusal(seat) is not None:
                continue
            if self.edition in power.winner_only and last.winner != seat:
                continue
            if power.redecides_trick and not any(last.seat_of(i, self.players) == seat
                                                 for i in range(len(last.cards))):
                continue
            if power.deals_trick_back and (self.is_over() or power.never_frog and any(
                    card_id(card) == FROG_ID for card in last.final)):
                continue
            seats.append(seat)
        return tuple(seats)

    def haggle_option(self) -> tuple[int, tuple[RebelCard, ...]] | None:
        """``(winner, the cards of the trick they may take)`` while the winner of the trick just
        finished may haggle (Haggle with the Hag, p / T), else ``None``."""
        last = self._tricks[-1] if self._tricks and self.current is None else None
        if not self.card_rule.haggle_after_trick or last is None or not last.complete or \
                last.redone or last.note("haggle") is not None or self._coming or \
                self._coming_gift:
            return None
        assert last.winner is not None
        final = last.final
        return last.winner, tuple(card for i, card in enumerate(final)
                                  if last.seat_of(i, self.players) != last.winner)

    def zero_option(self, seat: int) -> tuple[str, RebelCard | None] | None:
        """How ``seat``'s power that plays one of her cards as a zero (Snow White) may be
        entered now: ``("after", card)`` on the card she has just played (within her power's
        rank), ``("before", None)`` while it is her turn; ``None`` otherwise."""
        power = self.power_of(seat)
        if power is None or power.when() is not Timing.TURN or not power.card_slots or \
                self._used >> seat & 1:
            return None
        last = self._tricks[-1] if self._tricks else None
        if last is not None and last.cards:
            index = len(last.cards) - 1
            card = last.cards[index]
            if last.seat_of(index, self.players) == seat and power.allows_rank(card):
                return "after", card
        return ("before", None) if self.turn == seat else None

    def blocked_power(self, seat: int) -> Problem | None:
        """Why ``seat``'s power cannot act on the coming trick because a power used earlier for
        it forbids it, whoever it would target; ``None`` when it may still act on someone (a
        power blocked only on the leader, Scheherazade, is refused once its target is known)."""
        power = self.power_of(seat)
        if power is None or power.when() is Timing.AFTER or self.current is not None:
            return None
        use = PowerUse(seat, power.slug)
        if power.blocked_on_leader_only and not power.acts_on_leader(use, self._leader):
            return None
        found = self._blocker(power, use)
        return None if found is None else power.blocked(use, found, self._leader, self._number())

    def _blocker(self, power: Power, use: PowerUse) -> tuple[Power, PowerUse] | None:
        """The power used earlier for the coming trick that forbids ``use`` (see
        :meth:`.powers.Power.blocker`); the blocked ones took no effect."""
        earlier = []
        for other in self._coming:
            other_power = self.powers[other.seat]
            if other_power is not None and other not in self._coming_blocked:
                earlier.append((other_power, other))
        return power.blocker(use, earlier, self._leader)

    def _check_after(self, power: Power, use: PowerUse, last: TableTrick) -> list[Problem]:
        """Refusals of a power used right after ``last``: what its cards must be."""
        final = last.final
        if power.redecides_trick:  # Mulan: her card, then one from her hand
            old, new = use.cards
            mine = [card for i, card in enumerate(final)
                    if last.seat_of(i, self.players) == use.seat]
            if old not in mine:
                return [replace(self._problem(V.NOT_IN_TRICK, use.seat, old), field="cards[0]")]
            if not (1 << card_id(new)) & self._deck:
                return [replace(self._problem(V.CARD_NOT_IN_DECK, use.seat, new),
                                field="cards[1]")]
            if self.is_out(new) or new in final:
                return [replace(self._problem(V.CARD_ALREADY_PLAYED, use.seat, new),
                                field="cards[1]")]
        elif power.deals_trick_back:  # Alice: the trick, dealt back
            if sorted(use.cards, key=card_id) != sorted(final, key=card_id):
                return [replace(self._problem(V.BAD_POWER_ARGUMENT, use.seat, rule=use.power),
                                field="cards")]
            if self.is_over():
                return [self._problem(V.POWER_NOT_NOW, use.seat, rule=use.power)]
        return []

    def check_haggle(self, step: Haggle) -> list[Problem]:
        """Why the haggle ``step`` cannot be entered now (Haggle with the Hag, p / T): no haggle
        under this Round card or not right after a trick, a haggle already entered for it, not
        the trick's winner, a card given that is in no hand, a card taken that is not in that
        trick or is the winner's own. Never raises."""
        rule = self.card_rule.slug
        last = self._tricks[-1] if self._tricks else None
        when = TrickTime.AFTER_LAST_TRICK
        if self.card_rule.haggle_after_trick and self.is_over() and \
                barred(self.card_rule, self.card_rule, when) is not None:
            return [timing_refusal(self.card_rule, self.card_rule, when, step.seat,
                                   self._number())]
        if not self.card_rule.haggle_after_trick or last is None or not last.complete or \
                last.redone or last.note("haggle") is not None or self._coming or \
                self._coming_gift:
            return [self._problem(V.STEP_NOT_DUE, step.seat, rule=rule)]
        if step.seat != last.winner:
            return [self._problem(V.NOT_TRICK_WINNER, step.seat, rule=rule)]
        give_bit = 1 << card_id(step.give)
        if not give_bit & self._deck:
            return [self._problem(V.CARD_NOT_IN_DECK, step.seat, step.give)]
        if give_bit & self._out:
            return [self._problem(V.CARD_ALREADY_PLAYED, step.seat, step.give)]
        final = last.final
        if step.take not in final:
            return [self._problem(V.NOT_IN_TRICK, step.seat, step.take)]
        if last.seat_of(final.index(step.take), self.players) == step.seat:
            return [self._problem(V.HAGGLE_OWN_CARD, step.seat, step.take)]
        return []

    def check_gift(self, step: Gift) -> list[Problem]:
        """Why the Wedding Gift pile ``step`` (one card per seat) cannot be laid now: not under
        this Round card, a pile already laid (or the trick is Alice's redo), the wrong number of
        cards, a card in no hand or named twice. Never raises."""
        card = self.card_rule
        redone = bool(self._tricks) and self._tricks[-1].redone and self.current is None
        if not card.gift_before_trick or self._coming_gift or self.current is not None or \
                redone or self.is_over():
            return [self._problem(V.STEP_NOT_DUE, rule=card.slug)]
        if len(step.cards) != self.players:
            return [self._problem(V.WRONG_CARD_COUNT, rule=card.slug)]
        problems = []
        seen: set[RebelCard] = set()
        for seat, gift in enumerate(step.cards):
            bit = 1 << card_id(gift)
            if not bit & self._deck:
                problems.append(self._problem(V.CARD_NOT_IN_DECK, seat, gift))
            elif gift in seen:
                problems.append(self._problem(V.DUPLICATE_CARD, seat, gift))
            elif bit & self._out:
                problems.append(self._problem(V.CARD_ALREADY_PLAYED, seat, gift))
            seen.add(gift)
        return problems
