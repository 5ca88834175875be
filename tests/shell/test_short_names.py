"""Names shortened with one rule (issue 22): whole when they fit, else cut after a syllable with
an ellipsis, or a first word and initials; never a cut that reads as another word (« Mari »)."""

from __future__ import annotations

import pytest

from companion.common.short_names import ELLIPSIS, short_names, shorten, syllable_cuts
from companion.history.charts import short_label


@pytest.mark.parametrize("word, cuts", [
    ("Marie", [2]), ("Benjamin", [3, 5]), ("Anne", [2]), ("Christophe", [5, 7]),
    ("Chloé", [4]), ("Loïc", [2]), ("Ana", [1]), ("Stéphanie", [3, 6])])
def test_cuts_fall_between_syllables(word, cuts):
    assert syllable_cuts(word) == cuts


@pytest.mark.parametrize("name, width, short", [
    ("Ana", 3, "Ana"), ("Marie", 4, "Marie"), ("Marie", 3, "Ma…"), ("Chloé", 3, "C."),
    ("Chloé", 2, "C."), ("Christophe", 2, "C."), ("Mia", 1, "M."), ("Chloé", 4, "Chloé"),
    ("Benjamin", 4, "Ben…"), ("Benjamin", 6, "Benja…"),
    ("Alexandre", 4, "Ale…"), ("Anne-Sophie", 7, "Anne-S."), ("Anne-Sophie", 4, "A.-S."),
    ("Jean Paul", 7, "Jean P."), ("Stéphanie", 4, "Sté…"), ("Hélène", 3, "Hé…")])
def test_shorten(name, width, short):
    assert shorten(name, width) == short


def test_a_shortened_name_is_never_a_bare_prefix():
    for name in ("Marie", "Chloé", "Mariette", "Christophe", "Léonard", "Maximilien",
                 "Anne-Sophie", "Éloïse", "Bartholomew", "Zoé"):
        for width in range(2, 10):
            short = shorten(name, width)
            assert short == name or short.endswith((ELLIPSIS, ".")), (name, width, short)
            if short.endswith(ELLIPSIS):
                cut = len(short) - 1
                assert cut in syllable_cuts(name), (name, width, short)


def test_the_table_is_told_apart():
    assert short_names(["Marie", "Mariette", "Mathilde"], 3) == ["Marie", "Mariet…", "Mathil…"]
    assert short_names(["Anne-Sophie", "Anne-Marie", "Ben"], 4) == ["A.-S.", "A.-M.", "Ben"]
    assert short_names(["Benjamin", "Benoît"], 4) == ["Benja…", "Benoît"]
    assert short_names(["Chloé", "Christophe", "Ana"], 3) == ["Chloé", "Chris…", "Ana"]
    assert short_names(["Chloé", "Bartholomew", "Ana"], 3) == ["C.", "Bar…", "Ana"]


def test_the_pad_and_the_charts_use_it():
    from companion.play import rebel_princess
    assert rebel_princess.short_names is short_names
    assert short_label("Marie-Christine", 8) == "Marie-C."
    assert short_label("Christophe", 8) == "Christo…"
