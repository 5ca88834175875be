"""Errors of the scoring core, on the app's one problem type.

Problems are :class:`companion.scoring.problems.Problem` values: a stable kebab-case ``code`` plus
the seat and card involved. The sentence a player reads is looked up by code through the
catalogue (:mod:`.problems`), so text stays out of the logic.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from companion.scoring.problems import EntryError, Problem

from .problems import CATALOGUE

__all__ = ["IncompleteEntryError", "InvalidValueError", "Problem", "ScoringError"]


class ScoringError(EntryError):
    """Base of every error raised by the scoring core; ``problems`` lists what was found."""


class InvalidValueError(ScoringError):
    """A single malformed value (unknown card, impossible player count, unknown Round card)."""

    def __init__(self, code: str, *, seat: int | None = None, card: str | None = None,
                 **params: Any) -> None:
        self.problem = CATALOGUE.problem(code, seat=seat, card=card, **params)
        super().__init__([self.problem])


class IncompleteEntryError(ScoringError):
    """A round entry that cannot be scored; ``problems`` lists everything found, not just the
    first."""

    def __init__(self, problems: Iterable[Problem]) -> None:
        super().__init__(problems)
