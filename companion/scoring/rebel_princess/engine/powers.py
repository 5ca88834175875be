"""Princess powers as modifiers, one small class each.

Deluxe has 12 Princesses, the classic edition 10 (no Rapunzel, no Thumbelina). A power is used once
per round (Deluxe "Using the Power of a Princess" p. 10; French "Utiliser son Pouvoir" p. 7) and is
recorded as a :class:`~.steps.PowerUse`. Powers rank above Round cards, which rank above the basic
rules (Deluxe p. 14), so a power's legality layer is applied last. Powers used for the same trick
apply in the order they were declared (RULINGS.md).

**Each power is described once, on its class**, and everything else reads the declaration: the
engine's checks, table entry (:mod:`.table`), the trick screen's forms and grid, and the JSON API's
OpenAPI description.

- :attr:`Power.timing` - when the power is used, per edition (:class:`~.modifiers.Timing`):
  before a trick (once any musical chairs are passed, k / E, and before or after the Wedding Gift
  pile, o / M; Sleeping Beauty only before it: Deluxe o, read alike for classic M), during a trick
  with its owner's card (its effect starts with that card, so a record writes it before the
  trick), or right after a trick.
- What a use needs: :attr:`Power.needs_target`, :attr:`Power.needs_suit`, :attr:`Power.card_slots`
  (what each card of ``cards`` is), :attr:`Power.more_slots`, and :attr:`Power.cards_seen`
  (``False``: the cards stay hidden at the table and may be left out).
- What limits it: :attr:`Power.max_rank`, :attr:`Power.target_leader`, :attr:`Power.target_other`,
  :attr:`Power.winner_only`, :attr:`Power.never_frog`, :attr:`Power.same_suit`,
  :attr:`Power.on_lead`, :attr:`Power.blocked_by`, the timing rules it states
  (:attr:`~.modifiers.Modifier.not_on`; a Round card states its own, Late to the Ball's on
  Sleeping Beauty and Scheherazade).
- How it changes a trick: :attr:`Power.changes_trick` (judged with the trick it is used for), and
  :meth:`Power.restrict` / :meth:`Power.activate`.

The twelve powers, one class each, are in :mod:`.princesses` (and
:data:`~.princesses.POWER_SLUGS`).

Conflicts (Deluxe p. 23 and p. 10, "a power that would undo another's may not be used during
this trick"; RULINGS.md applies them to the classic edition too, which lists none) are declared
on each class as :attr:`Power.blocked_by` (:class:`Block`: the earlier power, and whether it counts
only when it acted on the player who leads) and :attr:`Power.blocked_on_leader_only`;
:meth:`Power.blocker` is the one place they are applied (the full-information state, table entry
and so the trick screen and the JSON API all call it), and a blocked use takes no effect:

- the Little Mermaid: not once the Ice Princess (on the leader) or Rapunzel acted this trick;
- Rapunzel: not once the Ice Princess (on the leader) or the Little Mermaid acted;
- the Ice Princess on the leader: not once the Little Mermaid or Rapunzel asked for a suit (her
  card would undo theirs);
- Pocahontas: not once the Little Mermaid or Rapunzel acted;
- Scheherazade on the leader: not once the Ice Princess (whoever she acted on, as printed), the
  Little Mermaid or Rapunzel acted;
- Sleeping Beauty: not once any of those three acted (the Ice Princess on anyone).

Thumbelina may not use her power to leave the suit the Little Mermaid or Rapunzel asked for
(:meth:`Power.requested_suit`), nor to dodge the Ice Princess's card (:meth:`Power.forced_card`).
The Little Mermaid naming Princes before they snuck in has no effect (Deluxe: unless the leader
holds only Princes, and then the basic rules already make the lead a Prince; French: never).
*Engine decision:* Scheherazade cannot draw a card the Ice Princess froze this trick (it lies
in front of its owner).
Crystal Clear (h / I): the Ice Princess and Scheherazade cannot pick shown cards. Late to the Ball
(b / G) declares that Sleeping Beauty and Scheherazade cannot be used for the last trick.

*Engine decision:* a card played off the suit to follow through a power (Thumbelina, the Ice
Princess) counts as a void card for Round cards that look at void players (Poisoned Apple, Pass
the Bouquet).
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

if TYPE_CHECKING:
    import random

from companion.scoring.problems import Problem
from companion.scoring.rebel_princess.cards import Edition, RebelCard, Suit

from .cards import FROG_ID
from .errors import ViolationCode, violation
from .evidence import Evidence
from .modifiers import Modifier, RoundForModifiers, Timing
from .steps import PowerUse

__all__ = ["Block", "Power", "RoundForPowers", "power_class", "power_slugs", "zero_rank"]


class RoundForPowers(RoundForModifiers, Protocol):
    """What a power reads and changes of the round in play (:class:`~.state.RoundState` is one):
    declared here so that the powers need not import the state that calls them."""

    leader: int  # the seat that leads (or led) the trick in progress
    princes_in: bool  # whether the Princes have snuck in
    taken: list[int]  # the cards each seat won in tricks
    tricks_won: list[int]  # tricks won per seat
    revealed: list[int]  # cards shown under Crystal Clear (h / I)
    history: list[tuple[int, list[int], int, tuple[Any, ...]]]
    active_powers: list[tuple[Power, PowerUse]]  # powers in effect for this trick
    zero_id: int  # Snow White: the card id played as a zero this trick (-1: none)
    cards_left: int  # cards still to be played

    @property
    def princes_at_lead(self) -> bool: ...

    def hand(self, seat: int) -> frozenset[RebelCard]: ...

    def active_hand(self, seat: int) -> int: ...

    def hold_gift_pile(self, seat: int) -> int: ...

    def release_gift_pile(self, seat: int, pile: int) -> None: ...

    def replay_last_trick(self, old: int, new: int) -> None: ...

V = ViolationCode
D, C = Edition.DELUXE, Edition.CLASSIC
B, T, A = Timing.BEFORE, Timing.TURN, Timing.AFTER
BOTH_EDITIONS = frozenset(Edition)
DELUXE_ONLY = frozenset({D})
CLASSIC_ONLY = frozenset({C})
ABOVE_FIVE = sum(1 << (16 * s + r) for s in range(4) for r in range(6, 13))  # ranks above 5
FROG_BIT = 1 << FROG_ID
#: Card slots repeated for every card of the trick (Alice) or every seat (Sleeping Beauty).
PER_CARD, PER_SEAT = "*card", "*seat"


@dataclass(frozen=True)
class Block:
    """An earlier power that forbids this one for the rest of the trick: ``by`` (its slug), and
    whether it counts only when it acted on the player who leads (``on_leader``) or whoever it
    acted on (Deluxe "Princess Cards" p. 23; RULINGS.md: conflicts block the later power)."""

    by: str
    on_leader: bool = False


class Power(Modifier):
    """A Princess power: every class declares its timing, what its use needs and what limits
    it (see the module docstring), and overrides the hooks its rule needs."""

    kind: ClassVar[str] = "power"
    editions: ClassVar[frozenset[Edition]] = BOTH_EDITIONS
    #: The printed name, ``{"en": ..., "fr": ...}``.
    names: ClassVar[dict[str, str]] = {}
    #: When the power is used, per edition.
    timing: ClassVar[dict[Edition, Timing]] = {D: B, C: B}
    # -- what a use needs --------------------------------------------------------------------
    #: A ``target`` seat.
    needs_target: ClassVar[bool] = False
    #: A ``suit``.
    needs_suit: ClassVar[bool] = False
    #: Either list of cards (``cards`` or ``more``) may be entered alone: used as far as it goes.
    partly_known: ClassVar[bool] = False
    #: What each card of ``cards`` is (a slot name the trick screen words); a name ending in
    #: :data:`PER_CARD` or :data:`PER_SEAT` stands for one card per card of the trick or per seat.
    card_slots: ClassVar[tuple[str, ...]] = ()
    #: What each card of ``more`` is (same form).
    more_slots: ClassVar[tuple[str, ...]] = ()
    #: Each slot in words (``{max_rank}`` is filled in), for the JSON API's description.
    slot_words: ClassVar[dict[str, str]] = {}
    #: ``False`` when the cards are not seen at the table: a use may leave them out.
    cards_seen: ClassVar[bool] = True
    # -- what limits it ----------------------------------------------------------------------
    #: The highest rank her card may have (Snow White).
    max_rank: ClassVar[int | None] = None
    #: Editions in which the target can only be the player who leads the trick.
    target_leader: ClassVar[frozenset[Edition]] = frozenset()
    #: Editions in which Princes may not be named before they snuck in, with no exception.
    no_early_princes: ClassVar[frozenset[Edition]] = frozenset()
    #: Editions in which the target must be another player than her.
    target_other: ClassVar[frozenset[Edition]] = frozenset()
    #: Editions in which she must have won the trick just finished.
    winner_only: ClassVar[frozenset[Edition]] = frozenset()
    #: The power never moves the Frog.
    never_frog: ClassVar[bool] = False
    #: Her two cards are of the same suit (Mulan's swap), and not the same card.
    same_suit: ClassVar[bool] = False
    #: After a trick, before anything else is done with it (Mulan swaps before it is won).
    first_after_trick: ClassVar[bool] = False
    #: It changes a card of the trick just played, which is decided again (Mulan).
    redecides_trick: ClassVar[bool] = False
    #: It deals the trick just won back into the hands, to be played again (Alice).
    deals_trick_back: ClassVar[bool] = False
    #: It reverses the order of the numbers for the trick (Cinderella).
    reverses_order: ClassVar[bool] = False
    #: It makes a player play a chosen card in the trick (the Ice Princess, :meth:`forced_card`).
    forces_card: ClassVar[bool] = False
    #: Announced before the first card of the trick only (it acts on the lead).
    on_lead: ClassVar[bool] = False
    #: Powers used earlier in the same trick that forbid this one (both editions, RULINGS.md):
    #: see :meth:`blocker`. What a power blocks is the converse (:meth:`blocks`).
    blocked_by: ClassVar[tuple[Block, ...]] = ()
    #: The blocks apply only to a use of this power on the player who leads (Scheherazade, the
    #: Ice Princess): on anyone else it may still act.
    blocked_on_leader_only: ClassVar[bool] = False
    #: Under Wedding Gift (o / M), only before the gift pile is laid (Deluxe o).
    before_gift_pile: ClassVar[bool] = False
    # -- how it changes a trick ---------------------------------------------------------------
    #: The power changes how the trick it is used for is played or won.
    changes_trick: ClassVar[bool] = False

    def when(self) -> Timing:
        """This power's timing in this edition."""
        return self.timing[self.edition]

    # -- conflicts ---------------------------------------------------------------------------

    def acts_on_leader(self, use: PowerUse, leader: int) -> bool:
        """Whether ``use`` acts on the player who leads the trick (``leader``)."""
        return False

    def requested_suit(self, state: RoundForPowers, use: PowerUse) -> Suit | None:
        """The suit ``use`` makes the leader lead, while it has that effect (the Little Mermaid,
        Rapunzel); Thumbelina cannot escape it."""
        return None

    def forced_card(self, use: PowerUse, seat: int) -> RebelCard | None:
        """The card ``use`` makes ``seat`` play in the trick (the Ice Princess's frozen card)."""
        return None

    def new_leader(self, use: PowerUse, leader: int) -> int:
        """Who leads the coming trick once ``use`` took effect."""
        return leader

    def entry_refusal(self, use: PowerUse, leader: int, princes_in: bool) -> ViolationCode | None:
        """Why ``use`` breaks this power's own text in a way the table knows as it is entered
        (the player who leads, whether the Princes are in), with hands unknown; ``None`` when
        nothing known forbids it. The refusal is the power's seat's: the rule is hers. From the
        declarations: :attr:`target_leader` (classic Ice Princess: « vous piochez aléatoirement
        dans sa main », the leader's) and :attr:`no_early_princes` (classic Little Mermaid)."""
        if self.edition in self.target_leader and use.target is not None and use.target != leader:
            return V.NOT_THE_LEADER
        if self.edition in self.no_early_princes and use.suit is Suit.PRINCE and not princes_in:
            return V.PRINCES_NOT_YET
        return None

    def unseen_seats(self, use: PowerUse, players: int) -> int:
        """The seats (a mask) whose hands ``use`` may change out of sight of the table."""
        return 0

    def lost_seats(self, use: PowerUse, players: int) -> int:
        """The seats (a mask) ``use`` may take cards from out of sight of the table (what was
        known to be in those hands is known no longer); by default those of :meth:`unseen_seats`,
        none for a partly known power whose ``cards`` (what each hand gave) were entered."""
        return 0 if self.partly_known and use.cards else self.unseen_seats(use, players)

    def evidence(self, use: PowerUse, players: int) -> tuple[Evidence, ...]:
        """What the cards of ``use`` entered at the table prove about the hands they came from
        and went to (see :mod:`.evidence`); nothing by default."""
        return ()

    def random_use(self, state: RoundForPowers, seat: int, rng: random.Random) -> PowerUse | None:
        """A plausible random use by ``seat`` now, for the simulation (it may still break a
        rule: callers check it); ``None`` when none comes to mind."""
        return PowerUse(seat, self.slug)

    def blocker(self, use: PowerUse, earlier: Iterable[tuple[Power, PowerUse]],
                leader: int) -> tuple[Power, PowerUse] | None:
        """The earlier power of this trick (among ``earlier``, the uses that took effect, in the
        order declared) that forbids ``use``, or ``None``. ``leader``: who leads the trick now."""
        if not self.blocked_by or (self.blocked_on_leader_only and
                                   not self.acts_on_leader(use, leader)):
            return None
        for other, other_use in earlier:
            for block in self.blocked_by:
                if other.slug == block.by and (not block.on_leader or
                                               other.acts_on_leader(other_use, leader)):
                    return other, other_use
        return None

    def blocked(self, use: PowerUse, found: tuple[Power, PowerUse], leader: int,
                trick: int | None = None) -> Problem:
        """The refusal of ``use``, blocked by ``found`` (see :meth:`blocker`): it names the
        power that acted first (``by``), the player it acted on (``on``) and the player who
        leads (``leader``)."""
        other, other_use = found
        on = leader if other.acts_on_leader(other_use, leader) else other_use.target
        return violation(V.POWER_BLOCKED, use.seat, None, self.slug, self.edition, trick=trick,
                         by=other.slug, on=on, leader=leader,
                         scope="leader" if self.blocked_on_leader_only or any(
                             b.by == other.slug and b.on_leader for b in self.blocked_by) or
                         self.acts_on_leader(use, leader) else "trick")

    @classmethod
    def blocks(cls, edition: Edition) -> tuple[str, ...]:
        """The powers of ``edition`` that this one, once used, forbids later in the trick."""
        return tuple(slug for slug, other in _classes().items() if edition in other.editions
                     and any(block.by == cls.slug for block in other.blocked_by))

    @classmethod
    def display_name(cls, edition: Edition, lang: str = "en") -> str:
        return cls.names.get(lang, cls.names["en"])

    @property
    def entry(self) -> str | None:
        """How the trick screen enters a use: ``None`` (one tap), ``"target"`` (a player),
        ``"suit"``, ``"cards"`` (a player, then cards tapped on the deck), ``"hidden"`` (cards
        that may stay hidden), ``"zero"`` (with her card) or ``"after"`` (right after a trick,
        with cards tapped on the deck)."""
        if self.card_slots and self.when() is A:
            return "after"
        if self.card_slots and self.when() is T:
            return "zero"
        if self.card_slots and not self.cards_seen:
            return "hidden"
        if self.card_slots:
            return "cards"
        if self.needs_target:
            return "target"
        return "suit" if self.needs_suit else None

    def slots(self, players: int, trick_size: int) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """The slot of each card of ``cards`` and of ``more``, for this table."""
        def expand(slots: tuple[str, ...]) -> tuple[str, ...]:
            out: list[str] = []
            for slot in slots:
                if slot.endswith(PER_CARD):
                    out += [slot[:-len(PER_CARD)]] * trick_size
                elif slot.endswith(PER_SEAT):
                    out += [slot[:-len(PER_SEAT)]] * players
                else:
                    out.append(slot)
            return tuple(out)
        return expand(self.card_slots), expand(self.more_slots)

    def check_shape(self, use: PowerUse, players: int, trick_size: int) -> list[Problem]:
        """What the use lacks or has too much of, from the declarations alone (no state):
        a target, a suit, the right number of cards, a card above :attr:`max_rank`."""
        cards, more = self.slots(players, trick_size)
        counts = {(len(cards), len(more))} | ({(0, 0)} if not self.cards_seen else set())
        if self.partly_known:  # the table may know one part and not the other
            counts |= {(len(cards), 0), (0, len(more))}
        given = (len(use.cards) if cards else 0, len(use.more) if more else 0)  # (others unused)
        ok = (not self.needs_target or use.target is not None) and \
            (use.target is None or 0 <= use.target < players) and \
            (not self.needs_suit or use.suit is not None) and given in counts
        if ok and use.target is not None and self.edition in self.target_other and \
                use.target == use.seat:
            return [replace(problem, field="target") for problem in self.bad(use)]
        if ok and self.same_suit:
            ok = len(set(use.cards)) == len(use.cards)
        if ok and self.max_rank is not None:
            ok = all(card.rank <= self.max_rank for card in use.cards)
        return [] if ok else self.bad(use)

    @classmethod
    def describe_use(cls) -> str:
        """What a use needs, in words (English, for the JSON API's description)."""
        def listed(slots: tuple[str, ...], field: str) -> str:
            words = []
            for slot in slots:
                name = slot.removesuffix(PER_CARD).removesuffix(PER_SEAT)
                text = cls.slot_words.get(name, name).format(max_rank=cls.max_rank)
                words.append(text + (", one per seat" if slot.endswith(PER_SEAT) else ""))
            hidden = "" if cls.cards_seen else " (optional: unseen at the table)"
            return f"`{field}`: [{', '.join(words)}]{hidden}"

        needs = [f"`{name}`" for name, needed in (("target", cls.needs_target),
                                                   ("suit", cls.needs_suit)) if needed]
        if cls.card_slots:
            needs.append(listed(cls.card_slots, "cards"))
        if cls.more_slots:
            needs.append(listed(cls.more_slots, "more"))
        return "; ".join(needs) or "nothing"

    def allows_rank(self, card: RebelCard) -> bool:
        """Whether ``card`` is within :attr:`max_rank` (always, for a power without one)."""
        return self.max_rank is None or card.rank <= self.max_rank

    def check(self, state: RoundForPowers, use: PowerUse) -> list[Problem]:
        """Problems with the arguments of ``use`` (timing, ownership and conflicts are checked by
        the state)."""
        return []

    def apply(self, state: RoundForPowers, use: PowerUse) -> Any:
        """Carry out the one-off part of ``use``; returns what :meth:`undo` needs."""
        return None

    def undo(self, state: RoundForPowers, use: PowerUse, data: Any) -> None:
        """Reverse :meth:`apply`."""

    def activate(self, state: RoundForPowers, use: PowerUse) -> None:
        """Set the trick-wide flags of ``use`` (reversed order, a zero card)."""

    def restrict(self, state: RoundForPowers, seat: int, legal: int, use: PowerUse) -> int:
        """The legality layer of ``use`` for ``seat`` while it is active this trick."""
        return legal

    def violation(self, seat: int, card_: Any) -> Problem:
        """The violation reported when :meth:`restrict` removes a chosen card."""
        return violation(V.POWER_RESTRICTION, seat, card_, self.slug, self.edition)

    def bad(self, use: PowerUse, code: ViolationCode = V.BAD_POWER_ARGUMENT,
            seat: int | None = None, card_: Any = None) -> list[Problem]:
        return [violation(code, use.seat if seat is None else seat, card_, self.slug, self.edition)]


_KNOWN: dict[str, type[Power]] = {}
_BY_EDITION: dict[Edition, tuple[str, ...]] = {}


def _classes() -> dict[str, type[Power]]:
    """The twelve power classes by slug, in alphabetical order (:mod:`.princesses` defines them;
    the engine package imports it first, so they are all there before any question). Read
    again only if a class was added since."""
    found = Power.__subclasses__()
    if len(found) != len(_KNOWN):
        _KNOWN.clear()
        _KNOWN.update((cls.slug, cls) for cls in sorted(found, key=lambda c: c.slug))
        _BY_EDITION.clear()
    return _KNOWN


def power_slugs(edition: Edition) -> tuple[str, ...]:
    """The Princess slugs of an edition: 12 in Deluxe, 10 in the classic edition."""
    classes = _classes()
    if edition not in _BY_EDITION:
        _BY_EDITION[edition] = tuple(slug for slug, cls in classes.items()
                                     if edition in cls.editions)
    return _BY_EDITION[edition]


def zero_rank() -> int | None:
    """The highest rank a power may play as a zero (Snow White's), from the declarations."""
    return max((cls.max_rank for cls in _classes().values() if cls.max_rank is not None),
               default=None)


def power_class(slug: str) -> type[Power]:
    """The class of a Princess power by slug (KeyError if unknown)."""
    return _classes()[slug]
