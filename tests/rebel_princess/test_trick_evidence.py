"""The trick screen (table entry): a card that becomes known later proves an earlier revoke
(engine.evidence), and a timing rule refuses a power with its reason (engine.modifiers.NotOn).
Expectations from the rulebooks; see tests/rebel_princess/engine/test_evidence.py."""

from __future__ import annotations

import pytest

from .conftest import attr
from .test_trick_entry import tap, url
from .test_trick_powers import game, post, power, refused

HX = {"HX-Request": "true"}


def taps(client, code, cards):
    html = ""
    for card in cards.split():
        response = tap(client, code, card)
        assert response.status_code == 200, (card, response.status_code)
        html = response.text
    return html


def revokes(client, code):
    return attr(client.get(url(code)).text, "data-violation")


def test_haggled_card_proves_a_revoke_on_the_trick_screen(client, make_game):
    """Trick 0: Q5, A2 from Ben, Q9, Q7; Ben wins trick 1 and haggles giving Q3: A2 was a
    revoke. Without the haggle, nothing."""
    code = make_game(cards="pabcd")
    taps(client, code, "Q5 A2 Q9 Q7 F5 F2 F3 F9")
    assert revokes(client, code) == []
    html = post(client, code, "haggle", cards="F5.Q3").text
    assert attr(html, "data-refused") == []
    assert revokes(client, code) == ["must-follow-suit"]
    post(client, code, "undo")
    assert revokes(client, code) == []


def test_scheherazade_cards_prove_a_revoke_on_the_trick_screen(client, make_game):
    code = game(make_game, s0="scheherazade")
    taps(client, code, "Q5 A2 Q9 Q7")
    html = power(client, code, 0, target="1", cards="Q3", card="F10").text
    assert attr(html, "data-refused") == [] and 'data-power="scheherazade"' in html
    assert revokes(client, code) == ["must-follow-suit"]
    code = game(make_game, s0="scheherazade")
    taps(client, code, "Q5 A2 Q9 Q7")
    power(client, code, 0, target="1")  # cards not seen
    taps(client, code, "F5 F2 F3 F9")
    assert revokes(client, code) == []


def test_sleeping_beauty_cards_prove_a_revoke_on_the_trick_screen(client, make_game):
    code = game(make_game, s0="sleeping-beauty")
    taps(client, code, "Q5 A2 Q9 Q7")
    html = power(client, code, 0, cards="F10.Q3.P2.P3.Q3.F10.P3", card="P2").text
    assert attr(html, "data-refused") == [] and 'data-power="sleeping-beauty"' in html
    assert revokes(client, code) == ["must-follow-suit"]


@pytest.mark.parametrize(("edition", "cards", "slug"),
                         [("deluxe", "bacde", "sleeping-beauty"),
                          ("classic", "GACBD", "scheherazade")])
def test_late_to_the_ball_refuses_the_power_for_the_last_trick(client, make_game, edition,
                                                                 cards, slug):
    """Four players hold 10 cards: under Late to the Ball the 10th trick is the saved cards'."""
    code = game(make_game, edition=edition, cards=cards, s0=slug)
    deck = [f"{suit}{rank}" for suit in "QFAP" for rank in range(1, 11)]
    for start in range(0, 36, 4):  # nine tricks of one suit each, won by the last to play
        taps(client, code, " ".join(deck[start:start + 4]))
    extra = {"target": "1"} if slug == "scheherazade" else {}
    html = refused(power(client, code, 0, **extra), "power-refused")
    assert "last trick" in html
    french = client.post(url(code, "power"), data={"seat": 0, **extra, "version": attr(
        client.get(url(code)).text, "data-version")[0]}, headers={**HX, "Accept-Language": "fr"})
    assert french.status_code == 422 and "dernier pli" in french.text


def test_card_taken_in_a_haggle_makes_a_revoke_at_once_on_the_trick_screen(client, make_game):
    """Issue 37: a card seen ENTERING a hand is there from then on. Trick 0: Q5 Q2 Q9 Q7, the
    third seat wins and haggles taking Q5 (giving A3); trick 1 (A5 A7 A9 A4) goes to the first
    seat; in trick 2 the Queens are led and the third seat plays F3 while it holds Q5: the revoke
    is shown as soon as F3 is tapped, in English and French. Without the haggle, nothing."""
    code = make_game(cards="pabcd")
    taps(client, code, "Q5 Q2 Q9 Q7")
    html = post(client, code, "haggle", cards="Q5.A3").text
    assert attr(html, "data-refused") == []
    taps(client, code, "A5 A7 A9 A4 Q8 Q10 F3")
    assert revokes(client, code) == ["must-follow-suit"]
    english = client.get(url(code)).text
    assert "without following suit" in english
    french = client.get(url(code), headers={"Accept-Language": "fr"}).text
    assert "sans fournir" in french
    code = make_game(cards="pabcd")
    taps(client, code, "Q5 Q2 Q9 Q7 A5 A7 A9 A4 Q8 Q10 F3")
    assert revokes(client, code) == []
