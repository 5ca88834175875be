"""Search finds what a player at the table types, in either language."""

from __future__ import annotations

import pytest

from companion.rulings.rebel_princess import search


@pytest.mark.parametrize(("query", "first"), [
    ("frog", "basics-frog"),
    ("grenouille", "basics-frog"),
    ("Grenouile", "basics-frog"),  # a typo
    ("frgo", "basics-frog"),  # two letters swapped (issue 22)
    ("grenoiulle", "basics-frog"),
    ("Gernouille", "basics-frog"),
    ("does the frog count in pets revenge", "deluxe-j"),
    ("z", "deluxe-z"),
    ("Cendrilon", "deluxe-cinderella"),
    ("snowwhite", "deluxe-snow-white"),  # typed without the space
    ("SnowWhite", "deluxe-snow-white"),
    ("blancheneige", "deluxe-snow-white"),
    ("littlemermaid", "deluxe-little-mermaid"),
])
def test_best_result_first(query, first):
    """The entry a player means comes first."""
    assert search(query)[0].slug == first


def test_frog_and_grenouille_find_the_same_frog_rulings():
    """The English and French words for the Frog find the same top entries."""
    assert [e.slug for e in search("frog")[:3]] == [e.slug for e in search("grenouille")[:3]]
