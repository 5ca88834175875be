"""Cards for the engine: a compact integer encoding of the one card type.

Card, suit and edition types live in one module, :mod:`companion.scoring.rebel_princess.cards`,
which the scoring core and the engine both import (``RebelCard`` is frozen, ``str`` gives the code
``P12``, ``repr`` rebuilds it), so an engine outcome feeds the scoring core without conversion.
Inside the engine a card is a small int, its *id*, and a set of cards is an int bitmask:

- ``id = 16 * suit_index + rank`` with suits in the order Princes (0), Queens (1), Fairies (2),
  Pets (3). Within one suit a higher id is a higher rank, so comparing ids compares ranks.
- ``bit = 1 << id``; a hand is the OR of its bits. ``SUIT_MASKS[s]`` selects one suit, so following
  suit is ``hand & SUIT_MASKS[led]``.

Card codes (RULINGS.md "Cards and seats"): suit letter **P** Princes, **Q** Queens, **F** Fairies,
**A** Pets (*Animaux*), then the rank 1-12. ``A8`` is the Frog, a Pet and not a Prince.
Decks (Deluxe "Setup" step 2, French "Mise en place" 1): 3 players ranks 2-10, 4-5 players 1-10,
6 players 1-12.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from functools import cache

from companion.scoring.rebel_princess.cards import FROG, SUIT_ORDER, RebelCard, Suit, ranks_for
from companion.scoring.rebel_princess.errors import ScoringError

from .errors import InvalidEntryError, ViolationCode

__all__ = [
    "ALL_RANKS", "CARDS", "CARD_IDS", "EVEN_MASK", "FAIRY", "FROG", "FROG_ID", "ODD_MASK", "PET",
    "PRINCE",
    "PRINCE_MASK", "QUEEN", "SUIT_MASKS", "SUIT_OF", "RebelCard", "Suit", "card_id", "card_of",
    "cards_in_order", "cards_of", "deck_mask", "ids_of", "mask_of", "parse_card", "parse_cards",
    "rank_of", "suit_of",
]

PRINCE, QUEEN, FAIRY, PET = 0, 1, 2, 3
SUIT_OF: tuple[Suit, ...] = SUIT_ORDER  # suit index -> Suit
SUIT_INDEX: dict[Suit, int] = {suit: index for index, suit in enumerate(SUIT_ORDER)}
ALL_RANKS = range(1, 13)

#: The cards by id (``None`` where no card has that id).
CARDS: list[RebelCard | None] = [None] * 64
#: Each card's id (see :func:`card_id`), for the hot loops that skip the call.
CARD_IDS: dict[RebelCard, int] = {}
for _suit in SUIT_ORDER:
    for _rank in ALL_RANKS:
        _card = RebelCard(_suit, _rank)
        CARDS[16 * SUIT_INDEX[_suit] + _rank] = _card
        CARD_IDS[_card] = 16 * SUIT_INDEX[_suit] + _rank

#: ``SUIT_MASKS[s]``: every rank 1-12 of suit index ``s``.
SUIT_MASKS: tuple[int, ...] = tuple(0x1FFE << (16 * s) for s in range(4))
PRINCE_MASK = SUIT_MASKS[PRINCE]
ODD_MASK = sum(1 << (16 * s + r) for s in range(4) for r in ALL_RANKS if r % 2)
EVEN_MASK = sum(1 << (16 * s + r) for s in range(4) for r in ALL_RANKS if not r % 2)
FROG_ID = CARD_IDS[FROG]


def card_id(card: RebelCard) -> int:
    """The id of a card (see the module docstring)."""
    return CARD_IDS[card]


def card_of(cid: int) -> RebelCard:
    """The card with this id."""
    card = CARDS[cid]
    if card is None:
        raise InvalidEntryError(f"no card has id {cid}", ViolationCode.UNKNOWN_CARD)
    return card


def suit_of(cid: int) -> int:
    """The suit index of a card id."""
    return cid >> 4


def rank_of(cid: int) -> int:
    """The printed rank of a card id."""
    return cid & 15


def mask_of(cards: Iterable[RebelCard]) -> int:
    """The bitmask of some cards."""
    mask = 0
    for card in cards:
        mask |= 1 << CARD_IDS[card]
    return mask


def ids_of(mask: int) -> Iterator[int]:
    """The card ids in a mask, lowest id first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


#: ``_SUIT_CARDS[s][bits]``: the cards of suit index ``s`` whose ranks are the set bits of
#: ``bits`` (bits 1-12), so a mask turns into cards with four lookups.
_SUIT_CARDS: tuple[tuple[tuple[RebelCard, ...], ...], ...] = tuple(
    tuple(tuple(CARDS[16 * s + r] for r in ALL_RANKS if bits >> r & 1)  # type: ignore[misc]
          for bits in range(1 << 13))
    for s in range(4))


def cards_in_order(mask: int) -> tuple[RebelCard, ...]:
    """The cards in a mask, lowest id first (Princes, Queens, Fairies, Pets, each by rank):
    four table lookups."""
    return (_SUIT_CARDS[0][mask & 0x1FFE] + _SUIT_CARDS[1][mask >> 16 & 0x1FFE]
            + _SUIT_CARDS[2][mask >> 32 & 0x1FFE] + _SUIT_CARDS[3][mask >> 48 & 0x1FFE])


#: ``_SUIT_SETS[s][bits]``: the same cards as a frozenset, made on first use and kept (at most
#: 4 x 4,096 small sets). A mask within one suit (the cards that may follow suit: most legal
#: plays) is then looked up, and any other is the union of its suits' sets, whose members are
#: not hashed again; building each set card by card was most of the work of ``legal_plays``.
_SUIT_SETS: tuple[list[frozenset[RebelCard] | None], ...] = tuple(
    [None] * (1 << 13) for _ in range(4))
_PRINCE_SETS, _QUEEN_SETS, _FAIRY_SETS, _PET_SETS = _SUIT_SETS


def _suit_set(suit: int, bits: int) -> frozenset[RebelCard]:
    found = _SUIT_SETS[suit][bits] = frozenset(_SUIT_CARDS[suit][bits])
    return found


def cards_of(mask: int) -> frozenset[RebelCard]:
    """The cards in a mask."""
    if mask:
        shift = (mask.bit_length() - 1) >> 4 << 4  # 16 x the highest suit in the mask
        bits = mask >> shift
        if bits << shift == mask and not bits & ~0x1FFE and shift <= 48:  # one suit only
            found = _SUIT_SETS[shift >> 4][bits]
            return _suit_set(shift >> 4, bits) if found is None else found
    # (unrolled: a loop over the suits cost more than it saved)
    bits = mask & 0x1FFE
    princes = _PRINCE_SETS[bits]
    if princes is None:
        princes = _suit_set(PRINCE, bits)
    bits = mask >> 16 & 0x1FFE
    queens = _QUEEN_SETS[bits]
    if queens is None:
        queens = _suit_set(QUEEN, bits)
    bits = mask >> 32 & 0x1FFE
    fairies = _FAIRY_SETS[bits]
    if fairies is None:
        fairies = _suit_set(FAIRY, bits)
    bits = mask >> 48 & 0x1FFE
    pets = _PET_SETS[bits]
    if pets is None:
        pets = _suit_set(PET, bits)
    return princes.union(queens, fairies, pets)


@cache
def deck_mask(players: int) -> int:
    """Every card used with this many players (raises the scoring core's error on a bad count)."""
    ranks = ranks_for(players)
    return sum(1 << (16 * s + r) for s in range(4) for r in ranks)


def parse_card(code: str) -> RebelCard:
    """Parse a card code such as ``P12`` or ``a8`` (case and surrounding blanks ignored): the
    one parser, :meth:`RebelCard.from_code`, with the engine's error.

    Raises :class:`InvalidEntryError` (code ``unknown-card``) for anything else.
    """
    if isinstance(code, str):
        card = _PARSED.get(code)
        if card is not None:
            return card
    try:
        card = RebelCard.from_code(code)
    except ScoringError:
        raise InvalidEntryError(f"unknown card {code!r}", ViolationCode.UNKNOWN_CARD) from None
    if len(_PARSED) < 4096:  # (codes as typed: "Q3", "q3", " Q3 ")
        _PARSED[code] = card
    return card


_PARSED: dict[str, RebelCard] = {}


def parse_cards(text: str) -> tuple[RebelCard, ...]:
    """Parse card codes separated by blanks or commas, or run together (``Q3Q7P12``)."""
    codes: list[str] = []
    for word in text.replace(",", " ").split():
        start = 0
        for i in range(1, len(word)):
            if word[i].upper() in "PQFA":
                codes.append(word[start:i])
                start = i
        codes.append(word[start:])
    return tuple(parse_card(code) for code in codes)


def format_cards(cards: Iterable[RebelCard], sep: str = "") -> str:
    """Card codes joined by ``sep``, or ``-`` for none."""
    text = sep.join(str(card) for card in cards)
    return text or "-"


def format_mask(mask: int) -> str:
    """A mask as run-together codes in id order (Princes, Queens, Fairies, Pets), ``-`` if empty."""
    return format_cards(CARDS[cid] for cid in ids_of(mask))  # type: ignore[misc]


def card_at(cid: int) -> RebelCard:
    """The card of id ``cid`` (an id of a card of the deck)."""
    card = CARDS[cid]
    assert card is not None, cid
    return card


def check_disjoint(players: int, masks: Sequence[int]) -> None:
    """Raise InvalidEntryError for a card outside the deck or in two places."""
    in_deck = deck_mask(players)
    seen = 0
    for mask in masks:
        if mask & ~in_deck:
            raise InvalidEntryError(
                f"{format_mask(mask & ~in_deck)} not in the {players}-player deck",
                ViolationCode.CARD_NOT_IN_DECK)
        if mask & seen:
            raise InvalidEntryError(f"{format_mask(mask & seen)} given twice",
                                    ViolationCode.DUPLICATE_CARD)
        seen |= mask
