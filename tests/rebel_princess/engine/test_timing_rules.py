"""Timing rules declared on the Round cards and powers (engine.modifiers.NotOn), applied by the
full-information state and by table entry.

- Late to the Ball (Deluxe b): « Sleeping Beauty and Scheherazade may not use their powers on the
  last card of this round »; RULINGS.md and the app's rulings read the classic G alike.
- After the last trick the round is over: classic Pocahontas has no next trick to hand over
  (« désignez une autre Princesse qui ouvrira le pli suivant »), the haggling winner no card left
  « from their hand ». Alice is not limited there (neither rulebook limits her; the cards she
  deals back are played again: the round gets its replay)."""

from __future__ import annotations

import pytest

from companion.scoring.problems import EntryError
from companion.scoring.rebel_princess.engine import (
    Edition,
    Haggle,
    PowerUse,
    RoundState,
    SetAside,
    TableRound,
    parse_card,
    parse_cards,
    round_card_class,
)
from companion.scoring.rebel_princess.engine.errors import CATALOGUES
from companion.scoring.rebel_princess.engine.modifiers import NotOn, TrickTime, barred
from companion.scoring.rebel_princess.engine.powers import power_class
from companion.scoring.rebel_princess.table_check import (
    PlayInput,
    PowerInput,
    TrickInput,
    check_round,
)

LATE = [("deluxe", "b"), ("classic", "G")]
BARRED = ["sleeping-beauty", "scheherazade"]


def late_tricks(players=3):
    """A legal Late to the Ball round at the table, one suit per trick, each won by the last
    seat to play: Queens, Fairies, Pets, then the Princes once only Princes are left."""
    cards = [f"{suit}{rank}" for suit in "QFAP" for rank in range(2, 11)]
    tricks, leader = [], 0
    for start in range(0, len(cards), players):
        tricks.append([((leader + i) % players, card)
                       for i, card in enumerate(cards[start:start + players])])
        leader = (leader + players - 1) % players
    return tricks


def use_of(slug, seat=0):
    return PowerInput(slug, seat, target=1) if slug == "scheherazade" else PowerInput(slug, seat)


def check_late(edition, letter, slug, at):
    tricks = [TrickInput(tuple(PlayInput(s, c) for s, c in t), (use_of(slug),) if i == at else ())
              for i, t in enumerate(late_tricks())]
    return check_round(edition=edition, round_card=letter, players=3, leader=0,
                       princesses={0: slug}, tricks=tricks)


def test_late_to_the_ball_declares_the_ban_on_its_card():
    """The ban is the Round card's, naming the two powers, and nothing else bars them."""
    for name, letter in LATE:
        edition = Edition(name)
        card = round_card_class(edition, letter)(edition)
        assert card.not_on == (NotOn(TrickTime.LAST_TRICK, ("sleeping-beauty", "scheherazade")),)
        for slug in BARRED:
            power = power_class(slug)(edition)
            assert barred(card, power, TrickTime.LAST_TRICK) is card
            plain = round_card_class(edition, "a" if name == "deluxe" else "A")(edition)
            assert barred(plain, power, TrickTime.LAST_TRICK) is None
        assert barred(card, power_class("cinderella")(edition), TrickTime.LAST_TRICK) is None


@pytest.mark.parametrize(("edition", "letter"), LATE)
@pytest.mark.parametrize("slug", BARRED)
def test_late_to_the_ball_refuses_the_power_for_the_last_trick_at_the_table(edition, letter,
                                                                              slug):
    """A 3-player round has 12 tricks: the power is accepted for the 11th, refused for the 12th
    with the reason, in English and French."""
    assert check_late(edition, letter, slug, 10).legal
    with pytest.raises(EntryError) as info:
        check_late(edition, letter, slug, 11)
    (problem,) = info.value.problems
    assert (problem.code, problem.trick, problem.field) == (
        "not-on-last-trick", 11, "tricks[11].powers[0]")
    assert problem.params["rule"] == "late-to-the-ball" and problem.params["power"] == slug
    catalogue = CATALOGUES[info.value.problems[0].catalogue.edition]
    english = catalogue.text(problem.code, "en", **problem.params)
    french = catalogue.text(problem.code, "fr", **problem.params)
    assert "last trick" in english and "dernier pli" in french


@pytest.mark.parametrize("slug", BARRED)
def test_late_to_the_ball_ban_only_under_late_to_the_ball(slug):
    tricks = [TrickInput(tuple(PlayInput(s, c) for s, c in t), (use_of(slug),) if i == 11 else ())
              for i, t in enumerate(late_tricks())]
    result = check_round(edition="deluxe", round_card="a", players=3, leader=0,
                         princesses={0: slug}, tricks=tricks)
    assert result.complete and result.legal


def test_table_round_answers_the_ban_before_the_last_trick():
    judge = TableRound(3, round_card="b", leader=0,
                       princesses=["sleeping-beauty", None, None])
    for trick in late_tricks()[:11]:
        for _, card in trick:
            judge.push_card(parse_card(card))
    assert judge.trick_time() is TrickTime.LAST_TRICK
    assert [p.code for p in judge.check_power(PowerUse(0, "sleeping-beauty"))] == [
        "not-on-last-trick"]
    assert judge.power_refusal(0).code == "not-on-last-trick"


@pytest.mark.parametrize(("edition", "letter"), LATE)
@pytest.mark.parametrize("slug", BARRED)
def test_late_to_the_ball_full_information(edition, letter, slug):
    """RoundState: the same declaration refuses the power once only the saved cards are left."""
    state = RoundState(["Q2Q3P2", "F2F3P3", "A2A3P4"], edition=edition, round_card=letter,
                       princesses=[slug, None, None])
    state.play_step(SetAside(tuple(frozenset(parse_cards(c)) for c in ("P2", "P3", "P4"))))
    use = PowerUse(0, slug, target=1, cards=parse_cards("F3 Q3")) if slug == "scheherazade" \
        else PowerUse(0, slug, cards=parse_cards("Q3 F3 A3"), more=parse_cards("F3 Q3 A3"))
    assert state.check_step(use) == []  # before the first trick: allowed
    for cards in ("Q2 F2 A2", "Q3 F3 A3"):
        state.play_trick(state.parse_trick(cards))
    last = PowerUse(0, slug, target=1, cards=parse_cards("P3 P2")) \
        if slug == "scheherazade" else PowerUse(0, slug, cards=parse_cards("P2 P3 P4"),
                                                 more=parse_cards("P3 P2 P4"))
    assert [p.code for p in state.check_step(last)] == ["not-on-last-trick"]


def finished(edition, letter, slug):
    """A whole table round (see :func:`late_tricks`) with ``slug`` for the last trick's winner."""
    tricks = late_tricks()
    winner = tricks[-1][-1][0]  # each trick is won by the last seat to play
    princesses = [None, None, None]
    princesses[winner] = slug
    judge = TableRound(3, edition=edition, round_card=letter, leader=0, princesses=princesses)
    for trick in tricks:
        for _, card in trick:
            judge.push_card(parse_card(card))
    assert judge.tricks[-1].winner == winner and judge.is_over()
    return judge, winner


@pytest.mark.parametrize(("edition", "letter"), [("deluxe", "a"), ("classic", "A")])
def test_alice_may_act_after_the_last_trick_at_the_table(edition, letter):
    """Alice is not limited on the last trick (neither rulebook limits her; the cards are dealt
    back « pour les rejouer »): the round gets one trick more, led by her."""
    judge, winner = finished(edition, letter, "alice")
    assert judge.trick_time() is TrickTime.AFTER_LAST_TRICK
    use = PowerUse(winner, "alice", cards=tuple(judge.tricks[-1].cards))
    assert winner in judge.after_trick_seats()
    assert judge.check_power(use) == []
    judge.push_power(use)
    assert not judge.is_over() and judge.turn == winner
    assert judge.expected_tricks == judge.base_tricks + 1
    for index in range(3):  # each seat plays the card dealt to it (seat s: cards[s])
        judge.push_card(use.cards[(winner + index) % 3])
    assert judge.is_over() and judge.findings() == []
    assert judge.outcome() is not None
    judge.pop()
    assert not judge.is_over()


def test_classic_pocahontas_cannot_hand_over_a_lead_after_the_last_trick():
    judge, winner = finished("classic", "A", "pocahontas")
    use = PowerUse(winner, "pocahontas", target=(winner + 1) % 3)
    assert [p.code for p in judge.check_power(use)] == ["round-over"]
    for _ in range(3):  # back to the end of the 11th trick: a lead to hand over
        judge.pop()
    assert judge.trick_time() is TrickTime.LAST_TRICK
    assert judge.check_power(use) == []


def test_haggle_after_the_last_trick_is_refused():
    judge = TableRound(3, round_card="p", leader=0)
    for trick in late_tricks():
        for _, card in trick:
            judge.push_card(parse_card(card))
    last = judge.tricks[-1]
    step = Haggle(last.winner, parse_card("Q2"), last.cards[0])
    assert [p.code for p in judge.check_haggle(step)] == ["round-over"]
