"""Setting up a game explains each Round card as it is picked, in the page's language."""

from __future__ import annotations

import re


def helps(html: str) -> list[str]:
    return re.findall(r'data-card-help="([^"]+)"', html)


def test_each_planned_round_explains_its_card(client):
    """The first-game set a b c d e comes with one explanation per card."""
    assert helps(client.get("/new").text) == ["a", "b", "c", "d", "e"]


def test_picking_another_card_explains_that_card(client):
    """Changing round 3 to Dancing Queens re-renders its explanation (htmx or not)."""
    data = {"edition": "deluxe", "length": "5", "preset": "keep", "cards-0": "a",
            "cards-1": "b", "cards-2": "z", "cards-3": "d", "cards-4": "e"}
    html = client.post("/new", data=data, headers={"HX-Request": "true"}).text
    assert helps(html) == ["a", "b", "z", "d", "e"]
    assert "Queen" in html.split('data-card-help="z"')[1].split("</p>")[0]


def test_explanations_follow_the_language(client):
    """With a French browser the explanation is the French one."""
    html = client.get("/new", headers={"Accept-Language": "fr-FR"}).text
    first = html.split('data-card-help="a"')[1].split("</p>")[0]
    assert "manche" in first.lower()
