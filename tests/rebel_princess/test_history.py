"""The history page says what each entry, edit and undo did, as the players would say it; a round
confirmed from the trick screen is logged as such, and its trick screen leads back to the pad."""

from __future__ import annotations

import html as html_lib
import re

from companion.db import get_session
from companion.play import rebel_princess as play
from companion.play import store
from companion.scoring.rebel_princess import PlayedRound, deck

from .conftest import cards_data


def lines(client, code):
    """Each history line's text (time left out, and the players' seat marks, which a screen
    reader skips too) and its data-way, oldest first."""
    page = client.get(f"/rebel-princess/g/{code}/history").text
    page = re.sub(r'<span class="seat-mark[^"]*"[^>]*>[^<]*</span>', "", page)
    found = re.findall(r'<li data-record="\d+" data-action="\w+" data-way="(\w+)">'
                       r".*?—\s*(.*?)</li>", page, re.S)
    return [(way, " ".join(html_lib.unescape(re.sub(r"<[^>]+>", "", text)).split()))
            for way, text in found]


def confirm_from_trick_screen(app, code):
    """Store round 1 as *Confirm scores* does: every card of the deck, as won in tricks."""
    taken = tuple(frozenset(deck(4)[seat::4]) for seat in range(4))
    with app.app_context():
        session = get_session()
        game = store.game_by_token(session, code)
        play.save_round(session=session, game=game, number=1, played=PlayedRound(taken=taken),
                        mode="cards", base_id=None)


def test_entries_say_how_and_what_they_scored(client, make_game, enter_round_by_cards,
                                               by_numbers):
    code = make_game()
    enter_round_by_cards(code, 1, {"A8": 2, "P1": 1, "P2": 1, "P3": 1}, rest=3)
    by_numbers(code, 2, [0, 3, 8, 4])
    assert lines(client, code) == [
        ("cards", "Round 1 entered by cards: Ana 0, Ben 3, Cy 5, Di 7"),
        ("numbers", "Round 2 entered by scores: Ana 0, Ben 3, Cy 8, Di 4")]


def test_an_edit_names_only_the_scores_it_changed(client, make_game, enter_round_by_cards,
                                                  record_ids):
    code = make_game()
    enter_round_by_cards(code, 1, {"A8": 2, "P1": 1, "P2": 1, "P3": 1}, rest=3)
    base = record_ids(code, 1)[0]
    enter_round_by_cards(code, 1, {"A8": 2, "P1": 0, "P2": 1, "P3": 1}, rest=3, base=base)
    assert lines(client, code)[1] == ("cards", "Round 1 edited by cards: Ana 0 → 1, Ben 3 → 2")


def test_an_edit_that_changes_no_score_says_so(client, make_game, by_numbers, record_ids):
    code = make_game()
    by_numbers(code, 1, [0, 3, 8, 4])
    by_numbers(code, 1, [0, 3, 8, 4], leader=2, base=record_ids(code, 1)[0])
    assert lines(client, code)[1] == ("numbers", "Round 1 edited by scores: no score changed")


def test_undo_says_what_came_back(client, make_game, by_numbers, record_ids):
    code = make_game()
    by_numbers(code, 1, [0, 3, 8, 4])
    by_numbers(code, 1, [3, 0, 8, 4], base=record_ids(code, 1)[0])
    client.post(f"/rebel-princess/g/{code}/undo")
    client.post(f"/rebel-princess/g/{code}/undo")
    assert lines(client, code)[2:] == [
        ("numbers", "Undo: round 1 back to its earlier version: Ana 3 → 0, Ben 0 → 3"),
        ("cards", "Undo: round 1 removed")]


def test_a_round_confirmed_from_the_trick_screen_is_logged_trick_by_trick(app, client,
                                                                         make_game):
    """Trick entry stores every card each seat won; the by-cards form only the scoring ones."""
    code = make_game()
    confirm_from_trick_screen(app, code)
    (way, text), = lines(client, code)
    assert way == "tricks" and text.startswith("Round 1 entered trick by trick: Ana ")


def test_an_edit_by_cards_of_a_trick_round_is_by_cards(app, client, make_game, record_ids):
    code = make_game()
    confirm_from_trick_screen(app, code)
    data = cards_data(client, code, 1, {"A8": 0}, rest=1, base=record_ids(code, 1)[0])
    assert client.post(f"/rebel-princess/g/{code}/round/1/cards", data=data).status_code == 302
    assert [way for way, _ in lines(client, code)] == ["tricks", "cards"]


def test_playoff_lines(client, make_game, by_numbers):
    code = make_game(cards="abc", length=3)
    for number, scores in enumerate([[0, 0, 7, 8], [5, 5, 2, 3], [5, 5, 3, 2]], start=1):
        by_numbers(code, number, scores)
    by_numbers(code, 4, [4, 3, 4, 4], round_card="r")
    assert lines(client, code)[-1] == (
        "numbers", "Play-off entered by scores: Ana 4, Ben 3, Cy 4, Di 4")


def test_html_in_a_name_is_escaped_in_the_history(client, make_game, by_numbers):
    code = make_game(names=["<b>Ana</b>", "Ben", "Cy", "Di"])
    by_numbers(code, 1, [0, 3, 8, 4])
    page = client.get(f"/rebel-princess/g/{code}/history").text
    assert "<b>Ana</b>" not in page and "&lt;b&gt;Ana&lt;/b&gt; 0" in page




def test_back_to_the_trick_screen_of_a_confirmed_round_goes_to_the_pad(app, client, make_game):
    """Back after Confirm scores: the round is on the pad now, not "not found"."""
    code = make_game()
    confirm_from_trick_screen(app, code)
    response = client.get(f"/rebel-princess/g/{code}/round/1/tricks")
    assert response.status_code == 303
    assert response.headers["Location"] == f"/rebel-princess/g/{code}"


def test_saving_the_edit_page_of_a_trick_round_untouched_stores_nothing(app, client, make_game):
    """Its edit page shows the cards that score; saved as shown, nothing changed."""
    code = make_game()
    confirm_from_trick_screen(app, code)
    page = client.get(f"/rebel-princess/g/{code}/round/1/cards").text
    data = dict(re.findall(r'name="(\w+)" value="(\d+)" checked', page))
    data["base"] = re.search(r'name="base" type="hidden" value="(\d+)"', page).group(1)
    response = client.post("/rebel-princess"
                           f"/g/{code}/round/1/cards", data=data, follow_redirects=True)
    assert "unchanged" in response.text
    assert [way for way, _ in lines(client, code)] == ["tricks"]


def _edits(app, code, count):
    """Round 1 by scores, then ``count`` edits of it (each changes Ana's score), through the
    glue: what a long evening of corrections stores."""
    with app.app_context():
        session = get_session()
        game = store.game_by_token(session, code)
        record = play.save_round(session=session, game=game, number=1, mode="numbers",
                                 base_id=None, played=PlayedRound(scores=(0, 3, 8, 4)))
        for n in range(1, count + 1):
            record = play.save_round(session=session, game=game, number=1, mode="numbers",
                                     base_id=record.id, played=PlayedRound(scores=(n, 3, 8, 4)))


def test_a_long_history_is_paged_newest_first_each_record_once(client, app, make_game,
                                                              monkeypatch):
    """A game's history shows its newest records first (``?page=2``: the ones before), each
    page oldest first, each record on one page only, each line as the whole history says it:
    a page replays its own records, not every record the game ever had."""
    from companion.routes.rebel_princess import pages

    monkeypatch.setattr(pages, "HISTORY_PAGE", 10)
    code = make_game()
    _edits(app, code, 22)  # 23 records: pages of 10, 10 and 3
    whole = []
    for page in (3, 2, 1):
        html = client.get(f"/rebel-princess/g/{code}/history?page={page}").text
        assert ('data-action="older"' in html) == (page < 3)
        assert ('data-action="newer"' in html) == (page > 1)
        # page 2 begins at record 4
        assert ('<ol class="panel history" start="4">' in html) == (page == 2)
        whole += re.findall(r'data-record="(\d+)"', html)
    assert len(whole) == 23 == len(set(whole)) and whole == sorted(whole, key=int)
    monkeypatch.setattr(pages, "HISTORY_PAGE", 100)
    everything = lines(client, code)
    monkeypatch.setattr(pages, "HISTORY_PAGE", 10)
    assert lines(client, code) == everything[-10:]
    assert everything[-1] == ("numbers", "Round 1 edited by scores: Ana 21 → 22")
