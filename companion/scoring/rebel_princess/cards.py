"""Cards, suits, editions and the deck for each player count.

Rules (Deluxe rulebook "Setup" step 2; French rulebook "Mise en place" step 1):

- Four suits: Princes (P), Queens (Q), Fairies (F) and Pets (A, *Animaux*), ranks 1 to 12.
- 3 players use ranks 2-10 (36 cards), 4 or 5 players ranks 1-10 (40 cards), 6 players ranks 1-12
  (48 cards). Every player gets the same number of cards.
- The Pet 8 is the Frog. It is a Pet, not a Prince.

A card code is the suit letter and the rank: ``P12``, ``Q3``, ``F1``, ``A8`` (the Frog). Lower case
and blanks around the code are accepted; a leading zero (``P01``) or non-ASCII digits are not, so a
code always reads back exactly as the card prints it (our decision; the rulebooks have no codes).
"""

from __future__ import annotations

from enum import StrEnum
from functools import cache
from typing import NamedTuple

from .errors import InvalidValueError

MIN_PLAYERS = 3
MAX_PLAYERS = 6


class Edition(StrEnum):
    """The two editions of Rebel Princess; their rules are never mixed."""

    DELUXE = "deluxe"  # English Deluxe Edition, Round cards a-z, 12 Princesses
    CLASSIC = "classic"  # French base edition *Rebelles Princesses*, Round cards A-U, 10 Princesses


class Suit(StrEnum):
    """A suit, by the letter used in card codes."""

    PRINCE = "P"
    QUEEN = "Q"
    FAIRY = "F"
    PET = "A"


SUIT_ORDER = (Suit.PRINCE, Suit.QUEEN, Suit.FAIRY, Suit.PET)


class RebelCard(NamedTuple):
    """One suited card, immutable. Build it from a code with :meth:`from_code`.

    A named tuple rather than a dataclass: cards are hashed and compared in every set of cards
    and every lookup of the rules engine, and a tuple does both in C. Cards order by suit letter,
    then rank."""

    suit: Suit
    rank: int

    @classmethod
    def from_code(cls, code: str) -> RebelCard:
        """Parse a card code such as ``P12`` or ``a8``.

        Raises :class:`InvalidValueError` (code ``unknown-card``) for anything that is not a suit
        letter followed by a rank from 1 to 12 in ASCII digits without a leading zero.
        """
        text = code.strip().upper() if isinstance(code, str) else ""
        digits = text[1:]
        # ASCII digits only: str.isdigit also accepts "²" (which int() rejects) and other scripts.
        if len(text) < 2 or text[0] not in "PQFA" or not (digits.isascii() and digits.isdigit()):
            raise InvalidValueError("unknown-card", card=str(code))
        rank = int(text[1:])
        if not 1 <= rank <= 12 or text[1] == "0":
            raise InvalidValueError("unknown-card", card=str(code))
        return cls(Suit(text[0]), rank)

    @property
    def code(self) -> str:
        return f"{self.suit.value}{self.rank}"

    @property
    def is_frog(self) -> bool:
        return self == FROG

    def __str__(self) -> str:
        return self.code

    def __repr__(self) -> str:
        return f"RebelCard.from_code({self.code!r})"


FROG = RebelCard(Suit.PET, 8)


def check_player_count(players: int) -> None:
    """Raise :class:`InvalidValueError` (``bad-player-count``) unless 3 to 6 players sit at the
    table."""
    if isinstance(players, bool) or not isinstance(players, int):
        raise InvalidValueError("bad-player-count", value=str(players))
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise InvalidValueError("bad-player-count", value=str(players))


def ranks_for(players: int) -> range:
    """The ranks in play for a player count: 2-10 for 3, 1-10 for 4 or 5, 1-12 for 6."""
    check_player_count(players)
    if players == 3:
        return range(2, 11)
    if players == 6:
        return range(1, 13)
    return range(1, 11)


@cache
def deck(players: int) -> tuple[RebelCard, ...]:
    """Every card used with this many players, Princes first, then Queens, Fairies and Pets."""
    ranks = ranks_for(players)
    return tuple(RebelCard(suit, rank) for suit in SUIT_ORDER for rank in ranks)


def suit_cards(players: int, suit: Suit) -> tuple[RebelCard, ...]:
    """The cards of one suit in this player count's deck, lowest first."""
    return tuple(RebelCard(suit, rank) for rank in ranks_for(players))


def princes(players: int) -> tuple[RebelCard, ...]:
    """The Princes in the deck: 9 with 3 players, 10 with 4 or 5, 12 with 6."""
    return suit_cards(players, Suit.PRINCE)


def hand_size(players: int) -> int:
    """Cards dealt to each player, which is also the number of tricks in a plain round."""
    return len(deck(players)) // players
