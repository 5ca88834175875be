"""A game's page names the edition played, in both languages (issue 39): the header's game
name and the page's title read :meth:`companion.games.GameKind.game_name` — a Deluxe game is
« Rebel Princess Deluxe » in French too, a classic game « Rebelles Princesses »."""

from __future__ import annotations

import re

import pytest


def header_name(html: str) -> tuple[str, str]:
    found = re.search(r'<a class="game-name"[^>]*title="([^"]*)"[^>]*>([^<]*)</a>', html)
    assert found, "no game name in the header"
    return found[1], found[2]


@pytest.mark.parametrize(("edition", "lang", "name"), [
    ("deluxe", "en", "Rebel Princess Deluxe"),
    ("deluxe", "fr", "Rebel Princess Deluxe"),
    ("classic", "en", "Rebelles Princesses"),
    ("classic", "fr", "Rebelles Princesses"),
])
def test_the_header_and_title_name_the_edition(client, make_game, edition, lang, name):
    code = make_game(edition=edition)
    html = client.get(f"/rebel-princess/g/{code}", headers={"Accept-Language": lang}).text
    assert header_name(html) == (name, name)
    assert re.search(r"<title>[^<]*" + re.escape(name) + r"[^<]*</title>", html)
    if edition == "deluxe":
        assert "Rebelles Princesses" not in header_name(html)[1]
