"""The material of « Réveillez les 12 princesses » as data, and the two small card value types.

Rulebook (seed 003), « Matériel » and « Mise en place »: 79 cards. 12 princesses (purple backs)
sleep face down in the centre of the table, in 4 columns of 3. The 67 other cards (red backs) are
8 princes, 5 jesters (bouffons), 4 knights (chevaliers), 4 potions, 3 wands (baguettes), 3 dragons
and four of each number from 1 to 10. Everyone holds 5 cards and refills to 5 at the end of a turn.

Everything that depends on the number of players is in :data:`TARGETS` (« But du jeu » and « Fin du
jeu »: 5 princesses or 50 points with 2 or 3 players, 4 princesses or 40 points with 4 or 5).

*Princess values.* The rulebook gives only the Rose's value (5 points) and names the Dog and the
Cat. The app does not invent a value table (REVEILLEZ.md, « Material »): a :class:`PrincessCard`
is the value printed on one princess as the players read it, with an optional name. The names
``rose``, ``chien`` and ``chat`` are the ones the variant needs; any other short name is kept as
typed.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType

from companion.scoring.problems import EntryError, Problem

from .problems import CATALOGUE

# --------------------------------------------------------------------------- the table

PRINCESSES = 12
"""Princesses in a game; awake + asleep always make 12."""
COLUMNS = 4
ROWS = 3
SLOTS = tuple(range(PRINCESSES))
"""The places of the centre grid, 0–11, row by row (``slot = row * COLUMNS + column``)."""
GRID = tuple(tuple(range(row * COLUMNS, (row + 1) * COLUMNS)) for row in range(ROWS))
"""The centre as the players see it: 3 rows of 4 slots (4 columns of 3)."""
HAND_SIZE = 5
"""Cards in a hand; a hand is refilled to 5 at the end of every turn."""


@dataclass(frozen=True, slots=True)
class Target:
    """What a player needs to win at once: this many princesses **or** this many points."""

    princesses: int
    points: int

    def as_dict(self) -> dict[str, int]:
        return {"princesses": self.princesses, "points": self.points}


TARGETS: MappingProxyType[int, Target] = MappingProxyType({
    2: Target(princesses=5, points=50),
    3: Target(princesses=5, points=50),
    4: Target(princesses=4, points=40),
    5: Target(princesses=4, points=40),
})
"""The winning thresholds by number of players; its keys are the allowed player counts."""
MIN_PLAYERS = min(TARGETS)
MAX_PLAYERS = max(TARGETS)

MIN_VALUE = 1
MAX_VALUE = 50
"""Printed princess values the app accepts: whole numbers 1–50 (our bound; the usual ones are
5, 10, 15 and 20, and nothing above the largest threshold makes sense)."""
USUAL_VALUES = (5, 10, 15, 20)
"""The values the table screen offers as buttons (REVEILLEZ.md); another one may be typed."""
NAME_LENGTH = 30
"""Longest princess name the app keeps."""


def target(players: int) -> Target:
    """The thresholds for ``players`` players; raises EntryError ``players-range`` otherwise."""
    problems = check_players(players)
    if problems:
        raise EntryError(problems)
    return TARGETS[players]


def check_players(players: object) -> list[Problem]:
    """``[players-range]`` unless ``players`` is a whole number of players the game allows."""
    if isinstance(players, int) and not isinstance(players, bool) and players in TARGETS:
        return []
    return [CATALOGUE.problem("players-range", given=players, low=MIN_PLAYERS, high=MAX_PLAYERS)]


# --------------------------------------------------------------------------- red-backed cards

class PowerCard(StrEnum):
    """The power cards, by their French printed names (the JSON API's spelling)."""

    PRINCE = "prince"
    CHEVALIER = "chevalier"
    DRAGON = "dragon"
    POTION = "potion"
    BAGUETTE = "baguette"
    BOUFFON = "bouffon"


NUMBERS = range(1, 11)
"""Number cards go from 1 to 10."""
COPIES_OF_EACH_NUMBER = 4
POWER_COPIES: MappingProxyType[PowerCard, int] = MappingProxyType({
    PowerCard.PRINCE: 8, PowerCard.BOUFFON: 5, PowerCard.CHEVALIER: 4, PowerCard.POTION: 4,
    PowerCard.BAGUETTE: 3, PowerCard.DRAGON: 3,
})
"""How many of each power card the deck holds (« Matériel »)."""


@dataclass(frozen=True, slots=True, order=True)
class ReveillezCard:
    """One red-backed card: a number 1–10 or a power card. ``str()`` gives its notation back
    (``"6"``, ``"chevalier"``); :meth:`parse` reads it."""

    number: int | None = None
    power: PowerCard | None = None

    def __post_init__(self) -> None:
        if (self.number is None) == (self.power is None):
            raise ValueError("a card is either a number or a power card")

    @property
    def is_number(self) -> bool:
        return self.number is not None

    @property
    def is_power(self) -> bool:
        return self.power is not None

    @classmethod
    def parse(cls, value: object) -> ReveillezCard:
        """A card from its notation: an int 1–10, a numeric string, or a French power name
        (case and accents ignored). Raises EntryError ``number-range`` or ``unknown-card``."""
        card, problem = read_card(value)
        if problem is not None:
            raise EntryError(problem)
        assert card is not None
        return card

    def as_json(self) -> int | str:
        """The JSON API's spelling: the number, or the French power name."""
        return self.number if self.number is not None else str(self.power)

    def __str__(self) -> str:
        return str(self.as_json())

    def __repr__(self) -> str:
        return f"ReveillezCard.parse({self.as_json()!r})"


def deck() -> list[ReveillezCard]:
    """The 67 red-backed cards, in a fixed order (shuffle a copy to play)."""
    cards = [ReveillezCard(number=n) for n in NUMBERS for _ in range(COPIES_OF_EACH_NUMBER)]
    cards += [ReveillezCard(power=power) for power, copies in POWER_COPIES.items()
              for _ in range(copies)]
    return cards


def _fold(text: str) -> str:
    """Lower case without accents or surrounding blanks, for lenient name matching."""
    decomposed = unicodedata.normalize("NFKD", text.strip().lower())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def read_card(value: object) -> tuple[ReveillezCard | None, Problem | None]:
    """The card ``value`` stands for, or the problem with it (never raises)."""
    if isinstance(value, ReveillezCard):
        return value, None
    if isinstance(value, bool):
        return None, CATALOGUE.problem("unknown-card", given=value)
    if isinstance(value, int):
        if value in NUMBERS:
            return ReveillezCard(number=value), None
        return None, CATALOGUE.problem("number-range", given=value)
    if isinstance(value, str):
        folded = _fold(value)
        if folded.lstrip("-").isdigit():
            return read_card(int(folded))
        try:
            return ReveillezCard(power=PowerCard(folded)), None
        except ValueError:
            pass
    return None, CATALOGUE.problem("unknown-card", given=value)


def read_cards(values: Iterable[object]) -> tuple[tuple[ReveillezCard, ...], list[Problem]]:
    """Each value read as a :class:`ReveillezCard`, and a problem for every one that is not a
    card."""
    cards: list[ReveillezCard] = []
    problems: list[Problem] = []
    for value in values:
        card, problem = read_card(value)
        if card is not None:
            cards.append(card)
        if problem is not None:
            problems.append(problem)
    return tuple(cards), problems


# --------------------------------------------------------------------------- princesses

class Special(StrEnum):
    """The princesses the variant « caprices de princesses » needs to recognise."""

    ROSE = "rose"
    DOG = "chien"
    CAT = "chat"

    @property
    def other_pet(self) -> Special | None:
        """The Dog for the Cat and the Cat for the Dog; None for the Rose."""
        return {Special.DOG: Special.CAT, Special.CAT: Special.DOG}.get(self)


ROSE_VALUE = 5
"""« La Princesse Rose, qui ne vaut que 5 points » (variant section)."""

_SPECIAL_NAMES = {
    "rose": Special.ROSE, "princesse rose": Special.ROSE, "rose princess": Special.ROSE,
    "chien": Special.DOG, "princesse chien": Special.DOG, "dog": Special.DOG,
    "dog princess": Special.DOG,
    "chat": Special.CAT, "princesse chat": Special.CAT, "cat": Special.CAT,
    "cat princess": Special.CAT,
}


def normalise_name(name: str | None) -> str | None:
    """A princess name as stored: ``None`` for a blank one, ``rose``/``chien``/``chat`` for the
    three the variant knows (in French or English, with or without « princesse »), otherwise the
    name with its blanks tidied."""
    if name is None:
        return None
    tidy = " ".join(name.split())
    if not tidy:
        return None
    special = _SPECIAL_NAMES.get(_fold(tidy))
    return str(special) if special is not None else tidy


@dataclass(frozen=True, slots=True)
class PrincessCard:
    """What is printed on one princess as the players read it: her value and, if they named her,
    her name. ``str()`` gives the notation (``10``, ``5:rose``, ``15:Princesse des crêpes``)."""

    value: int
    name: str | None = None

    @property
    def special(self) -> Special | None:
        """The Rose, the Dog or the Cat, if she is one of them."""
        try:
            return Special(self.name) if self.name is not None else None
        except ValueError:
            return None

    @classmethod
    def make(cls, value: object, name: str | None = None) -> PrincessCard:
        """A princess from a tapped value and an optional name; raises EntryError
        (``princess-value``, ``name-too-long``, ``rose-value``)."""
        card, problems = read_princess(value, name)
        if problems:
            raise EntryError(problems)
        assert card is not None
        return card

    @classmethod
    def parse(cls, text: str) -> PrincessCard:
        """Read the notation ``value[:name]``; raises EntryError."""
        value, _, name = text.partition(":")
        number: object = int(value) if value.strip().lstrip("-").isdigit() else value
        return cls.make(number, name or None)

    def __str__(self) -> str:
        return f"{self.value}" if self.name is None else f"{self.value}:{self.name}"


def check_value(value: object) -> list[Problem]:
    """``[princess-value]`` unless ``value`` is a whole number from 1 to 50."""
    if isinstance(value, int) and not isinstance(value, bool) and MIN_VALUE <= value <= MAX_VALUE:
        return []
    return [CATALOGUE.problem("princess-value", given=value, low=MIN_VALUE, high=MAX_VALUE)]


def read_princess(value: object, name: str | None = None
                  ) -> tuple[PrincessCard | None, list[Problem]]:
    """A :class:`PrincessCard` and every problem with the entry (never raises)."""
    problems = check_value(value)
    stored = normalise_name(name)
    if stored is not None and len(stored) > NAME_LENGTH:
        problems.append(CATALOGUE.problem("name-too-long", limit=NAME_LENGTH))
    if stored == Special.ROSE and not problems and value != ROSE_VALUE:
        # Rulebook, variant: the Rose is worth only 5 points.
        problems.append(CATALOGUE.problem("rose-value", given=value, value=ROSE_VALUE))
    if problems:
        return None, problems
    assert isinstance(value, int)
    return PrincessCard(value, stored), []
