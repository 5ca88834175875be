"""Games list, new game and its presets, the score pad, undo, history and the end of the game."""

from __future__ import annotations

import re

import pytest
from sqlmodel import select

from companion.db import get_session
from companion.models import Game, Player, RoundRecord
from companion.play import store

from .conftest import attr, code_of, count, pad_leader, setup_form, totals


def selected_cards(html):
    """The Round card selected in each visible ``cards-N`` select of the new-game form."""
    selects = re.findall(r'<select id="cards-\d" name="cards-\d"[^>]*>(.*?)</select>', html, re.S)
    return [re.search(r'value="(\w+)" selected', s).group(1) for s in selects]


# --- games list and new game -----------------------------------------------------------------

def test_games_list_empty(client):
    response = client.get("/")
    assert response.status_code == 200
    assert b'data-action="new-game"' in response.data
    assert b"data-game=" not in response.data


def princesses_of(app, code):
    """Each seat's stored Princess (None for none), in seat order."""
    with app.app_context():
        session = get_session()
        game = store.game_by_token(session, code)
        seats = session.exec(select(Player).where(Player.game_id == game.id)).all()
        return [p.princess for p in sorted(seats, key=lambda p: p.seat)]


@pytest.mark.parametrize("posted, expected", [
    ({"princesses-2": "cinderella"}, [None, None, "cinderella", None]),
    ({"princesses-1": "mulan", "princesses-3": "cinderella"}, [None, "mulan", None, "cinderella"]),
    ({"princesses-0": "", "princesses-3": "mulan"}, [None, None, None, "mulan"]),
])
def test_a_princess_select_not_posted_gives_that_seat_no_princess(client, app, posted, expected):
    """A client that leaves out some seats' Princess selects (the page posts all six): each
    Princess posted goes to the seat her field names, every seat not posted has none (the
    seat numbers are never closed up onto the seats before them)."""
    code = code_of(client.post("/rebel-princess/new", data={**setup_form(), **posted}))
    assert princesses_of(app, code) == expected


def test_games_list_shows_game(client, make_game):
    code = make_game()
    assert f'data-game="{code}"'.encode() in client.get("/").data


def test_new_game_page_offers_first_game_set(client):
    response = client.get("/rebel-princess/new")
    assert response.status_code == 200
    assert b'data-preset="recommended"' in response.data
    assert b'data-preset="random"' in response.data
    assert selected_cards(response.text) == list("abcde")


@pytest.mark.parametrize("edition", ["deluxe", "classic"])
@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_create_game(client, make_game, edition, players):
    code = make_game(players=players, edition=edition)
    response = client.get(f"/rebel-princess/g/{code}")
    assert response.status_code == 200
    assert totals(client, code) == [0] * players
    assert attr(response.text, "data-round-card")[0] == ("a" if edition == "deluxe" else "A")
    assert pad_leader(client, code) == 0


def test_create_redirects_to_pad(client):
    response = client.post("/rebel-princess/new", data=setup_form())
    assert response.status_code == 302
    assert re.fullmatch(r"/rebel-princess/g/\w+", response.headers["Location"])


def test_first_leader_is_stored(client, make_game):
    assert pad_leader(client, make_game(first_leader=2)) == 2


def test_deluxe_three_round_game(client, make_game):
    html = client.get(f"/rebel-princess/g/{make_game(cards='azy', length=3)}").text
    assert attr(html, "data-round-row") == ["1", "2", "3"]


def test_classic_ignores_three_rounds(client, make_game):
    html = client.get(f"/rebel-princess/g/{make_game(edition='classic', length=3)}").text
    assert attr(html, "data-round-row") == ["1", "2", "3", "4", "5"]


def test_five_round_game_plans_five(client, make_game):
    html = client.get(f"/rebel-princess/g/{make_game(cards='azycd')}").text
    assert attr(html, "data-round-row") == ["1", "2", "3", "4", "5"]


@pytest.mark.parametrize(("edition", "expected"), [("deluxe", "abcde"), ("classic", "ACBDM")])
def test_preset_recommended(client, edition, expected):
    data = setup_form(edition=edition, cards="xwvut" if edition == "deluxe" else "UTSRQ",
                      preset="recommended")
    response = client.post("/rebel-princess/new", data=data)
    assert response.status_code == 200
    assert selected_cards(response.text) == list(expected)
    assert count(client.application, Game) == 0


def test_preset_recommended_short_game(client):
    response = client.post("/rebel-princess/new", data=setup_form(length=3, preset="recommended"))
    assert selected_cards(response.text) == list("abc")


@pytest.mark.parametrize(("edition", "bathroom"), [("deluxe", "y"), ("classic", "O")])
def test_preset_random_never_starts_with_bathroom_break(client, monkeypatch, edition, bathroom):
    import companion.routes.rebel_princess.pages as games

    monkeypatch.setattr(games.random, "sample", lambda letters, k: [bathroom, *letters[:k - 1]])
    response = client.post("/rebel-princess/new", data=setup_form(edition=edition, preset="random"))
    chosen = selected_cards(response.text)
    assert chosen[0] != bathroom and bathroom in chosen
    assert len(set(chosen)) == 5


@pytest.mark.parametrize("edition", ["deluxe", "classic"])
def test_preset_random_picks_five_different_cards(client, edition):
    for _ in range(20):
        chosen = selected_cards(client.post("/rebel-princess/new", data=setup_form(
            edition=edition, preset="random")).text)
        assert len(set(chosen)) == 5
        assert chosen[0] not in ("y", "O")


def test_switching_edition_fills_classic_cards(client):
    data = setup_form(edition="classic", cards="abcde", preset="edition")
    response = client.post("/rebel-princess/new", data=data, headers={"HX-Request": "true"})
    assert response.status_code == 200
    assert b"<html" not in response.data  # the htmx partial
    assert selected_cards(response.text) == list("ACBDM")


@pytest.mark.parametrize(("edition", "cards"), [("deluxe", "yabcd"), ("classic", "OABCD")])
def test_bathroom_first_warning(client, edition, cards):
    data = setup_form(edition=edition, cards=cards, preset="keep")
    response = client.post("/rebel-princess/new", data=data)
    assert b'data-warning="bathroom-first"' in response.data


def test_no_bathroom_warning_later(client):
    response = client.post("/rebel-princess/new", data=setup_form(cards="aybcd", preset="keep"))
    assert b'data-warning="bathroom-first"' not in response.data


def test_bathroom_first_still_allowed(client, make_game):
    code = make_game(cards="yabcd")
    assert attr(client.get(f"/rebel-princess/g/{code}").text, "data-round-card") == ["y"]


# --- names are shown escaped ---------------------------------------------------------------

@pytest.mark.parametrize("name", ["<script>x()</script>", "<b>x</b>"])
def test_html_in_name_is_escaped(client, make_game, name):
    code = make_game(names=[name, "Ben", "Cy"], players=3)
    escaped = name.replace("<", "&lt;").replace(">", "&gt;").encode()
    for page in (f"/rebel-princess/g/{code}", "/", f"/rebel-princess/g/{code}/round/1/cards"):
        body = client.get(page).data
        assert name.encode() not in body, page
        assert escaped in body, page


# --- 404s ------------------------------------------------------------------------------------

@pytest.mark.parametrize("path", ["/rebel-princess/g/nosuch", "/rebel-princess/g/nosuch/history",
                                  "/rebel-princess/g/nosuch/round/1/cards",
                                  "/rebel-princess/g/nosuch/round/1/numbers"])
def test_unknown_game_is_404(client, path):
    assert client.get(path).status_code == 404


def test_unknown_game_undo_is_404(client):
    assert client.post("/rebel-princess/g/nosuch/undo").status_code == 404


@pytest.mark.parametrize("number", [0, 3, 99])
@pytest.mark.parametrize("mode", ["cards", "numbers"])
def test_round_far_beyond_next_is_404(client, make_game, number, mode):
    code = make_game()
    assert client.get(f"/rebel-princess/g/{code}/round/{number}/{mode}").status_code == 404


# --- undo and history ------------------------------------------------------------------------

def test_undo_an_entry_removes_the_round(client, make_game, enter_round_by_cards, history):
    code = make_game()
    enter_round_by_cards(code, 1, rest=3)
    response = client.post(f"/rebel-princess/g/{code}/undo")
    assert response.status_code == 302
    assert response.headers["Location"] == f"/rebel-princess/g/{code}"
    assert totals(client, code) == [0, 0, 0, 0]
    assert history(code) == ["entered", "undone"]
    assert client.get(f"/rebel-princess/g/{code}/round/1/cards").status_code == 200


def test_undo_an_edit_restores_the_earlier_version(client, make_game, enter_round_by_cards,
                                                   record_ids, history):
    code = make_game()
    enter_round_by_cards(code, 1, {"A8": 0}, rest=3)
    enter_round_by_cards(code, 1, {"A8": 1}, rest=0, base=record_ids(code, 1)[-1])
    assert totals(client, code) == [10, 5, 0, 0]
    client.post(f"/rebel-princess/g/{code}/undo")
    assert totals(client, code) == [5, 0, 0, 10]
    assert history(code) == ["entered", "edited", "undone"]


def test_undo_twice_walks_back(client, make_game, enter_round_by_cards, by_numbers, history):
    code = make_game()
    enter_round_by_cards(code, 1, rest=3)
    by_numbers(code, 2, [5, 0, 0, 10])
    client.post(f"/rebel-princess/g/{code}/undo")
    client.post(f"/rebel-princess/g/{code}/undo")
    assert totals(client, code) == [0, 0, 0, 0]
    assert history(code) == ["entered", "entered", "undone", "undone"]


def test_undo_with_nothing_to_undo(client, app, make_game, history):
    code = make_game()
    response = client.post(f"/rebel-princess/g/{code}/undo")
    assert response.status_code == 302
    assert count(app) == 0
    assert history(code) == []


def test_history_keeps_every_record(client, app, make_game, enter_round_by_cards, record_ids,
                                    history):
    code = make_game()
    enter_round_by_cards(code, 1, rest=3)
    enter_round_by_cards(code, 1, rest=1, base=record_ids(code, 1)[-1])
    client.post(f"/rebel-princess/g/{code}/undo")
    client.post(f"/rebel-princess/g/{code}/undo")
    enter_round_by_cards(code, 1, {"A8": 0}, rest=2)
    assert history(code) == ["entered", "edited", "undone", "undone", "entered"]
    assert count(app, RoundRecord) == 5
    assert totals(client, code) == [5, 0, 10, 0]


def history_words(client, code) -> list[str]:
    """Each history line's words, the time and the players' seat marks (which a screen reader
    skips too) left out."""
    html = client.get(f"/rebel-princess/g/{code}/history").text
    html = re.sub(r'<span class="seat-mark[^"]*"[^>]*>[^<]*</span>', "", html)
    return [" ".join(re.sub(r"<[^>]+>", " ", body).split()).split(" — ", 1)[-1]
            for body in re.findall(r"<li data-record=[^>]*>(.*?)</li>", html, re.S)]


def test_undo_then_redo_keeps_the_words_of_the_line_undone(client, make_game, by_numbers):
    """Round 1 entered, undone, entered again with other scores: the first entry's line still
    says the scores it was entered with, and the undo says what it took back."""
    code = make_game()
    by_numbers(code, 1, [0, 3, 8, 4])
    written = history_words(client, code)
    assert written == ["Round 1 entered by scores: Ana 0, Ben 3, Cy 8, Di 4"]
    client.post(f"/rebel-princess/g/{code}/undo")
    by_numbers(code, 1, [5, 3, 3, 4])
    lines = history_words(client, code)
    assert lines[0] == written[0]
    assert lines[1] == "Undo: round 1 removed"
    assert lines[2] == "Round 1 entered by scores: Ana 5, Ben 3, Cy 3, Di 4"


def test_undo_button_disabled_without_rounds(client, make_game):
    html = client.get(f"/rebel-princess/g/{make_game()}").text
    assert re.search(r'data-action="undo" disabled', html)


# --- end of the game -------------------------------------------------------------------------

CLASSIC_ZERO_TIE = [[0, 2, 6, 7], [0, 2, 6, 7], [4, 0, 5, 6], [3, 3, 4, 5], [3, 3, 4, 5]]
CLASSIC_SHARED = [[0, 2, 6, 7], [2, 0, 6, 7], [2, 2, 5, 6], [3, 3, 4, 5], [3, 3, 4, 5]]


def play_classic(make_game, by_numbers, rows):
    code = make_game(edition="classic")
    for number, scores in enumerate(rows, start=1):
        assert by_numbers(code, number, scores, last_trick=number % 4).status_code == 302
    return code


def test_classic_tie_broken_by_rounds_at_zero(client, make_game, by_numbers):
    html = client.get("/rebel-princess"
                      f"/g/{play_classic(make_game, by_numbers, CLASSIC_ZERO_TIE)}").text
    assert attr(html, "data-decided-by") == ["rounds_at_zero"]
    assert attr(html, "data-winners") == ["0"]
    assert 'id="this-round"' not in html
    # Ana and Ben are tied on 10; Ana won the tie-break: only her total is starred (issue 22).
    assert _starred(html) == ["0"]


def _starred(html):
    total = re.search(r"<tr class=\"total\" data-total>(.*?)</tr>", html, re.S)[1]
    return re.findall(r'<td data-seat="(\d+)" class="low">', total)


def test_classic_shared_victory(client, make_game, by_numbers):
    html = client.get("/rebel-princess"
                      f"/g/{play_classic(make_game, by_numbers, CLASSIC_SHARED)}").text
    assert attr(html, "data-decided-by") == ["shared"]
    assert attr(html, "data-winners") == ["0,1"]
    assert _starred(html) == ["0", "1"]


def test_classic_last_trick_winner_leads_next(client, make_game, by_numbers):
    code = make_game(edition="classic")
    by_numbers(code, 1, [0, 5, 5, 5], last_trick=2)
    assert pad_leader(client, code) == 2


def test_deluxe_lowest_total_wins(client, make_game, by_numbers):
    code = make_game(cards="abc", length=3)
    for number, scores in enumerate([[0, 5, 5, 5], [5, 0, 5, 5], [0, 5, 5, 5]], start=1):
        by_numbers(code, number, scores)
    html = client.get(f"/rebel-princess/g/{code}").text
    assert attr(html, "data-decided-by") == ["total"]
    assert attr(html, "data-winners") == ["0"]


DELUXE_TIE = [[0, 0, 7, 8], [5, 5, 2, 3], [5, 5, 3, 2], [0, 5, 5, 5], [5, 0, 5, 5]]


def test_deluxe_tie_goes_to_a_playoff(client, make_game, by_numbers):
    code = make_game(cards="abcfg")
    for number, scores in enumerate(DELUXE_TIE, start=1):
        assert by_numbers(code, number, scores).status_code == 302
    html = client.get(f"/rebel-princess/g/{code}").text
    assert attr(html, "data-round") == ["6"]
    assert 'id="result"' not in html
    assert "data-round-card" not in html  # the play-off card is drawn, not planned
    assert client.get(f"/rebel-princess/g/{code}/round/6/numbers").status_code == 200


def test_deluxe_playoff_decides_the_winner(client, make_game, by_numbers):
    code = make_game(cards="abcfg")
    for number, scores in enumerate(DELUXE_TIE, start=1):
        by_numbers(code, number, scores)
    assert by_numbers(code, 6, [4, 3, 4, 4]).status_code == 422  # which card was drawn?
    assert by_numbers(code, 6, [4, 3, 4, 4], round_card="r").status_code == 302
    html = client.get(f"/rebel-princess/g/{code}").text
    assert attr(html, "data-winners") == ["1"]
    assert attr(html, "data-decided-by") == ["total"]


def test_deluxe_playoff_tie_calls_another(client, make_game, by_numbers):
    code = make_game(cards="abcfg")
    for number, scores in enumerate(DELUXE_TIE, start=1):
        by_numbers(code, number, scores)
    by_numbers(code, 6, [4, 4, 3, 4], round_card="r")
    html = client.get(f"/rebel-princess/g/{code}").text
    assert attr(html, "data-round") == ["7"]
    assert 'id="result"' not in html


def test_deluxe_tie_broken_by_rounds_at_or_below_zero(client, make_game, by_numbers):
    code = make_game(cards="abc", length=3)
    for number, scores in enumerate([[0, 0, 7, 8], [0, 5, 5, 5], [10, 5, 0, 0]], start=1):
        by_numbers(code, number, scores)
    html = client.get(f"/rebel-princess/g/{code}").text
    assert attr(html, "data-decided-by") == ["rounds_at_or_below_zero"]
    assert attr(html, "data-winners") == ["0"]


def test_no_round_after_the_game_is_over(client, app, make_game, by_numbers):
    code = play_classic(make_game, by_numbers, CLASSIC_SHARED)
    stored = count(app)
    response = by_numbers(code, 6, [0, 5, 5, 5], last_trick=0)
    assert response.status_code in (404, 422)
    assert client.get(f"/rebel-princess/g/{code}/round/6/cards").status_code == 404
    assert count(app) == stored


def test_undo_reopens_a_finished_game(client, make_game, by_numbers):
    code = play_classic(make_game, by_numbers, CLASSIC_SHARED)
    client.post(f"/rebel-princess/g/{code}/undo")
    html = client.get(f"/rebel-princess/g/{code}").text
    assert 'id="result"' not in html
    assert attr(html, "data-round") == ["5"]


def test_edit_after_the_end_is_allowed(client, make_game, by_numbers, record_ids):
    code = play_classic(make_game, by_numbers, CLASSIC_SHARED)
    base = record_ids(code, 5)[-1]
    assert by_numbers(code, 5, [2, 3, 5, 5], last_trick=1, base=base).status_code == 302
    assert attr(client.get(f"/rebel-princess/g/{code}").text, "data-winners") == ["0"]


def test_games_list_does_not_call_a_pending_playoff_finished(client, make_game, by_numbers):
    """A Deluxe tie after the last planned round is a play-off due, not a finished game."""
    code = make_game(cards="abc", length=3)
    for number, scores in enumerate([[0, 0, 7, 8], [5, 5, 2, 3], [5, 5, 3, 2]], start=1):
        by_numbers(code, number, scores)
    assert f'data-game="{code}" data-status="playoff"' in client.get("/").text


def test_games_list_says_finished_and_playing(client, make_game, by_numbers):
    """The games list tells a finished game from one still being played."""
    done, playing = make_game(cards="abc", length=3), make_game(cards="abc", length=3)
    for number, scores in enumerate([[0, 5, 5, 5]] * 3, start=1):
        by_numbers(done, number, scores)
    by_numbers(playing, 1, [0, 5, 5, 5])
    page = client.get("/").text
    assert f'data-game="{done}" data-status="finished"' in page
    assert f'data-game="{playing}" data-status="playing"' in page


# --- the round screen on the pad ----------------------------------------------------------------

@pytest.mark.parametrize(("edition", "cards"), [("deluxe", "oabcd"), ("classic", "MABCD"),
                                                ("deluxe", "nabcd")])
def test_no_trick_entry_offered_for_unseen_cards(client, make_game, edition, cards):
    """Wedding Gift and Late for a Very Important Date hide cards: entry by tricks refuses them,
    so the pad does not offer it."""
    html = client.get(f"/rebel-princess/g/{make_game(edition=edition, cards=cards)}").text
    assert 'data-action="enter-cards"' in html and 'data-action="enter-tricks"' not in html


def test_trick_entry_offered_again_for_the_next_round(client, make_game, by_numbers):
    code = make_game(cards="oabcd")
    by_numbers(code, 1, [0, 3, 8, 4], confirm="y")
    assert 'data-action="enter-tricks"' in client.get(f"/rebel-princess/g/{code}").text


# --- the pad's total ----------------------------------------------------------------------------

def total_row(html):
    """The numbers in the pad's Total row (empty strings for empty cells), and how many rows say
    "Total"."""
    row = re.search(r'<tr class="total" data-total>(.*?)</tr>', html, re.S).group(1)
    cells = [re.sub(r"<[^>]+>", "", c).strip()
             for c in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
    return cells, len(re.findall(r">\s*Total\s*<", html))


@pytest.mark.parametrize("played", [0, 1, 2, 4, 5])
def test_pad_has_one_total_row_with_the_running_totals(client, make_game, by_numbers, played):
    """The printed pad's Total row holds the totals so far; no second "Total" row."""
    code = make_game()
    for number in range(1, played + 1):
        by_numbers(code, number, [0, 3, 8, 4], confirm="y")
    cells, rows = total_row(client.get(f"/rebel-princess/g/{code}").text)
    assert rows == 1
    assert cells == ([str(t) for t in (0, 3 * played, 8 * played, 4 * played)] if played
                     else ["", "", "", ""])


def test_pad_total_after_a_playoff(client, make_game, by_numbers):
    code = make_game(cards="abcfg")
    for number, scores in enumerate(DELUXE_TIE, start=1):
        by_numbers(code, number, scores)
    by_numbers(code, 6, [4, 3, 4, 4], round_card="r")
    html = client.get(f"/rebel-princess/g/{code}").text
    cells, rows = total_row(html)
    assert rows == 1 and cells == ["19", "18", "26", "27"]
    assert attr(html, "data-subtotal") == ["2", "3", "4", "5"]  # round 5's is a subtotal now


def test_the_end_of_the_game_offers_a_new_game(client, make_game, by_numbers):
    """As Princesse Princesse, Réveillez and the duel do, once the game is over (and not before):
    « Rejouer » / Play again (the set-up filled in from this game's link) and « Nouvelle partie »
    / New game (the empty set-up)."""
    code = make_game(cards="abc", length=3)
    by_numbers(code, 1, [0, 0, 7, 8])
    assert 'data-action="again"' not in client.get(f"/rebel-princess/g/{code}").text
    for number, scores in ((2, [0, 5, 5, 5]), (3, [10, 5, 0, 0])):
        by_numbers(code, number, scores)
    html = client.get(f"/rebel-princess/g/{code}").text
    assert re.search(r'id="result".*href="/rebel-princess/new\?again=[0-9a-f]{32}" '
                     r'data-action="again">Play again<', html, re.S)
    assert 'href="/rebel-princess/new" data-action="new-game">New game<' in html
    client.set_cookie("lang", "fr")
    html = client.get(f"/rebel-princess/g/{code}").text
    assert 'data-action="again">Rejouer<' in html
    assert 'data-action="new-game">Nouvelle partie<' in html
