"""The values a round of Rebel Princess produces: a :class:`Trick` (leader, cards in play order,
winner) and, once the round is over, its :class:`RoundOutcome` for the scoring core."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from companion.scoring.rebel_princess.cards import Edition, RebelCard
from companion.scoring.rebel_princess.round_score import RoundEntry

from .cards import format_cards

__all__ = ["RoundOutcome", "Trick"]


@dataclass(frozen=True, slots=True)
class Trick:
    """One trick: its leader, the cards in play order (clockwise from the leader; under *The Prince
    Always Rings Twice* every seat appears twice) and, once resolved or when entered, the winner."""

    leader: int
    cards: tuple[RebelCard, ...]
    winner: int | None = None

    def seat_of(self, index: int, players: int) -> int:
        """The seat that played ``cards[index]``."""
        return (self.leader + index) % players

    def plays(self, players: int) -> list[tuple[int, RebelCard]]:
        """``(seat, card)`` pairs in play order."""
        return [((self.leader + i) % players, card) for i, card in enumerate(self.cards)]

    def __str__(self) -> str:
        text = f"{self.leader}: {format_cards(self.cards, ' ')}"
        return text if self.winner is None else f"{text} > {self.winner}"


@dataclass(frozen=True)
class RoundOutcome:
    """What a finished round hands to the scoring core.

    ``taken`` are the cards each seat won in tricks; ``kept`` the cards each seat kept under *Late
    for a Very Important Date* (n) and ``gifts`` the Wedding Gift piles (o / M) each seat won, both
    scored as taken; ``tricks_won`` the number of tricks each seat won.
    """

    edition: Edition
    round_card: str
    players: int
    taken: tuple[frozenset[RebelCard], ...]
    tricks_won: tuple[int, ...]
    kept: tuple[frozenset[RebelCard], ...]
    first_leader: int
    last_winner: int | None
    gifts: tuple[frozenset[RebelCard], ...] = ()

    @property
    def seats_without_trick(self) -> frozenset[int]:
        """Seats that won no trick (Arranged Marriage, e)."""
        return frozenset(seat for seat, won in enumerate(self.tricks_won) if won == 0)

    @property
    def scored_cards(self) -> tuple[frozenset[RebelCard], ...]:
        """Per seat, every card that scores as taken: tricks won, kept cards and gift piles."""
        gifts = self.gifts or (frozenset(),) * self.players
        return tuple(t | k | g for t, k, g in zip(self.taken, self.kept, gifts, strict=True))

    def to_entry(self, totals_before: Sequence[int] | None = None) -> RoundEntry:
        """The scoring core's :class:`RoundEntry` for this round (``totals_before`` for Bathroom
        Break)."""
        return RoundEntry(self.edition, self.round_card, self.players, self.scored_cards,
                          self.seats_without_trick,
                          tuple(totals_before) if totals_before is not None else None)
