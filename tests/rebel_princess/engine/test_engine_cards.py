"""Cards, the compact id encoding, errors and violations of the rules engine."""

from __future__ import annotations

import pytest

from companion.scoring.rebel_princess.cards import FROG, deck
from companion.scoring.rebel_princess.engine import (
    AmbiguousEntryError,
    EngineError,
    IllegalTrickError,
    InvalidEntryError,
    RebelCard,
    Suit,
    ViolationCode,
    parse_card,
    parse_cards,
    violation,
)
from companion.scoring.rebel_princess.engine.cards import (
    CARDS,
    FROG_ID,
    PRINCE_MASK,
    SUIT_MASKS,
    card_id,
    card_of,
    cards_of,
    deck_mask,
    format_mask,
    ids_of,
    mask_of,
)


@pytest.mark.parametrize("code, suit, rank", [
    ("P12", Suit.PRINCE, 12), ("q3", Suit.QUEEN, 3), (" F1 ", Suit.FAIRY, 1), ("A8", Suit.PET, 8),
])
def test_card_code_round_trip(code, suit, rank):
    """A card code is the suit letter and the rank; str() gives the code back."""
    card = parse_card(code)
    assert (card.suit, card.rank) == (suit, rank)
    assert str(card) == code.strip().upper()
    assert eval(repr(card), {"RebelCard": RebelCard}) == card


@pytest.mark.parametrize("code", ["", "P", "P0", "P13", "X3", "P01", "3P", "Q-1", "P1.5"])
def test_unknown_card_code_is_rejected(code):
    """Anything other than P/Q/F/A and a rank 1-12 is an unknown card."""
    with pytest.raises(InvalidEntryError) as info:
        parse_card(code)
    assert info.value.code is ViolationCode.UNKNOWN_CARD


def test_parse_cards_accepts_run_together_and_separated_codes():
    """Card lists may be written ``Q3Q7P12``, ``Q3 Q7 P12`` or ``Q3,Q7,P12``."""
    expected = (parse_card("Q3"), parse_card("Q7"), parse_card("P12"))
    assert parse_cards("Q3Q7P12") == parse_cards("Q3 Q7 P12") == expected
    assert parse_cards("q3,q7, p12") == expected


def test_card_ids_order_ranks_within_a_suit():
    """Within a suit a higher id is a higher rank; every card has one id and back."""
    for cid, card in enumerate(CARDS):
        if card is not None:
            assert card_id(card) == cid and card_of(cid) == card
    for suit_mask in SUIT_MASKS:
        ranks = [card_of(cid).rank for cid in ids_of(suit_mask)]
        assert ranks == list(range(1, 13))
    assert card_of(FROG_ID) == FROG
    assert {c.suit for c in cards_of(PRINCE_MASK)} == {Suit.PRINCE}


@pytest.mark.parametrize("players, size", [(3, 36), (4, 40), (5, 40), (6, 48)])
def test_deck_mask_matches_the_scoring_deck(players, size):
    """The deck by player count: 3 players 2-10, 4-5 players 1-10, 6 players 1-12."""
    mask = deck_mask(players)
    assert mask.bit_count() == size
    assert cards_of(mask) == frozenset(deck(players))


def test_mask_notation_lists_cards_in_suit_order():
    """A mask prints as run-together codes, Princes, Queens, Fairies then Pets; empty as ``-``."""
    mask = mask_of(parse_cards("A8 Q3 P12 F1"))
    assert format_mask(mask) == "P12Q3F1A8"
    assert format_mask(0) == "-"


def test_errors_form_one_hierarchy():
    """Every engine error is an EngineError, itself a ValueError; IllegalTrickError carries data."""
    found = violation(ViolationCode.MUST_FOLLOW_SUIT, 1, parse_card("A3"))
    error = IllegalTrickError("trick", [found])
    assert error.violations == [found] == error.problems
    for cls in (InvalidEntryError, IllegalTrickError, AmbiguousEntryError):
        assert issubclass(cls, EngineError) and issubclass(EngineError, ValueError)


@pytest.mark.parametrize("code, value", [
    (ViolationCode.MUST_FOLLOW_SUIT, "must-follow-suit"),
    (ViolationCode.PRINCES_NOT_INVITED, "princes-not-invited"),
    (ViolationCode.CARD_ALREADY_PLAYED, "card-already-played"),
    (ViolationCode.NOT_IN_HAND, "not-in-hand"),
    (ViolationCode.CARD_NOT_IN_DECK, "card-not-in-deck"),
    (ViolationCode.DUPLICATE_CARD, "duplicate-card"),
    (ViolationCode.WRONG_CARD_COUNT, "wrong-card-count"),
    (ViolationCode.WRONG_LEADER, "wrong-leader"),
    (ViolationCode.WRONG_WINNER, "wrong-winner"),
    (ViolationCode.ROUND_OVER, "round-over"),
    (ViolationCode.MUST_PLAY_HIGHEST_OR_LOWEST, "must-play-highest-or-lowest"),
    (ViolationCode.MUST_MATCH_PARITY, "must-match-parity"),
])
def test_violation_codes_are_stable_strings(code, value):
    """Templates and the API key on violation codes, so their values never change."""
    assert code == value


def test_cards_of_any_mask_is_its_cards():
    """cards_of keeps each suit's sets: one suit, several suits, none, and bits no card has
    (0, 13-15 of a suit, past the Pets) all give exactly the cards of the mask."""
    import random

    from companion.scoring.rebel_princess.engine.cards import CARDS, cards_of

    rng = random.Random(7)
    masks = [0, 1, 1 << 13 | 1 << 2, 1 << 70 | 1 << 5, 0x1FFE << 48, (1 << 64) - 1]
    for _ in range(3000):
        mask = rng.getrandbits(64) & rng.getrandbits(64)
        masks += [mask, mask & (0x1FFE << 16 * rng.randrange(4))]
    for mask in masks:
        expected = frozenset(CARDS[i] for i in range(64) if mask >> i & 1 and CARDS[i])
        assert cards_of(mask) == expected and cards_of(mask) == expected, bin(mask)


def test_cards_in_order_are_the_cards_of_a_mask_lowest_id_first():
    """cards_in_order (the hands random steps draw from) gives a mask's cards in id order:
    Princes, Queens, Fairies, Pets, each by rank; bits no card has are left out."""
    import random

    from companion.scoring.rebel_princess.engine.cards import CARDS, cards_in_order

    rng = random.Random(11)
    masks = [0, 1 << 13 | 1 << 2, 0x1FFE << 48, (1 << 64) - 1]
    masks += [rng.getrandbits(64) & rng.getrandbits(64) for _ in range(2000)]
    for mask in masks:
        expected = tuple(CARDS[i] for i in range(64) if mask >> i & 1 and CARDS[i])
        assert cards_in_order(mask) == expected, bin(mask)
    assert [str(card) for card in cards_in_order(1 << 49 | 1 << 1 | 1 << 28 | 1 << 12)] == \
        ["P1", "P12", "Q12", "A1"]
