"""Errors and violations of the rules engine.

Two kinds of trouble, kept apart in the python-chess manner:

- *Violations* are data. :meth:`RoundState.check_trick` and friends return every problem they find
  as a list of :class:`Violation` and never raise. A violation carries a :class:`ViolationCode`
  whose string value is stable (templates and tests key on it, never on English text), the seat and
  card concerned, and the slug of the rule that was broken (``"basic"`` for the basic rules,
  otherwise a Round card or Princess power slug).
- *Errors* are raised by commands. :class:`EngineError` (a :class:`ValueError`) has three children:
  :class:`InvalidEntryError` for malformed input, :class:`IllegalTrickError` for well-formed input
  that breaks the rules (it carries ``.violations``), and :class:`AmbiguousEntryError` for input
  that allows more than one reading.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

from companion.scoring.rebel_princess.cards import Card

BASIC = "basic"


class ViolationCode(StrEnum):
    """Why a play or a trick is not allowed; the values are stable identifiers."""

    # Entry shape (also raised as InvalidEntryError by the parse_* functions).
    UNKNOWN_CARD = "unknown-card"
    CARD_NOT_IN_DECK = "card-not-in-deck"
    DUPLICATE_CARD = "duplicate-card"
    WRONG_CARD_COUNT = "wrong-card-count"
    WRONG_LEADER = "wrong-leader"
    ROUND_OVER = "round-over"
    # Where the card comes from.
    CARD_ALREADY_PLAYED = "card-already-played"
    NOT_IN_HAND = "not-in-hand"
    # Basic trick rules (Deluxe "Playing a Trick", French "Jouer un pli").
    MUST_FOLLOW_SUIT = "must-follow-suit"
    PRINCES_NOT_INVITED = "princes-not-invited"
    # Round cards.
    MUST_PLAY_HIGHEST_OR_LOWEST = "must-play-highest-or-lowest"  # Magic Beans (c)
    MUST_MATCH_PARITY = "must-match-parity"  # Odds and Evens (s / U)
    NOT_YOUR_TURN = "not-your-turn"
    # Round-card steps outside the tricks.
    STEP_REQUIRED = "step-required"  # a set-aside, reveal, gift or musical chairs is due first
    STEP_NOT_DUE = "step-not-due"
    SUIT_NOT_HELD = "suit-not-held"  # Crystal Clear (h / I): reveal a suit you hold
    NOT_TRICK_WINNER = "not-trick-winner"  # Haggle with the Hag (p / T)
    NOT_IN_TRICK = "not-in-trick"
    HAGGLE_OWN_CARD = "haggle-own-card"
    # Princess powers.
    POWER_NOT_IN_PLAY = "power-not-in-play"  # the seat's Princess has another power
    POWER_ALREADY_USED = "power-already-used"  # once per round
    POWER_NOT_NOW = "power-not-now"  # wrong moment for this power
    POWER_BLOCKED = "power-blocked"  # another power used this trick forbids it (Deluxe)
    POWER_RESTRICTION = "power-restriction"  # a power in effect forbids this card
    BAD_POWER_ARGUMENT = "bad-power-argument"
    NOT_THE_LEADER = "not-the-leader"
    POWER_FROG = "power-frog"  # Alice and Mulan never move the Frog
    CARD_SHOWN = "card-shown"  # Crystal Clear: shown cards cannot be picked at random
    # Outcome of a trick entered at the table.
    WRONG_WINNER = "wrong-winner"


@dataclass(frozen=True, slots=True)
class Violation:
    """One broken rule: ``code`` by ``seat`` with ``card``, under the rule ``rule`` (a slug)."""

    code: ViolationCode
    seat: int | None = None
    card: Card | None = None
    rule: str = BASIC

    def __str__(self) -> str:
        parts = [self.code.value]
        if self.seat is not None:
            parts.append(f"seat {self.seat}")
        if self.card is not None:
            parts.append(str(self.card))
        if self.rule != BASIC:
            parts.append(f"({self.rule})")
        return " ".join(parts)


class EngineError(ValueError):
    """Base of every error the rules engine raises."""


class InvalidEntryError(EngineError):
    """Malformed input: an unknown card, a wrong card count, a duplicate, a bad notation."""

    def __init__(self, message: str, code: ViolationCode | None = None) -> None:
        super().__init__(message)
        self.code = code


class IllegalTrickError(EngineError):
    """Well-formed input that breaks the rules; ``violations`` lists every problem found."""

    def __init__(self, message: str, violations: Iterable[Violation]) -> None:
        self.violations = list(violations)
        detail = "; ".join(str(v) for v in self.violations)
        super().__init__(f"{message}: {detail}" if detail else message)


class AmbiguousEntryError(EngineError):
    """Input with more than one reading (e.g. a power without its target): ask the player."""
