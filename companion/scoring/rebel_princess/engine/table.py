"""Table entry: judging a round as it is played at the table, with the hands unknown.

At the table the app sees the cards played (and the powers and steps announced), not the hands.
:class:`TableRound` is the one state of such a round. It takes one card, one power use or one
step at a time (``push_*``), undoes the last one (:meth:`TableRound.pop`), and answers every
question from what it keeps, never by replaying: the tricks with their winners and why they
were won, the leader and whose turn it is, the cards out of every hand, the findings, what each
seat is known to have held. The rules are judged in two stages (RULINGS.md "Trick rules the
engine must apply"; HOUSE_STYLE.md section 2):

- **At once**, as refusals (``check_*`` return them, never raising; nothing is stored): a card
  outside the deck, already played or named twice in a trick, a trick after the last, a power
  the seat does not have or has used, a power entered without what it needs (its declaration, see
  :mod:`.powers`) or at a moment it cannot act, a haggle that is not the winner's or not of that
  trick.
- **As findings** (:meth:`TableRound.findings`): a rule broken, proven now or by later plays. A card
  a player plays later was already in their hand, unless it could have arrived since, so every
  play adds to what each hand is *known* to have held (:meth:`TableRound.known_hands`), and each
  earlier play of that seat is judged again by the full-information rules against that smallest
  known hand. Typical findings: a revoke (a player did not follow suit and later plays that
  suit), Princes led before they snuck in by a leader who later shows other cards, the Little
  Mermaid naming Princes to a leader who later shows another suit. The powers' own rules that the
  cards show are findings too: Alice and classic Pocahontas must have won the trick, Alice and
  Mulan never move the Frog, Mulan swaps within a suit, the classic Ice Princess draws from the
  leader's hand. A finding once proven stays (a later card never clears it); :meth:`pop` takes it
  back with the entry that proved it.

Cards arrive unseen through Musical Chairs (k / E: every seat, after every trick), the set-aside
cards coming back (b / G, m / N, q / Q), Sleeping Beauty and Scheherazade (cards not seen) and
Alice when the dealt cards are not entered: knowledge stops at such a point for the seats
concerned. Cards arriving in sight (a haggled card, the card Mulan takes back, Alice's dealt cards
when entered) are left out of what the seat is known to have held before.

The cards kept under Late for a Very Important Date (n) and the Wedding Gift piles (o / M) are not
seen at the table: :meth:`TableRound.outcome` leaves them empty, and the players enter them for the
scoring (the gift piles placed are tallied by :attr:`TableRound.gifts_won`).

Order of entry (the canonical order a stored round is replayed in): for each trick, the gift pile,
the powers used before or during it (in the order declared), its cards, then what follows it
(Mulan, Alice, classic Pocahontas, the haggle).
"""

from __future__ import annotations

from companion.scoring.problems import Problem
from companion.scoring.rebel_princess.cards import RebelCard, Suit

from .cards import FROG_ID, card_id, mask_of
from .errors import IllegalTrickError, InvalidEntryError, ViolationCode
from .evidence import Evidence, Kept, Seen, step_evidence
from .modifiers import Timing
from .powers import Power
from .steps import Chairs, Gift, Haggle, PowerUse, Step
from .table_checks import TableChecks
from .table_findings import TableFindings
from .table_trick import Knowledge, TableTrick, Undo
from .values import Trick

__all__ = ["TableRound"]

V = ViolationCode


class TableRound(TableChecks, TableFindings):
    """A round entered at the table, one card, power use or step at a time, hands unknown.

    Its fields and queries are in :mod:`.table_base`, the refusals at once in
    :mod:`.table_checks`, the findings in :mod:`.table_findings`; here are the commands."""

    # -- commands -------------------------------------------------------------------------------

    def push_card(self, card: RebelCard) -> None:
        """Enter ``card`` for the seat whose turn it is WITHOUT CHECKING it (see
        :meth:`check_card`); the findings it proves are recorded."""
        undo: list[Undo] = []
        current = self.current
        if current is None:
            current = self._open_trick(undo)
        seat = (current.leader + len(current.cards)) % self.players
        cid = card_id(card)
        current.cards.append(card)
        current.ids.append(cid)
        bit = 1 << cid
        self._out |= bit
        undo.append(lambda: self._take_back(current, bit))
        self._prove((Evidence(Seen.PLAYED, seat, bit),), undo)
        if len(current.cards) == self.trick_size:
            self._close_trick(current, undo)
        self._events.append((card, undo))

    def push_power(self, use: PowerUse) -> None:
        """Enter a power use WITHOUT CHECKING it (see :meth:`check_power`): before or during a
        trick it joins the powers of the trick in progress or the next one; after a trick it
        acts on it. The power's rules that the cards show are recorded as findings."""
        undo: list[Undo] = []
        power = self.powers[use.seat]
        assert power is not None
        self._used |= 1 << use.seat
        undo.append(lambda: self._unuse(use.seat))
        if power.when() is Timing.AFTER:
            self._after_power(power, use, undo)
        else:
            self._before_power(power, use, undo)
        self._events.append((use, undo))

    def push_haggle(self, step: Haggle) -> None:
        """Enter a haggle WITHOUT CHECKING it (see :meth:`check_haggle`): the winner takes
        ``take`` from the trick into their hand and gives ``give`` from it."""
        undo: list[Undo] = []
        last = self._tricks[-1]
        last.after.append(step)
        undo.append(last.after.pop)
        take, give = 1 << card_id(step.take), 1 << card_id(step.give)
        before = self._out
        self._out = self._out & ~take | give
        undo.append(lambda: setattr(self, "_out", before))
        self._prove(step_evidence(step, self.players), undo)  # the card given was shown
        self._events.append((step, undo))

    def push_gift(self, step: Gift) -> None:
        """Lay the Wedding Gift pile of the coming trick WITHOUT CHECKING it (see
        :meth:`check_gift`)."""
        undo: list[Undo] = []
        self._coming_gift = tuple(step.cards)
        bits = mask_of(step.cards)
        self._prove(step_evidence(step, self.players), undo)  # each card was in its hand
        self._out |= bits
        undo.append(lambda: self._ungift(bits))
        self._events.append((step, undo))

    def push_chairs(self, step: Chairs) -> None:
        """Enter the card each seat passed to its right after the last trick (Musical Chairs,
        k / E) WITHOUT CHECKING it: it was in the passer's hand and arrives in the next one, so
        no unseen card reached those hands."""
        undo: list[Undo] = []
        last = self._tricks[-1]
        self._prove(step_evidence(step, self.players), undo)
        last.after.append(step)
        undo.append(last.after.pop)
        self._events.append((step, undo))

    def push_kept(self, step: Kept) -> None:
        """Enter the cards each seat kept and shows once the round is over (Late for a Very
        Important Date, n) WITHOUT CHECKING them: each was in that hand all along, so it may
        prove an earlier play wrong."""
        undo: list[Undo] = []
        self._prove(step_evidence(step, self.players), undo)
        self._events.append((step, undo))

    def pop(self) -> RebelCard | Step | Kept:
        """Undo the last entry and return it. Raises :class:`IndexError` when there is none."""
        event, undo = self._events.pop()
        for action in reversed(undo):
            action()
        return event

    # -- the whole trick at once (as the round record and older callers enter it) --------------

    def check_trick(self, trick: Trick) -> list[Problem]:
        """What can be judged at once about ``trick`` as the next trick: the round is over, the
        leader, the card count, the cards (:meth:`check_card`), the rules its own cards prove
        broken, and a stated winner. Never raises."""
        if self.is_over():
            return [self._problem(V.ROUND_OVER)]
        if self.current is not None or trick.leader != self._leader:
            return [self._problem(V.WRONG_LEADER, trick.leader)]
        if len(trick.cards) != self.trick_size:
            return [self._problem(V.WRONG_CARD_COUNT)]
        problems: list[Problem] = []
        pushed = 0
        for card in trick.cards:
            refused = self.check_card(card)
            if refused:
                problems += refused
                continue
            self.push_card(card)
            pushed += 1
        if not problems:
            number = len(self._tricks) - 1
            problems = [p for p in self.findings() if p.trick == number]
            winner = self._tricks[-1].winner
            if trick.winner is not None and trick.winner != winner:
                problems.append(self._problem(V.WRONG_WINNER, trick.winner))
        for _ in range(pushed):
            self.pop()
        return problems

    def play_trick(self, trick: Trick) -> int:
        """Check ``trick`` then enter it; returns the winner. Raises
        :class:`IllegalTrickError` with what :meth:`check_trick` found."""
        problems = self.check_trick(trick)
        if problems:
            raise IllegalTrickError(f"trick {trick} at the table", problems)
        return self.push(trick)

    def push(self, trick: Trick) -> int:
        """Enter ``trick``'s cards WITHOUT CHECKING them; returns the winner decided from them."""
        for card in trick.cards:
            self.push_card(card)
        winner = self._tricks[-1].winner
        assert winner is not None
        return winner

    def push_step(self, step: Haggle | PowerUse | Gift) -> None:
        """Enter a haggle, a gift pile or a power use, checked only for whose power it is and
        once per round (the hands needed for more are unknown). Raises
        :class:`InvalidEntryError`."""
        if isinstance(step, PowerUse):
            power = self.power_of(step.seat)
            if power is None or power.slug != step.power:
                raise InvalidEntryError(f"seat {step.seat} has no power {step.power!r}")
            if self._used >> step.seat & 1:
                raise InvalidEntryError(f"seat {step.seat} already used its power this round")
            self.push_power(step)
        elif isinstance(step, Haggle):
            self.push_haggle(step)
        elif isinstance(step, Gift):
            self.push_gift(step)
        else:
            raise InvalidEntryError(f"{step} is not entered at the table")

    # -- tricks ---------------------------------------------------------------------------------

    def _open_trick(self, undo: list[Undo]) -> TableTrick:
        """Start the next trick with its first card: the powers and gift announced for it, and
        the seats unseen cards may have reached since the trick before."""
        number = len(self._tricks)
        unseen = self._unseen_since()
        trick = TableTrick(number, self._leader, tuple(self._coming), self._princes,
                           self._coming_gift, blocked=tuple(self._coming_blocked))
        trick.effective = tuple(self._effective(trick.uses, trick.leader, trick.blocked))
        coming, gift, blocked = self._coming, self._coming_gift, self._coming_blocked
        self._coming, self._coming_gift, self._coming_blocked = [], (), []
        self._tricks.append(trick)
        self._know.append(Knowledge(self.players))
        if number:
            self._return_aside(undo)
            self._close_seats(unseen, number, undo)

        def back() -> None:
            self._tricks.pop()
            self._know.pop()
            self._coming, self._coming_gift, self._coming_blocked = coming, gift, blocked

        undo.append(back)
        return trick

    def _take_back(self, trick: TableTrick, bit: int) -> None:
        trick.cards.pop()
        trick.ids.pop()
        self._out &= ~bit

    def _close_trick(self, trick: TableTrick, undo: list[Undo]) -> None:
        """The trick is complete: decide it; its winner leads next."""
        before = (self._leader, self._princes, self._count)
        self._complete += 1
        self._decide(trick)
        self._watch(trick, undo)
        self._leader = trick.winner  # type: ignore[assignment]
        self._princes = trick.princes_after
        self._count -= self.trick_size // self.players

        def back() -> None:
            trick.winner = trick.reason = None
            self._complete -= 1
            self._leader, self._princes, self._count = before

        undo.append(back)

    def _decide(self, trick: TableTrick) -> None:
        """The winner of ``trick`` (with Mulan's swap), whether the Princes are in after it, and
        why it was won, from its cards and the powers in effect."""
        players = self.players
        hands = [0] * players
        for index, card in enumerate(trick.cards):
            hands[(trick.leader + index) % players] |= 1 << card_id(card)
        mulan = trick.mulan
        if mulan is not None:
            hands[mulan.seat] |= 1 << card_id(mulan.cards[1])
        probe = self._probe
        probe.start_trick(trick.leader, trick.princes_before, hands, list(trick.effective))
        probe.push(Trick(trick.leader, tuple(trick.cards)))
        if mulan is not None:
            probe.push_step(mulan)
        trick.winner = probe.last_winner
        trick.princes_after = probe.princes_in
        final = trick.final
        mine = [card for i, card in enumerate(final) if trick.seat_of(i, players) == trick.winner]
        reversed_ = any(self._power(use).reverses_order for use in trick.effective)
        trick.reason = self.card_rule.win_reason(final, mine[-1] if mine else final[0],
                                                 reversed_)

    # -- powers ---------------------------------------------------------------------------------

    def _unuse(self, seat: int) -> None:
        self._used &= ~(1 << seat)

    def _before_power(self, power: Power, use: PowerUse, undo: list[Undo]) -> None:
        """A power used before or during the coming trick."""
        found = self._blocker(power, use)
        if found is None:  # what its cards show, before it joins the coming trick's powers
            self._prove(power.evidence(use, self.players), undo)
        self._coming.append(use)
        undo.append(self._coming.pop)
        if found is not None:  # stored before the rule was checked: it changes nothing
            self._coming_blocked.append(use)
            undo.append(self._coming_blocked.pop)
            self._note(power.blocked(use, found, self._leader, len(self._tricks)), -1,
                       len(self._tricks), undo)
            return
        leader = self._leader
        self._leader = power.new_leader(use, leader)  # Pocahontas: she chooses who leads
        if self._leader != leader:
            undo.append(lambda: setattr(self, "_leader", leader))
        if self.edition in power.target_leader and use.target != self._leader:
            # The classic Ice Princess draws the card from the leader's hand (French p. 14).
            self._note(self._problem(V.NOT_THE_LEADER, use.target, rule=use.power), -1,
                       len(self._tricks), undo)

    def _after_power(self, power: Power, use: PowerUse, undo: list[Undo]) -> None:
        """A power used right after the last trick: its rules that the cards show, its effect."""
        last = self._tricks[-1]
        number = len(self._tricks) - 1
        final = last.final
        last.after.append(use)
        undo.append(last.after.pop)
        found = []
        if self.edition in power.winner_only and last.winner != use.seat:
            found.append(self._problem(V.NOT_TRICK_WINNER, use.seat, rule=use.power))
        if power.redecides_trick:  # Mulan swaps a card of the trick
            old, new = use.cards
            if power.same_suit and old.suit is not new.suit:
                found.append(self._problem(V.MUST_FOLLOW_SUIT, use.seat, new, use.power))
            if power.never_frog and FROG_ID in (card_id(old), card_id(new)):
                found.append(self._problem(V.POWER_FROG, use.seat, rule=use.power))
            self._swap(last, use, undo)
        elif power.deals_trick_back:  # Alice deals the trick back
            if power.never_frog and any(card_id(c) == FROG_ID for c in final):
                found.append(self._problem(V.POWER_FROG, use.seat, rule=use.power))
            self._redo(last, use, undo)
        elif power.new_leader(use, self._leader) != self._leader:  # classic Pocahontas
            leader = self._leader
            self._leader = power.new_leader(use, leader)
            undo.append(lambda: setattr(self, "_leader", leader))
        for problem in found:
            self._note(Problem(problem.code, problem.seat, problem.card, number,
                               params=problem.params, catalogue=problem.catalogue), -1, number,
                       undo)

    def _swap(self, last: TableTrick, use: PowerUse, undo: list[Undo]) -> None:
        """Mulan's swap: her card goes back to her hand, the new one into the trick, which is
        decided again."""
        old, new = (1 << card_id(card) for card in use.cards)
        before = (self._out, self._leader, self._princes, last.winner, last.princes_after,
                  last.reason)
        last.mulan = use
        self._out = self._out & ~old | new
        self._decide(last)
        self._leader, self._princes = last.winner, last.princes_after  # type: ignore[assignment]

        def back() -> None:
            last.mulan = None
            (self._out, self._leader, self._princes, last.winner, last.princes_after,
             last.reason) = before

        undo.append(back)
        self._prove(self._power(use).evidence(use, self.players), undo)

    def _redo(self, last: TableTrick, use: PowerUse, undo: list[Undo]) -> None:
        """Alice deals the trick back: it is played again (and no longer won); a Prince in it
        brings the Princes in (RULINGS.md)."""
        before = (self._out, self._princes, self._count, self._alices)
        last.redone = True
        self._out &= ~mask_of(last.final)
        self._alices += 1
        self._count += self.trick_size // self.players
        if any(card.suit is Suit.PRINCE for card in last.cards):
            self._princes = True

        def back() -> None:
            last.redone = False
            self._out, self._princes, self._count, self._alices = before

        undo.append(back)
        self._prove(self._power(use).evidence(use, self.players), undo)

    def _ungift(self, bits: int) -> None:
        self._coming_gift = ()
        self._out &= ~bits
