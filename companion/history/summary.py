"""What a game came to, in terms the shell understands without knowing the game.

Each game's glue (``GLUE`` in ``companion/play/<key>.py``, ``GameKind.glue()``) gives
``summary(session, game) -> GameSummary``. The shell's history, statistics, charts, CSV export
and BG Stats link read only this: whether the game is finished, who won, each seat's score and
how it grew, and a few facts the game wants counted. A game without glue is simply not
in the history.

Words never travel as translated text: a fact's ``label`` is its English message id, marked with
:func:`N_` where it is written so that ``make messages`` extracts it into that game's catalogue,
and translated where it is shown.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from typing import NamedTuple


def N_(message: str) -> str:  # gettext's conventional name for "mark only"
    """Mark ``message`` for translation without translating it (it is translated when shown)."""
    return message


class ScoreUnit(StrEnum):
    """What a game's score counts."""

    POINTS = "points"
    TOKENS = "tokens"
    ROUND_WINS = "round-wins"


class StepUnit(StrEnum):
    """What one step of the running totals is: a round, or one action of a turn."""

    ROUND = "round"
    TURN = "turn"


class Aggregate(StrEnum):
    """How a fact adds up over many games of one player."""

    TOTAL = "total"  # summed: "Rebel of the Ball: 3"
    MEAN_WHEN_WON = "mean-when-won"  # averaged over the games the player won


# Read back by value without calling the enum (a dict lookup: 1,000 summaries per page).
_UNITS = {unit.value: unit for unit in ScoreUnit}
_STEPS = {step.value: step for step in StepUnit}
_AGGREGATES = {aggregate.value: aggregate for aggregate in Aggregate}


class Fact(NamedTuple):
    """One thing a game counts per seat, e.g. ``Fact("rebel-of-the-ball", N_("Rebel of the
    Ball"), (0, 1, 0, 0))``. ``key`` is stable (tests and pages' ``data-fact`` use it).

    A named tuple rather than a frozen dataclass: a statistics page reads a few thousand of
    them back from the cache, and a tuple is built five times faster."""

    key: str
    label: str
    values: tuple[int, ...]
    aggregate: Aggregate = Aggregate.TOTAL


@dataclass(frozen=True)
class GameSummary:
    """A game as history and statistics see it.

    - ``finished``: the game is over (only finished games count in statistics).
    - ``winners``: the seats that won (several on a shared win, none on a draw).
    - ``scores``: each seat's final score, counted in ``unit``; ``lower_wins`` when the lowest
      score is best (then "best score" is the lowest).
    - ``progress``: the running totals after each step (a round, or a turn's action: ``step``),
      one tuple per step, one value per seat; the chart starts from zero before the first.
    - ``facts``: what the game counts besides the score.
    - ``first``: the seat that started (BG Stats' start player), if the game has one.
    """

    finished: bool
    winners: tuple[int, ...]
    scores: tuple[int, ...]
    unit: ScoreUnit = ScoreUnit.POINTS
    lower_wins: bool = False
    progress: tuple[tuple[int, ...], ...] = ()
    step: StepUnit = StepUnit.ROUND
    facts: tuple[Fact, ...] = ()
    first: int | None = None

    @property
    def players(self) -> int:
        return len(self.scores)

    def ranks(self) -> tuple[int, ...]:
        """Each seat's place: winners are 1st; the others by score (equal scores share a
        place), after every winner."""
        better: Callable[[float, float], bool] = (
            (lambda a, b: a < b) if self.lower_wins else (lambda a, b: a > b))
        ranks = []
        for seat, score in enumerate(self.scores):
            if seat in self.winners:
                ranks.append(1)
                continue
            ahead = sum(1 for other, s in enumerate(self.scores)
                        if other != seat and (other in self.winners or better(s, score)))
            ranks.append(1 + ahead)
        return tuple(ranks)

    def fact(self, key: str) -> Fact | None:
        return next((f for f in self.facts if f.key == key), None)

    # --- the cached form (companion.models.GameResult: ``data`` and ``progress``) -----------

    def to_json(self) -> str:
        """Everything but the running totals (statistics read this for every game)."""
        return json.dumps({
            "finished": self.finished, "winners": list(self.winners),
            "scores": list(self.scores), "unit": str(self.unit), "lower_wins": self.lower_wins,
            "step": str(self.step),
            "facts": [{"key": f.key, "label": f.label, "values": list(f.values),
                       "aggregate": str(f.aggregate)} for f in self.facts],
            "first": self.first}, ensure_ascii=False, sort_keys=True)

    def progress_json(self) -> str:
        return json.dumps([list(step) for step in self.progress])

    @classmethod
    def from_json(cls, text: str, progress: str | None = None) -> GameSummary:
        """A summary from :meth:`to_json` (and :meth:`progress_json`; without it the running
        totals are left empty: statistics do not need them)."""
        data = json.loads(text)
        return cls(
            finished=data["finished"], winners=tuple(data["winners"]),
            scores=tuple(data["scores"]), unit=_UNITS[data["unit"]],
            lower_wins=data["lower_wins"],
            progress=tuple(map(tuple, json.loads(progress))) if progress else (),
            step=_STEPS[data["step"]],
            facts=tuple(Fact(f["key"], f["label"], tuple(f["values"]),
                             _AGGREGATES[f["aggregate"]]) for f in data["facts"]),
            first=data.get("first"))


def running_totals(steps: Sequence[Sequence[int]]) -> tuple[tuple[int, ...], ...]:
    """Running totals from what each step gave each seat: ``[(1, 0), (0, 2)]`` →
    ``((1, 0), (1, 2))``."""
    totals: list[tuple[int, ...]] = []
    for step in steps:
        before = totals[-1] if totals else (0,) * len(step)
        totals.append(tuple(a + b for a, b in zip(before, step, strict=True)))
    return tuple(totals)


def utc(value: datetime) -> datetime:
    """A stored time as an aware UTC time (SQLite and PostgreSQL give them back naive or aware;
    both are UTC)."""
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
