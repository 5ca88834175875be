"""Enter tricks: every Princess power and the Haggle with the Hag step, entered with the trick
they change, judged by the round's TableRound; refused entries store nothing."""

from __future__ import annotations

import random

import pytest

from companion.models import TrickLog
from companion.scoring.rebel_princess import score_entry
from companion.scoring.rebel_princess.engine import Haggle, RoundState, Suit

from .conftest import attr, count, totals
from .test_trick_entry import played, tap, url, version

HX = {"HX-Request": "true"}


def post(client, code, action, **data):
    data.setdefault("version", version(client, code))
    return client.post(url(code, action), data=data, headers=HX)


def power(client, code, seat, **data):
    return post(client, code, "power", seat=seat, **data)


def winners(html):
    return [int(w) for w in attr(html, "data-past-trick=\"\\d+\" data-winner")]


def last_winner(html):
    return int(attr(html, "data-trick-winner=\"\\d+\" data-winner")[0])


def refused(response, code):
    assert response.status_code == 422, response.status_code
    assert attr(response.text, "data-refused") == [code]
    return response.text


def game(make_game, edition="deluxe", cards=None, **princesses):
    """A 4-player game (Ana, Ben, Cy, Di; Ana leads) with ``seat=slug`` Princesses."""
    extra = {f"princesses-{seat}": "" for seat in range(4)}
    extra.update({f"princesses-{seat[1:]}": slug for seat, slug in princesses.items()})
    return make_game(edition=edition, cards=cards, **extra)


# --- Snow White -----------------------------------------------------------------------------------

def test_snow_white_zero_loses_a_trick_it_would_have_won(client, make_game):
    code = game(make_game, s1="snow-white")
    html = tap(client, code, "Q1").text
    assert attr(html, "data-zero-seat") == ["1"]  # her turn: the switch is on the grid
    post(client, code, "play", card="Q7", zero="1")
    for card in ("Q2", "Q3"):
        html = tap(client, code, card).text
    assert last_winner(html) == 3  # Ben's 7 counts as 0: Di's 3 is the highest Queen
    assert 'data-power="snow-white"' in html and attr(html, "data-zero-seat") == []


def test_snow_white_zero_after_tapping_her_card(client, make_game):
    code = game(make_game, s1="snow-white")
    tap(client, code, "Q1")
    html = tap(client, code, "Q7").text
    assert attr(html, "data-zero-after") == ["1"]
    html = power(client, code, 1).text
    assert attr(html, "data-zero-after") == []
    for card in ("Q2", "Q3"):
        html = tap(client, code, card).text
    assert last_winner(html) == 3


def test_snow_white_zero_when_her_card_ends_the_trick(client, make_game):
    code = game(make_game, s3="snow-white")
    for card in ("Q1", "Q2", "Q3", "Q7"):
        html = tap(client, code, card).text
    assert last_winner(html) == 3 and attr(html, "data-zero-after") == ["3"]
    html = power(client, code, 3).text
    assert last_winner(html) == 2


def test_snow_white_refusals(client, make_game, app):
    code = game(make_game, s1="snow-white")
    tap(client, code, "Q1")
    before = version(client, code)
    refused(post(client, code, "play", card="Q8", zero="1"), "power-refused")  # above 7
    assert version(client, code) == before and played(client.get(url(code)).text) == ["Q1"]
    refused(power(client, code, 1), "zero-not-hers")  # Ana's card is the last one
    post(client, code, "play", card="Q7", zero="1")
    assert "already used" in refused(power(client, code, 1), "power-refused")


def test_undo_takes_back_snow_whites_card_and_zero(client, make_game):
    code = game(make_game, s1="snow-white")
    tap(client, code, "Q1")
    post(client, code, "play", card="Q7", zero="1")
    html = post(client, code, "undo").text
    assert played(html) == ["Q1"] and attr(html, "data-zero-seat") == ["1"]


def test_fixing_snow_whites_card_moves_the_zero(client, make_game):
    code = game(make_game, s1="snow-white")
    tap(client, code, "Q1")
    post(client, code, "play", card="Q7", zero="1")
    for card in ("Q2", "Q3"):
        tap(client, code, card)
    html = post(client, code, "fix", pos=1, card="Q6").text
    assert last_winner(html) == 3 and 'data-power="snow-white"' in html
    html = post(client, code, "fix", pos=1, card="Q9").text  # above 7: no zero any more
    assert last_winner(html) == 1 and 'data-power="snow-white"' not in html


# --- Mulan ----------------------------------------------------------------------------------------

def test_mulan_swap_changes_the_winner(client, make_game):
    code = game(make_game, s1="mulan")
    for card in ("Q1", "Q5", "Q7", "Q2"):
        html = tap(client, code, card).text
    assert last_winner(html) == 2
    assert 'data-action="power-mulan"' in html
    # Her button opens the deck limited to her suit, cards still in a hand.
    html = power(client, code, 1, pick="mulan").text
    assert attr(html, "data-picking") == ["mulan"] and attr(html, "data-slot") == ["swapped-in"]
    live = [c for c in attr(html, 'data-play') if f'data-play="{c}" data-off' not in html]
    assert live == ["Q3", "Q4", "Q6", "Q8", "Q9", "Q10"]
    html = power(client, code, 1, cards="", card="Q9").text
    assert last_winner(html) == 1 and attr(html, "data-turn") == ["1"]
    assert "data-picking" not in html
    assert "Q5" not in played(html)  # back in her hand
    assert "Q9" in played(html)


def test_mulan_refusals(client, make_game, app):
    code = game(make_game, s1="mulan")
    tap(client, code, "Q1")
    tap(client, code, "Q5")
    refused(power(client, code, 1, cards="Q9"), "power-refused")  # the trick is not over
    for card in ("Q7", "Q2"):
        tap(client, code, card)
    before = version(client, code)
    html = refused(power(client, code, 1, cards="F9"), "power-refused")
    assert "same suit" in html
    refused(power(client, code, 1, cards="Q7"), "power-refused")  # on the table already
    assert version(client, code) == before
    power(client, code, 1, cards="Q9")
    assert "already used" in refused(power(client, code, 1, cards="Q10"), "power-refused")
    html = post(client, code, "undo").text  # the swap is taken back first
    assert last_winner(html) == 2 and 'data-action="power-mulan"' in html


# --- Alice ----------------------------------------------------------------------------------------

def test_alice_deals_the_trick_back_and_it_is_replayed(client, make_game):
    code = game(make_game, s0="alice")
    for card in ("Q9", "Q1", "Q2", "Q3"):
        html = tap(client, code, card).text
    assert last_winner(html) == 0 and 'data-action="power-alice"' in html
    html = power(client, code, 0, pick="alice").text
    assert attr(html, "data-slot") == ["dealt"] and attr(html, "data-pick-seat") == ["0"]
    # One tap per player in seat order; the last card goes to the last seat by itself.
    html = client.get(url(code) + "?pick=alice&seat=0&cards=Q1&card=Q2", headers=HX).text
    assert attr(html, "data-pick-seat") == ["2"] and 'data-form="pick"' not in html
    html = power(client, code, 0, cards="Q1.Q2", card="Q9").text
    assert attr(html, "data-turn") == ["0"]  # Alice leads the trick again
    assert "Trick 2 of 11" in html
    assert played(html) == []  # every card of the trick is back in a hand
    for card in ("Q3", "Q9", "Q1", "Q2"):  # Ben now plays the 9 he was dealt
        html = tap(client, code, card).text
    assert last_winner(html) == 1
    assert winners(html) == [1, 0]


def test_alice_refusals(client, make_game, app):
    code = game(make_game, s0="alice")
    for card in ("A9", "A8", "A1", "A2"):  # she wins, but the Frog is in the trick
        html = tap(client, code, card).text
    assert 'data-action="power-alice"' not in html
    before = version(client, code)
    html = refused(power(client, code, 0, cards="A9.A8.A1.A2"), "power-refused")
    assert "Frog" in html
    for card in ("A3", "A4", "A5", "A6"):  # Di wins: not Alice's trick
        tap(client, code, card)
    refused(power(client, code, 0, cards="A3.A4.A5.A6"), "power-refused")
    assert count(app, TrickLog) == 1 and version(client, code) == before + 4


# --- The Ice Princess -----------------------------------------------------------------------------

def test_ice_princess_forced_card_is_judged(client, make_game):
    code = game(make_game, s0="ice-princess")
    html = power(client, code, 0, pick="ice-princess", target="1").text
    assert attr(html, "data-slot") == ["ice"] and attr(html, "data-pick-seat") == ["1"]
    power(client, code, 0, target="1", card="Q2")
    tap(client, code, "Q5")
    html = client.get(url(code)).text
    assert attr(html, "data-forced") == ["Q2"]
    html = refused(tap(client, code, "Q9"), "ice-forced")  # Ben must play the frozen 2
    assert "must play it" in html
    for card in ("Q2", "Q1", "Q3"):
        html = tap(client, code, card).text
    assert last_winner(html) == 0 and attr(html, "data-violation") == []


def test_ice_princess_card_played_as_forced(client, make_game):
    code = game(make_game, s0="ice-princess")
    power(client, code, 0, target="1", card="P4")  # a Prince, off suit: allowed
    for card in ("Q5", "P4", "Q1", "Q3"):
        html = tap(client, code, card).text
    assert attr(html, "data-violation") == [] and last_winner(html) == 0
    assert 'data-power="ice-princess"' in html


def test_ice_princess_before_the_lead_only(client, make_game):
    code = game(make_game, s0="ice-princess")
    tap(client, code, "Q5")
    refused(power(client, code, 0, target="1", card="Q2"), "power-refused")  # after the lead


def test_classic_ice_princess_picks_the_leaders_card(client, make_game):
    code = game(make_game, edition="classic", s1="ice-princess")
    html = client.get(url(code)).text
    assert "Choose the card Ana leads" in html
    power(client, code, 1, target="2", card="Q5")  # classic: the leader, whatever was sent
    refused(tap(client, code, "Q3"), "ice-forced")
    assert played(tap(client, code, "Q5").text) == ["Q5"]


# --- Scheherazade and Sleeping Beauty -------------------------------------------------------------

def test_scheherazade_with_and_without_the_cards(client, make_game):
    code = game(make_game, s0="scheherazade")
    html = power(client, code, 0, target="2").text
    assert 'data-power="scheherazade"' in html
    code = game(make_game, s0="scheherazade")
    refused(power(client, code, 0, target="0"), "power-refused")  # not herself
    html = power(client, code, 0, target="2", pick="scheherazade").text
    assert attr(html, "data-slot") == ["taken"]
    html = client.get(url(code) + "?pick=scheherazade&seat=0&target=2&card=Q5", headers=HX).text
    assert attr(html, "data-slot") == ["given"]
    html = power(client, code, 0, target="2", cards="Q5", card="Q5").text  # given back
    assert 'data-power="scheherazade"' in html


def test_sleeping_beauty_declared_then_with_cards(client, make_game):
    code = game(make_game, s3="sleeping-beauty")
    html = power(client, code, 3).text
    assert 'data-power="sleeping-beauty"' in html
    code = game(make_game, s3="sleeping-beauty")
    html = power(client, code, 3, pick="sleeping-beauty").text
    assert attr(html, "data-slot") == ["gives"]
    html = power(client, code, 3, cards="Q1.Q2.Q3.Q4.Q2.Q1", card="Q4").text  # Di keeps Q3
    assert 'data-power="sleeping-beauty"' in html and attr(html, "data-refused") == []


# --- Haggle with the Hag --------------------------------------------------------------------------

def haggle_round(seed=5, edition="deluxe", letter="p"):
    """A seeded legal round under Haggle with the Hag where the first trick's winner gives a
    Prince for a card of the trick. Returns the taps (cards, and ("haggle", take, give)), the
    haggle, and the engine's scores."""
    state = RoundState.deal(4, edition=edition, round_card=letter, seed=seed, leader=0)
    rng = random.Random(seed)
    taps: list = []
    done = None
    while not state.is_over():
        card = rng.choice(sorted(state.legal_plays(), key=str))
        state.play(card)
        taps.append(str(card))
        if len(state.tricks) == 1 and done is None and not state.current_trick:
            trick = state.tricks[0]
            own = {c for s, c in trick.plays(4) if s == trick.winner}
            take = next(c for c in trick.cards if c not in own)
            give = min(c for c in state.hand(trick.winner) if c.suit is Suit.PRINCE)
            done = Haggle(trick.winner, give, take)
            state.play_step(done)
            taps.append(("haggle", str(take), str(give)))
    return taps, done, score_entry(state.outcome().to_entry()).scores


@pytest.mark.parametrize(("edition", "cards", "letter"),
                         [("deluxe", "pabcd", "p"), ("classic", "TABCD", "T")])
def test_haggle_changes_the_cards_taken_and_the_score(client, make_game, app, edition, cards,
                                                      letter):
    taps, done, scores = haggle_round(edition=edition, letter=letter)
    code = make_game(edition=edition, cards=cards)
    html = client.get(url(code)).text
    assert attr(html, "data-unsupported") == []
    for item in taps:
        if isinstance(item, tuple):
            assert attr(html, "data-haggle-seat") == [str(done.seat)]
            html = post(client, code, "haggle", pick="haggle", card=item[1]).text
            assert attr(html, "data-slot") == ["give"]
            html = post(client, code, "haggle", cards=item[1], card=item[2]).text
            assert attr(html, "data-refused") == [] and 'data-power="haggle"' in html
            assert item[1] not in played(html) and item[2] in played(html)
        else:
            response = tap(client, code, item)
            assert response.status_code == 200, item
            html = response.text
    assert attr(html, "data-over") == ["1"] and attr(html, "data-violation") == []
    assert attr(html, "data-round-scores") == [",".join(map(str, scores))]
    post(client, code, "confirm")
    assert totals(client, code) == scores


def test_haggle_refusals_and_no_haggle(client, make_game, app):
    code = make_game(cards="pabcd")
    for card in ("Q1", "Q5", "Q2", "Q3"):  # Ben wins
        html = tap(client, code, card).text
    assert attr(html, "data-haggle-seat") == ["1"]
    assert attr(html, "data-take") == ["Q1", "Q2", "Q3"]  # not his own card
    before = version(client, code)
    html = refused(post(client, code, "haggle", cards="Q5.P2"), "power-refused")
    assert "their own card" in html
    refused(post(client, code, "haggle", cards="Q1.Q2"), "power-refused")  # Q2 is not in a hand
    refused(post(client, code, "haggle", cards="Q1"), "power-needs-cards")
    refused(post(client, code, "haggle", cards="Q1.P2", version=before - 1), "stale")
    assert version(client, code) == before
    html = post(client, code, "haggle").text  # no haggle
    assert attr(html, "data-haggle-seat") == [] and attr(html, "data-refused") == []
    refused(post(client, code, "haggle", cards="Q1.P2"), "haggle-done")
    html = post(client, code, "undo").text
    assert attr(html, "data-haggle-seat") == ["1"]
    tap(client, code, "A1")  # the next lead closes the chance
    refused(post(client, code, "haggle", cards="Q1.P2"), "haggle-not-now")


def test_no_haggle_outside_haggle_rounds(client, make_game):
    code = make_game()
    for card in ("Q1", "Q5", "Q2", "Q3"):
        html = tap(client, code, card).text
    assert attr(html, "data-haggle-seat") == []
    refused(post(client, code, "haggle", cards="Q1.P2"), "no-haggle-here")


# --- every tap is checked against the round as it is ----------------------------------------------

def test_stale_power_and_pick_taps_store_nothing(client, make_game, app):
    code = game(make_game, s0="cinderella", s1="mulan")
    for card in ("Q1", "Q5", "Q7", "Q2"):
        tap(client, code, card)
    before = version(client, code)
    refused(power(client, code, 1, cards="Q9", version=before - 1), "stale")
    refused(power(client, code, 0, version=before - 1), "stale")
    # Opening the card choice stores nothing.
    html = power(client, code, 1, pick="mulan").text
    assert attr(html, "data-picking") == ["mulan"] and version(client, code) == before
    html = client.get(url(code)).text
    assert "data-picking" not in html and last_winner(html) == 2


def test_pick_without_js_is_plain_links_and_forms(client, make_game):
    code = game(make_game, s1="mulan")
    for card in ("Q1", "Q5", "Q7", "Q2"):
        tap(client, code, card)
    response = client.post(url(code, "power"), data={"version": version(client, code),
                                                     "seat": 1, "pick": "mulan"})
    assert response.status_code == 200 and attr(response.text, "data-picking") == ["mulan"]
    assert 'data-form="power"' in response.text
    response = client.post(url(code, "power"), data={"version": version(client, code),
                                                     "seat": 1, "card": "Q9"})
    assert response.status_code == 303
    assert last_winner(client.get(url(code)).text) == 1
