"""Setting up a game explains each Round card as it is picked, in the page's language."""

from __future__ import annotations

import re


def helps(html: str) -> list[str]:
    return re.findall(r'data-card-help="([^"]+)"', html)


def test_each_planned_round_explains_its_card(client):
    """The first-game set a b c d e comes with one explanation per card."""
    assert helps(client.get("/rebel-princess/new").text) == ["a", "b", "c", "d", "e"]


def test_picking_another_card_explains_that_card(client):
    """Picking Dancing Queens for round 3 redraws only that card's explanation."""
    html = client.get("/rebel-princess/new/card-help?edition=deluxe&field=cards-2&cards-2=z").text
    assert 'id="help-cards-2"' in html and helps(html) == ["z"] and "Queen" in html
    assert "data-warning" not in html


def test_bathroom_break_first_is_warned_as_soon_as_it_is_picked(client):
    """Bathroom Break picked for round 1 explains itself and warns it changes nothing there."""
    html = client.get("/rebel-princess/new/card-help?edition=classic&field=cards-0&cards-0=O").text
    assert 'data-warning="bathroom-first"' in html
    later = client.get("/rebel-princess/new/card-help?edition=classic&field=cards-4&cards-4=O").text
    assert "data-warning" not in later


def test_card_help_needs_a_card_select(client):
    help_url = "/rebel-princess/new/card-help?edition=deluxe&field=names-0"
    assert client.get(help_url).status_code == 400


def test_explanations_follow_the_language(client):
    """With a French browser the explanation is the French one."""
    html = client.get("/rebel-princess/new", headers={"Accept-Language": "fr-FR"}).text
    first = html.split('data-card-help="a"')[1].split("</p>")[0]
    assert "manche" in first.lower()
