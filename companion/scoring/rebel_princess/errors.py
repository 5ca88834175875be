"""Errors of the scoring core, on the app's one problem type.

Problems are :class:`companion.scoring.problems.Problem` values: a stable kebab-case ``code`` plus
the seat and card involved. The sentence a player reads is looked up by code in this package's
``messages.toml`` (English ``[messages]``, French ``[messages_fr]``) through :data:`CATALOGUE`,
so text stays out of the logic.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from companion.scoring.problems import Catalogue, EntryError, Problem

__all__ = ["CATALOGUE", "IncompleteEntryError", "InvalidValueError", "Problem", "ScoringError",
           "message_for"]

#: The scoring core's sentences, by problem code, in English and French.
CATALOGUE = Catalogue(__package__)


def message_for(code: str, /, lang: str = "en", **params: Any) -> str:
    """The sentence for a problem code, with its parameters filled in: English (the API and
    ``Problem.message``), or French with ``lang="fr"`` (the French web pages)."""
    return CATALOGUE.text(code, lang, **params)


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
