"""Every game's rulings search forgives what Rebel Princess's forgives: case, accents, a name typed
without its spaces, hyphens or apostrophes, and small typos (one shared :func:`name_match`)."""

from __future__ import annotations

import pytest

from companion.rulings import load, name_match, words


@pytest.mark.parametrize(("game", "query", "first"), [
    ("princesse_princesse", "celeste", "celeste"),
    ("princesse_princesse", "Céleste", "celeste"),
    ("princesse_princesse", "CÉLESTE", "celeste"),
    ("princesse_princesse", "celestelalicorne", "celeste"),  # typed without the spaces
    ("princesse_princesse", "roifantome", "roi-fantome"),
    ("princesse_princesse", "Roi-Fantôme", "roi-fantome"),  # a hyphen for the space
    ("princesse_princesse", "ghostking", "roi-fantome"),
    ("princesse_princesse", "kingsadvisors", "conseillers"),  # without the apostrophe
    ("princesse_princesse", "clairelespionne", "claire"),  # « Claire l'espionne »
    ("princesse_princesse", "princessesbonus", "princesses-bonus"),
    ("princesse_princesse", "dragonn", "oliver"),  # a typo
    ("princesse_princesse", "olievr", "oliver"),  # two letters swapped
    ("kanai_duel", "syp", "spy"),
    ("reveillez", "chevalier", "chevalier"),
    ("reveillez", "CHEVALIER", "chevalier"),
    ("reveillez", "cartesnumerotees", "number-cards"),
    ("reveillez", "numbercards", "number-cards"),
    ("reveillez", "defausserunepaire", "discard-pair"),
    ("reveillez", "dragonn", "dragon"),
    ("kanai_duel", "ministre", "minister"),
    ("kanai_duel", "minister", "minister"),
    ("kanai_duel", "Général", "general"),
    ("kanai_duel", "jusqualaube", "until-dawn"),  # « Jusqu'à l'aube »
    ("kanai_duel", "untildawn", "until-dawn"),
    ("kanai_duel", "enviedevoyager", "wanderlust"),
])
def test_each_game_finds_what_a_player_types(game, query, first):
    """The entry a player means comes first, however the name is typed."""
    found = load(f"companion.rulings.{game}").search(query)
    assert found and found[0].slug == first


@pytest.mark.parametrize(("query", "expected"), [
    ("roi fantome", "phrase"), ("roifantome", "squeezed"), ("Roi-Fantôme", "phrase"),
    ("roi", "phrase"), ("ro", None), ("fantomeroi", None),
    ("tomeconseil", None),  # never across two names
])
def test_name_match_says_how_a_query_sits_in_the_names(query, expected):
    """A phrase in a name, a name without its spaces, or neither; never straddling two names."""
    joined = " | ".join(" ".join(words(n)) for n in ("Roi fantôme", "Conseillers du roi"))
    assert name_match(words(query), joined) == expected


def test_a_squeezed_name_ranks_its_entry_above_text_mentions():
    """« roifantome » puts the Ghost King first though other entries mention the king."""
    slugs = [e.slug for e in load("companion.rulings.princesse_princesse").search("roifantome")]
    assert slugs[0] == "roi-fantome"
