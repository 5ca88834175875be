"""The fields of a round entered at the table and the questions answered from them: the
tricks, the leader and whose turn it is, the cards out of every hand, the findings, what each
seat is known to have held, the tally and the outcome (see :mod:`.table` for the rules)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from companion.scoring.problems import Problem
from companion.scoring.rebel_princess.cards import Edition, RebelCard, hand_size

from .cards import card_id, cards_of, deck_mask, mask_of
from .errors import BASIC, InvalidEntryError, ViolationCode, violation
from .evidence import Kept
from .modifiers import HALF, overridden
from .powers import Power
from .state import RoundState, edition_of
from .steps import Haggle, PowerUse, Step, StepKind
from .table_trick import Knowledge, TableTrick, Undo
from .values import RoundOutcome

__all__ = ["TableBase"]


class TableBase:
    """The state of a :class:`~.table.TableRound` and its queries (never raising)."""

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
