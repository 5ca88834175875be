"""The steps of a round's reasoning, as data, and their sentences in English and French.

A :class:`Step` is a code with parameters (the seat it is about, a card, numbers). Its
sentence comes from ``steps.toml`` (an English ``[messages]`` and a French ``[messages_fr]``
table keyed by code), and its :attr:`Step.ruling` names the rulings entry that explains it, so a
screen can link each step. Joined with arrows, a round reads like "Wizard cancels the Assassin →
5 against 3+2 = 5 → on hold".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from functools import lru_cache
from types import MappingProxyType
from typing import Any

from .cards import DuelCard
from .problems import STEPS

__all__ = ["Step", "StepCode", "render_steps"]


class StepCode(StrEnum):
    """Every kind of step, in the order they can appear in a round."""

    NUMBERS_ONLY = "numbers-only"                 # variant H: every ability ignored
    NUMBERS_BUT_CLOWN_MINISTER = "numbers-but-clown-minister"
    BONUS = "bonus"                               # a General's +2 from last round
    BONUS_STAYS = "bonus-stays"                   # a Wizard does not remove that +2
    WIZARD_CANCELS = "wizard-cancels"
    TWINS_CANCEL = "twins-cancel"                 # two Princes, two Spies, two Wizards
    CLOWN_CANCELS = "clown-cancels"
    CLOWN_HOLDS = "clown-holds"
    CLOWNS = "clowns"
    PRINCESS = "princess"                         # Princess against Prince: game won
    PRINCE_WINS = "prince-wins"
    ASSASSIN = "assassin"
    COMPARE = "compare"
    HOLD = "hold"
    WINS = "wins"
    MINISTER_WINS = "minister-wins"
    MINISTER_HOLDS = "minister-holds"
    TAKES_HELD = "takes-held"
    SCORES = "scores"
    GENERAL = "general"
    SPY = "spy"
    GAME_WON = "game-won"
    DAWN_WON = "dawn-won"
    DRAW = "draw"
    HELD_LOST = "held-lost"


# The rulings entry that explains each step ("card": the entry of the step's card).
_RULING: Mapping[StepCode, str] = MappingProxyType({
    StepCode.NUMBERS_ONLY: "numbers",
    StepCode.NUMBERS_BUT_CLOWN_MINISTER: "numbers-clown-minister",
    StepCode.BONUS: "general",
    StepCode.BONUS_STAYS: "general",
    StepCode.WIZARD_CANCELS: "wizard",
    StepCode.TWINS_CANCEL: "card",
    StepCode.CLOWN_CANCELS: "clown",
    StepCode.CLOWN_HOLDS: "clown",
    StepCode.CLOWNS: "clown",
    StepCode.PRINCESS: "princess",
    StepCode.PRINCE_WINS: "prince",
    StepCode.ASSASSIN: "assassin",
    StepCode.COMPARE: "resolution-order",
    StepCode.HOLD: "holds",
    StepCode.WINS: "resolution-order",
    StepCode.MINISTER_WINS: "minister",
    StepCode.MINISTER_HOLDS: "minister",
    StepCode.TAKES_HELD: "holds",
    StepCode.SCORES: "points",
    StepCode.GENERAL: "general",
    StepCode.SPY: "spy",
    StepCode.GAME_WON: "game-end",
    StepCode.DAWN_WON: "until-dawn",
    StepCode.DRAW: "game-end",
    StepCode.HELD_LOST: "holds",
})

NEXT_ROUND_CODES = frozenset({StepCode.GENERAL, StepCode.SPY})
"""Steps about the next round: left out when the game ends with the round."""


@dataclass(frozen=True)
class Step:
    """One step of the reasoning: a code, the seat (0 or 1) and card it is about, and numbers.

    ``params`` holds plain values: ``values`` steps carry ``first``/``second`` as
    ``(printed value, bonus)`` pairs; counts and points are ints.
    """

    code: StepCode
    seat: int | None = None
    card: DuelCard | None = None
    params: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}),
                                      compare=False, hash=False)

    @property
    def ruling(self) -> str:
        """The slug of the rulings entry that explains this step."""
        slug = _RULING[self.code]
        if slug == "card":
            assert self.card is not None
            return self.card.value
        return slug

    def text(self, lang: str = "en", names: Sequence[str] | None = None) -> str:
        """The step as a short sentence in ``lang``; ``names`` are the players' names by seat
        (default "player 1" / « joueur 1 »)."""
        return _sentence(self.code, self.seat, self.card, tuple(self.params.items()), lang,
                         None if names is None else tuple(names))

    def __str__(self) -> str:
        return self.text("en")


@lru_cache(maxsize=4096)
def _sentence(code: StepCode, seat: int | None, card: DuelCard | None,
              params: tuple[tuple[str, Any], ...], lang: str,
              names: tuple[str, ...] | None) -> str:
    """:meth:`Step.text`, kept for the steps last worded: a game's page words every round it
    has played each time it is drawn, with the same names (a few thousand sentences: the
    rounds of the games being played)."""
    def player(seat: int) -> str:
        return names[seat] if names is not None else STEPS.text("player", lang, n=seat + 1)

    shown: dict[str, Any] = {
        key: _value(*value) if isinstance(value, tuple) else value for key, value in params}
    if card is not None:
        shown.update(card=card.label(lang), the_card=card.the(lang), cards=card.plural(lang))
    if seat is not None:
        shown["player"] = player(seat)
    return STEPS.text(code.value, lang, **shown)


def _value(strength: int, bonus: int) -> str:
    """``5``, or ``3+2 = 5`` when a General's bonus applies."""
    return f"{strength}+{bonus} = {strength + bonus}" if bonus else str(strength)


def render_steps(steps: Sequence[Step], lang: str = "en",
                 names: Sequence[str] | None = None) -> list[str]:
    """The sentences of ``steps`` in ``lang``."""
    return [step.text(lang, names) for step in steps]
