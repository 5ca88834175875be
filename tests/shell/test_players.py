"""One colour and one initial per player (issue 22): companion.common.colours."""

from __future__ import annotations

import re
from pathlib import Path

from companion.common.colours import PALETTE, initials, seat_class, seat_colour, seat_style
from companion.history.charts import colour


def test_initials_are_the_first_letter_of_each_name():
    assert initials(["ana", "Ben", "Éloïse"]) == ("A", "B", "É")


def test_players_who_share_a_letter_get_two():
    """Ana and Alex: « An », « Al »; Ben keeps « B »."""
    assert initials(["Ana", "Alex", "Ben"]) == ("An", "Al", "B")


def test_players_who_share_two_letters_get_their_seat():
    assert initials(["Chloé", "Charlotte", "Chris"]) == ("Ch1", "Ch2", "Ch3")


def test_a_name_with_no_letter_still_has_a_mark():
    assert initials(["  ", "!"]) == ("?1", "?2")


def test_the_charts_draw_with_the_players_colours():
    assert [colour(seat) for seat in range(6)] == [seat_colour(seat) for seat in range(6)]
    assert len(set(PALETTE)) == 6 and seat_colour(6) == seat_colour(0)


def test_a_seat_s_style_holds_its_colour_and_the_colour_of_text_on_it():
    assert seat_style(4).startswith("--seat:#0072B2;--on-seat:#fff;")


def test_each_seats_class_in_app_css_holds_that_seats_colours():
    """The classes seat_class() names (a leader's or winner's name in their own colour) carry
    the same colours as seat_style(): app.css is written from PALETTE, and must stay so."""
    css = (Path(__file__).resolve().parents[2] / "companion" / "static" / "app.css").read_text()
    for seat in range(8):
        rule = re.search(r"\." + seat_class(seat) + r" \{([^}]*)\}", css)
        assert rule, seat_class(seat)
        declared = rule[1].replace(" ", "").rstrip(";")
        assert declared == seat_style(seat).replace(" ", ""), seat
