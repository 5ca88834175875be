"""Bad input is answered 422 (or 404) and nothing is stored; it never crashes the app."""

from __future__ import annotations

import html
import re

import pytest

from companion.models import Game, Player

from .conftest import attr, cards_data, count, numbers_data, setup_form, totals


def refused_setup(client, app, **kwargs):
    response = client.post("/rebel-princess/new", data=setup_form(**kwargs))
    assert response.status_code == 422
    assert (count(app, Game), count(app, Player)) == (0, 0)
    return response


# --- setting up a game -----------------------------------------------------------------------

@pytest.mark.parametrize("names", [[], ["Ana"], ["Ana", "Ben"], ["Ana", "", "Cy"]])
def test_fewer_than_three_names(client, app, names):
    refused_setup(client, app, names=names)


@pytest.mark.parametrize("names", [["Ana", "Ben", "", "Di"], ["", "Ben", "Cy", "Di"],
                                   ["Ana", "Ben", "Cy", "", "", "Fay"]])
def test_gap_in_names(client, app, names):
    refused_setup(client, app, names=names)


@pytest.mark.parametrize("names", [["Ana", "Ben", "Ana"], ["Ana", "Ben", "ana"],
                                   ["Ana", "Ben", " ANA  "], ["Ana", "Straße", "STRASSE"]])
def test_duplicate_names(client, app, names):
    refused_setup(client, app, names=names)


@pytest.mark.parametrize("name", ["x" * 25, "<script>alert(1)</script>", "Anastasia " * 3])
def test_name_too_long(client, app, name):
    refused_setup(client, app, names=["Ana", "Ben", name])


def test_name_too_long_says_whose_and_how_long(client, app):
    """A pasted 200-character name is refused with a sentence, never cut or shown as a list."""
    response = refused_setup(client, app, names=["Ana", "Ben", "x" * 200])
    errors = re.findall(r'<ul class="errors" data-errors="names">(.*?)</ul>', response.text, re.S)
    assert errors and "Player 3" in errors[0] and "200" in errors[0] and "24" in errors[0]
    assert "[" not in errors[0] and "<li></li>" not in response.text
    assert 'value="' + "x" * 200 + '"' in response.text  # kept, to be shortened by hand


@pytest.mark.parametrize("name", ["Ana\x00", "\x00", "B\x07en", "Cy\x1b[31m", "Di\x7f",
                                  "\u202eeve", "Fa\x9by"])
def test_name_with_control_characters(client, app, name):
    response = refused_setup(client, app, names=["Ann", "Bob", name])
    assert 'data-errors="names"' in response.text


def test_name_with_emoji_sequence_is_fine(client, make_game):
    family = "Zoé \U0001f468\u200d\U0001f469\u200d\U0001f467"  # joiners are part of the emoji
    assert client.get("/rebel-princess"
                      f"/g/{make_game(names=['Ana', 'Ben', family])}").status_code == 200


@pytest.mark.parametrize("princess", ["x" * 30, "Snow White", "rapunzel-", "<b>mulan</b>"])
def test_princess_must_be_one_of_the_edition(client, app, princess):
    refused_setup(client, app, **{"princesses-1": princess})


def test_rapunzel_is_not_in_the_classic_edition(client, app):
    refused_setup(client, app, edition="classic", **{"princesses-0": "rapunzel"})


def test_known_princesses_are_stored(client, make_game):
    code = make_game(**{"princesses-0": "snow-white", "princesses-2": "mulan"})
    assert client.get(f"/rebel-princess/g/{code}/rules").status_code == 200


def test_name_of_24_characters_is_fine(client, make_game):
    code = make_game(names=["Ana", "Ben", "x" * 24])
    assert client.get(f"/rebel-princess/g/{code}").status_code == 200


def test_blank_name_counts_as_empty(client, app):
    refused_setup(client, app, names=["Ana", "Ben", "   "])


@pytest.mark.parametrize(("edition", "cards"), [("deluxe", "abcda"), ("deluxe", "aacde"),
                                                ("classic", "ACBDA")])
def test_same_round_card_twice(client, app, edition, cards):
    refused_setup(client, app, edition=edition, cards=cards)


def test_same_round_card_twice_in_short_game(client, app):
    refused_setup(client, app, cards="abade", length=3)


def test_short_game_ignores_unused_selects(make_game):
    assert make_game(cards="abcaa", length=3)


@pytest.mark.parametrize("bad", ["zz", "9", "", "Z", "?"])
def test_unknown_round_card(client, app, bad):
    refused_setup(client, app, cards=["a", "b", bad, "d", "e"])


def test_missing_round_card(client, app):
    refused_setup(client, app, cards="abcd")


@pytest.mark.parametrize("cards", ["aCBDM", "abcde", "ACBDz"])
def test_classic_given_deluxe_letter(client, app, cards):
    refused_setup(client, app, edition="classic", cards=cards)


def test_deluxe_given_classic_letter(client, app):
    refused_setup(client, app, edition="deluxe", cards=["a", "b", "c", "d", "M"])


@pytest.mark.parametrize(("players", "leader"), [(3, 3), (3, 5), (4, 4), (5, 6), (6, 6),
                                                 (4, -1), (4, "x"), (4, "١"), (4, "²")])
def test_first_leader_beyond_players(client, app, players, leader):
    refused_setup(client, app, players=players, first_leader=leader)


@pytest.mark.parametrize(("field", "value"), [("edition", "poker"), ("length", "7"),
                                              ("edition", "")])
def test_bad_edition_or_length(client, app, field, value):
    refused_setup(client, app, **{field: value})


def test_seven_names_are_refused(client, app):
    names = ["Ana", "Ben", "Cy", "Di", "Eve", "Fay", "Gus"]
    refused_setup(client, app, names=names)


def test_request_too_large(client, app):
    response = client.post("/rebel-princess/new", data=setup_form(**{"princesses-0": "x" * 70_000}))
    assert response.status_code == 413
    assert count(app, Game) == 0


def test_refused_setup_keeps_what_was_typed(client, app):
    response = refused_setup(client, app, names=["Ana", "Ben", "ana"], cards="zabcd")
    assert 'data-name-seat="0"' in response.text
    assert 'value="Ana"' in response.text
    assert 'value="z" selected' in response.text


# --- entering a round by cards ---------------------------------------------------------------

def test_incomplete_tally(client, app, make_game):
    code = make_game()
    data = cards_data(client, code, 1, rest=3)
    del data["P3"]
    response = client.post(f"/rebel-princess/g/{code}/round/1/cards", data={**data, "A8": "0"})
    assert response.status_code == 422
    assert 'data-problem="missing-card" data-card="P3"' in response.text
    assert "The 3 of Princes has not been given to anyone yet." in html.unescape(response.text)
    assert count(app) == 0


@pytest.mark.parametrize(("language", "sentence"), [
    ("en", "The Frog has not been given to anyone yet."),
    ("fr", "Personne n'a encore reçu la Grenouille.")])
def test_missing_frog_is_called_the_frog(client, app, make_game, language, sentence):
    """Players read "the Frog", never its code A8."""
    code = make_game()
    data = cards_data(client, code, 1, rest=3)
    del data["A8"]
    response = client.post(f"/rebel-princess/g/{code}/round/1/cards", data=data,
                           headers={"Accept-Language": language})
    assert 'data-problem="missing-card" data-card="A8"' in response.text
    text = html.unescape(response.text)
    assert sentence in text and "A8 " not in text


def test_nothing_given(client, app, make_game):
    code = make_game()
    response = client.post(f"/rebel-princess/g/{code}/round/1/cards", data={})
    assert response.status_code == 422
    assert attr(response.text, "data-missing") == ["11"]
    assert count(app) == 0


@pytest.mark.parametrize("value", ["-1", "", "None"])
def test_card_value_not_a_seat(client, app, make_game, value):
    code = make_game()
    data = cards_data(client, code, 1, {"A8": 0, "P3": value}, rest=3)
    assert client.post(f"/rebel-princess/g/{code}/round/1/cards", data=data).status_code == 422
    assert count(app) == 0


@pytest.mark.parametrize(("edition", "bad"), [
    ("deluxe", {"P3": "4"}), ("deluxe", {"P3": "9"}), ("deluxe", {"P3": "x"}),
    ("deluxe", {"leader": "x"}), ("classic", {"last_trick": "x"}),
], ids=["P3=4", "P3=9", "P3=x", "leader=x", "last_trick=x"])
def test_cards_entry_value_not_a_seat(client, app, make_game, edition, bad):
    code = make_game(edition=edition)
    data = cards_data(client, code, 1, {"A8": 0}, rest=3, last_trick=1)
    data.update(bad)
    assert client.post(f"/rebel-princess/g/{code}/round/1/cards", data=data).status_code == 422
    assert count(app) == 0


@pytest.mark.parametrize("digit", ["²", "١", "٣", "1²"])
@pytest.mark.parametrize("field", ["P5", "leader"])
def test_cards_entry_non_ascii_digits(client, app, make_game, field, digit):
    """Only ASCII digits are seats: "١" (Arabic-Indic one) is not read as seat 1."""
    code = make_game()
    data = cards_data(client, code, 1, {"A8": 0}, rest=1)
    data[field] = digit
    response = client.post(f"/rebel-princess/g/{code}/round/1/cards", data=data)
    assert response.status_code == 422
    assert f'data-errors="{field}"' in response.text
    preview = client.post(f"/rebel-princess/g/{code}/round/1/preview", data=data)
    assert preview.status_code == 200
    if field == "P5":
        assert 'data-card="P5"' in preview.text  # still to give out
    assert count(app) == 0


@pytest.mark.parametrize("base", ["²", "١", "1²", "-1", "1.0", "x"])
@pytest.mark.parametrize("way", ["cards", "numbers"])
def test_base_not_a_record_number(client, app, make_game, way, base):
    code = make_game()
    data = (cards_data(client, code, 1, {"A8": 0}, rest=1) if way == "cards"
            else numbers_data([0, 3, 8, 4]))
    response = client.post(f"/rebel-princess/g/{code}/round/1/{way}", data={**data, "base": base})
    assert response.status_code == 400
    assert count(app) == 0


def test_cards_leader_beyond_seats(client, app, make_game):
    code = make_game()
    data = cards_data(client, code, 1, {"A8": 0}, rest=3, leader="7")
    assert client.post(f"/rebel-princess/g/{code}/round/1/cards", data=data).status_code == 422
    assert count(app) == 0


@pytest.mark.parametrize("data", [{"P3": "9"}, {"P3": "x"}, {"P3": "1", "leader": "x"}],
                         ids=["P3=9", "P3=x", "leader=x"])
def test_preview_with_bad_value(client, app, make_game, data):
    code = make_game()
    assert client.post("/rebel-princess"
                       f"/g/{code}/round/1/preview", data=data).status_code in (200, 422)
    assert count(app) == 0


def test_cards_without_trick(app, make_game, enter_round_by_cards):
    code = make_game(cards="eabcd")
    response = enter_round_by_cards(code, 1, {"A8": 1, "P1": 2}, rest=0, no_trick_2="y")
    assert response.status_code == 422
    assert 'data-problem="cards-without-trick"' in response.text
    assert count(app) == 0


@pytest.mark.parametrize("last_trick", [None, "4", ""])
def test_classic_cards_need_last_trick_winner(client, app, make_game, last_trick):
    code = make_game(edition="classic")
    extra = {} if last_trick is None else {"last_trick": last_trick}
    data = cards_data(client, code, 1, {"A8": 1}, rest=0, **extra)
    assert client.post(f"/rebel-princess/g/{code}/round/1/cards", data=data).status_code == 422
    assert count(app) == 0


def test_playoff_card_must_exist(app, make_game, by_numbers):
    code = make_game(cards="abc", length=3)
    for number, scores in enumerate([[0, 0, 7, 8], [5, 5, 2, 3], [5, 5, 3, 2]], start=1):
        by_numbers(code, number, scores)
    for bad in ("zz", "M", ""):
        assert by_numbers(code, 4, [4, 3, 4, 4], round_card=bad).status_code == 422
    assert count(app) == 3


# --- entering a round by numbers -------------------------------------------------------------

@pytest.mark.parametrize("bad", ["x", "", "100", "-100", "1.5", "1e2"])
def test_score_not_a_round_score(app, make_game, by_numbers, bad):
    code = make_game()
    assert by_numbers(code, 1, [0, 3, bad, 4], confirm="y").status_code == 422
    assert count(app) == 0


@pytest.mark.parametrize("bad", ["²", "١", "٣", "1²", "-²", "３"])
def test_score_in_other_digits(app, make_game, by_numbers, bad):
    """Only ASCII digits: int() would read "١" and "３" as 1 and 3."""
    code = make_game()
    response = by_numbers(code, 1, [0, 3, bad, 4], confirm="y")
    assert response.status_code == 422
    assert 'data-errors="score_2"' in response.text
    assert count(app) == 0


@pytest.mark.parametrize("minus", ["-", "\u2212"])
def test_negative_score_with_either_minus(client, make_game, by_numbers, minus):
    """The sign toggle writes "-"; the pad prints "−": both are read as minus."""
    code = make_game()
    assert by_numbers(code, 1, [f"{minus}3", 10, 4, 4], confirm="y").status_code == 302
    assert totals(client, code) == [-3, 10, 4, 4]


@pytest.mark.parametrize("field", ["leader", "last_trick"])
def test_numbers_seat_fields_in_other_digits(app, make_game, by_numbers, field):
    code = make_game(edition="classic")
    extra = {"last_trick": 1, field: "١"}
    assert by_numbers(code, 1, [0, 3, 8, 4], **extra).status_code == 422
    assert count(app) == 0


def test_a_score_missing(app, make_game, by_numbers):
    code = make_game()
    assert by_numbers(code, 1, [0, 3, 12], confirm="y").status_code == 422
    assert count(app) == 0


def test_numbers_leader_not_a_seat(app, make_game, by_numbers):
    code = make_game()
    for bad in ("x", "4"):
        assert by_numbers(code, 1, [0, 3, 8, 4], leader=bad).status_code == 422
    assert count(app) == 0


@pytest.mark.parametrize("last_trick", ["4", "x", ""])
def test_classic_numbers_last_trick_not_a_seat(app, make_game, by_numbers, last_trick):
    code = make_game(edition="classic")
    assert by_numbers(code, 1, [0, 3, 8, 4], last_trick=last_trick).status_code == 422
    assert count(app) == 0


def test_round_card_ignored_outside_playoff(client, make_game, by_numbers):
    code = make_game()
    assert by_numbers(code, 1, [0, 3, 8, 4], round_card="z").status_code == 302
    assert attr(client.get(f"/rebel-princess/g/{code}").text, "data-round-card") == ["b"]


# --- rounds out of order, after the end, edits that do not fit -------------------------------

def test_round_not_next(client, app, make_game, by_numbers):
    code = make_game()
    by_numbers(code, 1, [0, 3, 8, 4])
    assert by_numbers(code, 3, [0, 3, 8, 4]).status_code in (404, 422)
    assert client.post(f"/rebel-princess/g/{code}/round/3/preview", data={}).status_code == 404
    assert count(app) == 1


def test_round_after_the_end(client, app, make_game, by_numbers):
    code = make_game(cards="abc", length=3)
    for number in (1, 2, 3):
        by_numbers(code, number, [0, 3, 8, 4])
    assert by_numbers(code, 4, [0, 3, 8, 4], round_card="a").status_code in (404, 422)
    assert client.post("/rebel-princess"
                       f"/g/{code}/round/4/cards", data={"A8": "0"}).status_code in (404, 422)
    assert client.post(f"/rebel-princess/g/{code}/round/4/preview", data={}).status_code == 404
    assert count(app) == 3


def test_base_from_another_game_is_stale(client, make_game, by_numbers, record_ids):
    first, second = make_game(), make_game()
    by_numbers(first, 1, [0, 3, 8, 4])
    by_numbers(second, 1, [0, 3, 8, 4])
    response = by_numbers(second, 1, [3, 0, 8, 4], base=record_ids(first, 1)[0])
    assert response.status_code == 422
    assert attr(response.text, "data-problem") == ["stale-edit"]
    assert totals(client, second) == [0, 3, 8, 4]


def test_base_on_a_new_round_is_stale(app, make_game, by_numbers):
    code = make_game()
    response = by_numbers(code, 1, [0, 3, 8, 4], base=12345)
    assert response.status_code == 422
    assert attr(response.text, "data-problem") == ["stale-edit"]
    assert count(app) == 0


def test_double_tap_on_an_edit(make_game, by_numbers, record_ids, history):
    code = make_game()
    by_numbers(code, 1, [0, 3, 8, 4])
    base = record_ids(code, 1)[0]
    assert by_numbers(code, 1, [3, 0, 8, 4], base=base).status_code == 302
    assert by_numbers(code, 1, [3, 0, 8, 4], base=base).status_code == 302
    assert history(code) == ["entered", "edited"]


def test_undo_needs_post(client, make_game):
    assert client.get(f"/rebel-princess/g/{make_game()}/undo").status_code == 405


# --- hostile requests that cost memory ---------------------------------------------------------

def test_qr_code_cache_is_bounded(monkeypatch):
    """Each distinct Host header makes another share address: the QR cache keeps only so many
    (tried with 64, so that the test draws few codes), and its full size fits in a few MB."""
    from companion.routes import qr

    size = qr._QR_CACHE_SIZE
    monkeypatch.setattr(qr, "_QR_CACHE_SIZE", 64)
    for n in range(80):
        qr._qr_drawing(f"http://h{n}.example/g/{'a' * 32}")
    assert len(qr._QR_CACHE) <= 64
    assert size * max(len(svg) for svg in qr._QR_CACHE.values()) <= 8 * 1024 * 1024
