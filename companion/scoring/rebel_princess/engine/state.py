"""RoundState: one round of Rebel Princess with every hand known (full information).

Basic trick rules (Deluxe "Playing a Trick" p. 8 and "Warning!"; French "Jouer un pli",
"Attention !"; RULINGS.md "Trick rules the engine must apply"):

- The leader plays any card; the others, clockwise, must follow the led suit if they can. A player
  who cannot follow ("void") may play any card.
- The highest card of the led suit wins; the winner takes the cards and leads the next trick.
- Princes may not be led until they have *snuck in*: a void player played a Prince on a trick of
  another suit (the Frog, ``A8``, is a Pet and does not count). A leader holding only Princes may
  lead one anyway; that alone does not sneak them in.
- The round ends when the hands are empty (or hold only the kept cards, Round card n).

Round-card steps outside the tricks (passes, set-aside cards, reveals, gift piles, musical chairs,
haggling; see :mod:`.steps`) are values too: :meth:`RoundState.check_step`,
:meth:`RoundState.play_step` and :meth:`RoundState.push_step` mirror the trick commands,
:attr:`RoundState.step_due` names a step the rules require before the next card, and
:meth:`RoundState.pop` undoes the last trick or step.

Round cards and powers change these rules through :class:`~.modifiers.Modifier`
hooks, consulted in the documented order (basic rules, Round card, powers).

The state answers cheap questions (:meth:`RoundState.legal_plays`, :meth:`RoundState.is_legal_play`,
:meth:`RoundState.check_trick`, which never raises) and takes explicit commands
(:meth:`RoundState.play_trick` checks then pushes, :meth:`RoundState.push` trusts its input,
:meth:`RoundState.pop` undoes). The card-level commands :meth:`RoundState.play`,
:meth:`RoundState.push_card` and :meth:`RoundState.pop_card` do the same one card at a time.
Internally hands are int bitmasks (see :mod:`companion.scoring.rebel_princess.engine.cards`).

:class:`RoundState` is one class in one module (as python-chess keeps its ``Board``), in parts:
its fields and cheap questions, building a state and ending a round, which cards may be played
(legality), the trick commands, the steps and powers, and its notation. The values it produces,
:class:`~.values.Trick` and :class:`~.values.RoundOutcome`, are in :mod:`.values`.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from functools import partial
from typing import Any

from companion.scoring.problems import Problem
from companion.scoring.rebel_princess.cards import Edition, RebelCard, Suit
from companion.scoring.rebel_princess.errors import ScoringError
from companion.scoring.rebel_princess.round_cards import parse_edition

from . import round_cards as _round_cards  # noqa: F401  (registers the Round card modifiers)
from .cards import (
    CARD_IDS,
    PRINCE,
    PRINCE_MASK,
    SUIT_INDEX,
    SUIT_MASKS,
    SUIT_OF,
    card_at,
    card_id,
    cards_of,
    check_disjoint,
    deck_mask,
    format_cards,
    format_mask,
    ids_of,
    mask_of,
    parse_cards,
)
from .errors import (
    BASIC,
    EngineError,
    IllegalTrickError,
    InvalidEntryError,
    ViolationCode,
    violation,
)
from .modifiers import (
    HALF,
    Modifier,
    Timing,
    TrickTime,
    barred,
    overridden,
    round_card_class,
    timing_refusal,
)
from .powers import Power, power_class, power_slugs
from .steps import (
    Chairs,
    Gift,
    Haggle,
    Pass,
    PowerUse,
    Reveal,
    SetAside,
    Step,
    StepKind,
    parse_step,
)
from .values import RoundOutcome, Trick

__all__ = ["RoundState"]


def edition_of(value: object) -> Edition:
    """The scoring core's :func:`~companion.scoring.rebel_princess.round_cards.parse_edition`,
    refusing with the engine's :class:`InvalidEntryError`."""
    if isinstance(value, Edition):  # (most calls: no need to parse it again)
        return value
    try:
        return parse_edition(value)
    except ScoringError:
        raise InvalidEntryError(f"unknown edition {value!r}") from None


_NOT_PRINCES = ~PRINCE_MASK


class RoundState:
    """One round, all hands known. See the module docstring for the rules applied."""

    # -- fields and cheap questions ------------------------------------------------------------
    # What the state holds (one line each) and the cheap questions that only read it. Hands and
    # card sets are int bitmasks (see :mod:`.cards`).

    edition: Edition
    players: int
    round_card: str  # the Round card's canonical letter
    modifiers: tuple[Modifier, ...]  # the Round card's modifiers (stateless, shared)
    hands: list[int]  # the cards each seat holds
    taken: list[int]  # the cards each seat won in tricks
    tricks_won: list[int]  # tricks won per seat
    princesses: tuple[str | None, ...]  # each seat's Princess (a power slug) or None
    powers: tuple[Power | None, ...]  # each seat's power modifier (stateless, shared) or None
    leader: int  # the seat that leads (or led) the trick in progress
    first_leader: int  # the seat that led the round's first trick
    princes_in: bool  # whether the Princes have snuck in
    aside: list[int]  # set-aside cards per seat (b / G, m / N, q / Q)
    gifts: list[int]  # Wedding Gift piles won per seat (o / M)
    revealed: list[int]  # cards shown under Crystal Clear (h / I)
    _dealt: list[int]  # the hands before any step or trick
    trick_ids: list[int]  # card ids of the trick in progress, in play order
    _tmask: int  # the same as a mask
    follow_id: int  # suit index to follow in the trick in progress (-1: none yet)
    #: Where Princes snuck in, as (tricks completed, index in the trick), to undo it on pop.
    _sneak_at: tuple[int, int] | None
    #: (leader, ids, winner, powers active in it) per completed trick
    history: list[tuple[int, list[int], int, tuple[Any, ...]]]
    #: Steps as (tricks completed, cards of the trick in progress, step or "return", undo data,
    #: step due before it).
    _log: list[tuple[int, int, Any, Any, StepKind | None]]
    used: list[bool]  # powers used this round, per seat
    active_powers: list[tuple[Power, PowerUse]]  # powers in effect for this trick
    reversed_order: bool  # Cinderella: the order of the numbers is reversed this trick
    zero_id: int  # Snow White: the card id played as a zero this trick (-1: none)
    _gift: int  # the gift pile of the coming trick
    _haggle_seed: tuple[int, int] | None  # a haggle open when built from notation
    _pending: StepKind | None  # the step due (see step_due)
    cards_left: int  # cards still to be played
    # The round shape and the modifiers' hooks, in consultation order (set by _configure).
    _kept: Any
    _per_seat: Any
    _legal_hooks: Any
    _legal_mods: Any
    _follow_hooks: Any
    _winner_hooks: Any
    _aside_cards: Any
    _aside_to: Any
    _reveals: Any
    _gift_on: Any
    _chairs_on: Any
    _haggle_on: Any
    _trick_size: int
    _chain: list[Any]  # legality layers: the Round card's, then each active power's
    _stepped: bool

    def _violation(self, code: ViolationCode, seat: int | None = None,
                   card: RebelCard | None = None, rule: str = BASIC) -> Problem:
        return violation(code, seat, card, rule, self.edition)

    @property
    def _card_slug(self) -> str:
        return self.modifiers[0].slug

    @property
    def turn(self) -> int:
        """The seat to play next."""
        return (self.leader + len(self.trick_ids)) % self.players

    @property
    def trick_size(self) -> int:
        """Cards in a complete trick (players x plays per seat)."""
        return int(self._trick_size)

    @property
    def current_trick(self) -> tuple[RebelCard, ...]:
        """The cards of the trick in progress, in play order."""
        return tuple(card_at(c) for c in self.trick_ids)

    @property
    def suit_to_follow(self) -> Suit | None:
        """The suit the next player must follow, or ``None`` before the lead."""
        return SUIT_OF[self.follow_id] if self.trick_ids else None

    @property
    def step_due(self) -> StepKind | None:
        """The step the rules require before the next card (a set-aside, reveal, gift or musical
        chairs), or ``None``. A pass and a haggle are never required."""
        return self._pending

    @property
    def princes_at_lead(self) -> bool:
        """Whether the Princes were in when the trick in progress (or the next) was led: a
        Prince a void player played in this trick does not count."""
        return self.princes_in and not (self._sneak_at is not None and
                                        self._sneak_at[0] == len(self.history))

    @property
    def last_winner(self) -> int | None:
        """The winner of the last completed trick (``None`` before the first)."""
        return self.history[-1][2] if self.history else None

    @property
    def tricks(self) -> list[Trick]:
        """The completed tricks, oldest first."""
        return [Trick(leader, tuple(card_at(c) for c in ids), winner)
                for leader, ids, winner, _ in self.history]

    @property
    def dealt_hands(self) -> tuple[frozenset[RebelCard], ...]:
        """The hands as dealt (or as given when the state was built), before any step."""
        return tuple(cards_of(mask) for mask in self._dealt)

    def hand(self, seat: int) -> frozenset[RebelCard]:
        """The cards ``seat`` holds."""
        return cards_of(self.hands[seat])

    def taken_cards(self, seat: int) -> frozenset[RebelCard]:
        """The cards ``seat`` has won in tricks so far."""
        return cards_of(self.taken[seat])

    def is_over(self) -> bool:
        """Whether every card to be played has been played."""
        return self.cards_left == 0

    # -- building a state, ending a round ------------------------------------------------------
    # Building a state (from hands, from notation), copying it, and the end of the round.

    def __init__(self, hands: Sequence[Iterable[RebelCard] | int], *,
                 edition: Edition | str = Edition.DELUXE, round_card: str | None = None,
                 leader: int = 0, princes_in: bool = False,
                 taken: Sequence[Iterable[RebelCard] | int] | None = None,
                 tricks_won: Sequence[int] | None = None,
                 princesses: Sequence[str | None] | None = None) -> None:
        """Start a round from the hands (cards or masks, seat order) and each seat's Princess
        (a power slug, or ``None``).

        With no trick won yet, the Round card's opening steps are due (see :attr:`step_due`);
        otherwise only the per-trick ones. Raises :class:`InvalidEntryError` for a bad edition,
        Round card, player count or leader, a card outside this player count's deck, or a card in
        two places.
        """
        self.edition = edition_of(edition)
        players = len(hands)
        if not 3 <= players <= 6:
            raise InvalidEntryError(f"{players} hands given; Rebel Princess seats 3 to 6 players")
        if not (isinstance(leader, int) and 0 <= leader < players):
            raise InvalidEntryError(f"leader {leader!r} is not a seat of {players}")
        self.players = players
        self.round_card, self.modifiers = _round_card(self.edition, round_card)
        self.hands = [_as_mask(h) for h in hands]
        self.taken = [_as_mask(t) for t in taken] if taken is not None else [0] * players
        self.tricks_won = list(tricks_won) if tricks_won is not None else [0] * players
        if len(self.taken) != players or len(self.tricks_won) != players:
            raise InvalidEntryError("taken cards and tricks won need one entry per seat")
        check_disjoint(players, self.hands + self.taken)
        self._set_princesses(princesses)
        self._start(leader, princes_in, opening=not any(self.tricks_won))

    def _set_princesses(self, princesses: Sequence[str | None] | None) -> None:
        players = self.players
        if not princesses:
            self.princesses = (None,) * players
            self.powers = (None,) * players
            return
        names = tuple(princesses) if princesses else (None,) * players
        allowed = power_slugs(self.edition)
        if len(names) != players or any(n is not None and n not in allowed for n in names):
            raise InvalidEntryError(f"Princesses {names!r} are not {players} {self.edition.value} "
                                    f"Princesses (or None)")
        if len({n for n in names if n}) != sum(1 for n in names if n):
            raise InvalidEntryError(f"a Princess appears twice in {names!r}")
        self.princesses = names
        self.powers = tuple(
            _power(self.edition, name) if name else None for name in names)

    def _start(self, leader: int, princes_in: bool, opening: bool = True) -> None:
        """Set the play fields of a fresh state (hands, taken and modifiers already set)."""
        players = self.players
        self.leader = leader
        self.first_leader = leader
        self.princes_in = princes_in
        self.aside = [0] * players  # set-aside cards per seat (b / G, m / N, q / Q)
        self.gifts = [0] * players  # Wedding Gift piles won per seat (o / M)
        self.revealed = [0] * players  # cards shown under Crystal Clear (h / I)
        self._dealt = list(self.hands)  # the hands before any step or trick
        self.trick_ids = []  # card ids of the trick in progress, in play order
        self._tmask = 0  # the same as a mask
        self.follow_id = -1  # suit index to follow in the trick in progress
        # Where Princes snuck in, as (tricks completed, index in the trick), to undo it on pop.
        self._sneak_at: tuple[int, int] | None = None
        # (leader, ids, winner, powers active in it) per trick
        self.history = []
        # Steps as (tricks completed, cards of the trick in progress, step or "return", undo
        # data, step due before it).
        self._log = []
        self.used = [False] * players  # powers used this round, per seat
        self.active_powers = []  # powers in effect for this trick
        self.reversed_order = False  # Cinderella: the order of the numbers is reversed this trick
        self.zero_id = -1  # Snow White: the card id played as a zero this trick
        self._gift = 0  # the gift pile of the coming trick
        self._haggle_seed: tuple[int, int] | None = None  # a haggle open when built from notation
        self._configure()
        if opening:
            self._pending = self._due_after(None)
        else:
            self._pending = StepKind.GIFT if self._gift_on else None
        self._recount()

    def _configure(self) -> None:
        (self._kept, self._per_seat, self._legal_hooks, self._legal_mods, self._follow_hooks,
         self._winner_hooks, self._aside_cards, self._aside_to, self._reveals, self._gift_on,
         self._chairs_on, self._haggle_on) = _hooks(self.modifiers)
        self._trick_size = self.players * self._per_seat
        self._chain = list(self._legal_hooks)
        self._stepped = bool(self._aside_cards or self._gift_on or self._chairs_on)

    def _recount(self) -> None:
        """Count the cards still to be played (gift cards and kept cards are never played)."""
        if self._gift_on:
            held = sum(h.bit_count() for h in self.hands)
            self.cards_left = (held + (self.players if self._gift else 0)) // 2
        elif not self._kept and not any(self.aside):  # (every deal: each held card is played)
            self.cards_left = sum(map(int.bit_count, self.hands))
        else:
            self.cards_left = sum(max(0, h.bit_count() + a.bit_count() - self._kept)
                             for h, a in zip(self.hands, self.aside, strict=True))

    def _due_after(self, done: StepKind | None) -> StepKind | None:
        """The opening step due after ``done`` (None: the round start): set-aside, reveal, gift."""
        order = []
        if self._aside_cards:
            order.append(StepKind.SET_ASIDE)
        if self._reveals:
            order.append(StepKind.REVEAL)
        if self._gift_on:
            order.append(StepKind.GIFT)
        later = order[order.index(done) + 1:] if done in order else order
        return later[0] if later else None

    @classmethod
    def deal(cls, players: int, *, edition: Edition | str = Edition.DELUXE,
             round_card: str | None = None, leader: int = 0,
             rng: random.Random | None = None, seed: int | None = None,
             princesses: Sequence[str | None] | None = None) -> RoundState:
        """Shuffle this player count's deck with ``rng`` (or ``random.Random(seed)``) and deal it.

        Deluxe "Setup" 3: all cards are dealt equally. Raises :class:`InvalidEntryError` for a bad
        player count.
        """
        if not (isinstance(players, int) and 3 <= players <= 6):
            raise InvalidEntryError(f"{players!r} players; Rebel Princess seats 3 to 6")
        if not (isinstance(leader, int) and 0 <= leader < players):
            raise InvalidEntryError(f"leader {leader!r} is not a seat of {players}")
        rand = (rng if rng is not None else random.Random(seed)).random
        ids = list(_DECK_IDS[players])
        for i in range(len(ids) - 1, 0, -1):  # Fisher-Yates shuffle
            j = int(rand() * (i + 1))
            ids[i], ids[j] = ids[j], ids[i]
        size = len(ids) // players
        bits = _BITS.__getitem__
        # The deal is valid by construction: skip __init__'s checks.
        state = cls.__new__(cls)
        cls._init_dealt(state, edition_of(edition), round_card, princesses, leader,
                        [sum(map(bits, ids[s * size:(s + 1) * size])) for s in range(players)])
        return state

    def _init_dealt(self, edition: Edition, round_card: str | None,
                    princesses: Sequence[str | None] | None, leader: int,
                    hands: list[int]) -> None:
        """``__init__`` without its checks, for a deal valid by construction."""
        players = len(hands)
        self.edition = edition
        self.players = players
        self.round_card, self.modifiers = _round_card(edition, round_card)
        self.hands = hands
        self.taken = [0] * players
        self.tricks_won = [0] * players
        self._set_princesses(princesses)
        self._start(leader, False)

    def copy(self) -> RoundState:
        """An independent copy (modifiers are stateless and shared)."""
        other = object.__new__(RoundState)
        other.__dict__.update(self.__dict__)
        for name in ("hands", "taken", "tricks_won", "aside", "gifts", "revealed", "trick_ids",
                     "history", "_log", "used", "active_powers"):
            setattr(other, name, list(getattr(self, name)))
        other._configure()  # rebind the hooks (they are bound methods of shared modifiers)
        other._reactivate()
        return other

    def start_trick(self, leader: int, princes_in: bool, hands: list[int],
                    uses: Iterable[PowerUse] = ()) -> None:
        """Put this state at the start of a trick with the given (partial) hands and the powers
        used for it, to judge that trick (table entry, :mod:`.table`): no step is due and the
        round never ends here. ``hands`` is taken over, not copied. Nothing is checked."""
        players = self.players
        self.hands = hands
        self.taken = [0] * players
        self.tricks_won = [0] * players
        self.leader = self.first_leader = leader
        self.princes_in = princes_in
        self.trick_ids = []
        self._tmask = 0
        self.follow_id = -1
        self._sneak_at = None
        self.history = []
        self._log = []
        self.used = [False] * players
        self.active_powers = []
        self._gift = 0
        self._pending = None
        self.cards_left = _UNBOUNDED
        self._reactivate()
        for use in uses:
            self.push_step(use)
        self.leader = leader

    @classmethod
    def from_notation(cls, text: str) -> RoundState:
        """Build a state from :meth:`notation`; raises :class:`InvalidEntryError` if malformed."""
        fields = text.split()
        if len(fields) not in (8, 9):
            raise InvalidEntryError(f"state notation needs 8 or 9 fields, got {len(fields)}: "
                                    f"{text!r}")
        edition, letter, leader_text, princes, hands_text, taken_text, won_text, trick = fields[:8]
        if princes not in ("+", "-") or not leader_text.isdigit():
            raise InvalidEntryError(f"bad leader or Princes field in {text!r}")
        extras = parse_extras(fields[8] if len(fields) == 9 else "", text)
        hands = parse_seats(hands_text)
        try:
            won = [int(part) for part in won_text.split("/")]
        except ValueError:
            raise InvalidEntryError(f"bad tricks-won field in {text!r}") from None
        plays = [] if trick == "-" else [card_id(c) for c in parse_cards(trick)]
        players = len(hands)
        leader = int(leader_text)
        # Give the cards of the trick in progress back to their seats, then push them again.
        for i, cid in enumerate(plays):
            if 0 <= leader < players:
                hands[(leader + i) % players] |= 1 << cid
        state = None
        names = extras.get("princesses")
        princesses = [None if n == "-" else n for n in names.split(",")] if names else None
        for flag in (False, True):
            state = cls(hands, edition=edition, round_card=letter, leader=leader,
                        princes_in=flag, taken=parse_seats(taken_text), tricks_won=won,
                        princesses=princesses)
            state._set_extras(extras, text)
            if len(plays) >= state._trick_size:
                raise InvalidEntryError(f"the trick in progress is complete in {text!r}")
            if plays and state._pending is not None:
                raise InvalidEntryError(f"a step is due but a trick is in progress: {text!r}")
            for cid in plays:
                state.push_id(cid)
            # Princes snuck in during this trick, or before it: try without, then with.
            if state.princes_in == (princes == "+"):
                return state
        raise InvalidEntryError(f"Princes field contradicts the trick in {text!r}")

    def __repr__(self) -> str:
        return f"RoundState.from_notation({self.notation()!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RoundState) and other.notation() == self.notation()

    __hash__ = None  # type: ignore[assignment]

    def events(self) -> list[Trick | Step]:
        """The tricks and steps so far, in the order they happened. A power used during a trick
        comes before it; a trick Mulan changed afterwards is shown as it was played."""
        steps = [(at, step) for at, _, step, _, _ in self._log if step != "return"]
        tricks = self.tricks
        for at, _, step, data, _ in self._log:
            if isinstance(step, PowerUse) and self._redecides(step):
                leader, ids, winner = data
                tricks[at - 1] = Trick(leader, tuple(card_at(c) for c in ids), winner)
        events: list[Trick | Step] = []
        index = 0
        for done in range(len(tricks) + 1):
            while index < len(steps) and steps[index][0] == done:
                events.append(steps[index][1])
                index += 1
            if done < len(tricks):
                events.append(tricks[done])
        return events

    def _reactivate(self) -> None:
        """Set the trick-wide power flags from the powers active in this trick, and the chain of
        legality layers: the Round card's, then each active power's (powers rank above it)."""
        self.reversed_order = False
        self.zero_id = -1
        chain = list(self._legal_hooks)
        for power, use in self.active_powers:
            power.activate(self, use)
            chain.append(lambda state, seat, legal, p=power, u=use:
                         p.restrict(state, seat, legal, u))
        self._chain = chain

    def outcome(self) -> RoundOutcome | None:
        """The :class:`RoundOutcome` once the round is over, otherwise ``None``."""
        if self.cards_left:
            return None
        kept = tuple(cards_of(h) if self._kept else frozenset() for h in self.hands)
        return RoundOutcome(
            self.edition, self.round_card, self.players,
            tuple(cards_of(t) for t in self.taken), tuple(self.tricks_won), kept,
            self.history[0][0] if self.history else self.first_leader,
            self.history[-1][2] if self.history else None,
            tuple(cards_of(g) for g in self.gifts))

    # -- legality ------------------------------------------------------------------------------
    # Which cards may be played now, and why not: the basic trick rules (follow suit if able; no
    # Prince led before they snuck in unless only Princes are held), then the Round card's layer,
    # then each active power's (see :mod:`.modifiers`). :meth:`check_play` and :meth:`check_trick`
    # never raise; a refused card names the last layer that removed it and kept it out.

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
        layers += [(power, partial(_restrict, self, seat, use))
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

    # -- play ----------------------------------------------------------------------------------
    # The trick commands: parse a trick, check and play it, push it on trust (stored history), undo
    # it, and the same one card at a time (:meth:`play`, :meth:`push_card`, :meth:`pop_card`). A
    # complete trick is resolved at once: the highest card of the suit to follow wins, as the Round
    # card and the powers in effect decide.

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

    # -- steps ---------------------------------------------------------------------------------
    # The steps outside the tricks: check, play, push and undo a pass, a set-aside, a reveal, a
    # gift, musical chairs, a haggle or a Princess power (see :mod:`.steps` for the step values),
    # and what the Round card does once a trick is won. A pass must come first and be even; set-
    # aside, reveal, gift and musical-chairs steps must be the step due; a haggle must follow the
    # trick its seat won; a power is checked for whose it is, once per round, its timing, conflicts
    # with the powers already in effect and Round card limits, then its own arguments
    # (:class:`~.powers.Power`).

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
        if isinstance(step, PowerUse) and self.cards_left == 0 and self._deals_back(step):
            return self._check_power(step)  # Alice after the last trick: it is played again
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

    def _deals_back(self, use: PowerUse) -> bool:
        """Whether ``use`` is by a seat whose power deals the trick just won back (Alice)."""
        power = self.powers[use.seat] if 0 <= use.seat < self.players else None
        return power is not None and power.slug == use.power and power.deals_trick_back

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
        return power.check(self, use)

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
            data = power.apply(self, step)
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
            power.undo(self, step, data)
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

    # -- notation ------------------------------------------------------------------------------
    # The one-line notation (our FEN): :meth:`notation` writes it; :meth:`from_notation` reads it
    # back with the helpers at the end of this module.

    def notation(self) -> str:
        """The state as one line, our FEN. Fields, separated by one space::

            edition round-card leader princes hands taken tricks-won trick [extras]

        ``princes`` is ``+`` once Princes have snuck in, else ``-``; ``hands`` and ``taken`` list
        each seat's cards run together (``P3Q10A8``), seats separated by ``/``, ``-`` for none;
        ``trick`` holds the cards of the trick in progress in play order, ``-`` if none.
        ``extras``, present only when needed, joins with ``;`` any of ``step=KIND`` (the step
        due), ``aside=SEATS`` (set-aside cards), ``pile=CARDS`` (the gift pile of the coming
        trick), ``gifts=SEATS`` (gift piles won), ``shown=SEATS`` (revealed cards still held) and
        ``haggle=SEAT:CARDS`` (the trick winner who may still haggle, and the cards they may take),
        ``princesses=SLUG,-,...`` (each seat's Princess), ``used=SEAT,...`` (powers used this
        round) and ``active=USE|...`` (powers in effect for this trick, each a record ``power``
        line without its first word, blanks written ``:``).
        """
        fields = [
            self.edition.value, self.round_card, str(self.leader), "+" if self.princes_in else "-",
            format_seats(self.hands), format_seats(self.taken),
            "/".join(str(w) for w in self.tricks_won),
            format_cards(card_at(c) for c in self.trick_ids),
        ]
        extras = []
        if self._pending is not None:
            extras.append(f"step={self._pending.value}")
        if any(self.aside):
            extras.append(f"aside={format_seats(self.aside)}")
        if self._gift:
            extras.append(f"pile={format_mask(self._gift)}")
        if any(self.gifts):
            extras.append(f"gifts={format_seats(self.gifts)}")
        shown = [r & h for r, h in zip(self.revealed, self.hands, strict=True)]
        if any(shown):
            extras.append(f"shown={format_seats(shown)}")
        option = self.haggle_option()
        if option is not None:
            extras.append(f"haggle={option[0]}:{format_mask(option[1])}")
        if any(self.princesses):
            extras.append("princesses=" + ",".join(p or "-" for p in self.princesses))
        if any(self.used):
            extras.append("used=" + ",".join(str(s) for s, u in enumerate(self.used) if u))
        if self.active_powers:
            extras.append("active=" + "|".join(str(use).replace(" ", ":")[len("power:"):]
                                               for _, use in self.active_powers))
        if extras:
            fields.append(";".join(extras))
        return " ".join(fields)

    def _set_extras(self, extras: dict[str, str], text: str) -> None:
        players = self.players
        try:
            self._pending = StepKind(extras["step"]) if "step" in extras else None
        except ValueError:
            raise InvalidEntryError(f"unknown step in {text!r}") from None
        for name in ("aside", "gifts", "shown"):
            if name in extras:
                masks = parse_seats(extras[name])
                if len(masks) != players:
                    raise InvalidEntryError(f"{name} needs {players} seats in {text!r}")
                setattr(self, "revealed" if name == "shown" else name, masks)
        self._gift = parse_seat_cards(extras.get("pile", "-"))
        if "haggle" in extras:
            seat, _, cards = extras["haggle"].partition(":")
            if not seat.isdigit() or int(seat) >= players:
                raise InvalidEntryError(f"bad haggle field in {text!r}")
            self._haggle_seed = (int(seat), parse_seat_cards(cards))
        check_disjoint(players, self.hands + self.taken + self.aside + self.gifts + [self._gift])
        if any(r & ~h for r, h in zip(self.revealed, self.hands, strict=True)):
            raise InvalidEntryError(f"shown cards must be in the hand in {text!r}")
        try:
            for seat in extras["used"].split(",") if "used" in extras else []:
                self.used[int(seat)] = True
            for token in extras["active"].split("|") if "active" in extras else []:
                use = parse_step("power " + token.replace(":", " "))
                power = self.powers[use.seat]  # type: ignore[union-attr]
                if not isinstance(use, PowerUse) or power is None or power.slug != use.power:
                    raise ValueError
                self.active_powers.append((power, use))
        except (ValueError, IndexError):
            raise InvalidEntryError(f"bad used or active field in {text!r}") from None
        self._reactivate()
        self._dealt = list(self.hands)
        self._recount()


#: Cards left to play in a probe (:meth:`RoundState.start_trick`): never reaches 0.
_UNBOUNDED = 10**6


_DECK_IDS = {players: tuple(ids_of(deck_mask(players))) for players in range(3, 7)}


_BITS = [1 << cid for cid in range(64)]


_ROUND_CARDS: dict[tuple[Edition, str | None], tuple[str, tuple[Modifier, ...]]] = {}


_HOOKS: dict[tuple[Modifier, ...], tuple[Any, ...]] = {}


def _round_card(edition: Edition, letter: str | None) -> tuple[str, tuple[Modifier, ...]]:
    """The canonical letter and the modifiers of a Round card (cached: modifiers are stateless)."""
    key = (edition, letter)
    if key not in _ROUND_CARDS:
        if letter is None:
            letter = "a" if edition is Edition.DELUXE else "A"
        card_cls = round_card_class(edition, letter)
        _ROUND_CARDS[key] = (card_cls.letters[edition], (card_cls(edition),))
    return _ROUND_CARDS[key]


_POWERS: dict[tuple[Edition, str], Power] = {}


def _power(edition: Edition, slug: str) -> Power:
    """The (stateless, shared) power modifier of a Princess in an edition."""
    if (edition, slug) not in _POWERS:
        _POWERS[(edition, slug)] = power_class(slug)(edition)
    return _POWERS[(edition, slug)]


def _hooks(mods: tuple[Modifier, ...]) -> tuple[Any, ...]:
    """Round shape, steps and the overridden hooks of some modifiers, in consultation order
    (cached)."""
    if mods not in _HOOKS:
        _HOOKS[mods] = (
            max(m.kept_cards for m in mods), max(m.plays_per_seat for m in mods),
            [m.legal for m in mods if overridden(m, "legal")],
            [m for m in mods if overridden(m, "legal")],
            [m.follow for m in mods if overridden(m, "follow")],
            [m.winner for m in mods if overridden(m, "winner")],
            next((m.aside_cards for m in mods if m.aside_cards), 0),
            next((m.aside_to for m in mods if m.aside_cards), 0),
            any(m.reveals for m in mods), any(m.gift_before_trick for m in mods),
            any(m.chairs_after_trick for m in mods), any(m.haggle_after_trick for m in mods))
    return _HOOKS[mods]


def _as_mask(cards: Iterable[RebelCard] | int) -> int:
    if isinstance(cards, int):
        return cards
    if isinstance(cards, str):
        return mask_of(parse_cards(cards))
    return mask_of(cards)


def _restrict(state: RoundState, seat: int, use: PowerUse, power: Power, mask: int) -> int:
    return power.restrict(state, seat, mask, use)


def _parse_seat(text: str, players: int) -> int:
    text = text.strip()
    if not text.isdigit() or int(text) >= players:
        raise InvalidEntryError(f"{text!r} is not a seat of {players}")
    return int(text)


def format_seats(masks: Sequence[int]) -> str:
    return "/".join(format_mask(mask) for mask in masks)


def parse_seats(text: str) -> list[int]:
    return [parse_seat_cards(part) for part in text.split("/")]


def parse_extras(text: str, line: str) -> dict[str, str]:
    extras: dict[str, str] = {}
    for item in text.split(";") if text else []:
        name, sep, value = item.partition("=")
        known = ("step", "aside", "pile", "gifts", "shown", "haggle", "princesses", "used",
                 "active")
        if not sep or name not in known or name in extras:
            raise InvalidEntryError(f"bad extra field {item!r} in {line!r}")
        extras[name] = value
    return extras


def parse_seat_cards(text: str) -> int:
    return 0 if text == "-" else mask_of(parse_cards(text))
