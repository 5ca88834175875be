"""Errors of the scoring core.

Problems are data: a stable kebab-case ``code`` plus the seat and card involved. The sentence a
player reads is looked up from ``messages.toml`` by code, so text stays out of the logic.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any


@cache
def _messages(lang: str = "en") -> dict[str, str]:
    text = resources.files(__package__).joinpath("messages.toml").read_text(encoding="utf-8")
    return dict(tomllib.loads(text)["messages_fr" if lang == "fr" else "messages"])


_FALLBACK = {"en": ("Something in this entry is not right ({code}).", "player {n}", "a player"),
             "fr": ("Quelque chose ne va pas dans cette saisie ({code}).", "joueur {n}",
                    "un joueur")}


def message_for(code: str, /, lang: str = "en", **params: Any) -> str:
    """The sentence for a problem code, with its parameters filled in: English (the API and
    ``Problem.message``), or French with ``lang="fr"`` (the French web pages)."""
    lang = "fr" if lang.lower().startswith("fr") else "en"
    unknown, numbered, anyone = _FALLBACK[lang]
    template = _messages(lang).get(code, unknown)
    shown = {key: ("?" if value is None else value) for key, value in params.items()}
    if isinstance(shown.get("seat"), int):
        shown["player"] = numbered.format(n=shown["seat"] + 1)
    shown.setdefault("player", anyone)
    try:
        return template.format(code=code, **shown)
    except (KeyError, IndexError):
        return template


@dataclass(frozen=True)
class Problem:
    """One thing wrong with an entry: a stable code, the seat and card concerned, and parameters."""

    code: str
    seat: int | None = None
    card: str | None = None
    params: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    @property
    def message(self) -> str:
        return message_for(self.code, seat=self.seat, card=self.card, **self.params)

    def as_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.seat is not None:
            data["seat"] = self.seat
        if self.card is not None:
            data["card"] = self.card
        return data


class ScoringError(ValueError):
    """Base of every error raised by the scoring core."""


class InvalidEntryError(ScoringError):
    """A single malformed value (unknown card, impossible player count, unknown Round card)."""

    def __init__(self, code: str, *, seat: int | None = None, card: str | None = None,
                 **params: Any) -> None:
        self.problem = Problem(code, seat=seat, card=card, params=params)
        super().__init__(f"{code}: {self.problem.message}")

    @property
    def problems(self) -> list[Problem]:
        return [self.problem]


class IncompleteEntryError(ScoringError):
    """A round entry that cannot be scored; ``problems`` lists everything found, not just the
    first."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = problems
        super().__init__("; ".join(f"{p.code}: {p.message}" for p in problems))
