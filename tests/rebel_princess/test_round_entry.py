"""Round entry by cards and by numbers: forms, preview, saving, double taps, edits, play-offs."""

from __future__ import annotations

import re

import pytest

from .conftest import attr, cards_data, count, numbers_data, pad_leader, rows_of, totals

PRINCES_4 = [f"P{r}" for r in range(1, 11)]


def rows(client, code, number=1):
    return rows_of(client.get(f"/rebel-princess/g/{code}/round/{number}/cards").text)


# --- the by-cards form asks for the cards that score ---------------------------------------

def test_once_upon_a_time_rows(client, make_game):
    assert rows(client, make_game()) == [*PRINCES_4, "A8"]


@pytest.mark.parametrize(("players", "princes"), [(3, range(2, 11)), (5, range(1, 11)),
                                                  (6, range(1, 13))])
def test_rows_follow_the_deck(client, make_game, players, princes):
    assert rows(client, make_game(players=players)) == [*(f"P{r}" for r in princes), "A8"]


@pytest.mark.parametrize(("edition", "letter", "extra"), [
    ("deluxe", "z", {f"Q{r}" for r in range(1, 11)}),
    ("deluxe", "d", {"Q3", "F3", "A3"}),
    ("deluxe", "j", {f"A{r}" for r in range(1, 11)} - {"A8"}),
    ("deluxe", "t", {f"F{r}" for r in range(1, 11)}),
    ("classic", "K", {f"Q{r}" for r in range(1, 11)}),
    ("classic", "F", {f"A{r}" for r in range(1, 11)} - {"A8"}),
    ("classic", "P", {f"F{r}" for r in range(1, 11)}),
])
def test_round_card_adds_rows(client, make_game, edition, letter, extra):
    others = "abcde" if edition == "deluxe" else "ABCDE"
    cards = (letter + others.replace(letter, ""))[:5]
    found = rows(client, make_game(edition=edition, cards=cards))
    assert set(found) == {*PRINCES_4, "A8", *extra}
    assert len(found) == len(set(found))


def test_arranged_marriage_asks_who_won_no_trick(client, make_game):
    html = client.get(f"/rebel-princess/g/{make_game(cards='eabcd')}/round/1/cards").text
    assert attr(html, "data-round-card") == ["e"]
    assert re.findall(r'name="(no_trick_\d)"', html) == [f"no_trick_{s}" for s in range(4)]


def test_plain_card_does_not_ask_for_tricks(client, make_game):
    html = client.get(f"/rebel-princess/g/{make_game()}/round/1/cards").text
    assert "no_trick_" not in html
    assert 'name="last_trick"' not in html


def test_classic_asks_who_won_the_last_trick(client, make_game):
    html = client.get(f"/rebel-princess/g/{make_game(edition='classic')}/round/1/cards").text
    assert len(re.findall(r'name="last_trick"', html)) == 4


def test_round_page_shows_card_and_leader(client, make_game):
    html = client.get("/rebel-princess"
                      f"/g/{make_game(cards='zabcd', first_leader=3)}/round/1/cards").text
    assert attr(html, "data-round-card") == ["z"]
    assert attr(html, "data-leader") == ["3"]


# --- saving by cards -------------------------------------------------------------------------

def test_save_a_round_by_cards(client, make_game, enter_round_by_cards):
    code = make_game(cards="azycd")
    given = {"P1": 1, "P2": 1, "P3": 1, "P4": 2, "P5": 2, "P6": 2, "A8": 2}
    response = enter_round_by_cards(code, 1, given, rest=3)
    assert response.status_code == 302
    assert response.headers["Location"] == f"/rebel-princess/g/{code}"
    assert totals(client, code) == [0, 3, 8, 4]
    assert pad_leader(client, code) == 0
    assert attr(client.get(f"/rebel-princess/g/{code}").text, "data-round-card") == ["z"]


@pytest.mark.parametrize(("first", "leader"), [(0, 1), (1, 0), (3, 0)])
def test_tied_lowest_leader_scans_left_of_first_leader(client, make_game, enter_round_by_cards,
                                                       first, leader):
    code = make_game(first_leader=first)
    enter_round_by_cards(code, 1, {"A8": 2}, rest=3)  # totals 0, 0, 5, 10
    assert pad_leader(client, code) == leader


def test_arranged_marriage_no_trick_bonus(client, make_game, enter_round_by_cards):
    code = make_game(cards="eabcd")
    response = enter_round_by_cards(code, 1, {"A8": 1}, rest=0, no_trick_2="y", no_trick_3="y")
    assert response.status_code == 302
    assert totals(client, code) == [10, 5, 5, 5]


def test_arranged_marriage_nobody_without_trick(client, make_game, enter_round_by_cards):
    code = make_game(cards="eabcd")
    assert enter_round_by_cards(code, 1, {"A8": 1}, rest=0).status_code == 302
    assert totals(client, code) == [10, 5, 0, 0]


def test_classic_round_by_cards_last_trick_leads(client, make_game, enter_round_by_cards):
    code = make_game(edition="classic")
    response = enter_round_by_cards(code, 1, {"A8": 1}, rest=0, last_trick=3)
    assert response.status_code == 302
    assert totals(client, code) == [10, 5, 0, 0]
    assert pad_leader(client, code) == 3


def test_classic_single_player_takes_all(client, make_game, enter_round_by_cards):
    """No Rebel of the Ball in the classic edition: all Princes and the Frog score 15."""
    code = make_game(edition="classic")
    enter_round_by_cards(code, 1, rest=2, last_trick=2)
    assert totals(client, code) == [0, 0, 15, 0]


def test_deluxe_rebel_of_the_ball(client, make_game, enter_round_by_cards):
    code = make_game()
    enter_round_by_cards(code, 1, rest=2)
    assert totals(client, code) == [0, 0, -10, 0]


def test_leader_override_is_used(client, make_game, enter_round_by_cards):
    code = make_game()
    enter_round_by_cards(code, 1, {"A8": 2}, rest=3, leader=1)  # totals 0, 0, 5, 10
    html = client.get(f"/rebel-princess/g/{code}").text
    assert pad_leader(client, code) == 0  # the scan starts left of seat 1, seat 0 comes last
    assert 'data-round-row="1"' in html


def tied_after_three(by_numbers, make_game):
    """A short Deluxe game (a, b, c) whose three rounds end in a tie: a play-off comes next."""
    code = make_game(cards="abc", length=3)
    for number, scores in enumerate([[0, 0, 7, 8], [5, 5, 2, 3], [5, 5, 3, 2]], start=1):
        by_numbers(code, number, scores)
    return code


def test_playoff_by_cards_asks_the_card_first(client, make_game, by_numbers):
    """No card to give out before the players say which card was drawn; none is preselected,
    and the cards already played in this game are not offered."""
    code = tied_after_three(by_numbers, make_game)
    html = client.get(f"/rebel-princess/g/{code}/round/4/cards").text
    assert rows_of(html) == [] and 'id="cards-entry"' not in html
    offered = re.findall(r'<option value="(\w)"', html)
    assert offered == [c for c in "defghijklmnopqrstuvwxyz"]
    assert re.findall(r'<option value="(\w*)"[^>]*selected', html) == [""]
    assert "Save round 4" not in html


@pytest.mark.parametrize(("letter", "rows", "no_tricks"), [
    ("z", [*PRINCES_4, *(f"Q{r}" for r in range(1, 11)), "A8"], False),
    ("e", [*PRINCES_4, "A8"], True),
    ("j", [*PRINCES_4, *(f"A{r}" for r in range(1, 11))], False)])
def test_playoff_by_cards_asks_what_the_drawn_card_scores(client, make_game, by_numbers, letter,
                                                          rows, no_tricks):
    code = tied_after_three(by_numbers, make_game)
    html = client.get(f"/rebel-princess/g/{code}/round/4/cards?round_card={letter}").text
    assert rows_of(html) == rows
    assert ('name="no_trick_0"' in html) is no_tricks
    assert f'data-round-card="{letter}"' in html and "Save the play-off" in html


@pytest.mark.parametrize("letter", ["a", "c", "M", "zz"])
def test_playoff_card_already_played_or_unknown_asks_again(client, app, make_game, by_numbers,
                                                           letter):
    code = tied_after_three(by_numbers, make_game)
    html = client.get(f"/rebel-princess/g/{code}/round/4/cards?round_card={letter}").text
    assert rows_of(html) == [] and 'id="playoff-card"' in html
    data = cards_data(client, code, 4, {"A8": 0}, round_card=letter)
    assert client.post(f"/rebel-princess/g/{code}/round/4/cards", data=data).status_code == 422
    assert count(app) == 3


def test_playoff_by_numbers_offers_the_cards_not_played(client, make_game, by_numbers):
    code = tied_after_three(by_numbers, make_game)
    html = client.get(f"/rebel-princess/g/{code}/round/4/numbers").text
    assert re.findall(r'<option value="([a-z])"', html) == list("defghijklmnopqrstuvwxyz")
    assert re.findall(r'<option value="(\w*)"[^>]*selected', html) == [""]
    assert "Save the play-off" in html
    assert by_numbers(code, 4, [4, 3, 4, 4], round_card="a").status_code == 422


def test_second_playoff_does_not_offer_the_first_ones_card(client, make_game, by_numbers):
    code = tied_after_three(by_numbers, make_game)
    assert by_numbers(code, 4, [4, 4, 3, 4], round_card="r").status_code == 302  # still tied
    html = client.get(f"/rebel-princess/g/{code}/round/5/cards").text
    assert "r" not in re.findall(r'<option value="(\w)"', html)


def test_playoff_round_by_cards(client, make_game, by_numbers):
    code = tied_after_three(by_numbers, make_game)
    # Under Dancing Queens Di takes every couple but P1, Ben keeps P1 (1) and Cy the Frog.
    data = {row: "3" for row in rows_of(client.get("/rebel-princess"
                                                   f"/g/{code}/round/4/cards?round_card=z").text)}
    data.update({"A8": "2", "P1": "1", "round_card": "z"})
    response = client.post(f"/rebel-princess/g/{code}/round/4/cards", data=data)
    assert response.status_code == 302
    assert totals(client, code) == [10, 11, 17, 13 + 27]
    pad = client.get(f"/rebel-princess/g/{code}").text
    assert attr(pad, "data-winners") == ["0"]


def test_playoff_by_cards_needs_the_round_card(app, make_game, by_numbers, enter_round_by_cards):
    code = make_game(cards="abc", length=3)
    for number, scores in enumerate([[0, 0, 7, 8], [5, 5, 2, 3], [5, 5, 3, 2]], start=1):
        by_numbers(code, number, scores)
    stored = count(app)
    assert enter_round_by_cards(code, 4, {"A8": 0}, rest=1).status_code == 422
    assert count(app) == stored


# --- live preview ----------------------------------------------------------------------------

def test_preview_scores_and_missing(client, app, make_game):
    code = make_game()
    response = client.post("/rebel-princess"
                           f"/g/{code}/round/1/preview", data={"P1": "0", "P2": "1", "A8": "2"})
    assert response.status_code == 200
    assert attr(response.text, "data-points") == ["1", "1", "5", "0"]
    assert attr(response.text, "data-missing") == ["8"]
    assert count(app) == 0


def test_preview_complete(client, app, make_game):
    code = make_game()
    data = cards_data(client, code, 1, {"A8": 2}, rest=3)
    response = client.post(f"/rebel-princess/g/{code}/round/1/preview", data=data)
    assert attr(response.text, "data-missing") == ["0"]
    assert attr(response.text, "data-points") == ["0", "0", "5", "10"]
    assert count(app) == 0


def test_preview_dancing_queens(client, make_game):
    code = make_game(cards="zabcd")
    data = {c: "0" for c in ("P2", "P7", "P9", "Q2", "Q5")}
    response = client.post(f"/rebel-princess/g/{code}/round/1/preview", data=data)
    assert attr(response.text, "data-points")[0] == "6"
    assert attr(response.text, "data-missing") == [str(10 + 10 + 1 - 5)]


def test_preview_flags_cards_without_trick(client, make_game):
    code = make_game(cards="eabcd")
    response = client.post("/rebel-princess"
                           f"/g/{code}/round/1/preview", data={"P1": "2", "no_trick_2": "y"})
    assert response.status_code == 200
    assert 'data-problem="cards-without-trick"' in response.text


def test_running_score_table_has_header_cells(client, make_game):
    """Each row of the running score is headed by the player's name, for screen readers."""
    html = client.post(f"/rebel-princess/g/{make_game()}/round/1/preview", data={"P1": "0"}).text
    assert len(re.findall(r'<th scope="col">', html)) == 3
    assert re.findall(r'<th scope="row" class="who">(\w+)</th>', html) == ["Ana", "Ben", "Cy", "Di"]


def test_give_the_rest_buttons_are_named_by_their_label(client, make_game):
    """The accessible name of "give the rest" contains the short name the button shows."""
    names = ["Chloé", "Charlotte", "Ben", "Dev", "Eve", "Fay"]
    html = client.get(f"/rebel-princess/g/{make_game(players=6, names=names)}/round/1/cards").text
    buttons = re.findall(r'<button [^>]*data-rest="\d" aria-label="([^"]*)">'
                         r'<bdi class="nm">([^<]*)</bdi></button>', html)
    # Shortened by the one rule (companion.common.short_names): whole, or cut after a syllable.
    assert [shown for _, shown in buttons] == ["Chloé", "Char…", "Ben", "Dev", "Eve", "Fay"]
    for label, shown in buttons:
        assert label.startswith(f"{shown}:") or label.endswith(f" {shown}"), (label, shown)
    assert buttons[1][0] == "Char…: give the rest to Charlotte"


@pytest.mark.parametrize("way", ["cards", "numbers"])
def test_entry_pages_are_not_stored_by_the_browser(client, make_game, by_numbers, way):
    """Back after Save asks the server again (the round is saved now) instead of showing the
    form as it was before Save; taps in progress are kept by the page's own draft."""
    code = make_game()
    assert client.get("/rebel-princess"
                      f"/g/{code}/round/1/{way}").headers["Cache-Control"] == "no-store"
    by_numbers(code, 1, [0, 3, 8, 4])
    assert client.get("/rebel-princess"
                      f"/g/{code}/round/1/{way}").headers["Cache-Control"] == "no-store"
    assert "no-store" not in client.get("/rebel-princess"
                                        f"/g/{code}").headers.get("Cache-Control", "")


@pytest.mark.parametrize("way", ["cards", "counts", "numbers"])
def test_each_entry_keeps_a_draft_per_round_and_version(client, make_game, by_numbers,
                                                        record_ids, way):
    """Each way of entering a round names the draft drafts.js keeps: the form, and the round and
    version it edits ("new") — a draft of a round saved since never comes back on the edit."""
    code = make_game()
    html = client.get(f"/rebel-princess/g/{code}/round/1/{way}").text
    assert attr(html, "data-draft") == [f"rp:{way}"] and 'data-queue' in html
    assert attr(html, "data-draft-at")[0].startswith("1:new")
    by_numbers(code, 1, [0, 3, 8, 4])
    record = record_ids(code, 1)[0]
    html = client.get(f"/rebel-princess/g/{code}/round/1/{way}").text
    assert attr(html, "data-draft-at")[0].startswith(f"1:{record}")


def test_preview_unknown_game_is_404(client):
    assert client.post("/rebel-princess/g/nosuch/round/1/preview", data={}).status_code == 404


# --- by numbers ------------------------------------------------------------------------------

def test_numbers_form(client, make_game):
    html = client.get(f"/rebel-princess/g/{make_game(players=5)}/round/1/numbers").text
    assert re.findall(r'name="(score_\d)"', html) == [f"score_{s}" for s in range(5)]


def test_save_by_numbers(client, make_game, by_numbers):
    code = make_game()
    response = by_numbers(code, 1, [0, 3, 8, 4])
    assert response.status_code == 302
    assert response.headers["Location"] == f"/rebel-princess/g/{code}"
    assert totals(client, code) == [0, 3, 8, 4]
    assert pad_leader(client, code) == 0


def test_by_numbers_rebel_total_is_possible(make_game, by_numbers):
    code = make_game()
    assert by_numbers(code, 1, [0, 0, -10, 0]).status_code == 302


def test_impossible_total_warns_and_stores_nothing(app, make_game, by_numbers):
    code = make_game()
    response = by_numbers(code, 1, [1, 2, 3, 4])
    assert response.status_code == 422
    assert attr(response.text, "data-warning") == ["impossible-round-total"]
    assert count(app) == 0


def test_impossible_total_confirmed_is_saved(client, make_game, by_numbers):
    code = make_game()
    assert by_numbers(code, 1, [1, 2, 3, 4], confirm="y").status_code == 302
    assert totals(client, code) == [1, 2, 3, 4]
    assert 'data-warning="round-1"' in client.get(f"/rebel-princess/g/{code}").text


def test_classic_numbers_need_last_trick(client, app, make_game, by_numbers):
    code = make_game(edition="classic")
    assert by_numbers(code, 1, [0, 3, 8, 4]).status_code == 422
    assert count(app) == 0
    assert by_numbers(code, 1, [0, 3, 8, 4], last_trick=1).status_code == 302
    assert pad_leader(client, code) == 1


def test_three_times_a_lady_total(make_game, by_numbers):
    code = make_game(cards="dabce")
    assert by_numbers(code, 1, [0, 3, 8, 4]).status_code == 422
    assert by_numbers(code, 1, [-3, 3, 2, 1]).status_code == 302


# --- double taps and rounds out of order ----------------------------------------------------

def test_double_tap_by_cards(client, make_game, history):
    code = make_game()
    data = cards_data(client, code, 1, {"A8": 2}, rest=3)
    first = client.post(f"/rebel-princess/g/{code}/round/1/cards", data=data)
    second = client.post(f"/rebel-princess/g/{code}/round/1/cards", data=data)
    assert (first.status_code, second.status_code) == (302, 302)
    assert second.headers["Location"] == f"/rebel-princess/g/{code}"
    assert history(code) == ["entered"]


def test_double_tap_by_numbers(client, make_game, history):
    code = make_game(edition="classic")
    data = numbers_data([0, 3, 8, 4], last_trick=2)
    assert client.post(f"/rebel-princess/g/{code}/round/1/numbers", data=data).status_code == 302
    assert client.post(f"/rebel-princess/g/{code}/round/1/numbers", data=data).status_code == 302
    assert history(code) == ["entered"]


def test_double_tap_on_arranged_marriage(client, make_game, history):
    code = make_game(cards="eabcd")
    data = cards_data(client, code, 1, {"A8": 1}, rest=0, no_trick_3="y")
    client.post(f"/rebel-princess/g/{code}/round/1/cards", data=data)
    assert client.post(f"/rebel-princess/g/{code}/round/1/cards", data=data).status_code == 302
    assert history(code) == ["entered"]


def test_second_different_entry_is_refused(client, make_game, enter_round_by_cards, history):
    code = make_game()
    enter_round_by_cards(code, 1, {"A8": 2}, rest=3)
    response = enter_round_by_cards(code, 1, {"A8": 1}, rest=3)
    assert response.status_code == 422
    assert attr(response.text, "data-problem") == ["round-already-saved"]
    assert history(code) == ["entered"]
    assert totals(client, code) == [0, 0, 5, 10]


def test_second_different_numbers_entry_is_refused(make_game, by_numbers, history):
    code = make_game()
    by_numbers(code, 1, [0, 3, 8, 4])
    response = by_numbers(code, 1, [0, 8, 3, 4])
    assert response.status_code == 422
    assert attr(response.text, "data-problem") == ["round-already-saved"]
    assert history(code) == ["entered"]


@pytest.mark.parametrize("mode", ["cards", "numbers"])
def test_round_after_next_is_refused(client, app, make_game, by_numbers, mode):
    code = make_game()
    by_numbers(code, 1, [0, 3, 8, 4])
    response = client.post("/rebel-princess"
                           f"/g/{code}/round/3/{mode}", data=numbers_data([0, 3, 8, 4]))
    assert response.status_code in (404, 422)
    assert count(app) == 1


# --- editing ---------------------------------------------------------------------------------

def test_edit_form_is_prefilled(client, make_game, enter_round_by_cards, record_ids):
    code = make_game()
    enter_round_by_cards(code, 1, {"P1": 1, "A8": 2}, rest=3)
    html = client.get(f"/rebel-princess/g/{code}/round/1/cards").text
    assert re.search(r'name="P1" value="1" checked', html)
    assert re.search(r'name="A8" value="2" checked', html)
    assert re.search(r'name="P10" value="3" checked', html)
    assert re.search(r'name="base" type="hidden" value="(\d+)"', html).group(1) == str(
        record_ids(code, 1)[0])


def test_edit_numbers_form_is_prefilled(client, make_game, enter_round_by_cards):
    code = make_game()
    enter_round_by_cards(code, 1, {"A8": 2}, rest=3)
    html = client.get(f"/rebel-princess/g/{code}/round/1/numbers").text
    values = re.findall(r'name="score_\d" value="(-?\d+)"', html)
    assert values == ["0", "0", "5", "10"]


def test_edit_saves_a_new_version(client, make_game, enter_round_by_cards, record_ids, history):
    code = make_game()
    enter_round_by_cards(code, 1, {"A8": 2}, rest=3)
    base = record_ids(code, 1)[0]
    response = enter_round_by_cards(code, 1, {"A8": 0}, rest=3, base=base)
    assert response.status_code == 302
    assert totals(client, code) == [5, 0, 0, 10]
    assert history(code) == ["entered", "edited"]


def test_edit_by_numbers_of_a_round_by_cards(client, make_game, enter_round_by_cards, by_numbers,
                                             record_ids, history):
    code = make_game()
    enter_round_by_cards(code, 1, {"A8": 2}, rest=3)
    response = by_numbers(code, 1, [1, 2, 3, 9], base=record_ids(code, 1)[0])
    assert response.status_code == 302
    assert totals(client, code) == [1, 2, 3, 9]
    assert history(code) == ["entered", "edited"]


def test_stale_edit_is_refused(client, make_game, enter_round_by_cards, record_ids, history):
    code = make_game()
    enter_round_by_cards(code, 1, {"A8": 2}, rest=3)
    old = record_ids(code, 1)[0]
    enter_round_by_cards(code, 1, {"A8": 0}, rest=3, base=old)  # someone else's edit
    response = enter_round_by_cards(code, 1, {"A8": 1}, rest=3, base=old)
    assert response.status_code == 422
    assert attr(response.text, "data-problem") == ["stale-edit"]
    assert history(code) == ["entered", "edited"]
    assert totals(client, code) == [5, 0, 0, 10]


def test_stale_edit_by_numbers_is_refused(app, make_game, by_numbers, record_ids):
    code = make_game()
    by_numbers(code, 1, [0, 3, 8, 4])
    old = record_ids(code, 1)[0]
    by_numbers(code, 1, [3, 0, 8, 4], base=old)
    response = by_numbers(code, 1, [8, 3, 0, 4], base=old)
    assert response.status_code == 422
    assert attr(response.text, "data-problem") == ["stale-edit"]
    assert count(app) == 2


def test_edit_after_undo_of_that_version_is_stale(client, app, make_game, by_numbers,
                                                  record_ids):
    code = make_game()
    by_numbers(code, 1, [0, 3, 8, 4])
    old = record_ids(code, 1)[0]
    client.post(f"/rebel-princess/g/{code}/undo")
    response = by_numbers(code, 1, [3, 0, 8, 4], base=old)
    assert response.status_code in (404, 422)
    assert count(app) == 2


BATHROOM_R2 = {"P1": 0, "P2": 0, "P3": 1, "P4": 1, "P5": 2, "P6": 2, "P7": 3, "P8": 3, "P9": 3,
               "P10": 3, "A8": 3}


def test_editing_round_one_recomputes_bathroom_break(client, make_game, enter_round_by_cards,
                                                     record_ids):
    code = make_game(cards="aybcd")
    enter_round_by_cards(code, 1, {"A8": 2}, rest=3)  # 0, 0, 5, 10: Di is exempt in round 2
    assert enter_round_by_cards(code, 2, BATHROOM_R2).status_code == 302
    assert totals(client, code) == [4, 4, 9, 19]
    assert pad_leader(client, code) == 0
    base = record_ids(code, 1)[0]
    enter_round_by_cards(code, 1, {"A8": 2}, rest=0, base=base)  # 10, 0, 5, 0: Ana is exempt
    assert totals(client, code) == [12, 4, 9, 13]
    assert pad_leader(client, code) == 1


def test_bathroom_break_preview_uses_totals_before(client, make_game, enter_round_by_cards):
    code = make_game(cards="aybcd")
    enter_round_by_cards(code, 1, {"A8": 2}, rest=3)
    response = client.post(f"/rebel-princess/g/{code}/round/2/preview",
                           data={k: str(v) for k, v in BATHROOM_R2.items()})
    assert attr(response.text, "data-points") == ["4", "4", "4", "9"]


def test_double_tap_on_the_last_round(make_game, by_numbers, history):
    code = make_game(cards="abc", length=3)
    by_numbers(code, 1, [0, 3, 8, 4])
    by_numbers(code, 2, [0, 3, 8, 4])
    assert by_numbers(code, 3, [4, 3, 8, 0]).status_code == 302
    assert by_numbers(code, 3, [4, 3, 8, 0]).status_code == 302
    assert history(code) == ["entered"] * 3


# --- one whole game --------------------------------------------------------------------------

def test_play_a_whole_game(client, make_game, enter_round_by_cards, by_numbers, record_ids):
    """Five Deluxe rounds by cards and by numbers, with an edit: totals, leaders, the winner."""
    code = make_game(cards="azycd")
    first = {"P1": 1, "P2": 1, "P3": 1, "P4": 2, "P5": 2, "P6": 2, "A8": 2}
    enter_round_by_cards(code, 1, first, rest=3)
    assert (totals(client, code), pad_leader(client, code)) == ([0, 3, 8, 4], 0)
    by_numbers(code, 2, [6, 0, 5, 9])  # Dancing Queens
    assert (totals(client, code), pad_leader(client, code)) == ([6, 3, 13, 13], 1)
    enter_round_by_cards(code, 1, {**first, "P1": 0, "P2": 0, "P3": 0}, rest=3,
                         base=record_ids(code, 1)[0])
    assert (totals(client, code), pad_leader(client, code)) == ([9, 0, 13, 13], 1)
    enter_round_by_cards(code, 3, {"A8": 1}, rest=0)  # Bathroom Break: Cy and Di are exempt
    assert (totals(client, code), pad_leader(client, code)) == ([29, 5, 13, 13], 1)
    halves = {f"P{r}": 2 if r <= 5 else 3 for r in range(1, 11)}
    enter_round_by_cards(code, 4, {**halves, "A8": 0})  # Magic Beans
    assert (totals(client, code), pad_leader(client, code)) == ([34, 5, 18, 18], 1)
    enter_round_by_cards(code, 5, {"A8": 1}, rest=0)  # Three Times a Lady: Ana 10 - 12
    html = client.get(f"/rebel-princess/g/{code}").text
    assert totals(client, code) == [32, 10, 18, 18]
    assert attr(html, "data-winners") == ["1"]
    assert attr(html, "data-decided-by") == ["total"]
