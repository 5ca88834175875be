"""The eight characters of each hand, their values and their names.

Each player holds the same eight characters in their colour (rulebook 004, « Préparation »): Prince,
Princess, General, Wizard, Minister, Assassin, Spy and Clown. The Blue and Red Princes and
Princesses have the same effects, so the app does not tell the colours apart. The rulebook lost its
value list; the values are those of KANAI_DUEL.md « Cards » (the original game's, and the only ones
consistent with the rulebook's pair ranking « 71 > 77~70 », variant X).

A card's notation is its lowercase English name (``"spy"``), as in the JSON API.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from companion.scoring.problems import EntryError

from .problems import CATALOGUE

__all__ = ["CARDS", "CardInfo", "DuelCard", "HAND", "card_words", "parse_card"]


class DuelCard(StrEnum):
    """One character; its value is its notation (lowercase English name)."""

    PRINCE = "prince"
    GENERAL = "general"
    WIZARD = "wizard"
    MINISTER = "minister"
    ASSASSIN = "assassin"
    SPY = "spy"
    PRINCESS = "princess"
    CLOWN = "clown"

    @property
    def info(self) -> CardInfo:
        return CARDS[self]

    @property
    def strength(self) -> int:
        """The value printed on the card (« la force du personnage »), 0 to 7."""
        return CARDS[self].strength

    def label(self, lang: str = "en") -> str:
        """The printed name: English, or the French name the rulebook gives in brackets."""
        return CARDS[self].names[_lang(lang)]

    def the(self, lang: str = "en") -> str:
        """The name with its definite article (« l'Assassin », "the Assassin")."""
        return CARDS[self].the[_lang(lang)]

    def plural(self, lang: str = "en") -> str:
        """The plural name ("Spies", « Espions »)."""
        return CARDS[self].plurals[_lang(lang)]

    def __repr__(self) -> str:
        return f"DuelCard.{self.name}"


@dataclass(frozen=True)
class CardInfo:
    """What is printed on a card: its value and its names (en, fr)."""

    card: DuelCard
    strength: int
    names: dict[str, str]
    the: dict[str, str]
    plurals: dict[str, str]


def _info(card: DuelCard, strength: int, en: str, fr: str, the_fr: str, plural_en: str,
          plural_fr: str) -> CardInfo:
    return CardInfo(card, strength, {"en": en, "fr": fr}, {"en": f"the {en}", "fr": the_fr},
                    {"en": plural_en, "fr": plural_fr})


# The one table of values and names (KANAI_DUEL.md « Cards »; French names from rulebook 004,
# « Préparation »: General (Général), Wizard (Magicien), Minister (Prêtre / Ministre),
# Spy (Espion)).
CARDS: dict[DuelCard, CardInfo] = {info.card: info for info in (
    _info(DuelCard.PRINCE, 7, "Prince", "Prince", "le Prince", "Princes", "Princes"),
    _info(DuelCard.GENERAL, 6, "General", "Général", "le Général", "Generals", "Généraux"),
    _info(DuelCard.WIZARD, 5, "Wizard", "Magicien", "le Magicien", "Wizards", "Magiciens"),
    _info(DuelCard.MINISTER, 4, "Minister", "Ministre", "le Ministre", "Ministers", "Ministres"),
    _info(DuelCard.ASSASSIN, 3, "Assassin", "Assassin", "l'Assassin", "Assassins", "Assassins"),
    _info(DuelCard.SPY, 2, "Spy", "Espion", "l'Espion", "Spies", "Espions"),
    _info(DuelCard.PRINCESS, 1, "Princess", "Princesse", "la Princesse", "Princesses",
          "Princesses"),
    _info(DuelCard.CLOWN, 0, "Clown", "Clown", "le Clown", "Clowns", "Clowns"),
)}

HAND: frozenset[DuelCard] = frozenset(DuelCard)
"""Every player's hand at the start of a game: the eight characters."""


def _lang(lang: str) -> str:
    return "fr" if lang.lower().startswith("fr") else "en"


def parse_card(text: object, *, seat: int | None = None, round: int | None = None) -> DuelCard:
    """The card whose notation is ``text`` (case and surrounding spaces do not matter).

    Raises :class:`EntryError` with code ``unknown-card`` for anything else (also for a non-string).
    """
    if isinstance(text, str):
        try:
            return DuelCard(text.strip().lower())
        except ValueError:
            pass
    raise EntryError(CATALOGUE.problem("unknown-card", seat=seat, card=str(text), round=round))


def card_words(card: DuelCard) -> dict[str, str]:
    """A card's names as problem parameters: ``{name_en}`` ("General"), ``{the_fr}``
    (« le Général ») and so on, since a problem's parameters do not depend on the language."""
    info = CARDS[card]
    return {"name_en": info.names["en"], "name_fr": info.names["fr"],
            "the_en": info.the["en"], "the_fr": info.the["fr"]}
