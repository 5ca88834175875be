"""The rules a game is played with: the standard rules (A) and the variants G, H, Q, B and C.

Everything a variant changes is one field of :class:`Rules`, and each variant is one row of
:data:`VARIANTS` saying which fields it sets (rulebook 004, « Variantes »; KANAI_DUEL.md « Variants
the app offers »):

- G « Impatience »: 3 wins instead of 4 (``wins_needed``).
- H « Nombres »: every ability ignored, or every ability but the Clown's and the Minister's
  (``abilities``).
- Q « Jusqu'à l'aube »: all the cards are played, the most wins wins, equal is a draw
  (``until_dawn``).
- B « Sept » / C « Envie de voyager »: one card per player is out of play, chosen and shown (B) or
  drawn at random and kept hidden (C), so a game has 7 rounds (``set_aside``).

The mini-games S–Z are other games and out of scope; D–F, I–P and R are not offered.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from types import MappingProxyType
from typing import Any

from companion.scoring.problems import EntryError, Problem

from .abilities import Abilities
from .cards import HAND
from .problems import CATALOGUE

__all__ = ["DuelSetAside", "MAX_WINS_NEEDED", "RULES", "Rules", "VARIANTS", "Variant", "variant"]

STANDARD_WINS = 4
MAX_WINS_NEEDED = len(HAND)
"""A target above the number of rounds could only be reached with Ministers; 1 to 8 is offered."""


class DuelSetAside(StrEnum):
    """Cards out of play before the game: none, one chosen and shown (B), one at random (C)."""

    NONE = "none"
    CHOSEN = "chosen"
    RANDOM = "random"

    def __repr__(self) -> str:
        return f"DuelSetAside.{self.name}"


@dataclass(frozen=True)
class Rules:
    """The rules of one game. ``Rules()`` is the standard game (rule A)."""

    wins_needed: int = STANDARD_WINS
    abilities: Abilities = Abilities.ALL
    until_dawn: bool = False
    set_aside: DuelSetAside = DuelSetAside.NONE

    @property
    def rounds(self) -> int:
        """How many rounds a game can last: one per card in hand (7 with a card set aside)."""
        return len(HAND) - (0 if self.set_aside is DuelSetAside.NONE else 1)

    @property
    def variants(self) -> tuple[Variant, ...]:
        """The variants these rules amount to, in the rulebook's order."""
        return tuple(v for v in VARIANTS.values()
                     if all(getattr(self, key) == value for key, value in v.sets.items()))

    def check(self) -> list[Problem]:
        """Every problem with these rules (never raises): a target outside 1-8 wins."""
        problems: list[Problem] = []
        if isinstance(self.wins_needed, bool) or not isinstance(self.wins_needed, int) or not (
                1 <= self.wins_needed <= MAX_WINS_NEEDED):
            problems.append(CATALOGUE.problem("bad-wins-needed", value=self.wins_needed,
                                              most=MAX_WINS_NEEDED))
        return problems

    @classmethod
    def with_variants(cls, slugs: Iterable[str]) -> Rules:
        """The standard rules changed by the variants named by ``slugs`` (see :data:`VARIANTS`).

        Raises :class:`EntryError`: ``unknown-variant``, or ``variants-conflict`` for two variants
        that set the same thing differently (both forms of H, B with C, G with Q).
        """
        problems: list[Problem] = []
        chosen: list[Variant] = []
        for slug in slugs:
            found = VARIANTS.get(slug)
            if found is None:
                problems.append(CATALOGUE.problem("unknown-variant", variant=slug))
            elif found not in chosen:
                chosen.append(found)
        for i, first in enumerate(chosen):
            for second in chosen[i + 1:]:
                if first.conflicts_with(second):
                    problems.append(CATALOGUE.problem(
                        "variants-conflict", first=first.letter, second=second.letter))
        if problems:
            raise EntryError(problems)
        rules = cls()
        for chosen_variant in chosen:
            rules = replace(rules, **chosen_variant.sets)
        return rules


@dataclass(frozen=True)
class Variant:
    """One variant the app offers: its letter in the rulebook, a slug (also its rulings entry),
    its printed French name, an English name, and the :class:`Rules` fields it sets."""

    letter: str
    slug: str
    name_fr: str
    name_en: str
    sets: Mapping[str, Any] = field(default_factory=dict)
    also_touches: frozenset[str] = frozenset()
    """Fields it makes meaningless (Q ignores the number of wins needed)."""

    def name(self, lang: str = "en") -> str:
        return self.name_fr if lang.lower().startswith("fr") else self.name_en

    def conflicts_with(self, other: Variant) -> bool:
        mine = set(self.sets) | self.also_touches
        theirs = set(other.sets) | other.also_touches
        return bool(mine & theirs)


def _variant(letter: str, slug: str, name_fr: str, name_en: str, touches: Iterable[str] = (),
             **sets: Any) -> Variant:
    return Variant(letter, slug, name_fr, name_en, MappingProxyType(sets), frozenset(touches))


VARIANTS: Mapping[str, Variant] = MappingProxyType({v.slug: v for v in (
    _variant("B", "seven", "Sept", "Seven", set_aside=DuelSetAside.CHOSEN),
    _variant("C", "wanderlust", "Envie de voyager", "Wanderlust", set_aside=DuelSetAside.RANDOM),
    _variant("G", "impatience", "Impatience", "Impatience", wins_needed=3),
    _variant("H", "numbers", "Nombres", "Numbers", abilities=Abilities.NONE),
    _variant("H", "numbers-clown-minister", "Nombres : Clown / Minister",
             "Numbers: Clown / Minister", abilities=Abilities.CLOWN_MINISTER),
    _variant("Q", "until-dawn", "Jusqu'à l'aube", "Until Dawn", touches=("wins_needed",),
             until_dawn=True),
)})
"""The variants offered, by slug, in the rulebook's letter order."""

RULES = Rules()
"""The standard rules (rule A): all abilities, first to 4 wins, 8 rounds at most."""


def variant(slug: str) -> Variant:
    """The variant named ``slug``; raises ``KeyError`` if there is none."""
    return VARIANTS[slug]
