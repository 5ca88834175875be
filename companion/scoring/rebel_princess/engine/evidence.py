"""Evidence: what a card that becomes known at the table proves about the hand it came from.

At the table the hands are unknown, but every card that becomes known says something about one:
a card that leaves a hand *was in it* (so it was there at the start of every earlier trick since
which that hand can have received no unseen card), and a card seen arriving in a hand *was not
in it before* (so playing it later proves nothing about earlier tricks). Table entry
(:class:`~.table.TableRound`) reads every kind below through one method, ``_prove``, and judges the
earlier plays of that seat again against the smallest hand it can have held: a revoke proven by
a card shown later, or cleared because the card arrived since.

The kinds (both editions unless marked; rulebook: Deluxe "Round Cards" p. 14 and "Princess
Cards" p. 23, French "Cartes de Manche" p. 9 and "Cartes Pouvoirs de Princesses" p. 14):

- **played** - a card played to a trick, Mulan's new card included (it comes from her hand):
  held at the start of that trick.
- **shown** - the card a haggling winner gives (Haggle with the Hag, p / T: « which they must
  show »): held at the start of the trick just won.
- **drawn** - Scheherazade's card taken from a hand, and the one she gives for it, when entered:
  held just before the coming trick. Each lands in the other hand (an arrival).
- **contributed** - each seat's card for Sleeping Beauty, when entered: held just before the coming
  trick. The card each seat receives is an arrival.
- **passed** - the card each seat passes to its right after a trick (Musical Chairs, k / E), when
  entered: held at the start of that trick; an arrival for the seat on its right.
- **laid** - the card each seat lays on the Wedding Gift pile (o / M): held just before the trick.
- **dealt** - the cards Alice deals back (one per seat in seat order): arrivals.
- **kept** - the cards each seat kept and shows at the end of the round (Late for a Very Important
  Date, n): held at the start of the last trick.

*Just before the coming trick* proves nothing about the earlier tricks when unseen cards may have
reached the seat since the last one ended (Musical Chairs not entered, the set-aside cards coming
back, an unentered Alice deal, Scheherazade or Sleeping Beauty without their cards).

To add a kind: a member of :class:`Seen`, and the :class:`Evidence` its step or power gives
(:func:`step_evidence` for a Round-card step, :meth:`.powers.Power.evidence` for a power).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from companion.scoring.rebel_princess.cards import RebelCard

from .cards import card_id
from .steps import Chairs, Gift, Haggle

__all__ = ["Evidence", "Kept", "Moment", "Seen", "arrived", "held", "step_evidence"]


class Seen(StrEnum):
    """How a card became known (see the module docstring)."""

    PLAYED = "played"
    SHOWN = "shown"
    DRAWN = "drawn"
    CONTRIBUTED = "contributed"
    PASSED = "passed"
    LAID = "laid"
    DEALT = "dealt"
    KEPT = "kept"


class Moment(StrEnum):
    """When the hand held the card: at the start of the trick in progress or just finished
    (``trick``), or just before the coming trick, after anything done between tricks
    (``before-next``)."""

    TRICK = "trick"
    BEFORE_NEXT = "before-next"


@dataclass(frozen=True)
class Evidence:
    """``seat``'s hand held ``cards`` (a mask, see :mod:`.cards`) at ``moment`` and they left it
    (``held``), or they arrived in it then (not ``held``)."""

    kind: Seen
    seat: int
    cards: int
    held: bool = True
    moment: Moment = Moment.TRICK


@dataclass(frozen=True)
class Kept:
    """The cards each seat kept and shows at the end of the round (Deluxe n)."""

    cards: tuple[tuple[RebelCard, ...], ...]

    def __str__(self) -> str:
        return "kept " + "/".join(" ".join(map(str, hand)) or "-" for hand in self.cards)


def held(kind: Seen, seat: int, *cards: RebelCard,
         moment: Moment = Moment.TRICK) -> Evidence:
    """``seat`` held ``cards`` (they leave its hand)."""
    return Evidence(kind, seat, _mask(cards), True, moment)


def arrived(kind: Seen, seat: int, *cards: RebelCard,
            moment: Moment = Moment.TRICK) -> Evidence:
    """``cards`` arrived in ``seat``'s hand."""
    return Evidence(kind, seat, _mask(cards), False, moment)


def step_evidence(step: Haggle | Gift | Chairs | Kept, players: int) -> tuple[Evidence, ...]:
    """What a Round-card step entered at the table proves (the powers say it themselves)."""
    if isinstance(step, Haggle):
        return (held(Seen.SHOWN, step.seat, step.give), arrived(Seen.SHOWN, step.seat, step.take))
    if isinstance(step, Gift):
        return tuple(held(Seen.LAID, seat, card, moment=Moment.BEFORE_NEXT)
                     for seat, card in enumerate(step.cards))
    if isinstance(step, Chairs):
        return tuple(item for seat, card in enumerate(step.cards)
                     for item in (held(Seen.PASSED, seat, card),
                                  arrived(Seen.PASSED, (seat - 1) % players, card)))
    return tuple(held(Seen.KEPT, seat, *cards) for seat, cards in enumerate(step.cards))


def _mask(cards: tuple[RebelCard, ...]) -> int:
    mask = 0
    for card in cards:
        mask |= 1 << card_id(card)
    return mask
