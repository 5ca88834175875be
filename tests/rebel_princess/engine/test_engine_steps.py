"""Round-card steps outside the tricks: passes, set-aside cards, reveals, gifts, chairs, haggles."""

from __future__ import annotations

import pytest

from companion.scoring.rebel_princess.cards import Suit
from companion.scoring.rebel_princess.engine import (
    EngineError,
    IllegalTrickError,
    InvalidEntryError,
    RoundState,
    parse_card,
    parse_cards,
)
from companion.scoring.rebel_princess.engine.steps import (
    Chairs,
    Gift,
    Haggle,
    Pass,
    Reveal,
    SetAside,
    StepKind,
    parse_step,
)


def cards(text: str) -> frozenset:
    return frozenset() if text == "-" else frozenset(parse_cards(text))


def seats(*texts: str) -> tuple:
    return tuple(cards(text) for text in texts)


def codes(violations) -> list[str]:
    return [v.code.value for v in violations]


def play(state: RoundState, entry: str) -> int:
    return state.play_trick(state.parse_trick(entry))


# -- passing -----------------------------------------------------------------------------------

def test_pass_moves_cards_left_and_right_simultaneously():
    """Seat s gives to s+1 (left) and s-1 (right); a received card is not passed on."""
    state = RoundState(["Q2Q3Q4", "F2F3F4", "A2A3A4"], round_card="a")
    state.play_step(Pass(seats("Q2", "F2", "A2"), seats("Q3", "F3", "A3")))
    assert state.hand(0) == cards("Q4 A2 F3")
    assert state.hand(1) == cards("F4 Q2 A3")
    assert state.hand(2) == cards("A4 F2 Q3")


@pytest.mark.parametrize("step, expected", [
    (Pass(seats("Q2", "F2", "A2A3"), seats("-", "-", "-")), ["wrong-card-count"]),
    (Pass(seats("Q2", "F2", "F3"), seats("-", "-", "-")), ["not-in-hand"]),
    (Pass(seats("Q2", "F2", "A2"), seats("Q2", "F3", "A3")), ["duplicate-card"]),
    (Pass(seats("Q2", "F2"), seats("-", "-")), ["wrong-card-count"]),
])
def test_pass_must_be_even_and_from_the_hand(step, expected):
    """Every seat passes the same numbers each way, from its own hand, each card once."""
    state = RoundState(["Q2Q3Q4", "F2F3F4", "A2A3A4"], round_card="a")
    assert codes(state.check_step(step)) == expected


def test_pass_comes_before_anything_else():
    """A pass once a trick was played is a step that is not due."""
    state = RoundState(["Q2Q3Q4", "F2F3F4", "A2A3A4"], round_card="a")
    play(state, "Q2 F2 A2")
    step = Pass(seats("Q3", "F3", "A3"), seats("-", "-", "-"))
    assert codes(state.check_step(step)) == ["step-not-due"]
    with pytest.raises(IllegalTrickError):
        state.play_step(step)


def test_pop_undoes_a_pass():
    """pop() returns the last step and restores the hands."""
    state = RoundState(["Q2Q3Q4", "F2F3F4", "A2A3A4"], round_card="a")
    before = state.notation()
    step = Pass(seats("Q2", "F2", "A2"), seats("-", "-", "-"))
    state.play_step(step)
    assert state.pop() == step and state.notation() == before


# -- set-aside cards ------------------------------------------------------------------------------

@pytest.mark.parametrize("edition, letter", [("deluxe", "b"), ("classic", "G")])
def test_late_to_the_ball_card_is_played_in_the_last_trick(edition, letter):
    """Late to the Ball (b / G): one card each is set aside before the first trick and comes back
    for the last trick."""
    state = RoundState(["Q2Q3", "Q4F3", "Q5A3"], edition=edition, round_card=letter)
    assert state.step_due is StepKind.SET_ASIDE and state.legal_plays() == frozenset()
    assert codes(state.check_trick(state.parse_trick("Q2 Q4 Q5"))) == ["step-required"]
    assert codes(state.check_play(parse_card("Q2"))) == ["step-required"]
    state.play_step(SetAside(seats("Q3", "F3", "A3")))
    assert state.step_due is None and state.hand(0) == cards("Q2")
    assert play(state, "Q2 Q4 Q5") == 2
    assert state.hand(2) == cards("A3") and state.aside == [0, 0, 0]
    assert play(state, "2: A3 Q3 F3") == 2
    assert state.is_over()


def test_set_aside_needs_the_right_count_from_the_hand():
    """Each seat sets aside exactly the Round card's count, from its hand."""
    state = RoundState(["Q2Q3", "Q4F3", "Q5A3"], round_card="b")
    assert codes(state.check_step(SetAside(seats("Q2Q3", "F3", "A2")))) == [
        "wrong-card-count", "not-in-hand"]
    assert codes(state.check_step(Gift(tuple(parse_cards("Q2 Q4 Q5"))))) == ["step-not-due"]


@pytest.mark.parametrize("edition, letter", [("deluxe", "m"), ("classic", "N")])
def test_after_party_half_the_hand_comes_back(edition, letter):
    """After Party (m / N): half the hand is set aside and taken back once the hand is empty."""
    state = RoundState(["Q2Q3A2A3", "Q4Q5A4A5", "Q6Q7A6A7"], edition=edition, round_card=letter)
    assert state.set_aside_size() == 2
    state.play_step(SetAside(seats("A2A3", "A4A5", "A6A7")))
    play(state, "Q2 Q4 Q6")
    play(state, "2: Q7 Q3 Q5")
    assert [state.hand(seat) for seat in range(3)] == list(seats("A2A3", "A4A5", "A6A7"))


@pytest.mark.parametrize("edition, letter", [("deluxe", "q"), ("classic", "Q")])
def test_blind_mans_bluff_half_goes_to_the_right(edition, letter):
    """Blind Man's Bluff (q / Q): the set-aside half goes to the player on the right (seat - 1)."""
    state = RoundState(["Q2Q3A2A3", "Q4Q5A4A5", "Q6Q7A6A7"], edition=edition, round_card=letter)
    state.play_step(SetAside(seats("A2A3", "A4A5", "A6A7")))
    play(state, "Q2 Q4 Q6")
    play(state, "2: Q7 Q3 Q5")
    assert [state.hand(seat) for seat in range(3)] == list(seats("A4A5", "A6A7", "A2A3"))


def test_returned_cards_are_undone_with_the_trick():
    """Popping the trick that emptied the hands puts the set-aside cards back aside."""
    state = RoundState(["Q2Q3", "Q4F3", "Q5A3"], round_card="b")
    state.play_step(SetAside(seats("Q3", "F3", "A3")))
    before = state.notation()
    play(state, "Q2 Q4 Q5")
    state.pop()
    assert state.notation() == before


# -- Crystal Clear -----------------------------------------------------------------------------

@pytest.mark.parametrize("edition, letter", [("deluxe", "h"), ("classic", "I")])
def test_crystal_clear_shows_one_held_suit(edition, letter):
    """Crystal Clear (h / I): each seat shows every card of a suit it holds; they stay in hand."""
    state = RoundState(["Q2Q3A2", "Q4F3F4", "Q5A3P2"], edition=edition, round_card=letter)
    assert state.step_due is StepKind.REVEAL
    assert codes(state.check_step(Reveal((Suit.QUEEN, Suit.PET, Suit.FAIRY)))) == [
        "suit-not-held", "suit-not-held"]
    state.play_step(Reveal((Suit.QUEEN, Suit.FAIRY, Suit.PRINCE)))
    assert state.hand(0) == cards("Q2 Q3 A2")
    assert "shown=Q2Q3/F3F4/P2" in state.notation()
    play(state, "Q2 Q4 Q5")
    assert "shown=Q3/F3F4/P2" in state.notation()


# -- Wedding Gift ------------------------------------------------------------------------------

@pytest.mark.parametrize("edition, letter", [("deluxe", "o"), ("classic", "M")])
def test_wedding_gift_pile_goes_to_the_trick_winner(edition, letter):
    """Wedding Gift (o / M): before each trick every seat adds a card to a pile the winner takes;
    half as many tricks are played."""
    state = RoundState(["Q2Q3A2A3", "Q4Q5A4A5", "Q6Q7A6A8"], edition=edition, round_card=letter)
    assert state.step_due is StepKind.GIFT
    state.play_step(Gift(tuple(parse_cards("A2 A4 A8"))))
    assert play(state, "Q2 Q4 Q6") == 2
    assert state.step_due is StepKind.GIFT
    state.play_step(Gift(tuple(parse_cards("A3 A5 A6"))))
    assert play(state, "2: Q7 Q3 Q5") == 2
    outcome = state.outcome()
    assert outcome is not None and outcome.gifts[2] == cards("A2 A4 A8 A3 A5 A6")
    assert parse_card("A8") in outcome.to_entry().taken[2]
    assert sum(outcome.tricks_won) == 2


def test_wedding_gift_is_undone_with_its_trick():
    """Popping a trick gives the gift pile back; popping the gift gives the cards back."""
    state = RoundState(["Q2Q3A2A3", "Q4Q5A4A5", "Q6Q7A6A8"], round_card="o")
    start = state.notation()
    state.play_step(Gift(tuple(parse_cards("A2 A4 A8"))))
    placed = state.notation()
    assert "pile=A2A4A8" in placed
    play(state, "Q2 Q4 Q6")
    state.pop()
    assert state.notation() == placed
    state.pop()
    assert state.notation() == start


# -- Musical Chairs ----------------------------------------------------------------------------

@pytest.mark.parametrize("edition, letter", [("deluxe", "k"), ("classic", "E")])
def test_musical_chairs_pass_right_after_each_trick(edition, letter):
    """Musical Chairs (k / E): after each trick but the last, each seat passes a card right."""
    state = RoundState(["Q2A2", "Q4F3", "Q5A3"], edition=edition, round_card=letter)
    assert state.step_due is None
    play(state, "Q2 Q4 Q5")
    assert state.step_due is StepKind.CHAIRS
    state.play_step(Chairs(tuple(parse_cards("A2 F3 A3"))))
    with pytest.raises(EngineError):
        state.pop_card()  # the last action is a step: pop() it first
    assert [state.hand(seat) for seat in range(3)] == list(seats("F3", "A3", "A2"))
    play(state, "2: A2 F3 A3")
    assert state.is_over() and state.step_due is None


# -- Haggle with the Hag -----------------------------------------------------------------------

@pytest.mark.parametrize("edition, letter", [("deluxe", "p"), ("classic", "T")])
def test_haggle_swaps_a_hand_card_for_a_trick_card(edition, letter):
    """Haggle with the Hag (p / T): the winner swaps a shown hand card for another card of the
    trick; a Prince placed in the taken pile this way does not sneak the Princes in."""
    state = RoundState(["Q2P2", "Q4F3", "Q5A3"], edition=edition, round_card=letter)
    assert play(state, "Q2 Q4 Q5") == 2
    state.play_step(Haggle(2, parse_card("A3"), parse_card("Q2")))
    assert state.hand(2) == cards("Q2")
    assert state.taken_cards(2) == cards("Q4 Q5 A3")
    assert not state.princes_in


@pytest.mark.parametrize("haggle, expected", [
    (Haggle(1, parse_card("F3"), parse_card("Q2")), ["not-trick-winner"]),
    (Haggle(2, parse_card("A3"), parse_card("Q5")), ["haggle-own-card"]),
    (Haggle(2, parse_card("A3"), parse_card("F3")), ["not-in-trick"]),
    (Haggle(2, parse_card("F3"), parse_card("Q2")), ["not-in-hand"]),
])
def test_haggle_violations(haggle, expected):
    """Only the winner haggles, from their hand, for a trick card they did not play."""
    state = RoundState(["Q2P2", "Q4F3", "Q5A3"], round_card="p")
    play(state, "Q2 Q4 Q5")
    assert codes(state.check_step(haggle)) == expected


def test_haggle_chance_passes_with_the_next_card():
    """Once the next trick starts, the last winner may no longer haggle."""
    state = RoundState(["Q2P2Q3", "Q4F3F4", "Q5A3A4"], round_card="p")
    play(state, "Q2 Q4 Q5")
    assert "haggle=2:Q2Q4" in state.notation()
    state.push_card(parse_card("A3"))
    assert codes(state.check_step(Haggle(2, parse_card("A4"), parse_card("Q2")))) == [
        "step-not-due"]


def test_haggle_on_a_plain_round_is_not_due():
    """Without Haggle with the Hag no haggle is ever open."""
    state = RoundState(["Q2P2", "Q4F3", "Q5A3"], round_card="a")
    play(state, "Q2 Q4 Q5")
    assert codes(state.check_step(Haggle(2, parse_card("A3"), parse_card("Q2")))) == [
        "step-not-due"]


# -- notation ----------------------------------------------------------------------------------

@pytest.mark.parametrize("line, step", [
    ("pass left=Q2/F2/A2 right=-/-/-", Pass(seats("Q2", "F2", "A2"), seats("-", "-", "-"))),
    ("aside Q2Q3/F2F4/A2A3", SetAside(seats("Q2 Q3", "F2 F4", "A2 A3"))),
    ("reveal Q/F/P", Reveal((Suit.QUEEN, Suit.FAIRY, Suit.PRINCE))),
    ("gift A2/A4/A8", Gift(tuple(parse_cards("A2 A4 A8")))),
    ("chairs A2/F3/A3", Chairs(tuple(parse_cards("A2 F3 A3")))),
    ("haggle 2 A3 Q2", Haggle(2, parse_card("A3"), parse_card("Q2"))),
])
def test_step_lines_round_trip(line, step):
    """Every step prints as one record line and parses back to an equal value."""
    assert str(step) == line
    assert parse_step(line) == step


@pytest.mark.parametrize("line", [
    "", "dance Q2", "pass left=Q2/F2", "pass left=Q2 right=F2 up=A2", "haggle x Q2 A3",
    "haggle 1 Q2", "reveal Q/X/F", "gift Q2/Z9", "aside",
])
def test_malformed_step_lines_are_rejected(line):
    """A malformed step line raises InvalidEntryError."""
    with pytest.raises(InvalidEntryError):
        parse_step(line)


@pytest.mark.parametrize("text", [
    "deluxe b 0 - Q2Q3/Q4F3/Q5A3 -/-/- 0/0/0 - step=aside",
    "deluxe b 0 - Q2/Q4/Q5 -/-/- 0/0/0 - aside=Q3/F3/A3",
    "deluxe o 2 - Q3A3/Q5A5/Q7A6 -/-/Q2Q4Q6 0/0/1 - step=gift;gifts=-/-/A2A4A8",
    "classic M 0 - Q3A3/Q4Q5A5/Q6Q7A6 -/-/- 0/0/0 Q2 pile=A2A4A8",
    "deluxe h 0 - Q2Q3A2/Q4F3F4/P2Q5A3 -/-/- 0/0/0 - shown=Q2Q3/F3F4/P2",
    "deluxe k 2 - A2/F3/A3 -/-/Q2Q4Q5 0/0/1 - step=chairs",
    "deluxe p 2 - P2/F3/A3 -/-/Q2Q4Q5 0/0/1 - haggle=2:Q2Q4",
])
def test_state_notation_with_steps_round_trips(text):
    """The extras field (step due, set-aside, gift pile and piles won, shown cards, open haggle)
    survives a round trip."""
    assert RoundState.from_notation(text).notation() == text


@pytest.mark.parametrize("text", [
    "deluxe b 0 - Q2/Q4/Q5 -/-/- 0/0/0 - aside=Q2/F3/A3",  # a card in two places
    "deluxe b 0 - Q2/Q4/Q5 -/-/- 0/0/0 - step=dance",
    "deluxe b 0 - Q2/Q4/Q5 -/-/- 0/0/0 - colour=blue",
    "deluxe h 0 - Q2/Q4/Q5 -/-/- 0/0/0 - shown=Q3/-/-",  # shown but not held
    "deluxe b 0 - Q2/Q4/Q5 -/-/- 0/0/0 Q2 step=aside",  # a step due mid-trick
    "deluxe p 0 - Q2/Q4/Q5 -/-/- 0/0/0 - haggle=7:Q2",
])
def test_bad_step_notation_is_rejected(text):
    """Malformed extras raise InvalidEntryError."""
    with pytest.raises(InvalidEntryError):
        RoundState.from_notation(text)
