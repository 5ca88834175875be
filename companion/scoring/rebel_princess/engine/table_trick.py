"""What table entry keeps per trick: the trick as entered (:class:`TableTrick`) and what each
seat is known to have held at its start (:class:`Knowledge`); see :mod:`.table`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from companion.scoring.rebel_princess.cards import RebelCard

from .modifiers import WinReason
from .steps import Chairs, Haggle, PowerUse

__all__ = ["Knowledge", "TableTrick", "Undo"]


@dataclass(eq=False)
class TableTrick:
    """One trick as entered: its leader, cards (play order), the powers used for it, and once
    complete its winner, why, and what followed it. Read-only outside :class:`TableRound`."""

    index: int
    leader: int
    uses: tuple[PowerUse, ...]
    princes_before: bool
    gift: tuple[RebelCard, ...] = ()
    cards: list[RebelCard] = field(default_factory=list)
    ids: list[int] = field(default_factory=list)  # the cards' ids (see .cards), same order
    effective: tuple[PowerUse, ...] = ()  # the uses that change how it is played or won
    blocked: tuple[PowerUse, ...] = ()  # the uses another power blocked (they change nothing)
    winner: int | None = None
    princes_after: bool = False
    reason: WinReason | None = None
    mulan: PowerUse | None = None
    after: list[Haggle | PowerUse | Chairs] = field(default_factory=list)
    redone: bool = False  # Alice dealt it back

    @property
    def complete(self) -> bool:
        return self.winner is not None

    @property
    def final(self) -> tuple[RebelCard, ...]:
        """The cards as the trick ended (Mulan's swap included), in play order."""
        cards = list(self.cards)
        if self.mulan is not None:
            old, new = self.mulan.cards
            cards[cards.index(old)] = new
        return tuple(cards)

    def seat_of(self, index: int, players: int) -> int:
        """The seat that played ``cards[index]``."""
        return (self.leader + index) % players

    def note(self, power: str) -> Haggle | PowerUse | Chairs | None:
        """What followed the trick: the use of ``power`` (a slug), ``"haggle"`` or
        ``"chairs"`` (the Musical Chairs passes, when entered)."""
        for event in self.after:
            if (power == "haggle" and isinstance(event, Haggle)) or (
                    power == "chairs" and isinstance(event, Chairs)) or (
                    isinstance(event, PowerUse) and event.power == power):
                return event
        return None


class Knowledge:
    """What each seat is known to have held at the start of one trick."""

    __slots__ = ("arrived", "known", "open", "watch")

    def __init__(self, players: int) -> None:
        self.known = [0] * players  # cards seen played from this trick on, per seat
        self.arrived = [0] * players  # cards seen arriving in the hand since, per seat
        self.open = (1 << players) - 1  # seats no unseen card can have reached since (a mask)
        # Once the trick is complete and judged by the basic rules alone: per seat, the cards
        # that could prove a rule broken there if the seat showed one later (None: judge always).
        self.watch: list[int] | None = None


#: One step of undoing an entry (:meth:`.table.TableRound.pop` runs them backwards).
Undo = Callable[[], object]
