"""Rulings texts and engine behaviour are joined by slug: neither has an orphan."""

from __future__ import annotations

import pytest

from companion.rulings import rebel_princess as rulings
from companion.scoring.rebel_princess.engine import Edition, power_slugs
from companion.scoring.rebel_princess.engine.modifiers import round_card_class, round_card_letters


@pytest.mark.parametrize("edition", list(Edition))
def test_every_round_card_text_has_an_implementation_and_back(edition):
    """Each Round card of the rulings data has a modifier, and each modifier has a text."""
    texts = {e.slug for e in rulings.entries("round-card", edition.value) if e.edition}
    implemented = {rulings.round_card_slug(edition.value, letter)
                   for letter in round_card_letters(edition)}
    assert texts == implemented
    for letter in round_card_letters(edition):
        assert round_card_class(edition, letter).letters[edition] == letter


@pytest.mark.parametrize("edition", list(Edition))
def test_every_princess_text_has_a_power_and_back(edition):
    """Each Princess of the rulings data has a power class in this edition, and back."""
    texts = {e.slug for e in rulings.entries("princess", edition.value) if e.edition}
    implemented = {f"{edition.value}-{slug}" for slug in power_slugs(edition)}
    assert texts == implemented
