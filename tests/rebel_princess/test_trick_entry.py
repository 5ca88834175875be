"""Enter tricks: a round tapped in card by card, judged as it goes, then saved to the pad."""

from __future__ import annotations

import random
import re

import pytest

from companion.models import RoundRecord, TrickLog
from companion.scoring.rebel_princess.engine import RoundState

from .conftest import attr, count, totals


def legal_round(seed=3, players=4, letter="a", leader=0):
    """Every card of a seeded deal in play order, each one a legal play."""
    state = RoundState.deal(players, edition="deluxe", round_card=letter, seed=seed,
                            leader=leader)
    rng = random.Random(seed)
    order = []
    while not state.is_over():
        card = rng.choice(sorted(state.legal_plays(), key=str))
        state.play(card)
        order.append(str(card))
    return order, state.outcome().to_entry()


def url(code, action=None):
    base = f"/rebel-princess/g/{code}/round/1/tricks"
    return base if action is None else f"{base}/{action}"


def played(html):
    return re.findall(r'data-play="(\w+)" data-played', html)


def version(client, code):
    return int(attr(client.get(url(code)).text, "data-version")[0])


def tap(client, code, card, hx=True):
    headers = {"HX-Request": "true"} if hx else {}
    return client.post(url(code, "play"), data={"card": card, "version": version(client, code)},
                       headers=headers)


def test_round_screen_offers_trick_entry(client, make_game):
    code = make_game()
    html = client.get(f"/rebel-princess/g/{code}").text
    assert f'href="/rebel-princess/g/{code}/round/1/tricks"' in html
    assert 'data-action="enter-tricks"' in html


def test_trick_screen_shows_leader_turn_and_deck(client, make_game):
    code = make_game(first_leader=2)
    html = client.get(url(code)).text
    assert attr(html, "data-turn") == ["2"]
    assert len(attr(html, "data-play")) == 40
    assert 'data-round-card="a"' in html


def test_whole_round_by_taps_then_confirm(client, make_game, app):
    code = make_game()
    order, entry = legal_round()
    for card in order:
        assert tap(client, code, card).status_code == 200
    html = client.get(url(code)).text
    assert attr(html, "data-over") == ["1"]
    assert len(attr(html, "data-past-trick")) == 10
    assert attr(html, "data-violation") == []
    response = client.post(url(code, "confirm"), data={"version": version(client, code)})
    assert response.status_code == 302
    assert response.headers["Location"] == f"/rebel-princess/g/{code}"
    from companion.scoring.rebel_princess import score_entry
    assert totals(client, code) == score_entry(entry).scores
    assert count(app) == 1


def test_a_full_trick_names_its_winner_and_the_winner_leads(client, make_game):
    code = make_game()
    for card in ("Q1", "Q5", "Q2", "F3"):
        html = tap(client, code, card).text
    assert attr(html, "data-trick-winner") == ["1"]
    assert attr(html, "data-winner")[0] == "1"
    assert attr(html, "data-reason")[0] == "highest"
    assert attr(html, "data-turn") == ["1"]


def test_royal_decree_reason(client, make_game):
    code = make_game(cards="fabcd")
    for card in ("F1", "F9", "Q2", "F3"):
        html = tap(client, code, card).text
    assert attr(html, "data-winner")[0] == "2"
    assert attr(html, "data-reason")[0] == "trump"
    assert "Royal Decree: highest Queen" in html


def test_revoke_is_flagged_when_proven(client, make_game):
    code = make_game()
    for card in ("Q1", "F1", "Q2", "Q3"):  # Ben plays a Fairy on a Queen lead; Di wins
        html = tap(client, code, card).text
    assert attr(html, "data-violation") == []  # nothing proven yet: Ben may have no Queen
    for card in ("Q4", "A1", "Q5", "F2"):  # Di leads; Ben now plays a Queen
        html = tap(client, code, card).text
    assert attr(html, "data-violation") == ["must-follow-suit"]
    assert attr(html, "data-issue-trick") == ["1"]
    assert 'data-action="confirm-scores"' not in html


def test_accept_and_go_on(client, make_game):
    code = make_game()
    for card in ("Q1", "F1", "Q2", "Q3", "Q4", "A1", "Q5", "F2"):
        html = tap(client, code, card).text
    key = attr(html, 'name="key" value')[0]
    html = client.post(url(code, "accept"), data={"version": version(client, code), "key": key},
                       headers={"HX-Request": "true"}).text
    assert attr(html, "data-violation") == []


def test_undo_takes_back_the_last_card(client, make_game):
    code = make_game()
    tap(client, code, "Q1")
    tap(client, code, "Q2")
    html = client.post(url(code, "undo"), data={"version": version(client, code)},
                       headers={"HX-Request": "true"}).text
    assert attr(html, "data-turn") == ["1"]
    assert played(html) == ["Q1"]


def test_card_played_twice_is_refused(client, make_game, app):
    code = make_game()
    tap(client, code, "Q1")
    before = version(client, code)
    response = tap(client, code, "Q1")
    assert response.status_code == 422
    assert attr(response.text, "data-refused") == ["card-already-played"]
    assert "already played in trick 1" in response.text
    assert version(client, code) == before


def test_stale_tap_is_refused(client, make_game):
    code = make_game()
    tap(client, code, "Q1")
    response = client.post(url(code, "play"), data={"card": "Q2", "version": 0},
                           headers={"HX-Request": "true"})
    assert response.status_code == 422
    assert attr(response.text, "data-refused") == ["stale"]
    assert attr(response.text, "data-turn") == ["1"]


def test_a_tap_sent_twice_is_stored_once(client, make_game, app):
    """A tap sent again with the version it was made at (its answer was lost, or the phone kept
    it offline and sent it again) is answered like the first sending: the card is played once."""
    code = make_game()
    sent = {"card": "Q1", "version": 0}
    assert client.post(url(code, "play"), data=sent).status_code == 303
    again = client.post(url(code, "play"), data=sent)
    assert again.status_code == 303 and again.headers["Location"] == url(code)
    html = client.get(url(code)).text
    assert played(html) == ["Q1"] and attr(html, "data-version") == ["1"]
    assert attr(html, "data-turn") == ["1"]
    # Another card at that version is still refused (someone else's tap came first).
    other = client.post(url(code, "play"), data={"card": "Q2", "version": 0},
                        headers={"HX-Request": "true"})
    assert attr(other.text, "data-refused") == ["stale"]
    # The same card sent as a zero when it was not stored as one is not the same tap.
    zero = client.post(url(code, "play"), data={**sent, "zero": "1"},
                       headers={"HX-Request": "true"})
    assert zero.status_code == 422


def test_without_js_a_tap_redirects_to_the_page(client, make_game):
    code = make_game()
    response = tap(client, code, "Q1", hx=False)
    assert response.status_code == 303 and response.headers["Location"] == url(code)


def test_validation_off_shows_no_violations(client, make_game):
    code = make_game()
    client.post(url(code, "validation"), data={"version": 0, "on": "0"})
    for card in ("Q1", "F1", "Q2", "Q3", "Q4", "Q5", "F2", "A1"):
        html = tap(client, code, card).text
    assert attr(html, "data-validate") == ["0"]
    assert attr(html, "data-violation") == []


def test_fix_an_earlier_card_rejudges_the_rest(client, make_game):
    code = make_game()
    for card in ("Q1", "Q5", "Q2", "F3"):
        tap(client, code, card)
    html = client.post(url(code, "fix"), data={"version": version(client, code), "pos": 1,
                                               "card": "F9"}, headers={"HX-Request": "true"}).text
    assert sorted(played(html)) == ["F3", "F9", "Q1", "Q2"]
    assert attr(html, "data-winner")[0] == "2" and attr(html, "data-turn") == ["2"]


def test_fixing_the_revoke_clears_it(client, make_game):
    code = make_game()
    for card in ("Q1", "F1", "Q2", "Q3", "Q4", "A1", "Q5", "F2"):
        tap(client, code, card)
    html = client.post(url(code, "fix"), data={"version": version(client, code), "pos": 1,
                                               "card": "Q9"}, headers={"HX-Request": "true"}).text
    assert attr(html, "data-violation") == []


def test_fix_mode_page_renders_without_js(client, make_game):
    code = make_game()
    tap(client, code, "Q1")
    html = client.get(url(code) + "?pos=0").text
    assert attr(html, "data-fixing") == ["0"] and 'data-form="fix"' in html


def test_trick_log_is_stored(client, make_game, app):
    code = make_game()
    tap(client, code, "Q1")
    assert count(app, TrickLog) == 1 and count(app, RoundRecord) == 0


def test_a_princess_power_changes_the_winner(client, make_game):
    code = make_game(**{"princesses-0": "cinderella"})
    html = client.get(url(code)).text
    assert 'data-power-seat="0"' in html
    client.post(url(code, "power"), data={"version": version(client, code), "seat": 0})
    for card in ("Q1", "Q5", "Q2", "F3"):
        html = tap(client, code, card).text
    assert attr(html, "data-winner")[0] == "0"  # reversed: the lowest Queen wins
    assert "Cinderella: lowest Queen" in html
    assert 'data-power="cinderella"' in html and 'data-power-seat="0"' not in html


def test_a_power_is_used_once(client, make_game):
    code = make_game(**{"princesses-0": "cinderella"})
    client.post(url(code, "power"), data={"version": 0, "seat": 0})
    response = client.post(url(code, "power"), data={"version": 1, "seat": 0})
    assert response.status_code == 422 and attr(response.text, "data-refused") == ["power-refused"]


def test_rounds_with_unseen_cards_send_to_by_cards(client, make_game):
    code = make_game(cards="nabcd")
    html = client.get(url(code)).text
    assert attr(html, "data-unsupported") == ["n"] and "trick-entry" not in html


@pytest.mark.parametrize(("edition", "cards", "letter"), [
    ("deluxe", "oabcd", "o"), ("classic", "MABCD", "M")])
def test_rounds_the_trick_screen_cannot_score_are_refused(client, app, make_game, edition, cards,
                                                           letter):
    """Gift piles are never seen at the table, so they cannot be entered here: the screen sends
    players to entry by cards, and a tap sent anyway stores nothing. (Haggle with the Hag, p / T,
    is entered on the trick screen: tests/rebel_princess/test_trick_powers.py.)"""
    code = make_game(edition=edition, cards=cards)
    assert attr(client.get(url(code)).text, "data-unsupported") == [letter]
    response = client.post(url(code, "play"), data={"version": 0, "card": "Q3"})
    assert response.status_code == 422
    assert count(app, TrickLog) == 0


@pytest.mark.parametrize("typed", ["P١", "Q١", "q١", "Q²", "Q１", "X1", "Q0"])
def test_a_card_not_in_ascii_digits_is_an_unknown_card(client, make_game, app, typed):
    """A card typed or posted with another script's digit ("P١", Arabic-Indic one) is not the
    card with that rank: an unknown card, refused with a clear 4xx message, nothing stored."""
    code = make_game()
    response = client.post(url(code, "play"), data={"card": typed, "version": 0},
                           headers={"HX-Request": "true"})
    assert response.status_code == 422
    assert attr(response.text, "data-refused") == ["unknown-card"]
    assert "That is not a card. Nothing was stored." in response.text
    assert count(app, TrickLog) == 0 and version(client, code) == 0
    tap(client, code, "Q1")
    response = client.post(url(code, "fix"), data={"card": typed, "pos": 0, "version": 1},
                           headers={"HX-Request": "true"})
    assert response.status_code == 422
    assert attr(response.text, "data-refused") == ["unknown-card"]
    assert played(client.get(url(code)).text) == ["Q1"] and version(client, code) == 1


@pytest.mark.parametrize("field", ["version", "pos"])
@pytest.mark.parametrize("digit", ["١", "٠", "１", "²"])
def test_a_number_not_in_ascii_digits_is_refused(client, make_game, app, field, digit):
    """The tap's numbers are ASCII digits only: int() would read "١" as 1 and "٠" as 0."""
    code = make_game()
    tap(client, code, "Q1")
    data = {"card": "F9", "version": 1, "pos": 0, field: digit}
    response = client.post(url(code, "fix"), data=data, headers={"HX-Request": "true"})
    assert response.status_code == 422
    assert attr(response.text, "data-refused") == ["bad-form"]
    assert played(client.get(url(code)).text) == ["Q1"] and version(client, code) == 1
