"""A game is named after its own edition, in both languages: the Deluxe edition exists only as
Bezier's « Rebel Princess Deluxe »; « Rebelles Princesses » is the French box, the classic."""

from __future__ import annotations

import re

import pytest

from companion.db import get_session
from companion.play import store

from .test_tiebreak_count import CLASSIC_ZERO_TIE, DELUXE_BELOW_ZERO, play


@pytest.mark.parametrize("edition, name, not_name", [
    ("deluxe", "Rebel Princess Deluxe", "Rebelles Princesses"),
    ("classic", "Rebelles Princesses", "Rebel Princess Deluxe"),
])
@pytest.mark.parametrize("lang", ["fr", "en"])
def test_a_game_is_named_after_its_edition(client, app, make_game, by_numbers, edition, name,
                                           not_name, lang):
    """The pad's title and the finished game's record name the game's edition. (The header
    names the game it leads to, the kind's home with both editions.)"""
    rows = DELUXE_BELOW_ZERO if edition == "deluxe" else CLASSIC_ZERO_TIE
    code = play(make_game, by_numbers, edition, rows)
    headers = {"Accept-Language": lang}
    pad = client.get(f"/rebel-princess/g/{code}", headers=headers).text
    title = re.search(r"<title>(.*?)</title>", pad, re.S)[1]
    assert title.endswith(f"· {name}") and not_name not in title
    with app.app_context():
        session = get_session()
        viewer = store.links_of(session, store.game_by_token(session, code))["viewer"].token
    record = client.get(f"/record/{viewer}", headers=headers).text
    assert re.search(r"<h1>.*?</h1>", record, re.S)[0].endswith(f"{name}</h1>")
    assert not_name not in record
