"""The discard checker: is this a discard the rules allow, and how many cards are drawn.

Rulebook (seed 003), « Action : Défausser une ou plusieurs cartes », three ways:

1. any one card, draw 1;
2. a pair of identical cards, draw 2 — two equal numbers, or (REVEILLEZ.md, our reading) two
   identical power cards; a pair is exactly two cards;
3. three or more cards forming an addition, draw as many as discarded: all are numbers and one of
   them equals the sum of all the others (2+3=5, 1+3+4=8, 1+1=2).

A hand holds 5 cards, so a discard has 1 to 5 cards (our bound); fewer or more is a malformed entry
(problems ``discard-empty`` and ``discard-too-many``), not merely an invalid discard.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

from companion.scoring.problems import EntryError, Problem

from .cards import HAND_SIZE, ReveillezCard, read_cards
from .problems import CATALOGUE


class DiscardKind(StrEnum):
    """The three ways to discard (the JSON API's ``kind``)."""

    SINGLE = "single"
    PAIR = "pair"
    ADDITION = "addition"


ADDITION_MIN = 3
"""An addition uses three cards or more (« 3 cartes ou plus qui forment une addition »)."""


@dataclass(frozen=True, slots=True)
class DiscardCheck:
    """What a set of discarded cards is: its kind (None if the rules do not allow it), the card
    that is the sum of the others for an addition, and the number of cards drawn back."""

    cards: tuple[ReveillezCard, ...]
    kind: DiscardKind | None
    total: ReveillezCard | None = None

    @property
    def is_valid(self) -> bool:
        return self.kind is not None

    @property
    def draw(self) -> int:
        """Cards drawn: 1 for one card, 2 for a pair, one per card for an addition, 0 if invalid."""
        if self.kind is None:
            return 0
        return {DiscardKind.SINGLE: 1, DiscardKind.PAIR: 2}.get(self.kind, len(self.cards))

    @property
    def addends(self) -> tuple[ReveillezCard, ...]:
        """For an addition, the cards summed (the others than :attr:`total`, in entry order)."""
        if self.total is None:
            return ()
        rest = list(self.cards)
        rest.remove(self.total)
        return tuple(rest)

    def equation(self) -> str | None:
        """``"1 + 3 + 4 = 8"`` for an addition (what the player announces aloud), else None."""
        if self.total is None:
            return None
        return " + ".join(str(card) for card in self.addends) + f" = {self.total}"

    def as_dict(self) -> dict[str, object]:
        """The JSON API's answer: ``valid``, ``kind`` and ``draw``."""
        return {"valid": self.is_valid, "kind": None if self.kind is None else str(self.kind),
                "draw": self.draw}


def read_discard(cards: Iterable[ReveillezCard]) -> DiscardCheck:
    """Classify discarded cards already read (never raises; any count is classified)."""
    cards = tuple(cards)
    if len(cards) == 1:
        return DiscardCheck(cards, DiscardKind.SINGLE)
    if len(cards) == 2 and cards[0] == cards[1]:
        return DiscardCheck(cards, DiscardKind.PAIR)
    if len(cards) >= ADDITION_MIN and all(card.number is not None for card in cards):
        numbers = [card.number for card in cards if card.number is not None]
        largest = max(numbers)
        # All numbers are positive, so the one equal to the sum of the others is the largest:
        # largest == sum - largest.
        if 2 * largest == sum(numbers):
            return DiscardCheck(cards, DiscardKind.ADDITION, ReveillezCard(number=largest))
    return DiscardCheck(cards, None)


def check_discard_entry(values: object) -> list[Problem]:
    """Every problem with a discard entry as typed (unknown cards, numbers outside 1–10, no card,
    more cards than a hand holds). An entry without problems may still be an invalid discard."""
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        return [CATALOGUE.problem("unknown-card", given=values)]
    items = list(values)
    _, problems = read_cards(items)
    if not items:
        problems.append(CATALOGUE.problem("discard-empty"))
    elif len(items) > HAND_SIZE:
        problems.append(CATALOGUE.problem("discard-too-many", count=len(items), limit=HAND_SIZE))
    return problems


def classify_discard(values: object) -> DiscardCheck:
    """The ``discard`` endpoint: read the cards (ints 1–10 or French power names) and classify
    them. Raises EntryError listing every problem of :func:`check_discard_entry`."""
    problems = check_discard_entry(values)
    if problems:
        raise EntryError(problems)
    cards, _ = read_cards(list(values))  # type: ignore[call-overload]
    return read_discard(cards)
