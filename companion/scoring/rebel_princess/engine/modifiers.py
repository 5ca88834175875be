"""Modifiers: the hook objects through which Round cards and Princess powers change the rules.

A :class:`Modifier` subclass stands for one Round card or one Princess power and is registered by
its slug (``"magic-beans"``, ``"snow-white"``). Every hook defaults to "no change"; a subclass
overrides only the hooks its rule needs. :class:`~.state.RoundState` collects, once
per round, the hooks each modifier really overrides, so a plain round card such as *Once Upon a
Time* costs nothing in the hot loop.

**Composition order.** The Deluxe rulebook (p. 14, "Round Cards") ranks the rules: *Princess powers,
Round card effects, then basic rules*; each layer takes precedence over the one below it. So every
question is answered by the basic rules first, then passed through the Round card's hook, then
through each active power's hook in the order the powers were declared (RULINGS.md: "Powers are
resolved in the order declared"). Each hook receives the answer so far and returns the new answer,
so a later layer can narrow, widen or replace it.

Hooks, in the order a trick consults them:

1. :meth:`Modifier.legal` - the mask of cards ``seat`` may play now. When a layer removes a card, a
   play of that card is reported with the layer's :attr:`Modifier.restriction` code and its slug.
2. :meth:`Modifier.follow` - after a non-leading card is played, the suit the next players must
   follow (Pass the Bouquet changes it; the basic rules keep the led suit).
3. :meth:`Modifier.winner` - once the trick is complete, the index (in play order) of the winning
   play. The basic rules give the highest card of the suit to follow.

Class attributes describe the shape of a round: :attr:`Modifier.plays_per_seat` (2 under *The Prince
Always Rings Twice*), :attr:`Modifier.kept_cards` (3 under *Late for a Very Important Date*) and the
Round-card steps outside the tricks (see :mod:`.steps`): :attr:`Modifier.aside_cards` and
:attr:`Modifier.aside_to`, :attr:`Modifier.reveals`, :attr:`Modifier.gift_before_trick`,
:attr:`Modifier.chairs_after_trick` and :attr:`Modifier.haggle_after_trick`. The steps of a round
come in this order: the pass, then the set-aside, then the reveal, then for each trick the gift,
the trick, the haggle and the musical chairs.

Princess powers (:mod:`.powers`) are modifiers too, but act only once used: a used power joins the
trick's chain of legality layers after the Round card
(:meth:`~.powers.Power.restrict`) and may set trick-wide flags (reversed order, a
zero card) read by the winner hooks.

Modifiers hold no per-round data: whatever changes during a round lives in the ``RoundState`` so
that ``copy()``, ``push`` and ``pop`` stay exact.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import ClassVar, Protocol

from companion.scoring.problems import Problem
from companion.scoring.rebel_princess.cards import Edition, RebelCard
from companion.scoring.rebel_princess.round_cards import letters_of

from .errors import InvalidEntryError, ViolationCode, name_rules_with, violation


class RoundForModifiers(Protocol):
    """What a modifier reads of the round in play (:class:`~.state.RoundState` is one): declared
    here so that the modifiers need not import the state that calls them."""

    players: int
    hands: list[int]  # the cards each seat holds
    trick_ids: list[int]  # card ids of the trick in progress, in play order
    follow_id: int  # suit index to follow in the trick in progress (-1: none yet)
    reversed_order: bool  # Cinderella: the order of the numbers is reversed this trick

    def value(self, cid: int) -> int: ...

    def key(self, cid: int) -> int: ...

__all__ = ["HALF", "HOOKS", "Modifier", "NotOn", "Timing", "TrickTime", "WinReason", "barred",
           "display_name", "modifier_class", "overridden", "register", "registered",
           "timing_refusal"]


class Timing(StrEnum):
    """When a Princess power is used (each :class:`~.powers.Power` declares its own, per
    edition): the stable values are those of the round record and the JSON API."""

    BEFORE = "before"  # before a trick, before its first card
    TURN = "turn"  # during a trick, with its owner's card (its effect starts with that card)
    AFTER = "after"  # right after a trick, before anything else happens


@dataclass(frozen=True)
class WinReason:
    """Why a trick's winner won, as the Round card words it (:meth:`Modifier.win_reason`):
    ``code`` (``highest``, ``trump``, ``second``, ``alone``, ``furthest``, ``void``, ``sum``,
    ``wild``, ``bouquet``), the suit concerned, ``low`` when the order was reversed, and the rules
    responsible: the Round card (``card_rule``), Cinderella, both or neither. Templates word the
    code; the engine never writes the sentence."""

    code: str
    suit: str | None
    low: bool = False
    card_rule: bool = False
    cinderella: bool = False

class TrickTime(StrEnum):
    """A moment of the round a timing rule (:class:`NotOn`) names."""

    LAST_TRICK = "last-trick"  # for the last trick of the round (before or during it)
    AFTER_LAST_TRICK = "after-last-trick"  # once the last trick is played: the round is over


@dataclass(frozen=True)
class NotOn:
    """A timing rule, declared on the Round card or power that states it
    (:attr:`Modifier.not_on`): ``powers`` (slugs) may not act at ``when`` in ``editions``; no
    ``powers``: the declaring power itself, or the declaring Round card's own step. The
    full-information state and table entry both read it through :func:`barred`."""

    when: TrickTime
    powers: tuple[str, ...] = ()
    editions: frozenset[Edition] = frozenset(Edition)

    def bars(self, source: Modifier, actor: Modifier) -> bool:
        """Whether this rule of ``source`` forbids ``actor`` (a power, or a Round card's step)."""
        if actor.edition not in self.editions:
            return False
        return actor.slug in self.powers if self.powers else actor is source


def barred(card_rule: Modifier, actor: Modifier, when: TrickTime) -> Modifier | None:
    """The Round card or power whose declared timing rule forbids ``actor`` (a power, or the
    Round card for its own step) at ``when``, or ``None``."""
    for source in (card_rule, actor):
        if any(rule.when is when and rule.bars(source, actor) for rule in source.not_on):
            return source
    return None


def timing_refusal(source: Modifier, actor: Modifier, when: TrickTime, seat: int | None,
                   trick: int | None = None) -> Problem:
    """The refusal of ``actor`` at ``when`` by ``source``'s timing rule (see :func:`barred`):
    ``not-on-last-trick`` (naming the barred ``power``), or ``round-over`` after the last
    trick."""
    if when is TrickTime.AFTER_LAST_TRICK:
        return violation(ViolationCode.ROUND_OVER, seat, None, actor.slug, actor.edition,
                         trick=trick)
    return violation(ViolationCode.NOT_ON_LAST_TRICK, seat, None, source.slug, actor.edition,
                     trick=trick, power=actor.slug)


#: Hook names in the order a trick consults them.
HOOKS = ("legal", "follow", "winner")
#: ``aside_cards`` value meaning half of the hand.
HALF = -1


class Modifier:
    """Base of every Round card and Princess power: each hook returns its input unchanged."""

    slug: ClassVar[str] = ""
    #: ``"round-card"`` or ``"power"``.
    kind: ClassVar[str] = "round-card"
    #: Round card letters by edition, e.g. ``{Edition.DELUXE: "f", Edition.CLASSIC: "D"}``: set
    #: by :func:`register` from the scoring core's catalogue (``round_cards.toml``), where each
    #: card names the slug of its rule.
    letters: ClassVar[dict[Edition, str]] = {}
    #: Each seat plays this many cards per trick.
    plays_per_seat: ClassVar[int] = 1
    #: Cards left in each hand when the round ends; they are kept and scored as taken.
    kept_cards: ClassVar[int] = 0
    #: Cards each seat sets aside before the first trick (:data:`HALF`: half the hand).
    aside_cards: ClassVar[int] = 0
    #: Once the hands are empty the set-aside cards of seat ``s`` go to seat ``s + aside_to``.
    aside_to: ClassVar[int] = 0
    #: Every seat shows one suit before the first trick.
    reveals: ClassVar[bool] = False
    #: Every seat adds a card to a gift pile for the winner before each trick.
    gift_before_trick: ClassVar[bool] = False
    #: Every seat passes a card to the right after each trick.
    chairs_after_trick: ClassVar[bool] = False
    #: The trick winner may swap a card of their hand for one of the trick.
    haggle_after_trick: ClassVar[bool] = False
    #: Timing rules this card or power states (:class:`NotOn`): who may not act when.
    not_on: ClassVar[tuple[NotOn, ...]] = ()
    #: The violation reported when :meth:`legal` removes the card a player chose.
    restriction: ClassVar[ViolationCode] = ViolationCode.MUST_FOLLOW_SUIT

    def __init__(self, edition: Edition) -> None:
        self.edition = edition

    def legal(self, state: RoundForModifiers, seat: int, legal: int) -> int:
        """The cards (a mask) ``seat`` may play now, given ``legal`` from the layers below."""
        return legal

    def follow(self, state: RoundForModifiers, cid: int, follow: int) -> int:
        """The suit index to follow once card ``cid`` was played on a trick following ``follow``."""
        return follow

    def winner(self, state: RoundForModifiers, plays: list[int], winner: int) -> int:
        """The index in ``plays`` (card ids in play order) of the winning play, given ``winner``."""
        return winner

    def win_reason(self, cards: Sequence[RebelCard], card: RebelCard, reversed_: bool) -> WinReason:
        """Why the trick ``cards`` (in play order, as it ended) was won with ``card`` (the
        winner's last card); ``reversed_`` when Cinderella reversed the order. The basic rules:
        the highest card of the suit led."""
        return WinReason("highest", card.suit.value, reversed_, False, reversed_)

    @classmethod
    def display_name(cls, edition: Edition, lang: str = "en") -> str:
        """The rule's name as printed in ``edition``, in ``lang`` (``en`` or ``fr``)."""
        return cls.slug.replace("-", " ")

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.edition.value!r})"

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.edition is self.edition

    def __hash__(self) -> int:
        return hash((type(self), self.edition))


_REGISTRY: dict[str, type[Modifier]] = {}
_BY_LETTER: dict[tuple[Edition, str], type[Modifier]] = {}


def register(cls: type[Modifier]) -> type[Modifier]:
    """Class decorator: register a modifier by slug (and by Round card letter for each edition)."""
    if not cls.slug or cls.slug in _REGISTRY:
        raise ValueError(f"modifier slug {cls.slug!r} is empty or taken")
    _REGISTRY[cls.slug] = cls
    if cls.kind == "round-card":  # its letters are declared once, in the Round card catalogue
        cls.letters = letters_of(cls.slug)
    for edition, letter in cls.letters.items():
        if (edition, letter) in _BY_LETTER:
            raise ValueError(f"Round card {edition.value} {letter} registered twice")
        _BY_LETTER[(edition, letter)] = cls
    return cls


def registered() -> dict[str, type[Modifier]]:
    """Every registered modifier class by slug."""
    return dict(_REGISTRY)


def modifier_class(slug: str) -> type[Modifier]:
    """The modifier registered under ``slug``; raises :class:`InvalidEntryError` if none is."""
    try:
        return _REGISTRY[slug]
    except KeyError:
        raise InvalidEntryError(f"no rule has the slug {slug!r}") from None


def round_card_class(edition: Edition, letter: str) -> type[Modifier]:
    """The modifier of a Round card by edition and letter (Deluxe a-z, classic A-U)."""
    wanted = letter.strip().lower() if edition is Edition.DELUXE else letter.strip().upper()
    try:
        return _BY_LETTER[(edition, wanted)]
    except KeyError:
        raise InvalidEntryError(f"no {edition.value} Round card {letter!r}") from None


def display_name(slug: str, edition: Edition, lang: str = "en") -> str:
    """The player-facing name of the Round card or Princess registered under ``slug``."""
    cls = _REGISTRY.get(slug)
    return cls.display_name(edition, lang) if cls is not None else slug.replace("-", " ")


name_rules_with(display_name)  # the engine's sentences name each rule as printed


def round_card_letters(edition: Edition) -> list[str]:
    """The registered Round card letters of an edition, in order."""
    return sorted(letter for (ed, letter) in _BY_LETTER if ed is edition)


def overridden(modifier: Modifier, hook: str) -> bool:
    """Whether ``modifier`` overrides ``hook`` (the base hooks change nothing and are skipped)."""
    return getattr(type(modifier), hook) is not getattr(Modifier, hook)
