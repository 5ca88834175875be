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

from collections.abc import Iterable, Sequence
from dataclasses import replace
from functools import partial

from companion.scoring.problems import Problem
from companion.scoring.rebel_princess.cards import Edition, RebelCard, Suit, hand_size

from .cards import FROG_ID, PRINCE_MASK, SUIT_MASKS, card_id, cards_of, deck_mask, mask_of
from .errors import BASIC, IllegalTrickError, InvalidEntryError, ViolationCode, violation
from .evidence import Evidence, Kept, Moment, Seen, step_evidence
from .modifiers import HALF, Timing, TrickTime, barred, overridden, timing_refusal
from .powers import Power
from .state import RoundState, edition_of
from .steps import Chairs, Gift, Haggle, PowerUse, Step, StepKind
from .table_trick import Knowledge, TableTrick, Undo
from .values import RoundOutcome, Trick

__all__ = ["RULE_CODES", "TableRound"]


V = ViolationCode


#: Codes that describe a broken trick rule (as opposed to a malformed entry).
RULE_CODES = frozenset({
    V.MUST_FOLLOW_SUIT, V.PRINCES_NOT_INVITED, V.MUST_PLAY_HIGHEST_OR_LOWEST,
    V.MUST_MATCH_PARITY, V.POWER_RESTRICTION,
})


_NOT_PRINCES = ~PRINCE_MASK


class TableRound:
    """A round entered at the table, one card, power use or step at a time, hands unknown.

    One class in one module, in four parts: its fields and queries, the commands, the refusals
    at once (``check_*``) and the findings."""

    # -- state and queries ---------------------------------------------------------------------
    # The fields of a round entered at the table and the questions answered from them: the
    # tricks, the leader and whose turn it is, the cards out of every hand, the findings, what
    # each seat is known to have held, the tally and the outcome (never raising).

    def __init__(self, players: int, *, edition: Edition | str = Edition.DELUXE,
                 round_card: str | None = None, leader: int = 0,
                 princesses: Sequence[str | None] | None = None) -> None:
        """Raises :class:`InvalidEntryError` for a bad player count, edition, Round card, leader
        or Princess."""
        if not (isinstance(players, int) and 3 <= players <= 6):
            raise InvalidEntryError(f"{players!r} players; Rebel Princess seats 3 to 6")
        self.edition = edition_of(edition)
        # The probe judges one trick at a time from partial hands; building it checks the setup.
        self._probe = RoundState([0] * players, edition=self.edition, round_card=round_card,
                                 leader=leader, princesses=princesses)
        self.players = players
        self.round_card = self._probe.round_card
        self.first_leader = leader
        self.princesses = self._probe.princesses
        self.powers: tuple[Power | None, ...] = self._probe.powers
        card = self._probe.modifiers[0]
        self.card_rule = card
        self.trick_size = players * card.plays_per_seat
        size = hand_size(players)
        self._aside = size // 2 if card.aside_cards == HALF else card.aside_cards
        self.base_tricks = (size // 2 if card.gift_before_trick else size - card.kept_cards) \
            // card.plays_per_seat
        self._deck = deck_mask(players)
        # The basic rules alone decide legality (no Round-card legal or follow hook): plays are
        # judged with a few mask operations unless a power in effect restricts them.
        self._plain = not overridden(card, "legal") and not overridden(card, "follow")
        # -- the state --
        self._tricks: list[TableTrick] = []
        self._complete = 0  # complete tricks
        self._know: list[Knowledge] = []
        # The cards each hand is known to hold now: seen arriving in it and not seen leaving it
        # since, and no unseen step since that may have taken them (see :meth:`_open_trick`).
        self._in = [0] * players
        self._leader = leader
        self._princes = False
        self._coming: list[PowerUse] = []  # powers used for the coming trick
        self._coming_blocked: list[PowerUse] = []  # those of them another power blocked
        self._coming_gift: tuple[RebelCard, ...] = ()
        self._out = 0  # cards in no hand: played and not back, or in a gift pile
        self._used = 0  # seats whose power is used (a mask)
        self._alices = 0
        self._count = size - self._aside  # cards in each hand in the current phase
        self._aside_left = self._aside
        self._found: dict[tuple[object, ...], tuple[int, int, Problem]] = {}
        self._events: list[tuple[RebelCard | Step | Kept, list[Undo]]] = []

    @property
    def leader(self) -> int:
        """The seat leading the trick in progress, or the next one."""
        current = self.current
        return current.leader if current is not None else self._leader

    @property
    def princes_in(self) -> bool:
        """Whether the Princes have snuck in (after the last complete trick)."""
        return self._princes

    @property
    def tricks(self) -> tuple[TableTrick, ...]:
        """The complete tricks, oldest first."""
        return tuple(self._tricks[:self._complete])

    @property
    def current(self) -> TableTrick | None:
        """The trick in progress (at least one card in), or ``None``."""
        return self._tricks[-1] if len(self._tricks) > self._complete else None

    @property
    def coming_uses(self) -> tuple[PowerUse, ...]:
        """The powers used for the trick in progress, or for the next one before its lead."""
        current = self.current
        return current.uses if current is not None else tuple(self._coming)

    @property
    def turn(self) -> int | None:
        """The seat to play the next card; ``None`` once the round is over."""
        if self.is_over():
            return None
        current = self.current
        if current is None:
            return self._leader
        return (current.leader + len(current.cards)) % self.players

    @property
    def expected_tricks(self) -> int:
        """Tricks in this round: the Round card's number, plus one per trick Alice dealt back."""
        return self.base_tricks + self._alices

    def is_over(self) -> bool:
        """Whether every trick of the round has been entered."""
        return self._complete >= self.base_tricks + self._alices

    @property
    def events(self) -> tuple[RebelCard | Step | Kept, ...]:
        """Everything entered, in order (cards, power uses, haggles, gifts, kept cards)."""
        return tuple(event for event, _ in self._events)

    @property
    def cards_out(self) -> frozenset[RebelCard]:
        """Cards in no hand: played (and not back in a hand: Alice, Mulan, a haggle), or given
        to a gift pile."""
        return cards_of(self._out)

    def in_deck(self, card: RebelCard) -> bool:
        """Whether ``card`` is in this player count's deck."""
        return bool(self._deck >> card_id(card) & 1)

    def princes_now(self) -> bool:
        """Whether the Princes are in now: after the last complete trick, the powers used for the
        coming one (a Prince the Ice Princess froze) and the cards of the trick in progress."""
        current = self.current
        cards = current.cards if current is not None else []
        leader = current.leader if current is not None else self._leader
        uses = (list(current.effective) if current is not None
                else self._effective(self._coming, leader, self._coming_blocked))
        princes = current.princes_before if current is not None else self._princes
        hands = [0] * self.players
        for index, card in enumerate(cards):
            hands[(leader + index) % self.players] |= 1 << card_id(card)
        probe = self._probe
        probe.start_trick(leader, princes, hands, uses)
        for card in cards:
            probe.push_id(card_id(card))
        return probe.princes_in

    def is_out(self, card: RebelCard) -> bool:
        """Whether ``card`` is in no hand (see :attr:`cards_out`)."""
        return bool(self._out >> card_id(card) & 1)

    @property
    def used_seats(self) -> frozenset[int]:
        """The seats whose Princess power has been used this round."""
        return frozenset(seat for seat in range(self.players) if self._used >> seat & 1)

    def power_of(self, seat: int) -> Power | None:
        """The Princess power of ``seat``, or ``None``."""
        return self.powers[seat] if 0 <= seat < self.players else None

    @property
    def step_due(self) -> StepKind | None:
        """The Round-card step the table does before the next card (set-aside, reveal, gift or
        musical chairs), or ``None``. Only the gift piles are entered here; the others are a
        reminder."""
        card = self.card_rule
        if self.current is not None or self.is_over():
            return None
        number = len(self._tricks)
        if number == 0 and card.aside_cards:
            return StepKind.SET_ASIDE
        if number == 0 and card.reveals:
            return StepKind.REVEAL
        if number and card.chairs_after_trick:
            return StepKind.CHAIRS
        redone = number and self._tricks[-1].redone
        if card.gift_before_trick and not self._coming_gift and not redone:
            return StepKind.GIFT
        return None

    @property
    def gifts_missing(self) -> bool:
        """Whether a trick was played without its Wedding Gift pile (o / M)."""
        if not self.card_rule.gift_before_trick:
            return False
        return any(not trick.gift and not (i and self._tricks[i - 1].redone)
                   for i, trick in enumerate(self.tricks))

    def known_hands(self, number: int) -> tuple[frozenset[RebelCard], ...]:
        """The cards each seat is proven to have held at the start of trick ``number`` (0-based),
        from the cards it played from then on until unseen cards may have reached it."""
        return tuple(cards_of(mask) for mask in self._know[number].known)

    def findings(self) -> list[Problem]:
        """Every rule proven broken so far, by trick (``trick``), with the trick whose cards
        proved it (``params["proven_in"]``); later tricks add findings about earlier ones."""
        found = sorted(self._found.values(), key=lambda item: (item[2].trick, item[0], item[1]))
        return [problem for _, _, problem in found]

    def tally(self) -> tuple[list[int], list[int]]:
        """Cards taken (masks) and tricks won per seat: Mulan's swap counts her new card, a haggle
        swaps a card of the trick for one from the winner's hand, and a trick Alice deals back is
        neither taken nor won."""
        taken = [0] * self.players
        won = [0] * self.players
        for trick in self.tricks:
            if trick.redone:
                continue
            assert trick.winner is not None
            taken[trick.winner] |= mask_of(trick.final)
            won[trick.winner] += 1
            for event in trick.after:
                if isinstance(event, Haggle):
                    taken[event.seat] = taken[event.seat] & ~(1 << card_id(event.take)) | (
                        1 << card_id(event.give))
        return taken, won

    @property
    def gifts_won(self) -> tuple[frozenset[RebelCard], ...]:
        """The Wedding Gift piles each seat won: a pile goes to the winner of the trick it was
        laid for, or of the replay when Alice dealt that trick back."""
        gifts = [0] * self.players
        pile = 0
        for trick in self.tricks:
            pile |= mask_of(trick.gift)
            if not trick.redone:
                assert trick.winner is not None
                gifts[trick.winner] |= pile
                pile = 0
        return tuple(cards_of(mask) for mask in gifts)

    def outcome(self) -> RoundOutcome | None:
        """Cards taken and tricks won per seat once every trick is in; ``None`` before. Kept cards
        (n) and gift piles (o / M) are not seen at the table and are left empty."""
        if not self.is_over():
            return None
        taken, won = self.tally()
        done = self.tricks
        empty: tuple[frozenset[RebelCard], ...] = (frozenset(),) * self.players
        return RoundOutcome(self.edition, self.round_card, self.players,
                            tuple(cards_of(t) for t in taken), tuple(won), empty,
                            done[0].leader if done else self.first_leader,
                            done[-1].winner if done else None, empty)

    def _problem(self, code: ViolationCode, seat: int | None = None, card: RebelCard | None = None,
                 rule: str = BASIC) -> Problem:
        return violation(code, seat, card, rule, self.edition, trick=self._number())

    def _number(self) -> int:
        """The number (0-based) of the trick in progress or the next one."""
        return len(self._tricks) - (0 if self.current is None else 1)

    def _power(self, use: PowerUse) -> Power:
        """The power of a use entered (its seat's Princess)."""
        power = self.powers[use.seat]
        assert power is not None
        return power

    def _effective(self, used: Iterable[PowerUse], leader: int,
                   blocked: Sequence[PowerUse] = ()) -> list[PowerUse]:
        """The powers ``used`` for a trick led by ``leader`` that change how it is played or
        won, less a use the rules refuse: one another power blocked, the classic Ice Princess
        on another seat than the leader."""
        uses = []
        for use in used:
            power = self.powers[use.seat]
            if power is None or not power.changes_trick or use in blocked:
                continue
            if power.target_leader and self.edition in power.target_leader and \
                    use.target != leader:
                continue
            uses.append(use)
        return uses

    # -- commands ------------------------------------------------------------------------------
    # Entering a card, a power use or a step, and undoing the last one.

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
        seeded = self._know[current.index].known[seat] & bit
        self._prove((Evidence(Seen.PLAYED, seat, bit),), undo)
        if seeded:  # a card known in the hand since the trick began: judge the play at once
            for position, problem in self._judge(current.index, seat):
                self._note(problem, position, current.index, undo)
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

    def _open_trick(self, undo: list[Undo]) -> TableTrick:
        """Start the next trick with its first card: the powers and gift announced for it, and
        the seats unseen cards may have reached since the trick before."""
        number = len(self._tricks)
        unseen = self._unseen_since()
        lost = self._lost_unseen()
        trick = TableTrick(number, self._leader, tuple(self._coming), self._princes,
                           self._coming_gift, blocked=tuple(self._coming_blocked))
        trick.effective = tuple(self._effective(trick.uses, trick.leader, trick.blocked))
        coming, gift, blocked = self._coming, self._coming_gift, self._coming_blocked
        self._coming, self._coming_gift, self._coming_blocked = [], (), []
        self._tricks.append(trick)
        know = Knowledge(self.players)
        self._know.append(know)
        if number:
            self._return_aside(undo)
            self._close_seats(unseen, number, undo)
        self._forget_in(lost, undo)  # unseen steps may have taken the cards known in them
        # What each hand is known to hold now, it held at the start of this trick.
        for seat, cards in enumerate(self._in):
            know.known[seat] |= cards

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

    def _unuse(self, seat: int) -> None:
        self._used &= ~(1 << seat)

    def _before_power(self, power: Power, use: PowerUse, undo: list[Undo]) -> None:
        """A power used before or during the coming trick."""
        found = self._blocker(power, use)
        if found is None:  # what its cards show, before it joins the coming trick's powers
            # (cards it may take unseen go first: what it is seen to bring stays known)
            self._forget_in(power.lost_seats(use, self.players), undo)
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
            # The classic Ice Princess draws the card from the leader's hand (French p. 14):
            # used on another seat, her seat broke that rule (the target broke nothing).
            self._note(self._problem(V.NOT_THE_LEADER, use.seat, rule=use.power), -1,
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

    # -- refusals at once ----------------------------------------------------------------------
    # Why a card, a power use, a haggle or a gift pile cannot be entered now, and the questions
    # the entry screens ask (which powers may act after a trick, the haggle, Snow White's zero, a
    # power another one blocks). Never raising; nothing is stored.

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
        if shape and power.when() is Timing.BEFORE:  # its cards are in hands (not played)
            for card in (*use.cards, *use.more):
                bit = 1 << card_id(card)
                if not bit & self._deck:
                    return [self._problem(V.CARD_NOT_IN_DECK, use.seat, card)]
                if bit & self._out:
                    return [self._problem(V.CARD_ALREADY_PLAYED, use.seat, card)]
        blocker = self._blocker(power, use)
        if blocker is not None:
            return [power.blocked(use, blocker, self._leader, self._number())]
        code = power.entry_refusal(use, self._leader, self._princes) if shape else None
        if code is not None:  # her own text forbids it, as far as the table already knows
            return [self._problem(code, use.seat, rule=use.power)]
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
            if power.deals_trick_back and power.never_frog and any(
                    card_id(card) == FROG_ID for card in last.final):
                continue
            seats.append(seat)
        return tuple(seats)

    def haggle_option(self) -> tuple[int, tuple[RebelCard, ...]] | None:
        """``(winner, the cards of the trick they may take)`` while the winner of the trick just
        finished may haggle (Haggle with the Hag, p / T), else ``None``."""
        last = self._tricks[-1] if self._tricks and self.current is None else None
        if not self.card_rule.haggle_after_trick or last is None or not last.complete or \
                last.redone or last.note("haggle") is not None or self._coming or \
                self._coming_gift or self.is_over():  # (none after the last trick)
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

    def check_chairs(self, step: Chairs) -> list[Problem]:
        """Why the Musical Chairs passes ``step`` (the card each seat passed to its right, k / E)
        cannot be entered now: not under this Round card, not right after a trick (or after the
        last: no pass then), already entered, after a power used for the coming trick (those
        act once the cards are passed), the wrong number of cards, a card in no hand or named
        twice. Never raises."""
        rule = self.card_rule.slug
        last = self._tricks[-1] if self._tricks else None
        if not self.card_rule.chairs_after_trick or last is None or self.current is not None or \
                self.is_over() or last.note("chairs") is not None or self._coming or \
                self._coming_gift:
            return [self._problem(V.STEP_NOT_DUE, rule=rule)]
        if len(step.cards) != self.players:
            return [self._problem(V.WRONG_CARD_COUNT, rule=rule)]
        problems = []
        seen: set[RebelCard] = set()
        for seat, card in enumerate(step.cards):
            bit = 1 << card_id(card)
            if not bit & self._deck:
                problems.append(self._problem(V.CARD_NOT_IN_DECK, seat, card))
            elif card in seen:
                problems.append(self._problem(V.DUPLICATE_CARD, seat, card))
            elif bit & self._out:
                problems.append(self._problem(V.CARD_ALREADY_PLAYED, seat, card))
            seen.add(card)
        return problems

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

    # -- findings ------------------------------------------------------------------------------
    # What each hand is known to have held, and the rules later plays prove broken (see the
    # module docstring).

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

    def _lost_unseen(self) -> int:
        """The seats (a mask) that may have given cards out of sight of the table since the last
        trick ended: everyone after Musical Chairs or a Wedding Gift pile not entered (the
        powers that take cards unseen, Sleeping Beauty and Scheherazade without their cards,
        forget at their entry: :meth:`_forget_in`). Cards only arriving unseen (the set-aside
        cards, Alice's deal not entered) take none away."""
        if not self._tricks:
            return 0
        seats = 0
        everyone = (1 << self.players) - 1
        if self.card_rule.chairs_after_trick and self._tricks[-1].note("chairs") is None:
            seats = everyone
        if self.card_rule.gift_before_trick and not self._coming_gift:
            seats = everyone  # each seat laid a card on a Wedding Gift pile not entered
        return seats  # (the powers' own losses are applied when they are entered: _forget_in)

    def _forget_in(self, seats: int, undo: list[Undo]) -> None:
        """Unseen steps may have taken cards from ``seats``: what was known in them is no more."""
        if seats and any(cards for seat, cards in enumerate(self._in) if seats >> seat & 1):
            was = list(self._in)
            self._in = [cards if not seats >> seat & 1 else 0 for seat, cards in enumerate(was)]
            undo.append(lambda: setattr(self, "_in", was))

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
            self._known_in(item, undo)
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

    def _known_in(self, item: Evidence, undo: list[Undo]) -> None:
        """The other half of the evidence: a card seen leaving a hand is in none now; a card
        seen arriving in one is known to be there until it is seen leaving or an unseen step may
        have taken it (:meth:`_open_trick` seeds each trick with it, so an off-suit play while
        it is of the suit led is a revoke at that trick, judged at once)."""
        was = list(self._in)
        if item.held:
            self._in = [cards & ~item.cards for cards in was]
        else:
            self._in = list(was)
            self._in[item.seat] |= item.cards & ~self._out
        if self._in != was:
            undo.append(lambda: setattr(self, "_in", was))

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
