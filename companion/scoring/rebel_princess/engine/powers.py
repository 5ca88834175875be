"""Princess powers as modifiers, one small class each.

Deluxe has 12 Princesses, the classic edition 10 (no Rapunzel, no Thumbelina). A power is used once
per round (Deluxe "Using the Power of a Princess" p. 10; French "Utiliser son Pouvoir" p. 7) and is
recorded as a :class:`~companion.scoring.rebel_princess.engine.steps.PowerUse`. Powers rank above Round cards, which rank
above the basic rules (Deluxe p. 14), so a power's legality layer is applied last. Powers used for
the same trick apply in the order they were declared (RULINGS.md).

When a power may be used (:attr:`Power.timing`):

- ``before`` - before a trick, once any musical chairs are passed (k / E) and before or after the
  Wedding Gift pile (o / M); Sleeping Beauty only before it (Deluxe o, read alike for classic M).
- ``turn`` - during a trick, before its owner plays (Snow White, Thumbelina, classic Pea Princess).
  Its effect starts with its owner's card, so a record writes it before the trick.
- ``after`` - right after a trick (Alice, Mulan, classic Pocahontas).

The powers (Deluxe "Princess Cards" p. 23; French "Cartes Pouvoirs de Princesses" p. 14):

- **Alice** (after; ``cards``: the card dealt to each seat, seat order, two laps under u): after
  winning a trick without the Frog, its cards are dealt back one per seat and played again. A Prince
  in that trick brings the Princes in (RULINGS.md). Under Wedding Gift the gift pile waits for the
  redone trick. *Engine decision:* the trick no longer counts as won by Alice.
- **Cinderella** (before): the trick's order is reversed, lower numbers win (with Upside Down each 6
  reverses again; Sisterhood ties go to the lower number; u: lowest sum).
- **The Ice Princess** (before; ``target``, ``cards``: the forced card): the target must play that
  card in the coming trick, whatever the rules (Deluxe); a Prince chosen this way brings the Princes
  in. Classic: only the leader can be targeted, and the card is the lead.
- **The Little Mermaid** (before; ``suit``): the leader must lead that suit. Deluxe: the named suit
  must be one the leader holds, and not Princes before they snuck in unless the leader holds only
  Princes. Classic: if the leader lacks the suit they lead freely; Princes cannot be named before
  they appeared.
- **Mulan** (after; ``cards``: played card, new card): swap a card she played in the trick just
  finished for another of the same suit from her hand, never the Frog; the trick is decided again.
- **The Pea Princess** (Deluxe before, classic turn): the other players (classic: those who play
  after her in the trick) must play a card above 5 among the cards they may play, if they have one.
- **Pocahontas** (Deluxe before, classic after; ``target``): choose who leads the coming trick
  (classic: after winning a trick, another player leads the next).
- **Rapunzel** (Deluxe, before): the leader must lead a Prince if they hold one; it does not bring
  the Princes in.
- **Scheherazade** (before; ``target``, ``cards``: the card taken, the card given back): take a
  random card from a player and give them one of yours, or the same card back.
- **Sleeping Beauty** (before; ``cards``: each seat's contribution, ``more``: what each seat
  receives): every player contributes a card; she keeps one and deals the rest, one each.
- **Snow White** (turn; ``cards``: a card of rank 7 or lower): she plays it as a zero (it must be
  her card in this trick if she may play it). Scoring keeps the printed rank (RULINGS.md).
- **Thumbelina** (Deluxe, turn, not leading): she may play any card but a Prince or the Frog,
  ignoring the suit to follow.

Conflicts (Deluxe p. 23; RULINGS.md applies them to the classic edition too, which lists none):
the Little Mermaid, Rapunzel and the Ice Princess (on the leader) exclude each other in a trick;
Pocahontas and Sleeping Beauty may not follow the Little Mermaid or Rapunzel (nor Sleeping Beauty
the Ice Princess, whoever she froze); Scheherazade may not target the leader after any of those
three. *Engine decision:* Scheherazade cannot draw a card the Ice Princess froze this trick (it lies
in front of its owner).
Crystal Clear (h / I): the Ice Princess and Scheherazade cannot pick shown cards. Late to the Ball
(b / G): Sleeping Beauty and Scheherazade cannot be used on the last trick.

*Engine decision:* a card played off the suit to follow through a power (Thumbelina, the Ice
Princess) counts as a void card for Round cards that look at void players (Poisoned Apple, Pass
the Bouquet).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from companion.scoring.rebel_princess.cards import Edition, Suit

from .cards import FROG_ID, PRINCE_MASK, SUIT_MASKS, card_id, mask_of
from .errors import Violation, ViolationCode
from .modifiers import Modifier, register
from .steps import PowerUse

if TYPE_CHECKING:
    from .state import RoundState

__all__ = ["POWER_SLUGS", "Power", "power_class", "power_slugs"]

V = ViolationCode
D, C = Edition.DELUXE, Edition.CLASSIC
_BOTH = frozenset(Edition)
_DELUXE_ONLY = frozenset({D})
_HIGH = sum(1 << (16 * s + r) for s in range(4) for r in range(6, 13))  # ranks above 5
_FROG = 1 << FROG_ID
_SUIT_INDEX = {suit: index for index, suit in enumerate((Suit.PRINCE, Suit.QUEEN, Suit.FAIRY,
                                                          Suit.PET))}


class Power(Modifier):
    """A Princess power. Subclasses set :attr:`timing` and override what they need."""

    kind: ClassVar[str] = "power"
    editions: ClassVar[frozenset[Edition]] = _BOTH
    #: ``"before"``, ``"turn"`` or ``"after"`` (see the module docstring), per edition.
    timing: ClassVar[dict[Edition, str]] = {D: "before", C: "before"}
    #: Powers already used this trick that forbid this one (both editions, RULINGS.md).
    blocked_by: ClassVar[frozenset[str]] = frozenset()
    name: ClassVar[str] = ""

    def when(self) -> str:
        """This power's timing in this edition."""
        return self.timing[self.edition]

    def check(self, state: RoundState, use: PowerUse) -> list[Violation]:
        """Problems with the arguments of ``use`` (timing, ownership and conflicts are checked by
        the state)."""
        return []

    def apply(self, state: RoundState, use: PowerUse) -> Any:
        """Carry out the one-off part of ``use``; returns what :meth:`undo` needs."""
        return None

    def undo(self, state: RoundState, use: PowerUse, data: Any) -> None:
        """Reverse :meth:`apply`."""

    def activate(self, state: RoundState, use: PowerUse) -> None:
        """Set the trick-wide flags of ``use`` (reversed order, a zero card)."""

    def restrict(self, state: RoundState, seat: int, legal: int, use: PowerUse) -> int:
        """The legality layer of ``use`` for ``seat`` while it is active this trick."""
        return legal

    def violation(self, seat: int, card_: Any) -> Violation:
        """The violation reported when :meth:`restrict` removes a chosen card."""
        return Violation(V.POWER_RESTRICTION, seat, card_, self.slug)

    def bad(self, use: PowerUse, code: ViolationCode = V.BAD_POWER_ARGUMENT,
            seat: int | None = None, card_: Any = None) -> list[Violation]:
        return [Violation(code, use.seat if seat is None else seat, card_, self.slug)]


def _held(state: RoundState, seat: int, card_: Any) -> bool:
    return bool(state.hands[seat] >> card_id(card_) & 1)


@register
class Alice(Power):
    """Alice: after winning a trick without the Frog, deal its cards back to be played again."""

    slug = "alice"
    name = "Alice"
    timing = {D: "after", C: "after"}

    def check(self, state: RoundState, use: PowerUse) -> list[Violation]:
        leader, ids, winner, _ = state._history[-1]
        if winner != use.seat:
            return self.bad(use, V.NOT_TRICK_WINNER)
        if FROG_ID in ids:
            return self.bad(use, V.POWER_FROG)
        if len(use.cards) != len(ids) or sorted(map(card_id, use.cards)) != sorted(ids):
            return self.bad(use, V.WRONG_CARD_COUNT)
        return []

    def apply(self, state: RoundState, use: PowerUse) -> Any:
        players = state.players
        ids = state._history[-1][1]
        mask = mask_of(use.cards)
        state.taken[use.seat] &= ~mask
        state.tricks_won[use.seat] -= 1
        for index, card_ in enumerate(use.cards):
            state.hands[index % players] |= 1 << card_id(card_)
        state._left += len(ids)
        snuck = not state.princes_in and bool(mask & PRINCE_MASK)
        state.princes_in = state.princes_in or snuck
        pile = 0
        if state._gift_on:  # the gift pile waits for the redone trick
            pile = state._gift_pile_before(len(state._history) - 1)
            state.gifts[use.seat] &= ~pile
            state._gift = pile
            state._pending = None  # no new gift: the redone trick keeps its pile
        return (mask, snuck, pile)

    def undo(self, state: RoundState, use: PowerUse, data: Any) -> None:
        mask, snuck, pile = data
        players = state.players
        for index, card_ in enumerate(use.cards):
            state.hands[index % players] &= ~(1 << card_id(card_))
        state.taken[use.seat] |= mask
        state.tricks_won[use.seat] += 1
        state._left -= len(use.cards)
        if snuck:
            state.princes_in = False
        if pile:
            state.gifts[use.seat] |= pile
            state._gift = 0


@register
class Cinderella(Power):
    """Cinderella: before a trick, reverse the order of the numbers for that trick."""

    slug = "cinderella"
    name = "Cinderella"

    def activate(self, state: RoundState, use: PowerUse) -> None:
        state._reversed = True


@register
class IcePrincess(Power):
    """The Ice Princess: before a trick, choose the card a player must play in it."""

    slug = "ice-princess"
    name = "The Ice Princess"

    def check(self, state: RoundState, use: PowerUse) -> list[Violation]:
        if use.target is None or not 0 <= use.target < state.players or len(use.cards) != 1:
            return self.bad(use)
        if self.edition is C and use.target != state.leader:
            return self.bad(use, V.NOT_THE_LEADER, use.target)
        (card_,) = use.cards
        if not _held(state, use.target, card_):
            return self.bad(use, V.NOT_IN_HAND, use.target, card_)
        if state.revealed[use.target] >> card_id(card_) & 1:
            return self.bad(use, V.CARD_SHOWN, use.target, card_)
        return []

    def apply(self, state: RoundState, use: PowerUse) -> Any:
        # A Prince chosen by the Ice Princess brings the Princes in (Deluxe p. 23, RULINGS.md).
        snuck = use.cards[0].suit is Suit.PRINCE and not state.princes_in
        if snuck:
            state.princes_in = True
        return snuck

    def undo(self, state: RoundState, use: PowerUse, data: Any) -> None:
        if data:
            state.princes_in = False

    def restrict(self, state: RoundState, seat: int, legal: int, use: PowerUse) -> int:
        if seat != use.target:
            return legal
        forced = 1 << card_id(use.cards[0])
        return forced if state.hands[seat] & forced else legal


@register
class LittleMermaid(Power):
    """The Little Mermaid: before a trick, name the suit the leader must lead."""

    slug = "little-mermaid"
    name = "The Little Mermaid"
    blocked_by = frozenset({"ice-princess", "rapunzel"})

    def check(self, state: RoundState, use: PowerUse) -> list[Violation]:
        if use.suit is None:
            return self.bad(use)
        hand = state.hands[state.leader]
        suit_mask = SUIT_MASKS[_SUIT_INDEX[use.suit]]
        only_princes = not hand & ~PRINCE_MASK
        if use.suit is Suit.PRINCE and not state.princes_in and not (
                self.edition is D and only_princes):
            return self.bad(use, V.PRINCES_NOT_INVITED, state.leader)
        if self.edition is D and not hand & suit_mask:
            return self.bad(use, V.SUIT_NOT_HELD, state.leader)  # name another suit
        return []

    def restrict(self, state: RoundState, seat: int, legal: int, use: PowerUse) -> int:
        if state._plays or seat != state.leader:
            return legal
        return state.hands[seat] & SUIT_MASKS[_SUIT_INDEX[use.suit]] or legal  # type: ignore[index]


@register
class Mulan(Power):
    """Mulan: after a trick, swap a card she played for another of the same suit (no Frog)."""

    slug = "mulan"
    name = "Mulan"
    timing = {D: "after", C: "after"}

    def check(self, state: RoundState, use: PowerUse) -> list[Violation]:
        if len(use.cards) != 2:
            return self.bad(use)
        old, new = use.cards
        leader, ids, _, _ = state._history[-1]
        mine = [cid for i, cid in enumerate(ids) if (leader + i) % state.players == use.seat]
        if card_id(old) not in mine:
            return self.bad(use, V.NOT_IN_TRICK, card_=old)
        if not state._active_hand(use.seat) >> card_id(new) & 1:
            return self.bad(use, V.NOT_IN_HAND, card_=new)
        if old.suit is not new.suit:
            return self.bad(use, V.MUST_FOLLOW_SUIT, card_=new)
        if FROG_ID in (card_id(old), card_id(new)):
            return self.bad(use, V.POWER_FROG)
        return []

    def apply(self, state: RoundState, use: PowerUse) -> Any:
        old, new = card_id(use.cards[0]), card_id(use.cards[1])
        leader, ids, winner, _ = state._history[-1]
        state._replay_last_trick(old, new)
        return (leader, tuple(ids), winner)  # the trick as played, for the record

    def undo(self, state: RoundState, use: PowerUse, data: Any) -> None:
        state._replay_last_trick(card_id(use.cards[1]), card_id(use.cards[0]))


@register
class PeaPrincess(Power):
    """The Pea Princess: the other players must play above 5 when they may."""

    slug = "pea-princess"
    name = "The Pea Princess"
    timing = {D: "before", C: "turn"}

    def restrict(self, state: RoundState, seat: int, legal: int, use: PowerUse) -> int:
        if seat == use.seat:
            return legal
        if self.edition is C and len(state._plays) <= (use.seat - state.leader) % state.players:
            return legal  # classic: only the players after her in this trick
        return legal & _HIGH or legal


@register
class Pocahontas(Power):
    """Pocahontas: choose who leads the coming trick (classic: after winning a trick)."""

    slug = "pocahontas"
    name = "Pocahontas"
    timing = {D: "before", C: "after"}
    blocked_by = frozenset({"little-mermaid", "rapunzel"})

    def check(self, state: RoundState, use: PowerUse) -> list[Violation]:
        if use.target is None or not 0 <= use.target < state.players:
            return self.bad(use)
        if self.edition is C:
            if state._history[-1][2] != use.seat:
                return self.bad(use, V.NOT_TRICK_WINNER)
            if use.target == use.seat:
                return self.bad(use)
        return []

    def apply(self, state: RoundState, use: PowerUse) -> Any:
        before = state.leader
        state.leader = use.target  # type: ignore[assignment]
        return before

    def undo(self, state: RoundState, use: PowerUse, data: Any) -> None:
        state.leader = data


@register
class Rapunzel(Power):
    """Rapunzel: the leader must lead a Prince if they hold one (no sneaking in)."""

    slug = "rapunzel"
    name = "Rapunzel"
    editions = _DELUXE_ONLY
    timing = {D: "before"}
    blocked_by = frozenset({"ice-princess", "little-mermaid"})

    def restrict(self, state: RoundState, seat: int, legal: int, use: PowerUse) -> int:
        if state._plays or seat != state.leader:
            return legal
        return state.hands[seat] & PRINCE_MASK or legal


@register
class Scheherazade(Power):
    """Scheherazade: take a random card from a player; give one of yours, or it, back."""

    slug = "scheherazade"
    name = "Scheherazade"

    def check(self, state: RoundState, use: PowerUse) -> list[Violation]:
        if use.target is None or not 0 <= use.target < state.players or len(use.cards) != 2 \
                or use.target == use.seat:
            return self.bad(use)
        taken, given = use.cards
        if not _held(state, use.target, taken):
            return self.bad(use, V.NOT_IN_HAND, use.target, taken)
        if state.revealed[use.target] >> card_id(taken) & 1:
            return self.bad(use, V.CARD_SHOWN, use.target, taken)
        if any(p.slug == "ice-princess" and u.target == use.target and u.cards[0] == taken
               for p, u in state._active):
            # The frozen card lies in front of its owner, out of the hand (engine decision).
            return self.bad(use, V.NOT_IN_HAND, use.target, taken)
        if given != taken and not _held(state, use.seat, given):
            return self.bad(use, V.NOT_IN_HAND, card_=given)
        return []

    def apply(self, state: RoundState, use: PowerUse) -> Any:
        taken, given = (1 << card_id(c) for c in use.cards)
        target = use.target
        assert target is not None
        if taken != given:  # (giving the same card back changes nothing)
            state.hands[target] = state.hands[target] & ~taken | given
            state.hands[use.seat] = state.hands[use.seat] & ~given | taken
        return None

    def undo(self, state: RoundState, use: PowerUse, data: Any) -> None:
        taken, given = (1 << card_id(c) for c in use.cards)
        target = use.target
        assert target is not None
        if taken != given:
            state.hands[use.seat] = state.hands[use.seat] & ~taken | given
            state.hands[target] = state.hands[target] & ~given | taken


@register
class SleepingBeauty(Power):
    """Sleeping Beauty: everyone contributes a card; she keeps one and deals the others."""

    slug = "sleeping-beauty"
    name = "Sleeping Beauty"
    blocked_by = frozenset({"ice-princess", "little-mermaid", "rapunzel"})

    def check(self, state: RoundState, use: PowerUse) -> list[Violation]:
        players = state.players
        if len(use.cards) != players or len(use.more) != players:
            return self.bad(use, V.WRONG_CARD_COUNT)
        for seat, card_ in enumerate(use.cards):
            if not _held(state, seat, card_):
                return self.bad(use, V.NOT_IN_HAND, seat, card_)
        if sorted(map(card_id, use.cards)) != sorted(map(card_id, use.more)):
            return self.bad(use)
        return []

    def apply(self, state: RoundState, use: PowerUse) -> Any:
        for seat, card_ in enumerate(use.cards):
            state.hands[seat] &= ~(1 << card_id(card_))
        for seat, card_ in enumerate(use.more):
            state.hands[seat] |= 1 << card_id(card_)
        return None

    def undo(self, state: RoundState, use: PowerUse, data: Any) -> None:
        for seat, card_ in enumerate(use.more):
            state.hands[seat] &= ~(1 << card_id(card_))
        for seat, card_ in enumerate(use.cards):
            state.hands[seat] |= 1 << card_id(card_)


@register
class SnowWhite(Power):
    """Snow White: play a card of rank 7 or lower as a zero."""

    slug = "snow-white"
    name = "Snow White"
    timing = {D: "turn", C: "turn"}

    def check(self, state: RoundState, use: PowerUse) -> list[Violation]:
        if len(use.cards) != 1:
            return self.bad(use)
        (card_,) = use.cards
        if not _held(state, use.seat, card_):
            return self.bad(use, V.NOT_IN_HAND, card_=card_)
        if card_.rank > 7:
            return self.bad(use, V.BAD_POWER_ARGUMENT, card_=card_)
        return []

    def activate(self, state: RoundState, use: PowerUse) -> None:
        state._zero = card_id(use.cards[0])

    def restrict(self, state: RoundState, seat: int, legal: int, use: PowerUse) -> int:
        if seat != use.seat:
            return legal
        chosen = 1 << card_id(use.cards[0])
        return chosen if legal & chosen else legal


@register
class Thumbelina(Power):
    """Thumbelina: when not leading, play any card but a Prince or the Frog."""

    slug = "thumbelina"
    name = "Thumbelina"
    editions = _DELUXE_ONLY
    timing = {D: "turn"}

    def check(self, state: RoundState, use: PowerUse) -> list[Violation]:
        if not state._plays and use.seat == state.leader:
            return self.bad(use, V.POWER_NOT_NOW)  # not while leading
        return []

    def restrict(self, state: RoundState, seat: int, legal: int, use: PowerUse) -> int:
        if seat != use.seat or not state._plays:
            return legal
        if any(p.slug == "ice-princess" and u.target == seat for p, u in state._active):
            return legal  # the Ice Princess's card still binds her
        return legal | (state.hands[seat] & ~PRINCE_MASK & ~_FROG)


_ORDER = ("alice", "cinderella", "ice-princess", "little-mermaid", "mulan", "pea-princess",
          "pocahontas", "rapunzel", "scheherazade", "sleeping-beauty", "snow-white", "thumbelina")
_CLASSES: dict[str, type[Power]] = {cls.slug: cls for cls in Power.__subclasses__()}

#: Every Princess slug, in alphabetical order.
POWER_SLUGS: tuple[str, ...] = _ORDER


def power_slugs(edition: Edition) -> tuple[str, ...]:
    """The Princess slugs of an edition: 12 in Deluxe, 10 in the classic edition."""
    return tuple(slug for slug in _ORDER if edition in _CLASSES[slug].editions)


def power_class(slug: str) -> type[Power]:
    """The class of a Princess power by slug (KeyError if unknown)."""
    return _CLASSES[slug]

