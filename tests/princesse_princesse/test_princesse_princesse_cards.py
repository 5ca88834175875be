"""The deck and the player-count table of Love Letter « Princesse Princesse » (rulebook 002)."""

from __future__ import annotations

from collections import Counter

import pytest

from companion.scoring.princesse_princesse import (
    CHARACTERS,
    COPIES,
    DECK_SIZE,
    GARDE_NAMEABLE,
    PLAYER_COUNTS,
    Targeting,
    character,
    deck,
    player_count,
    tokens_needed,
)
from companion.scoring.problems import EntryError

# PRINCESSE_PRINCESSE.md « Cards »: value, French printed name, copies.
CARD_TABLE = [
    (9, "Ogre", 1), (8, "Céleste la licorne", 1), (7, "Roi fantôme", 1),
    (6, "Princesses Amira & Sadie", 2), (5, "Prince Vladric", 2), (4, "Oliver le dragon", 2),
    (3, "Bibliothécaire du palais", 2), (2, "Conseillers du roi", 2), (1, "Garde", 6),
    (0, "Claire l'espionne", 2),
]


def test_deck_has_21_cards_valued_0_to_9():
    """« Matériel »: 21 character cards; values run from 0 to 9."""
    assert len(deck()) == DECK_SIZE == 21
    assert set(deck()) == set(range(10))


@pytest.mark.parametrize(("value", "name_fr", "copies"), CARD_TABLE)
def test_each_character_has_its_value_name_and_copies(value, name_fr, copies):
    """Each character has the value, French name and number of copies of the rulings table."""
    assert character(value).name_fr == name_fr
    assert character(value).name("fr") == name_fr
    assert COPIES[value] == copies == Counter(deck())[value]


def test_every_character_has_an_english_name_and_a_unique_slug():
    """Names exist in both languages and every slug is unique (rulings link on it)."""
    assert all(c.name_en and c.name("en") == c.name_en for c in CHARACTERS)
    assert len({c.slug for c in CHARACTERS}) == len(CHARACTERS) == 10
    assert [c.value for c in CHARACTERS] == list(range(10))


@pytest.mark.parametrize(("value", "targeting"), [
    (0, Targeting.NONE), (1, Targeting.OTHER), (2, Targeting.OTHER), (3, Targeting.OTHER),
    (4, Targeting.NONE), (5, Targeting.ANY), (6, Targeting.NONE), (7, Targeting.OTHER),
    (8, Targeting.NONE), (9, Targeting.NONE),
])
def test_who_each_character_targets(value, targeting):
    """Garde, Conseillers, Bibliothécaire, Roi: another player; Vladric: anyone; others: none."""
    assert character(value).targeting is targeting


def test_garde_may_name_every_character_but_the_garde_spy_included():
    """« Garde »: name a character other than the Garde; the Spy (0) may be named."""
    assert GARDE_NAMEABLE == (0, 2, 3, 4, 5, 6, 7, 8, 9)


@pytest.mark.parametrize("value", [-1, 10, True, "3"])
def test_a_value_outside_0_to_9_is_not_a_card(value):
    """Card values are whole numbers from 0 to 9."""
    with pytest.raises(EntryError) as caught:
        character(value)
    assert caught.value.codes == ["value-out-of-range"]


@pytest.mark.parametrize(("players", "needed"), [(2, 6), (3, 5), (4, 4), (5, 3), (6, 3)])
def test_tokens_needed_by_player_count(players, needed):
    """« Remporter la partie »: 2 players 6 tokens, 3: 5, 4: 4, 5: 3, 6: 3."""
    assert tokens_needed(players) == needed


@pytest.mark.parametrize("players", [0, 1, 7, 13])
def test_the_game_is_for_2_to_6_players(players):
    """Thresholds exist for 2 to 6 players only."""
    with pytest.raises(EntryError) as caught:
        player_count(players)
    assert caught.value.codes == ["players-out-of-range"]


@pytest.mark.parametrize(("players", "face_up", "deck_after"), [
    (2, 3, 15), (3, 0, 17), (4, 0, 16), (5, 0, 15), (6, 0, 14)])
def test_cards_set_aside_and_deck_after_the_deal(players, face_up, deck_after):
    """« Mise en place »: one card aside face down, three more face up at 2 players, one each."""
    row = PLAYER_COUNTS[players]
    assert (row.face_down, row.face_up, row.deck_after_deal) == (1, face_up, deck_after)
