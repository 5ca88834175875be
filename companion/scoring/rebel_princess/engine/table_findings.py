"""Findings for table entry (:class:`~.table.TableRound`): what each hand is known to have held,
and the rules later plays prove broken.

A card a player plays later was already in their hand, unless it could have arrived since, so
every play adds to what each hand is *known* to have held, and each earlier play of that seat is
judged again by the full-information rules against that smallest known hand. Knowledge stops
where unseen cards may have arrived (Musical Chairs, the set-aside cards coming back, Sleeping
Beauty, Scheherazade, Alice's deal not entered); cards seen arriving are left out.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import partial

from companion.scoring.problems import Problem

from .cards import PRINCE_MASK, SUIT_MASKS
from .errors import BASIC, ViolationCode, violation
from .evidence import Evidence, Moment
from .steps import PowerUse
from .table_base import TableBase
from .table_trick import TableTrick, Undo

__all__ = ["RULE_CODES", "TableFindings"]

V = ViolationCode
#: Codes that describe a broken trick rule (as opposed to a malformed entry).
RULE_CODES = frozenset({
    V.MUST_FOLLOW_SUIT, V.PRINCES_NOT_INVITED, V.MUST_PLAY_HIGHEST_OR_LOWEST,
    V.MUST_MATCH_PARITY, V.POWER_RESTRICTION,
})
_NOT_PRINCES = ~PRINCE_MASK


class TableFindings(TableBase):
    """What each seat is known to have held, and the findings it proves."""

    def _unseen_since(self) -> int:
        """The seats (a mask) unseen cards may have reached since the last trick ended, as far
        as entered: everyone after Musical Chairs not entered, when the set-aside cards come
        back, after Alice's deal not entered; the seats of the powers used for the coming trick
        whose cards were not entered (Sleeping Beauty, Scheherazade)."""
        if not self._tricks:
            return 0
        everyone = (1 << self.players) - 1
        last = self._tricks[-1]
        seats = 0
        if self.card_rule.chairs_after_trick and last.note("chairs") is None:
            seats = everyone
        for event in last.after:
            if isinstance(event, PowerUse) and self._power(event).deals_trick_back and \
                    not event.cards:
                seats = everyone  # dealt unseen
        if self._count <= 0 and self._aside_left:  # the hands are empty: the set-aside return
            seats = everyone
        for use in self._coming:
            seats |= self._power(use).unseen_seats(use, self.players)
        return seats

    def _return_aside(self, undo: list[Undo]) -> None:
        """The hands are empty and set-aside cards wait: they come back into the hands."""
        if self._count <= 0 and self._aside_left:
            before = (self._count, self._aside_left)
            self._count, self._aside_left = self._aside_left, 0

            def back() -> None:
                self._count, self._aside_left = before

            undo.append(back)

    def _prove(self, evidence: Iterable[Evidence], undo: list[Undo]) -> None:
        """Record what cards that became known prove (see :mod:`.evidence`, the one place the
        kinds are listed): a card that left a hand was in it at the start of the trick in
        progress or just finished, and of every earlier one that hand has received no unseen
        card since (its plays there are judged again); a card that arrived was not."""
        number = len(self._tricks) - 1
        unseen: int | None = None
        for item in evidence:
            if not item.held:
                self._arrive(item.seat, item.cards, undo)
                continue
            if number < 0:
                continue  # before the first trick: no play to judge
            if item.moment is Moment.BEFORE_NEXT:
                if unseen is None:
                    unseen = self._unseen_since()
                if unseen >> item.seat & 1:
                    continue  # unseen cards may have reached that hand since the last trick
            proven_in = number + (item.moment is Moment.BEFORE_NEXT)  # (entered with it)
            bits = item.cards
            while bits:
                bit = bits & -bits
                bits ^= bit
                self._learn(item.seat, bit, number, undo, proven_in)

    def _close_seats(self, seats: int, number: int, undo: list[Undo]) -> None:
        """Unseen cards may have reached ``seats`` before trick ``number``: what they play from
        now on says nothing about their hands at the start of any earlier trick."""
        if not seats:
            return
        changed = []
        for index in range(number):
            know = self._know[index]
            if know.open & seats:
                changed.append((know, know.open))
                know.open &= ~seats

        def back() -> None:
            for know, was in changed:
                know.open = was

        undo.append(back)

    def _arrive(self, seat: int, bits: int, undo: list[Undo]) -> None:
        """Cards seen arriving in ``seat``'s hand after the last trick: they were not in it at
        the start of that trick or any earlier one."""
        changed = []
        for know in self._know:
            changed.append((know, know.arrived[seat]))
            know.arrived[seat] |= bits

        def back() -> None:
            for know, was in changed:
                know.arrived[seat] = was

        undo.append(back)

    def _learn(self, seat: int, bit: int, number: int, undo: list[Undo],
               proven_in: int | None = None) -> None:
        """``seat`` played the card ``bit`` in trick ``number``: it held it at the start of every
        earlier trick it has received no unseen card since; judge its plays there again (unless
        that trick's watch says this card cannot change the verdict: see :meth:`_watch`)."""
        learned = []
        knows = self._know
        for index in range(number, -1, -1):
            know = knows[index]
            if not know.open >> seat & 1 or know.arrived[seat] & bit:
                break  # (older tricks know no more: seats only close, cards only arrive)
            known = know.known
            if known[seat] & bit:
                continue  # known already (a card given back, then played): the same verdict
            known[seat] |= bit
            learned.append(known)
            watch = know.watch
            if watch is not None and not watch[seat] & bit:
                continue  # the same hand, as far as that trick's rules can tell
            for position, problem in self._judge(index, seat):
                self._note(problem, position, number if proven_in is None else proven_in,
                           undo)
        if learned:
            undo.append(partial(_forget, learned, seat, bit))

    def _watch(self, trick: TableTrick, undo: list[Undo]) -> None:
        """``trick`` is complete: when the basic rules alone judge it (see :meth:`_judge_plain`),
        note per seat the only cards whose later showing can prove a rule broken in it: the other
        suits for a Prince led before the Princes are in, the suit led for a card off it. A
        verdict there depends on the known hand only through these."""
        if not self._plain or trick.effective:
            return
        ids = trick.ids
        players = self.players
        led = ids[0] >> 4
        watch = [0] * players
        if led == 0 and not trick.princes_before:
            watch[trick.leader] |= _NOT_PRINCES
        for index in range(1, len(ids)):
            if ids[index] >> 4 != led:
                watch[(trick.leader + index) % players] |= SUIT_MASKS[led]
        know = self._know[trick.index]
        know.watch = watch

        def back() -> None:
            know.watch = None

        undo.append(back)

    def _note(self, problem: Problem, position: int, proven_in: int, undo: list[Undo]) -> None:
        """Record a finding the first time it is proven."""
        key = (problem.trick, problem.code, problem.seat, problem.card,
               problem.params.get("rule"))
        if key in self._found:
            return
        proven = Problem(problem.code, problem.seat, problem.card, problem.trick,
                         params={**problem.params, "proven_in": max(proven_in, problem.trick or 0)},
                         catalogue=problem.catalogue)
        self._found[key] = (proven_in, position, proven)
        undo.append(lambda: self._found.pop(key))

    def _judge(self, number: int, seat: int) -> list[tuple[int, Problem]]:
        """The rules ``seat`` broke in trick ``number``, judged against the smallest hand it can
        have held (the known cards), with their position in the trick."""
        trick = self._tricks[number]
        players = self.players
        hand = self._know[number].known[seat]
        if self._plain and not trick.effective:
            return self._judge_plain(trick, seat, hand)
        ids = trick.ids
        hands = [0] * players
        hands[seat] = hand
        probe = self._probe
        probe.start_trick(trick.leader, trick.princes_before, hands, list(trick.effective))
        found: list[tuple[int, Problem]] = []
        last = max(i for i in range(len(ids)) if (trick.leader + i) % players == seat)
        for index in range(last + 1):
            if (trick.leader + index) % players == seat:
                for problem in probe.check_play(trick.cards[index]):
                    if problem.code in RULE_CODES:
                        found.append((index, _at(problem, number)))
            probe.push_id(ids[index])
        return found

    def _judge_plain(self, trick: TableTrick, seat: int,
                     hand: int) -> list[tuple[int, Problem]]:
        """:meth:`_judge` under the basic rules alone, with mask operations: a lead Prince
        before the Princes are in while holding another suit, a card off the suit led while
        holding that suit."""
        ids = trick.ids
        players = self.players
        found = []
        for index in range((seat - trick.leader) % players, len(ids), players):
            cid = ids[index]
            if index == 0:
                if cid >> 4 == 0 and not trick.princes_before and hand & _NOT_PRINCES:
                    found.append((index, violation(V.PRINCES_NOT_INVITED, seat,
                                                   trick.cards[index], BASIC, self.edition,
                                                   trick=trick.index)))
            elif cid >> 4 != ids[0] >> 4 and hand & SUIT_MASKS[ids[0] >> 4]:
                found.append((index, violation(V.MUST_FOLLOW_SUIT, seat, trick.cards[index],
                                               BASIC, self.edition, trick=trick.index)))
            hand &= ~(1 << cid)
        return found


def _forget(learned: list[list[int]], seat: int, bit: int) -> None:
    for known in learned:
        known[seat] &= ~bit


def _at(problem: Problem, number: int) -> Problem:
    return Problem(problem.code, problem.seat, problem.card, number, params=problem.params,
                   catalogue=problem.catalogue)
