"""Material, thresholds table, card notation and princess cards (rulebook « Matériel », « Mise en
place », « But du jeu »; REVEILLEZ.md « Material »)."""

from __future__ import annotations

from collections import Counter

import pytest

from companion.scoring.problems import EntryError
from companion.scoring.reveillez import (
    GRID,
    HAND_SIZE,
    PRINCESSES,
    SLOTS,
    TARGETS,
    USUAL_VALUES,
    PowerCard,
    PrincessCard,
    ReveillezCard,
    Special,
    deck,
    normalise_name,
    read_princess,
    target,
)


def test_deck_has_67_red_cards_beside_12_princesses():
    """79 cards: 12 princesses and 67 others (« Matériel »)."""
    assert len(deck()) == 67
    assert len(deck()) + PRINCESSES == 79


@pytest.mark.parametrize(("power", "copies"), [
    (PowerCard.PRINCE, 8), (PowerCard.BOUFFON, 5), (PowerCard.CHEVALIER, 4), (PowerCard.POTION, 4),
    (PowerCard.BAGUETTE, 3), (PowerCard.DRAGON, 3),
])
def test_deck_power_cards(power, copies):
    """8 princes, 5 jesters, 4 knights, 4 potions, 3 wands, 3 dragons (« Matériel »)."""
    assert Counter(deck())[ReveillezCard(power=power)] == copies


@pytest.mark.parametrize("number", range(1, 11))
def test_deck_has_four_of_each_number(number):
    """Four cards of each value from 1 to 10 (« Matériel »)."""
    assert Counter(deck())[ReveillezCard(number=number)] == 4


def test_centre_is_four_columns_of_three():
    """The princesses sleep in 4 columns of 3 (« Mise en place »): 3 rows of 4 slots."""
    assert len(GRID) == 3 and all(len(row) == 4 for row in GRID)
    assert sorted(slot for row in GRID for slot in row) == list(SLOTS) == list(range(12))


def test_hand_size_is_five():
    """Everyone holds 5 cards and refills to 5 (« Mise en place », « Rappel »)."""
    assert HAND_SIZE == 5


@pytest.mark.parametrize(("players", "princesses", "points"),
                         [(2, 5, 50), (3, 5, 50), (4, 4, 40), (5, 4, 40)])
def test_targets_by_player_count(players, princesses, points):
    """5 princesses or 50 points with 2–3 players, 4 or 40 with 4–5 (« But du jeu »)."""
    assert target(players).princesses == princesses
    assert target(players).points == points
    assert target(players).as_dict() == {"princesses": princesses, "points": points}


@pytest.mark.parametrize("players", [0, 1, 6, 12, -3])
def test_only_two_to_five_players(players):
    """2–5 players only (REVEILLEZ.md « Winning »)."""
    with pytest.raises(EntryError) as caught:
        target(players)
    assert caught.value.codes == ["players-range"]
    assert players not in TARGETS


@pytest.mark.parametrize(("value", "card"), [
    (1, ReveillezCard(number=1)), (10, ReveillezCard(number=10)), ("7", ReveillezCard(number=7)),
    ("chevalier", ReveillezCard(power=PowerCard.CHEVALIER)),
    ("Baguette", ReveillezCard(power=PowerCard.BAGUETTE)),
    (" BOUFFON ", ReveillezCard(power=PowerCard.BOUFFON)),
    ("prince", ReveillezCard(power=PowerCard.PRINCE)),
])
def test_card_parse(value, card):
    """Numbers 1–10 and the French power names, case and blanks ignored."""
    assert ReveillezCard.parse(value) == card


@pytest.mark.parametrize(("value", "code"), [
    (0, "number-range"), (11, "number-range"), (-2, "number-range"), ("12", "number-range"),
    ("joker", "unknown-card"), ("knight", "unknown-card"), (True, "unknown-card"),
    (2.5, "unknown-card"), (None, "unknown-card"), ("", "unknown-card"),
])
def test_card_parse_refuses(value, code):
    """A number outside 1–10 or an unknown card is refused with its code (issue 11, 422 cases)."""
    with pytest.raises(EntryError) as caught:
        ReveillezCard.parse(value)
    assert caught.value.codes == [code]


@pytest.mark.parametrize("card", [*deck()[::4], ReveillezCard(power=PowerCard.DRAGON)])
def test_card_notation_round_trips(card):
    """``ReveillezCard.parse(str(card)) == card`` and ``repr`` rebuilds the card."""
    assert ReveillezCard.parse(str(card)) == card
    assert eval(repr(card)) == card


def test_princess_card_is_the_value_players_tap():
    """The app keeps the value the players read on the card; no table is invented
    (REVEILLEZ.md « Princess values »)."""
    assert PrincessCard.make(15).value == 15
    assert PrincessCard.make(7).value == 7  # another value may be typed
    assert USUAL_VALUES == (5, 10, 15, 20)


@pytest.mark.parametrize("value", [0, -5, 51, 100, "ten", None, True, 2.5])
def test_princess_value_is_a_whole_number_from_1_to_50(value):
    """Printed values are whole numbers 1–50 (our bound)."""
    card, problems = read_princess(value)
    assert card is None and [p.code for p in problems] == ["princess-value"]


def test_rose_is_worth_five():
    """The Rose is worth only 5 points (variant: « qui ne vaut que 5 points »)."""
    assert PrincessCard.make(5, "Rose").special is Special.ROSE
    with pytest.raises(EntryError) as caught:
        PrincessCard.make(10, "rose")
    assert caught.value.codes == ["rose-value"]


@pytest.mark.parametrize(("typed", "stored"), [
    ("Rose", "rose"), ("Princesse Rose", "rose"), ("rose princess", "rose"),
    ("Chien", "chien"), ("dog", "chien"), ("Princesse Chien", "chien"),
    ("CHAT", "chat"), ("Cat Princess", "chat"),
    ("  Princesse   des crêpes ", "Princesse des crêpes"), ("", None), ("   ", None), (None, None),
])
def test_princess_names_are_normalised(typed, stored):
    """The Rose, Dog and Cat are recognised in French or English; other names are kept tidy."""
    assert normalise_name(typed) == stored


def test_princess_name_is_short():
    """A name has at most 30 characters."""
    _, problems = read_princess(10, "x" * 31)
    assert [p.code for p in problems] == ["name-too-long"]
    assert read_princess(10, "x" * 30)[1] == []


@pytest.mark.parametrize("card", [PrincessCard(10), PrincessCard(5, "rose"),
                                  PrincessCard(20, "Princesse des crêpes"),
                                  PrincessCard(15, "d'Or: la belle")])
def test_princess_notation_round_trips(card):
    """``value[:name]`` reads back to the same princess."""
    assert PrincessCard.parse(str(card)) == card


def test_other_pet():
    """The Dog's other pet is the Cat and the reverse; the Rose has none."""
    assert Special.DOG.other_pet is Special.CAT
    assert Special.CAT.other_pet is Special.DOG
    assert Special.ROSE.other_pet is None
