"""The Round card catalogue of each edition, and which cards change scoring.

Deluxe Round cards are lettered a-z, classic ones A-U (the classic letters after J follow
RULINGS.md). ``round_cards.toml`` is the one declaration of each card: its letter, the slug of the
rule it brings (the engine's Round card class reads its letters from here), how it scores, and
its names; the scoring kinds are listed here.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from enum import StrEnum
from functools import cache
from importlib import resources

from .cards import Edition
from .errors import InvalidValueError


class Scoring(StrEnum):
    """How a Round card changes the end-of-round count (``plain``: Princes 1, Frog 5)."""

    PLAIN = "plain"
    THREES = "three-times-a-lady"  # Deluxe d: every 3 is -3
    NO_TRICKS = "arranged-marriage"  # Deluxe e: +5 for no trick won
    PETS = "pets-revenge"  # Deluxe j, classic F: every Pet +1, Frog 6
    KEPT = "kept-cards"  # Deluxe n: the 3 kept cards count as taken
    GIFTS = "wedding-gift"  # Deluxe o, classic M: gift piles count as taken; no Rebel of the Ball
    FAIRIES = "single-fairy"  # Deluxe t, classic P: every Fairy -1
    BATHROOM = "bathroom-break"  # Deluxe y, classic O: Princes 2, except the leaders on points
    DANCING = "dancing-queens"  # Deluxe z, classic K: Prince-Queen couples


@dataclass(frozen=True)
class RoundCard:
    """One Round card of one edition."""

    edition: Edition
    letter: str
    name_en: str
    name_fr: str
    #: The slug of the rule the card brings (the engine's Round card class of that slug).
    rule: str = ""
    #: How it changes the end-of-round count.
    scoring: Scoring = Scoring.PLAIN

    @property
    def slug(self) -> str:
        return f"{self.edition.value}-{self.letter}"

    def name(self, language: str = "en") -> str:
        return self.name_fr if language.startswith("fr") else self.name_en


@cache
def _catalogue() -> dict[Edition, tuple[tuple[RoundCard, ...], tuple[str, ...]]]:
    text = resources.files(__package__).joinpath("round_cards.toml").read_text(encoding="utf-8")
    data = tomllib.loads(text)
    result = {}
    for edition in Edition:
        section = data[edition.value]
        cards = tuple(RoundCard(edition, c["letter"], c["en"], c["fr"], c["rule"],
                                Scoring(c.get("scoring", Scoring.PLAIN)))
                      for c in section["cards"])
        result[edition] = (cards, tuple(section["recommended_first_game"]))
    return result


def parse_edition(value: object) -> Edition:
    """``deluxe`` or ``classic``; raises :class:`InvalidValueError` (``unknown-edition``)
    otherwise."""
    try:
        return Edition(str(value).strip().lower())
    except ValueError:
        raise InvalidValueError("unknown-edition", value=str(value)) from None


def round_cards(edition: Edition) -> tuple[RoundCard, ...]:
    """Every Round card of an edition, in letter order."""
    return _catalogue()[edition][0]


def round_card(edition: Edition, letter: str) -> RoundCard:
    """Look up a Round card by letter. Deluxe letters are lower case, classic upper case; either
    case is accepted. Raises :class:`InvalidValueError` (``unknown-round-card``)."""
    if isinstance(letter, str) and (card := _SPELLINGS[edition].get(letter)) is not None:
        return card  # (a letter as stored or typed: a replay asks ~20 times a save, issue 36)
    card = _by_letter().get((edition, _canonical(edition, letter)))
    if card is None:
        raise InvalidValueError("unknown-round-card", value=str(letter))
    return card


def _canonical(edition: Edition, letter: object) -> str:
    """``letter`` as its edition writes it: without spaces, lower case in Deluxe, upper case in
    the classic."""
    wanted = str(letter).strip()
    return wanted.lower() if edition is Edition.DELUXE else wanted.upper()


@cache
def _by_letter() -> dict[tuple[Edition, str], RoundCard]:
    return {(edition, card.letter): card for edition in Edition for card in round_cards(edition)}


#: Each edition's Round cards by each letter :func:`round_card` accepts without spaces (the
#: edition's letter in either case): found with one look-up.
_SPELLINGS: dict[Edition, dict[str, RoundCard]] = {
    edition: {spelling: card for card in round_cards(edition)
              for spelling in (card.letter, card.letter.swapcase())
              if _canonical(edition, spelling) == card.letter}
    for edition in Edition}


def recommended_first_game(edition: Edition) -> tuple[str, ...]:
    """The rulebook's suggested five Round cards for a first game, in play order."""
    return _catalogue()[edition][1]


def letters_of(rule: str) -> dict[Edition, str]:
    """The letter of the Round card bringing ``rule`` (a slug) in each edition that has it."""
    return {card.edition: card.letter for edition in Edition for card in round_cards(edition)
            if card.rule == rule}


#: Bathroom Break's letter in each edition (the app warns when it is placed first).
BATHROOM_BREAK = {card.edition: card.letter for edition in Edition
                  for card in round_cards(edition) if card.scoring is Scoring.BATHROOM}
