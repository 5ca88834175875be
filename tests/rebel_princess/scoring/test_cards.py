"""Cards, codes and the deck for each player count (Deluxe "Setup" step 2, French "Mise en
place" step 1).

Decision: a card code is canonical or rejected. Lower case and surrounding blanks are accepted
(``" a8 "`` is the Frog), but a leading zero (``P01``), blanks inside (``P 1``) and digits other
than ASCII 0-9 (``P²``, full-width or Arabic-Indic digits) are ``unknown-card``: a code must read
back exactly as the card prints it.
"""

from __future__ import annotations

import pytest

from companion.scoring.rebel_princess import (
    FROG,
    InvalidValueError,
    RebelCard,
    Suit,
    deck,
    hand_size,
    princes,
    ranks_for,
    suit_cards,
)

PLAYER_COUNTS = [3, 4, 5, 6]


@pytest.mark.parametrize(("players", "size"), [(3, 36), (4, 40), (5, 40), (6, 48)])
def test_deck_size_depends_on_player_count(players, size):
    """The deck has 36 cards for 3 players, 40 for 4 or 5 and 48 for 6."""
    cards = deck(players)
    assert len(cards) == size
    assert len(set(cards)) == size


@pytest.mark.parametrize(("players", "count"), [(3, 9), (4, 10), (5, 10), (6, 12)])
def test_prince_count_depends_on_player_count(players, count):
    """There are 9 Princes with 3 players, 10 with 4 or 5 and 12 with 6."""
    assert len(princes(players)) == count
    assert all(card.suit is Suit.PRINCE for card in princes(players))


@pytest.mark.parametrize(("players", "ranks"), [
    (3, range(2, 11)), (4, range(1, 11)), (5, range(1, 11)), (6, range(1, 13)),
])
def test_ranks_in_play_depend_on_player_count(players, ranks):
    """3 players remove the 1s, 11s and 12s; 4 or 5 players remove the 11s and 12s; 6 use all."""
    assert list(ranks_for(players)) == list(ranks)
    for suit in Suit:
        assert [card.rank for card in suit_cards(players, suit)] == list(ranks)


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_every_suit_has_the_same_ranks_and_the_frog_is_in_every_deck(players):
    """The deck is the four suits over the same ranks, and the Pet 8 (the Frog) is always in it."""
    cards = deck(players)
    assert {card.suit for card in cards} == set(Suit)
    assert FROG in cards
    assert FROG.suit is Suit.PET and FROG.rank == 8 and FROG.is_frog


@pytest.mark.parametrize(("players", "size"), [(3, 12), (4, 10), (5, 8), (6, 8)])
def test_every_player_gets_the_same_number_of_cards(players, size):
    """All cards are dealt equally: 12 each for 3 players, 10 for 4, 8 for 5 and 6."""
    assert hand_size(players) == size
    assert hand_size(players) * players == len(deck(players))


@pytest.mark.parametrize("players", [0, 1, 2, 7, -3, True, "4", 4.0])
def test_player_count_outside_three_to_six_is_rejected(players):
    """Rebel Princess is played by 3 to 6 players; anything else is ``bad-player-count``."""
    with pytest.raises(InvalidValueError) as caught:
        deck(players)
    assert caught.value.problem.code == "bad-player-count"


def test_the_frog_is_a_pet_not_a_prince():
    """The Frog scores like a bewitched Prince but is not of the Prince suit."""
    for players in PLAYER_COUNTS:
        assert FROG not in princes(players)


@pytest.mark.parametrize(("code", "card"), [
    ("P12", RebelCard(Suit.PRINCE, 12)),
    ("p12", RebelCard(Suit.PRINCE, 12)),
    (" A8 ", FROG),
    ("a8", FROG),
    ("Q1", RebelCard(Suit.QUEEN, 1)),
    ("F10", RebelCard(Suit.FAIRY, 10)),
    ("\tq3\n", RebelCard(Suit.QUEEN, 3)),
])
def test_card_code_is_suit_letter_and_rank(code, card):
    """A code is P, Q, F or A (any case, blanks around allowed) followed by a rank from 1 to 12."""
    assert RebelCard.from_code(code) == card


@pytest.mark.parametrize("code", [
    "X9", "P0", "P13", "P", "PP", "", "   ", "P01", "P012", "8A", "P-1", "P 1", "P1.0", "A8 A9",
    "P²", "P١٢", "P１２", "Ｐ12",
])
def test_malformed_card_code_is_unknown_card(code):
    """Anything but a suit letter and a plain rank 1-12 (no leading zero) is ``unknown-card``."""
    with pytest.raises(InvalidValueError) as caught:
        RebelCard.from_code(code)
    assert caught.value.problem.code == "unknown-card"


@pytest.mark.parametrize("code", [None, 12, b"P12"])
def test_non_text_card_code_is_unknown_card(code):
    """A card code must be text; other values are ``unknown-card``, never a crash."""
    with pytest.raises(InvalidValueError) as caught:
        RebelCard.from_code(code)
    assert caught.value.problem.code == "unknown-card"


@pytest.mark.parametrize("card", deck(6), ids=str)
def test_str_and_repr_round_trip(card):
    """``str`` gives the code back, and ``repr`` evaluates to the same card."""
    assert RebelCard.from_code(str(card)) == card
    assert str(card) == card.code
    assert eval(repr(card), {"RebelCard": RebelCard}) == card  # our own repr


def test_cards_sort_by_suit_then_rank():
    """Cards order by suit letter then rank, so sorted hands read the same way every time."""
    cards = [RebelCard.from_code(c) for c in ["Q3", "P12", "P2", "A8", "F1"]]
    assert [c.code for c in sorted(cards)] == ["A8", "F1", "P2", "P12", "Q3"]
