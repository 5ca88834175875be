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

:class:`RoundState` is put together from one part per job: its fields and cheap questions
(:mod:`.round_base`), which cards may be played (:mod:`.legality`), the trick commands
(:mod:`.play`), the steps and powers (:mod:`.step_rules`) and its notation (:mod:`.notation`);
this module builds a state and ends a round. The values it produces, :class:`~.values.Trick` and
:class:`~.values.RoundOutcome`, are in :mod:`.values`.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from typing import Any

from companion.scoring.rebel_princess.cards import Edition, RebelCard
from companion.scoring.rebel_princess.errors import ScoringError
from companion.scoring.rebel_princess.round_cards import parse_edition

from . import round_cards as _round_cards  # noqa: F401  (registers the Round card modifiers)
from .cards import (
    card_at,
    card_id,
    cards_of,
    check_disjoint,
    deck_mask,
    ids_of,
    mask_of,
    parse_cards,
)
from .errors import InvalidEntryError
from .legality import RoundLegality
from .modifiers import Modifier, overridden, round_card_class
from .notation import RoundNotation, parse_extras, parse_seats
from .play import RoundPlay
from .powers import Power, power_class, power_slugs
from .step_rules import RoundSteps
from .steps import PowerUse, Step, StepKind
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


class RoundState(RoundLegality, RoundPlay, RoundSteps, RoundNotation):
    """One round, all hands known. See the module docstring for the rules applied."""

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

    # -- construction ---------------------------------------------------------------------------

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
