"""The trick screen (table entry) on issue 37: a card seen ENTERING a hand makes an off-suit play
a revoke as soon as it is tapped; the classic powers are refused as they are entered, with the
reason in English and French; Alice may act after the last trick (the round gets its replay).

Expectations from the rulebooks: follow suit « si elles en ont une » / "if they have one";
Scheherazade swaps the card she draws « contre une de vos cartes »; classic Little Mermaid « vous
ne pouvez pas faire jouer la couleur des Princes s'ils ne sont pas encore apparus dans la
manche » (no exception); Alice deals the trick back « pour les rejouer », with no limit on the
last trick in either rulebook."""

from __future__ import annotations

import pytest

from companion.scoring.rebel_princess.engine import TableRound, parse_card

from .conftest import attr
from .test_trick_entry import url
from .test_trick_evidence import HX, revokes, taps
from .test_trick_powers import game, post, power, refused, winners

ROUNDS = {"deluxe": "abcde", "classic": "ABCDE"}


@pytest.mark.parametrize("edition", ["deluxe", "classic"])
def test_card_drawn_by_scheherazade_makes_her_revoke_show_at_once(client, make_game, edition):
    """Trick 0: A2 A3 A9 A4, Cy wins. Ana's Scheherazade draws Q3 from Ben (gives F10): in
    trick 1 the Queens are led and Ana plays F4 while she holds Q3: shown as F4 is tapped, in
    English and French. Her cards not entered: nothing."""
    code = game(make_game, edition=edition, cards=ROUNDS[edition], s0="scheherazade")
    taps(client, code, "A2 A3 A9 A4")
    html = power(client, code, 0, target="1", cards="Q3", card="F10").text
    assert attr(html, "data-refused") == []
    taps(client, code, "Q5 Q7 F4")
    assert revokes(client, code) == ["must-follow-suit"]
    assert "without following suit" in client.get(url(code)).text
    assert "sans fournir" in client.get(url(code), headers={"Accept-Language": "fr"}).text
    code = game(make_game, edition=edition, cards=ROUNDS[edition], s0="scheherazade")
    taps(client, code, "A2 A3 A9 A4")
    power(client, code, 0, target="1")  # the cards not seen
    taps(client, code, "Q5 Q7 F4")
    assert revokes(client, code) == []


def test_classic_little_mermaid_naming_princes_too_early_is_refused_on_the_screen(client,
                                                                                  make_game):
    code = game(make_game, edition="classic", cards=ROUNDS["classic"], s1="little-mermaid")
    html = refused(power(client, code, 1, suit="P"), "power-refused")
    assert "no Prince has appeared" in html
    version = attr(client.get(url(code)).text, "data-version")[0]
    french = client.post(url(code, "power"), data={"seat": 1, "suit": "P", "version": version},
                         headers={**HX, "Accept-Language": "fr"})
    assert french.status_code == 422 and "aucun Prince n" in french.text
    html = power(client, code, 1, suit="Q").text  # another suit: accepted
    assert attr(html, "data-refused") == []
    # Deluxe: the leader may hold only Princes (unseen): accepted at entry.
    code = game(make_game, cards=ROUNDS["deluxe"], s1="little-mermaid")
    assert attr(power(client, code, 1, suit="P").text, "data-refused") == []


def _whole_round():
    """Forty cards, each trick of four won by the last to play where the suit allows it."""
    deck = [f"{suit}{rank}" for suit in "QFAP" for rank in range(1, 11)]
    judge = TableRound(4, round_card="a")
    for card in deck:
        judge.push_card(parse_card(card))
    return deck, judge.tricks[-1].winner, judge.tricks[-1].leader


@pytest.mark.parametrize("edition", ["deluxe", "classic"])
def test_alice_after_the_last_trick_on_the_screen(client, make_game, edition):
    deck, winner, leader = _whole_round()
    code = game(make_game, edition=edition, cards=ROUNDS[edition], **{f"s{winner}": "alice"})
    html = taps(client, code, " ".join(deck))
    assert winners(html)[0] == winner  # (the last trick first)
    assert attr(html, "data-over") == ["1"] and 'data-action="power-alice"' in html
    last = deck[-4:]  # played by leader, leader + 1, ...: deal each seat its own card back
    dealt = [last[(seat - leader) % 4] for seat in range(4)]
    html = power(client, code, winner, cards=".".join(dealt[:3]), card=dealt[3]).text
    assert attr(html, "data-refused") == []
    assert attr(html, "data-turn") == [str(winner)]  # she leads the replay
    assert "Trick 11 of 11" in html
    html = taps(client, code, " ".join(dealt[(winner + i) % 4] for i in range(4)))
    assert attr(html, "data-turn") == [] and attr(html, "data-over") == ["1"]  # over again


@pytest.mark.parametrize("edition", ["deluxe", "classic"])
def test_card_alice_deals_makes_a_revoke_show_at_once(client, make_game, edition):
    """Ana (Alice) wins Q9 Q1 Q2 Q3 and deals it back, one card per seat from Ana: Q1, Q2, Q9
    (Cy), Q3. In the replay Ana leads Q1, Ben Q2, and Cy plays F4 while she holds Q9: shown as
    F4 is tapped, in English and French."""
    code = game(make_game, edition=edition, cards=ROUNDS[edition], s0="alice")
    taps(client, code, "Q9 Q1 Q2 Q3")
    html = power(client, code, 0, cards="Q1.Q2", card="Q9").text
    assert attr(html, "data-refused") == [] and attr(html, "data-turn") == ["0"]
    taps(client, code, "Q1 Q2")
    assert revokes(client, code) == []
    taps(client, code, "F4")
    assert revokes(client, code) == ["must-follow-suit"]
    assert "without following suit" in client.get(url(code)).text
    assert "sans fournir" in client.get(url(code), headers={"Accept-Language": "fr"}).text


@pytest.mark.parametrize(("edition", "cards"), [("deluxe", "pabcd"), ("classic", "TABCD")])
def test_card_taken_in_a_haggle_in_both_editions(client, make_game, edition, cards):
    """Haggle with the Hag (p) / Marché magique (T): the third seat takes Q5 from the trick; in
    trick 2 it plays F3 on the Queens: a revoke at once. Without the haggle: nothing."""
    code = make_game(edition=edition, cards=cards)
    taps(client, code, "Q5 Q2 Q9 Q7")

    assert attr(post(client, code, "haggle", cards="Q5.A3").text, "data-refused") == []
    taps(client, code, "A5 A7 A9 A4 Q8 Q10 F3")
    assert revokes(client, code) == ["must-follow-suit"]
    code = make_game(edition=edition, cards=cards)
    taps(client, code, "Q5 Q2 Q9 Q7")
    post(client, code, "haggle")  # no haggle
    taps(client, code, "A5 A7 A9 A4 Q8 Q10 F3")
    assert revokes(client, code) == []
