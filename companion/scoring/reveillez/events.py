"""What an action did, as :class:`~.state.ReveillezGameState` records it (:class:`Event`, one
:class:`Move` per princess moved) and a cell of the table screen's grid (:class:`Place`)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from .actions import Action, Sleep, Steal
from .cards import PrincessCard
from .jester import JesterCount
from .standings import ReveillezStandings


class MoveKind(StrEnum):
    """What happened to one princess during an action."""

    WOKEN = "woken"          # from a slot to a seat
    STOLEN = "stolen"        # from one seat to another (knight)
    ASLEEP = "asleep"        # from a seat to a free slot (potion)
    SENT_BACK = "sent-back"  # woken, then back to her slot: Dog and Cat never together (variant)


@dataclass(frozen=True, slots=True)
class Move:
    """One princess moving: ``seat`` gains her (woken, stolen), loses her (asleep) or had to send
    her back (sent back); ``source`` is the seat a knight took her from; ``slot`` the slot she
    left (woken) or now sleeps in (asleep, sent back)."""

    kind: MoveKind
    princess: int
    seat: int
    slot: int | None = None
    source: int | None = None


@dataclass(frozen=True, slots=True)
class Event:
    """One recorded action and what it did: who played it, the action (a potion's slot filled
    in), the princesses that moved, the jester's count, the seat a knight or potion aimed at
    (``defender``), whose turn is next, and the final
    standings if this action ended the game (only the one action that ends it has them)."""

    index: int
    seat: int
    action: Action
    moves: tuple[Move, ...]
    turn: int
    count: JesterCount | None = None
    defender: int | None = None
    outcome: ReveillezStandings | None = None

    @property
    def kind(self) -> str:
        """``wake``, ``steal``, ``sleep``, ``jester`` or ``discard``."""
        return type(self.action).__name__.lower()

    @property
    def is_countered(self) -> bool:
        """A knight answered by a dragon or a potion answered by a wand."""
        return ((isinstance(self.action, Steal) and self.action.dragon)
                or (isinstance(self.action, Sleep) and self.action.wand))


@dataclass(frozen=True, slots=True)
class Place:
    """One cell of the table screen's 4×3 grid: the princess shown there, asleep in that slot or
    awake (then with her holder and what is printed on her)."""

    slot: int
    princess: int
    holder: int | None
    card: PrincessCard | None

    @property
    def is_awake(self) -> bool:
        return self.holder is not None
