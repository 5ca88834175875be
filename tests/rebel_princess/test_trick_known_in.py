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


# --- Musical Chairs (k / E): the passes after a trick ------------------------------------------
# Rulebooks: after each trick « chacune des Princesses passe une carte de sa main à la personne qui
# se trouve à sa droite » / "every player passes a card face down from their hand to the player on
# their right"; the right of seat s is s - 1 (RULINGS.md). Trick 0: A2 A3 A9 A4, Cy wins and leads.
CHAIRS = {"deluxe": "kabcd", "classic": "EABCD"}
PASSES = "F10.Q3.P2"  # Ana F10 to Di, Ben Q3 to Ana, Cy P2 to Ben, then Di P3 to Cy (tapped last)


def chairs(client, code, cards=None, card=None, **headers):
    data = {"version": attr(client.get(url(code)).text, "data-version")[0]}
    if cards is not None:
        data.update(cards=cards, card=card or "")
    return client.post(url(code, "chairs"), data=data, headers={**HX, **headers})


@pytest.mark.parametrize("edition", ["deluxe", "classic"])
def test_queen_passed_in_makes_the_revoke_show_at_once(client, make_game, edition):
    """Ben passes Q3 to Ana; in trick 1 Cy leads Q5, Di Q7, and Ana plays F4 while she holds Q3:
    the revoke is shown as F4 is tapped, in English and French. The next passes not seen (or
    entered) change nothing: it was certain at that trick."""
    for later in ("not seen", "entered"):
        code = make_game(edition=edition, cards=CHAIRS[edition])
        html = taps(client, code, "A2 A3 A9 A4")
        assert attr(html, "data-chairs-after") == ["1"]
        html = chairs(client, code, PASSES, "P3").text
        assert attr(html, "data-refused") == [] and attr(html, "data-chairs-after") == []
        assert 'data-power="chairs"' in html
        html = taps(client, code, "Q5 Q7 F4")
        assert revokes(client, code) == ["must-follow-suit"]
        assert "Ana played" in client.get(url(code)).text
        assert "without following suit" in client.get(url(code)).text
        assert "sans fournir" in client.get(url(code), headers={"Accept-Language": "fr"}).text
        taps(client, code, "Q9")  # Ben wins trick 1
        if later == "not seen":
            assert attr(chairs(client, code).text, "data-refused") == []
        else:
            assert attr(chairs(client, code, "F5.F6.F7", "F8").text, "data-refused") == []
        taps(client, code, "A5 A6 Q1")  # Ben, Cy, then Di off suit: nothing known of Di
        assert revokes(client, code) == ["must-follow-suit"]


@pytest.mark.parametrize("edition", ["deluxe", "classic"])
def test_passes_not_seen_end_what_is_known(client, make_game, edition):
    """The passes after trick 0 not entered (said not seen, or the next card simply led):
    Ana's F4 on the Queens proves nothing. Entered after trick 0 but not after trick 1: Ana
    may have passed Q3 on, so her F3 on the Queens of trick 2 proves nothing either."""
    for say in (True, False):
        code = make_game(edition=edition, cards=CHAIRS[edition])
        taps(client, code, "A2 A3 A9 A4")
        if say:
            html = chairs(client, code).text
            assert attr(html, "data-refused") == [] and "passes not seen" in html
        taps(client, code, "Q5 Q7 F4")
        assert revokes(client, code) == []
    code = make_game(edition=edition, cards=CHAIRS[edition])
    taps(client, code, "A2 A3 A9 A4")
    chairs(client, code, PASSES, "P3")
    taps(client, code, "Q5 Q7 Q3 Q9")  # Ana follows with her Q3; Ben wins
    chairs(client, code)  # not seen
    taps(client, code, "Q8 Q10 F2 F3")  # Ben, Cy, Di, Ana: Ana's hand is unknown again
    assert revokes(client, code) == []


@pytest.mark.parametrize("edition", ["deluxe", "classic"])
def test_card_passed_out_proves_an_earlier_revoke(client, make_game, edition):
    """Known out: trick 0 Q5 A2 Q9 Q7 (Ben plays A2 on the Queens); Ben passes Q3 after it: he
    held it during trick 0, a revoke shown once the passes are entered."""
    code = make_game(edition=edition, cards=CHAIRS[edition])
    taps(client, code, "Q5 A2 Q9 Q7")
    assert revokes(client, code) == []
    chairs(client, code, PASSES, "P3")
    assert revokes(client, code) == ["must-follow-suit"]
    assert "Ben played" in client.get(url(code)).text


@pytest.mark.parametrize("edition", ["deluxe", "classic"])
def test_passes_refused_with_the_reason(client, make_game, edition):
    """A card already played, one card too few, no passes after a trick under another Round
    card, twice after the same trick: refused, nothing stored, in English and French."""
    code = make_game(edition=edition, cards=CHAIRS[edition])
    taps(client, code, "A2 A3 A9 A4")
    html = refused(chairs(client, code, "A2.Q3.P2", "P3"), "power-refused")
    assert "already played" in html
    french = chairs(client, code, "A2.Q3.P2", "P3", **{"Accept-Language": "fr"})
    assert french.status_code == 422 and "déjà joué" in french.text
    html = refused(chairs(client, code, "Q3.P2", "P3"), "chairs-one-each")
    assert "one card for each of the 4 players" in html
    french = chairs(client, code, "Q3.P2", "P3", **{"Accept-Language": "fr"})
    assert "chacun des 4\u00a0joueurs" in french.text
    assert attr(chairs(client, code).text, "data-refused") == []
    refused(chairs(client, code), "chairs-done")
    code = make_game(edition=edition, cards=ROUNDS[edition])
    taps(client, code, "A2 A3 A9 A4")
    html = refused(chairs(client, code, PASSES, "P3"), "no-chairs-here")
    assert "Nobody passes cards" in html


@pytest.mark.parametrize("edition", ["deluxe", "classic"])
def test_passes_are_tapped_seat_by_seat_on_the_grid(client, make_game, edition):
    """The pick: one card per seat, each named with the player on its right, the cards already
    played are off; the last tap stores the passes; undo takes them back."""
    code = make_game(edition=edition, cards=CHAIRS[edition])
    taps(client, code, "A2 A3 A9 A4")
    html = client.get(url(code) + "?pick=chairs", headers=HX).text
    assert attr(html, "data-slot") == ["passes"] and attr(html, "data-pick-seat") == ["0"]
    assert "Tap the card Ana passed to Di." in html
    assert 'data-play="A2" data-off="1"' in html
    html = client.get(url(code) + "?pick=chairs&cards=F10.Q3.P2", headers=HX).text
    assert attr(html, "data-pick-seat") == ["3"] and "Di passed to Cy" in html
    assert 'data-form="chairs"' in html  # the last tap stores
    french = client.get(url(code) + "?pick=chairs", headers={**HX, "Accept-Language": "fr"})
    assert "Touchez la carte qu" in french.text
    post(client, code, "undo")  # nothing entered after the trick: A4 is taken back
    assert attr(client.get(url(code)).text, "data-chairs-after") == []
    taps(client, code, "A4")
    chairs(client, code, PASSES, "P3")
    post(client, code, "undo")  # the passes are taken back first
    assert attr(client.get(url(code)).text, "data-chairs-after") == ["1"]


# --- Sleeping Beauty: one part of her cards alone ----------------------------------------------
# Each player hands her a card, she deals them out again (rulebooks); the table may have seen only
# what each gave, or only what each got. Trick 0: Q5 A2 Q9 Q7 (Ben plays A2 on the Queens), Cy wins.


@pytest.mark.parametrize("edition", ["deluxe", "classic"])
def test_sleeping_beauty_contributions_alone(client, make_game, edition):
    """Each seat's card only (the new ones not seen: "keep these" after the fourth tap): Ben gave
    Q3, so he held it in trick 0: the revoke is shown, in English and French."""
    code = game(make_game, edition=edition, cards=ROUNDS[edition], s0="sleeping-beauty")
    taps(client, code, "Q5 A2 Q9 Q7")
    html = client.get(url(code) + "?pick=sleeping-beauty&seat=0&cards=F10.Q3.P2.P3",
                      headers=HX).text
    assert attr(html, "data-slot") == ["gets"] and 'data-action="stop-pick"' in html
    html = power(client, code, 0, cards="F10.Q3.P2.P3").text  # what "keep these" posts
    assert attr(html, "data-refused") == [] and 'data-power="sleeping-beauty"' in html
    assert revokes(client, code) == ["must-follow-suit"]
    assert "without following suit" in client.get(url(code)).text
    assert "sans fournir" in client.get(url(code), headers={"Accept-Language": "fr"}).text
    code = game(make_game, edition=edition, cards=ROUNDS[edition], s0="sleeping-beauty")
    taps(client, code, "Q5 A2 Q9 Q7")
    power(client, code, 0)  # no card seen: nothing
    assert revokes(client, code) == []


@pytest.mark.parametrize("edition", ["deluxe", "classic"])
def test_sleeping_beauty_new_cards_alone(client, make_game, edition):
    """Only what each seat got: Ana gets Q3; in trick 1 Cy leads Q4, Di Q6, Ana plays F4 while
    she holds Q3: shown at once. What each gave is unknown: Ben's A2 proves nothing."""
    code = game(make_game, edition=edition, cards=ROUNDS[edition], s0="sleeping-beauty")
    taps(client, code, "Q5 A2 Q9 Q7")
    html = client.get(url(code) + "?pick=sleeping-beauty&seat=0", headers=HX).text
    assert attr(html, "data-slot") == ["gives"] and 'data-action="pick-more"' in html
    html = client.get(url(code) + "?pick=sleeping-beauty&seat=0&part=more", headers=HX).text
    assert attr(html, "data-slot") == ["gets"] and attr(html, "data-pick-seat") == ["0"]
    assert 'name="part" value="more"' in html and "Ana gets back" in html
    html = power(client, code, 0, cards="Q3.F10.P3", card="P2", part="more").text
    assert attr(html, "data-refused") == []
    assert revokes(client, code) == []
    taps(client, code, "Q4 Q6 F4")
    assert revokes(client, code) == ["must-follow-suit"]
    assert "Ana played" in client.get(url(code)).text
    assert "sans fournir" in client.get(url(code), headers={"Accept-Language": "fr"}).text
    code = game(make_game, edition=edition, cards=ROUNDS[edition], s0="sleeping-beauty")
    taps(client, code, "Q5 A2 Q9 Q7")
    power(client, code, 0)  # not seen: Ana's F4 proves nothing
    taps(client, code, "Q4 Q6 F4")
    assert revokes(client, code) == []


def test_sleeping_beauty_new_cards_alone_refused_with_the_reason(client, make_game):
    """A new card already played: refused, in English and French, nothing stored."""
    code = game(make_game, cards=ROUNDS["deluxe"], s0="sleeping-beauty")
    taps(client, code, "Q5 A2 Q9 Q7")
    html = refused(power(client, code, 0, cards="Q5.F10.P3", card="P2", part="more"),
                   "power-refused")
    assert "already played" in html
    version = attr(client.get(url(code)).text, "data-version")[0]
    french = client.post(url(code, "power"), data={"seat": 0, "cards": "Q5.F10.P3", "card": "P2",
                                                   "part": "more", "version": version},
                         headers={**HX, "Accept-Language": "fr"})
    assert french.status_code == 422 and "déjà joué" in french.text
    assert 'data-power="sleeping-beauty"' not in client.get(url(code)).text


@pytest.mark.parametrize("edition", ["deluxe", "classic"])
def test_card_mulan_swaps_back_makes_her_revoke_show_at_once(client, make_game, edition):
    """Trick 0: Q1 Q5 Q7 Q2; Ben (Mulan) swaps his Q5 for Q9 from his hand and wins: Q5 is back
    in his hand. Trick 1, he leads A3 and Ana wins with A6; trick 2, Ana leads Q4 and Ben plays
    F3 while he holds Q5: shown at once, in English and French. Without the swap: nothing."""
    code = game(make_game, edition=edition, cards=ROUNDS[edition], s1="mulan")
    taps(client, code, "Q1 Q5 Q7 Q2")
    html = power(client, code, 1, cards="", card="Q9").text
    assert attr(html, "data-refused") == [] and attr(html, "data-turn") == ["1"]
    taps(client, code, "A3 A4 A5 A6 Q4")
    assert revokes(client, code) == []
    taps(client, code, "F3")
    assert revokes(client, code) == ["must-follow-suit"]
    assert "Ben played" in client.get(url(code)).text
    assert "sans fournir" in client.get(url(code), headers={"Accept-Language": "fr"}).text
    code = game(make_game, edition=edition, cards=ROUNDS[edition], s1="mulan")
    taps(client, code, "Q1 Q5 Q7 Q2 Q4 Q6 Q8 F3")  # Cy wins and leads; Ben's hand unknown
    assert revokes(client, code) == []


@pytest.mark.parametrize("edition", ["deluxe", "classic"])
@pytest.mark.parametrize(("drawn", "given"), [("F10", "Q3"), ("Q3", "Q3")])
def test_card_scheherazade_gives_or_gives_back_is_known_in_the_targets_hand(
        client, make_game, edition, drawn, given):
    """Trick 0: A2 A3 A9 A4, Cy wins. Ana (Scheherazade) draws ``drawn`` from Ben and gives him
    ``given`` (Q3: a new card, or the drawn one given back): Ben holds Q3. Trick 1: Q5 Q7 Q8 led
    by Cy, Ben plays F4: shown at once. Her cards not entered: nothing."""
    code = game(make_game, edition=edition, cards=ROUNDS[edition], s0="scheherazade")
    taps(client, code, "A2 A3 A9 A4")
    html = power(client, code, 0, target="1", cards=drawn, card=given).text
    assert attr(html, "data-refused") == []
    taps(client, code, "Q5 Q7 Q8 F4")
    assert revokes(client, code) == ["must-follow-suit"]
    assert "Ben played" in client.get(url(code)).text
    assert "sans fournir" in client.get(url(code), headers={"Accept-Language": "fr"}).text
    code = game(make_game, edition=edition, cards=ROUNDS[edition], s0="scheherazade")
    taps(client, code, "A2 A3 A9 A4")
    power(client, code, 0, target="1")
    taps(client, code, "Q5 Q7 Q8 F4")
    assert revokes(client, code) == []


@pytest.mark.parametrize(("edition", "cards"), [("deluxe", "pabcd"), ("classic", "TABCD")])
def test_card_shown_in_a_haggle_proves_an_earlier_revoke_in_both_editions(client, make_game,
                                                                          edition, cards):
    """Known out: Ben plays A2 on the Queens of trick 0, wins trick 1 and gives Q3 in a haggle:
    he held it in trick 0, shown once the haggle is entered. No haggle: nothing."""
    code = make_game(edition=edition, cards=cards)
    taps(client, code, "Q5 A2 Q9 Q7 F5 F2 F3 F9")
    assert revokes(client, code) == []
    assert attr(post(client, code, "haggle", cards="F5.Q3").text, "data-refused") == []
    assert revokes(client, code) == ["must-follow-suit"]
    assert "sans fournir" in client.get(url(code), headers={"Accept-Language": "fr"}).text
    code = make_game(edition=edition, cards=cards)
    taps(client, code, "Q5 A2 Q9 Q7 F5 F2 F3 F9")
    post(client, code, "haggle")
    assert revokes(client, code) == []


@pytest.mark.parametrize("edition", ["deluxe", "classic"])
def test_card_drawn_by_scheherazade_proves_an_earlier_revoke_in_both_editions(client, make_game,
                                                                              edition):
    """Known out: Ben plays A2 on the Queens of trick 0; Scheherazade then draws Q3 from him: he
    held it in trick 0. Her cards not entered: nothing."""
    code = game(make_game, edition=edition, cards=ROUNDS[edition], s0="scheherazade")
    taps(client, code, "Q5 A2 Q9 Q7")
    assert attr(power(client, code, 0, target="1", cards="Q3", card="F10").text,
                "data-refused") == []
    assert revokes(client, code) == ["must-follow-suit"]
    code = game(make_game, edition=edition, cards=ROUNDS[edition], s0="scheherazade")
    taps(client, code, "Q5 A2 Q9 Q7")
    power(client, code, 0, target="1")
    assert revokes(client, code) == []
