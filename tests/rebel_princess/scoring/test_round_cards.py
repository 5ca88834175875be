"""The Round card catalogue of each edition and which cards change scoring.

Deluxe rulebook "Round Cards" (a-z); French rulebook "Cartes de Manche" with the letters of
RULINGS.md "Classic Round card letters" (A-U).
"""

from __future__ import annotations

import pytest

from companion.scoring.rebel_princess import (
    BATHROOM_BREAK,
    Edition,
    InvalidValueError,
    Scoring,
    parse_edition,
    recommended_first_game,
    round_card,
    round_cards,
)

DELUXE_NAMES = {
    "a": "Once Upon a Time", "b": "Late to the Ball", "c": "Magic Beans",
    "d": "Three Times a Lady", "e": "Arranged Marriage", "f": "Royal Decree",
    "g": "Always the Bridesmaid", "h": "Crystal Clear", "i": "Masquerade Ball",
    "j": "Pet's Revenge", "k": "Musical Chairs", "l": "Sisterhood", "m": "After Party",
    "n": "Late for a Very Important Date", "o": "Wedding Gift", "p": "Haggle with the Hag",
    "q": "Blind Man's Bluff", "r": "Poisoned Apple", "s": "Odds and Evens", "t": "Single Fairy",
    "u": "The Prince Always Rings Twice", "v": "Midnight Makeover", "w": "Pass the Bouquet",
    "x": "Upside Down", "y": "Bathroom Break", "z": "Dancing Queens",
}

# RULINGS.md, "Classic Round card letters" (printed names, without the trailing " !").
CLASSIC_NAMES = {
    "A": "Il était une fois", "B": "Invitation", "C": "Bal masqué", "D": "Décret royal",
    "E": "Chaises musicales", "F": "La Forêt se rebelle", "G": "En retard au Bal",
    "H": "Pomme empoisonnée", "I": "Clair comme du verre", "J": "Sens dessus dessous",
    "K": "Reines de la danse", "L": "Deux demandes à la suite", "M": "Cadeau de mariage",
    "N": "Lendemain de fête", "O": "Pause boudoir", "P": "Fée du célibat", "Q": "Colin-maillard",
    "R": "Métamorphose de minuit", "S": "Passez le bouquet", "T": "Marché magique",
    "U": "Pairs et impairs",
}

SCORING_CARDS = {
    Edition.DELUXE: {
        "d": Scoring.THREES, "e": Scoring.NO_TRICKS, "j": Scoring.PETS, "n": Scoring.KEPT,
        "o": Scoring.GIFTS, "t": Scoring.FAIRIES, "y": Scoring.BATHROOM, "z": Scoring.DANCING,
    },
    Edition.CLASSIC: {
        "F": Scoring.PETS, "K": Scoring.DANCING, "M": Scoring.GIFTS, "O": Scoring.BATHROOM,
        "P": Scoring.FAIRIES,
    },
}

ALL_CARDS = [(edition, card.letter) for edition in Edition for card in round_cards(edition)]


def test_deluxe_has_26_round_cards_lettered_a_to_z():
    """The Deluxe edition has 26 Round cards, a to z, in letter order."""
    letters = [card.letter for card in round_cards(Edition.DELUXE)]
    assert letters == list("abcdefghijklmnopqrstuvwxyz")


def test_classic_has_21_round_cards_lettered_a_to_u():
    """The classic edition has 21 Round cards, A to U, in letter order."""
    letters = [card.letter for card in round_cards(Edition.CLASSIC)]
    assert letters == list("ABCDEFGHIJKLMNOPQRSTU")


@pytest.mark.parametrize(("letter", "name"), sorted(DELUXE_NAMES.items()))
def test_deluxe_round_card_names_match_the_rulebook(letter, name):
    """Each Deluxe Round card carries the English name printed in the rulebook."""
    card = round_card(Edition.DELUXE, letter)
    assert card.name_en == name
    assert card.name("en") == name


@pytest.mark.parametrize(("letter", "name"), sorted(CLASSIC_NAMES.items()))
def test_classic_round_card_names_match_the_rulings(letter, name):
    """Each classic Round card carries the French name that RULINGS.md gives its letter."""
    card = round_card(Edition.CLASSIC, letter)
    assert card.name_fr.removesuffix("\u00a0!") == name  # French: a no-break space before "!"
    assert card.name("fr-FR") == card.name_fr


@pytest.mark.parametrize(("edition", "letters"), [
    (Edition.DELUXE, ("a", "b", "c", "d", "e")),
    (Edition.CLASSIC, ("A", "C", "B", "D", "M")),
])
def test_recommended_first_game(edition, letters):
    """First game: Deluxe a b c d e; classic A C B D M, in that order."""
    assert tuple(recommended_first_game(edition)) == letters


@pytest.mark.parametrize(("edition", "letter"), ALL_CARDS)
def test_only_the_listed_round_cards_change_scoring(edition, letter):
    """Deluxe d e j n o t y z and classic F K M O P change scoring; every other card is plain."""
    expected = SCORING_CARDS[edition].get(letter, Scoring.PLAIN)
    assert round_card(edition, letter).scoring is expected


@pytest.mark.parametrize("edition", list(Edition))
def test_bathroom_break_letter(edition):
    """Bathroom Break is Deluxe y and classic O."""
    assert round_card(edition, BATHROOM_BREAK[edition]).scoring is Scoring.BATHROOM


@pytest.mark.parametrize(("edition", "given", "letter"), [
    (Edition.DELUXE, "Z", "z"), (Edition.DELUXE, " y ", "y"),
    (Edition.CLASSIC, "k", "K"), (Edition.CLASSIC, "M", "M"),
])
def test_round_card_letter_is_case_insensitive(edition, given, letter):
    """Deluxe letters are lower case and classic ones upper case, but either case is accepted."""
    assert round_card(edition, given).letter == letter


@pytest.mark.parametrize(("edition", "letter"), [
    (Edition.CLASSIC, "V"), (Edition.CLASSIC, "z"), (Edition.DELUXE, "1"),
    (Edition.DELUXE, ""), (Edition.DELUXE, "ab"),
])
def test_unknown_round_card_is_rejected(edition, letter):
    """A letter that is not a Round card of the edition is ``unknown-round-card``."""
    with pytest.raises(InvalidValueError) as caught:
        round_card(edition, letter)
    assert caught.value.problem.code == "unknown-round-card"


@pytest.mark.parametrize(("value", "edition"), [
    ("deluxe", Edition.DELUXE), (" Classic ", Edition.CLASSIC), (Edition.DELUXE, Edition.DELUXE),
])
def test_parse_edition(value, edition):
    """The editions are ``deluxe`` and ``classic`` (any case)."""
    assert parse_edition(value) is edition


@pytest.mark.parametrize("value", ["", "french", None, "deluxe edition"])
def test_unknown_edition_is_rejected(value):
    """Anything else is ``unknown-edition``."""
    with pytest.raises(InvalidValueError) as caught:
        parse_edition(value)
    assert caught.value.problem.code == "unknown-edition"


@pytest.mark.parametrize(("edition", "letter"), ALL_CARDS)
def test_slug_names_edition_and_letter(edition, letter):
    """A Round card's slug is ``<edition>-<letter>``, unique over both editions."""
    assert round_card(edition, letter).slug == f"{edition.value}-{letter}"
