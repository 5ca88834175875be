"""The image a finished game is shared as (issue 29, item 6): drawn as SVG by the app from the
game's summary and its end screen's own words, kept in the end screen (scorers' and viewers'
alike) for share.js to turn into a PNG. Figures worked out by hand in conftest.py."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest

from companion.history.share import LIGHT, WIDTH, share_image, title_size
from companion.history.summary import GameSummary, StepUnit

from .conftest import link

SVG = "{http://www.w3.org/2000/svg}"


def shared_svg(client, app, known, name: str, lang: str = "en", role: str = "viewer"):
    """The SVG kept in the end screen of the known game ``name``, parsed."""
    code = known.codes[name]
    kind = {"rp": "rebel-princess", "pp": "princesse-princesse", "rv": "reveillez",
            "kd": "kanai-duel"}[name[:2]]
    html = client.get(f"/{kind}/g/{link(app, code, role)}",
                      headers={"Accept-Language": lang}).text
    found = re.search(r"<template data-share-image>(.*?)</template>", html, re.S)
    assert found, f"{name}: no image to share"
    return ET.fromstring(found[1]), html


def texts(element) -> list[str]:
    return ["".join(t.itertext()) for t in element.iter(f"{SVG}text")]


def figures(svg) -> list[tuple[int, ...]]:
    return [tuple(int(v) for v in g.get("data-round-totals").split(","))
            for g in svg.iter(f"{SVG}g") if g.get("data-round")]


GAMES = {
    # name: winners, initials by seat, totals after each round (none: the game has no rounds)
    "rp1": ("1", ["A", "B", "C", "D"], [(8, 2, 5, 0), (9, -2, 3, 8), (12, 0, 8, 20)]),
    "rp2": ("0", ["B", "A", "D", "C"], [(-10, 0, 0, 0), (-7, 0, 5, 7), (-5, 4, 5, 16)]),
    "pp": ("0", ["A", "B", "C", "D", "E"], [(2, 0, 0, 0, 0), (2, 2, 1, 0, 0), (3, 2, 1, 1, 0)]),
    "rv": ("0", ["A", "B"], []),
    "kd2": (None, ["B", "C"], [(1, 0), (2, 0), (2, 1), (2, 2), (3, 2), (3, 3), (3, 3), (3, 3)]),
}


@pytest.mark.parametrize("name", GAMES)
def test_the_image_names_the_winner_marks_every_player_and_gives_each_rounds_totals(
        app, client, known, name):
    winners, marks, rounds = GAMES[name]
    svg, _ = shared_svg(client, app, known, name)
    winner_line = [t for t in svg.iter(f"{SVG}text") if t.get("data-share-winners")]
    assert [t.get("data-share-winners") for t in winner_line] == ([winners] if winners else [])
    seats = {int(g.get("data-share-seat")): g for g in svg.iter(f"{SVG}g")
             if g.get("data-share-seat")}
    assert [next(t.text for t in seats[s].iter(f"{SVG}text") if t.get("data-mark") is not None)
            for s in sorted(seats)] == marks
    assert figures(svg) == rounds
    assert (svg.find(f".//{SVG}g[@data-share-chart]") is not None) == bool(rounds)


def test_the_image_gives_each_players_colour_and_score_best_first(app, client, known):
    svg, _ = shared_svg(client, app, known, "rp1")
    rows = [g for g in svg.iter(f"{SVG}g") if g.get("data-share-seat")]
    assert [int(g.get("data-share-seat")) for g in rows] == [1, 2, 0, 3]  # 0, 8, 12, 20
    assert [g.find(f"{SVG}text[@data-score]").get("data-score") for g in rows] == [
        "0", "8", "12", "20"]
    assert [g.find(f"{SVG}circle").get("fill") for g in rows] == [
        "#56B4E9", "#009E73", "#E69F00", "#CC79A7"]  # common.colours.PALETTE, seat by seat


def test_the_image_says_how_the_game_was_decided_in_the_screens_words(app, client, known):
    svg, html = shared_svg(client, app, known, "rp1")
    decided = "".join(svg.find(f".//{SVG}text[@data-share-decided]").itertext())
    assert decided == "Lowest total: 0"
    assert "lowest total: 0" in html  # the end screen's own sentence
    svg, _ = shared_svg(client, app, known, "rv")
    assert "".join(svg.find(f".//{SVG}text[@data-share-decided]").itertext()) == (
        "Ana wins with 55 points.")
    svg, _ = shared_svg(client, app, known, "kd2")
    assert "".join(svg.find(f".//{SVG}text[@data-share-decided]").itertext()) == (
        "All cards played without a king: 3 to 3.")


@pytest.mark.parametrize(("lang", "words"), [
    ("en", ["Rebel Princess", "Winner", "Total after each round", "Round", "Points"]),
    ("fr", ["Rebelles Princesses", "Gagnant", "Total après chaque manche", "Manche", "Points"]),
])
def test_the_image_is_in_the_phones_language(app, client, known, lang, words):
    svg, _ = shared_svg(client, app, known, "rp1", lang)
    assert svg.get("lang") == lang
    assert all(word in texts(svg) for word in words), texts(svg)


def test_the_image_is_drawn_in_the_light_scheme_with_no_style_and_no_address(
        app, client, known):
    for name in GAMES:
        svg, html = shared_svg(client, app, known, name, role="scorer")
        assert svg.find(f"{SVG}rect").get("fill") == LIGHT["bg"]
        markup = ET.tostring(svg, encoding="unicode")
        assert "style" not in markup and "href" not in markup
        token = link(app, known.codes[name], "scorer")
        assert token not in markup
        button = re.search(r"<button[^>]*data-share-result[^>]*>", html)[0]
        assert token not in button and "http" not in button


def test_a_game_in_progress_has_nothing_to_share(app, client, known):
    html = client.get(f"/rebel-princess/g/{link(app, known.codes['open'])}").text
    assert "data-share-result" not in html and "data-share-image" not in html


def test_the_text_line_names_the_game_the_winner_and_the_scores(app, client, known):
    _, html = shared_svg(client, app, known, "pp", "fr")
    button = re.search(r"<button[^>]*data-share-result[^>]*>", html)[0]
    assert re.search(r'data-file="princesse_princesse-\d{4}-\d\d-\d\d\.png"', button)
    assert ('data-text="Princesse Princesse (Love Letter) · Gagnant\u00a0: Ana '
            '(Ana 3, Ben 2, Cy 1, Di 1, Eve 0)"') in button


# --- the layout alone ---------------------------------------------------------------------------

def test_a_game_counted_by_turns_has_no_chart():
    """Réveillez counts its totals after each action, not each round: standings only."""
    summary = GameSummary(finished=True, winners=(0,), scores=(5, 2),
                          progress=((5, 0), (5, 2)), step=StepUnit.TURN)
    image = share_image(["Ana", "Ben"], summary, "x", title="T", when="d")
    assert image.chart is None and image.figures == ()


def test_a_sentence_is_never_cut_at_a_no_break_space():
    summary = GameSummary(finished=True, winners=(0, 1), scores=(10, 10))
    decided = ("À égalité à 10 avec autant de manches à 0 pile\u00a0: la victoire est "
               "partagée.")
    image = share_image(["Ana", "Ben"], summary, decided, title="T", when="d")
    assert [line for line in image.decided if line.startswith("\u00a0") or
            line.startswith(":")] == []
    assert " ".join(image.decided) == decided


def test_a_long_title_is_drawn_smaller_to_fit():
    assert title_size("Rebel Princess") == 20
    long = "Princesse Princesse (Love Letter)"
    assert title_size(long) * 0.62 * len(long) <= WIDTH - 24
