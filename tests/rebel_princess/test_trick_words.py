"""The trick screen's sentences come from its catalogue, in English and French."""

from __future__ import annotations

from .conftest import act


def test_why_a_trick_was_won_in_french(client, make_table):
    """The trick screen words the winner's reason from its catalogue, in French too."""
    code = make_table(cards="fabcd")  # Royal Decree first
    client.set_cookie("lang", "fr")
    html = ""
    for card in ("F1", "F9", "Q2", "F3"):
        html = act(client, code, "play", card=card).text
    assert "Décret royal\u00a0: plus forte Reine" in html
