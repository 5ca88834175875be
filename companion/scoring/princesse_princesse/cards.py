"""The 21 Personnage cards of Love Letter « Princesse Princesse » and the player-count table.

Rulebook (seed 002), « Matériel » and « Effets des cartes »: 21 character cards, values 0 to 9. The
number of copies of each character is printed as dots on the cards, not in the text; the copies
below come from ``shared/rules/PRINCESSE_PRINCESSE.md`` (« Cards ») and add up to the 21 cards.

Everything that varies with the character (copies, names, who it may target) or with the number
of players (favour tokens needed, cards set aside) is declared once here; the rest of the core
reads it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType
from typing import Any

from companion.scoring.problems import EntryError, Problem

from .problems import CATALOGUE

MIN_VALUE, MAX_VALUE = 0, 9
DECK_SIZE = 21
MIN_PLAYERS, MAX_PLAYERS = 2, 6


class Targeting(StrEnum):
    """Whom a character's effect is aimed at when it is played."""

    NONE = "none"  # no target: Claire, Oliver, Princesses, Céleste, Ogre
    OTHER = "other"  # another player in and unprotected: Garde, Conseillers, Bibliothécaire, Roi
    ANY = "any"  # any player still in and not protected, yourself included: Vladric


@dataclass(frozen=True)
class Character:
    """One character: its value, how many copies the deck holds, its names and its targeting."""

    value: int
    slug: str
    name_fr: str
    name_en: str
    copies: int
    targeting: Targeting

    def name(self, lang: str = "en") -> str:
        """The printed name in French for ``fr``, the English name otherwise."""
        return self.name_fr if lang.lower().startswith("fr") else self.name_en

    def __str__(self) -> str:
        return f"{self.value} {self.name_fr}"


# Rulebook « Effets des cartes » (values and effects); copies from PRINCESSE_PRINCESSE.md « Cards ».
CHARACTERS: tuple[Character, ...] = (
    Character(0, "claire", "Claire l'espionne", "Claire the Spy", 2, Targeting.NONE),
    Character(1, "garde", "Garde", "Guard", 6, Targeting.OTHER),
    Character(2, "conseillers", "Conseillers du roi", "King's Advisors", 2, Targeting.OTHER),
    Character(3, "bibliothecaire", "Bibliothécaire du palais", "Palace Librarian", 2,
              Targeting.OTHER),
    Character(4, "oliver", "Oliver le dragon", "Oliver the Dragon", 2, Targeting.NONE),
    Character(5, "vladric", "Prince Vladric", "Prince Vladric", 2, Targeting.ANY),
    Character(6, "princesses", "Princesses Amira & Sadie", "Princesses Amira & Sadie", 2,
              Targeting.NONE),
    Character(7, "roi-fantome", "Roi fantôme", "Ghost King", 1, Targeting.OTHER),
    Character(8, "celeste", "Céleste la licorne", "Celeste the Unicorn", 1, Targeting.NONE),
    Character(9, "ogre", "Ogre", "Ogre", 1, Targeting.NONE),
)

SPY, GARDE, CONSEILLERS, BIBLIOTHECAIRE, OLIVER, VLADRIC, PRINCESSES, ROI, CELESTE, OGRE = range(10)

# « Céleste la licorne »: she must be played when the other card of your hand is one of these.
CELESTE_FORCED_BY: frozenset[int] = frozenset({ROI, VLADRIC})
# « Garde »: name any character other than the Garde (the Spy included, PRINCESSE_PRINCESSE.md).
GARDE_NAMEABLE: tuple[int, ...] = tuple(c.value for c in CHARACTERS if c.value != GARDE)

COPIES: Mapping[int, int] = MappingProxyType({c.value: c.copies for c in CHARACTERS})
assert sum(COPIES.values()) == DECK_SIZE


def character(value: int) -> Character:
    """The character of ``value`` (0–9); raises :class:`EntryError` ``value-out-of-range``."""
    if not is_value(value):
        raise EntryError(CATALOGUE.problem("value-out-of-range", value=value))
    return CHARACTERS[value]


def is_value(value: object) -> bool:
    """True for an int from 0 to 9 (``bool`` is not a card value)."""
    return (isinstance(value, int) and not isinstance(value, bool)
            and MIN_VALUE <= value <= MAX_VALUE)


def card_params(value: int) -> dict[str, Any]:
    """The fields a problem about card ``value`` carries: ``card`` (the value as text), ``value``
    and the printed names ``name_en`` / ``name_fr`` that the messages use."""
    known = is_value(value)
    return {"card": str(value), "value": value,
            "name_en": CHARACTERS[value].name_en if known else str(value),
            "name_fr": CHARACTERS[value].name_fr if known else str(value)}


def deck() -> tuple[int, ...]:
    """The 21 card values of a full deck, lowest first (six 1s, one 9 …)."""
    return tuple(c.value for c in CHARACTERS for _ in range(c.copies))


def copy_problems(values: Iterable[int], *,
                  extra: Mapping[int, int] | None = None) -> list[Problem]:
    """A ``too-many-copies`` problem for every value seen more often than the deck holds it.

    ``values`` are card values known to be distinct physical cards; ``extra`` adds counts by value.
    Values outside 0–9 are ignored here (they are reported as ``value-out-of-range`` elsewhere).
    """
    counts = dict.fromkeys(range(MIN_VALUE, MAX_VALUE + 1), 0)
    for value in values:
        if is_value(value):
            counts[value] += 1
    for value, count in (extra or {}).items():
        counts[value] += count
    return [CATALOGUE.problem("too-many-copies", count=count, copies=COPIES[value],
                              **card_params(value))
            for value, count in counts.items() if count > COPIES[value]]


@dataclass(frozen=True)
class PlayerCount:
    """What depends on the number of players: favour tokens needed and cards set aside."""

    players: int
    tokens_needed: int
    face_down: int = 1  # « Mise en place »: one card set aside face down, unseen
    face_up: int = 0  # « Mise en place »: at two players, three more set aside face up

    @property
    def deck_after_deal(self) -> int:
        """Cards left in the draw pile once the cards are set aside and one is dealt to each."""
        return DECK_SIZE - self.face_down - self.face_up - self.players


# Rulebook « Remporter la partie » (tokens) and « Mise en place » (cards set aside).
PLAYER_COUNTS: Mapping[int, PlayerCount] = MappingProxyType({
    2: PlayerCount(2, tokens_needed=6, face_up=3),
    3: PlayerCount(3, tokens_needed=5),
    4: PlayerCount(4, tokens_needed=4),
    5: PlayerCount(5, tokens_needed=3),
    6: PlayerCount(6, tokens_needed=3),
})


def player_count(players: int) -> PlayerCount:
    """The row of :data:`PLAYER_COUNTS`; raises :class:`EntryError` ``players-out-of-range``."""
    problem = player_count_problem(players)
    if problem is not None:
        raise EntryError(problem)
    return PLAYER_COUNTS[players]


def player_count_problem(players: object) -> Problem | None:
    """``players-out-of-range`` unless ``players`` is a whole number from 2 to 6."""
    if isinstance(players, int) and not isinstance(players, bool) and players in PLAYER_COUNTS:
        return None
    return CATALOGUE.problem("players-out-of-range", value=players, low=MIN_PLAYERS,
                             high=MAX_PLAYERS)


def tokens_needed(players: int) -> int:
    """Favour tokens that win the game with ``players`` players (2: 6, 3: 5, 4: 4, 5–6: 3)."""
    return player_count(players).tokens_needed
