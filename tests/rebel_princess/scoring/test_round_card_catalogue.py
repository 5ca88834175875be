"""Each Round card is declared once, in the scoring core's catalogue (round_cards.toml): its
letter, the slug of the rule it brings, how it scores, its names. The engine, the screens and
the templates read it from there."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from companion.scoring.rebel_princess import BATHROOM_BREAK, Edition, round_cards
from companion.scoring.rebel_princess.engine import registered, round_card_class
from companion.scoring.rebel_princess.round_cards import Scoring, letters_of

ENGINE = Path(__file__).parents[3] / "companion" / "scoring" / "rebel_princess" / "engine"
TEMPLATES = Path(__file__).parents[3] / "companion" / "templates" / "rebel_princess"


@pytest.mark.parametrize("edition", list(Edition))
def test_every_card_of_the_catalogue_is_the_engines_card_of_that_letter(edition):
    for card in round_cards(edition):
        cls = round_card_class(edition, card.letter)
        assert cls.slug == card.rule and cls.letters[edition] == card.letter


def test_every_engine_round_card_takes_its_letters_from_the_catalogue():
    cards = {slug: cls for slug, cls in registered().items() if cls.kind == "round-card"}
    assert cards and all(cls.letters == letters_of(slug) for slug, cls in cards.items())
    assert all(cls.letters for cls in cards.values())


def test_bathroom_break_letters_come_from_its_scoring():
    """RULINGS.md: Bathroom Break is Deluxe y, classic O."""
    assert BATHROOM_BREAK == {Edition.DELUXE: "y", Edition.CLASSIC: "O"}
    assert {card.letter for ed in Edition for card in round_cards(ed)
            if card.scoring is Scoring.BATHROOM} == {"y", "O"}


def test_no_round_card_letter_is_written_in_the_engine_or_the_templates():
    """A letter is declared in the catalogue alone: no ``letters = {...}`` in the engine, no
    ``"y" if edition == "deluxe"`` in a template."""
    for path in ENGINE.glob("*.py"):
        assert not re.search(r"letters\s*=\s*\{", path.read_text()), path
    for path in TEMPLATES.rglob("*.html"):
        assert not re.search(r'"[a-zA-Z]" if edition', path.read_text()), path
