"""A whole game replayed from its entries with ``play_through``: scores, totals, leaders, result."""

from __future__ import annotations

import dataclasses

import pytest

from companion.scoring.rebel_princess import (
    Edition,
    GameSetup,
    InvalidValueError,
    Leader,
    PlayedRound,
    RebelCard,
    play_through,
)

D, C = Edition.DELUXE, Edition.CLASSIC


def by_cards(*seats: str, **kwargs) -> PlayedRound:
    taken = tuple(frozenset(RebelCard.from_code(code) for code in text.split()) for text in seats)
    return PlayedRound(taken=taken, **kwargs)


def by_numbers(*scores: int, **kwargs) -> PlayedRound:
    return PlayedRound(scores=tuple(scores), **kwargs)


DELUXE_SETUP = GameSetup(D, 4, 0, ("a", "d", "y"))
DELUXE_ROUNDS = [
    by_cards("P1 P2 P3 A8", "P4 P5", "P6 P7 P8 P9 P10", ""),  # 8 2 5 0
    by_cards("P1", "P2 P3 Q3", "P4 P5 P6 P7 F3 A3", "P8 P9 P10 A8"),  # 1 -4 -2 8 (3s are -3)
    by_cards("P1 P2 P3", "P4", "A8", "P5 P6 P7 P8 P9 P10"),  # seat 0 had the highest total
]


def test_deluxe_three_round_game():
    """A shortened Deluxe game: exact scores, totals and leaders every round, and the winner."""
    state = play_through(DELUXE_SETUP, DELUXE_ROUNDS)
    assert [r.scores for r in state.rounds] == [(8, 2, 5, 0), (1, -4, -2, 8), (3, 2, 5, 12)]
    assert [r.totals_after for r in state.rounds] == [
        (8, 2, 5, 0), (9, -2, 3, 8), (12, 0, 8, 20)]
    assert [r.leader for r in state.rounds] == [
        Leader(0, "first-round"), Leader(3, "lowest-total"), Leader(1, "lowest-total")]
    assert [r.round_card for r in state.rounds] == ["a", "d", "y"]
    assert all(r.by_cards and not r.playoff and r.warnings == () for r in state.rounds)
    assert state.totals == (12, 0, 8, 20)
    assert state.finished and state.errors == ()
    assert state.standings.winners == (1,) and state.standings.decided_by == "total"
    assert (state.next_leader, state.next_round_card, state.next_is_playoff) == (None, None, False)


def test_game_in_progress_shows_the_next_round():
    """Before the last round the state names the next Round card and its leader."""
    state = play_through(DELUXE_SETUP, DELUXE_ROUNDS[:1])
    assert (state.next_round_card, state.next_leader, state.next_round_number) == (
        "d", Leader(3, "lowest-total"), 2)
    assert not state.finished and state.standings is None


def test_no_rounds_yet():
    """A game with no rounds played: totals 0, the first leader and the first Round card next."""
    state = play_through(DELUXE_SETUP, [])
    assert state.totals == (0, 0, 0, 0)
    assert (state.next_leader, state.next_round_card) == (Leader(0, "first-round"), "a")


def test_bathroom_break_uses_the_totals_after_the_previous_round():
    """Bathroom Break in round 3 exempts the highest total after round 2 (seat 0 with 9)."""
    state = play_through(DELUXE_SETUP, DELUXE_ROUNDS)
    lines = state.rounds[2].lines
    assert [line.rule for line in lines[0]] == ["prince-highest-total"]
    assert [line.rule for line in lines[3]] == ["prince-doubled"]


def test_editing_an_earlier_round_changes_later_bathroom_break_and_leaders():
    """Replaying after an edit of round 1 moves the Bathroom Break exemption and the leaders."""
    edited = [by_cards("A8", "", "", "P1 P2 P3 P4 P5 P6 P7 P8 P9 P10"), *DELUXE_ROUNDS[1:]]
    state = play_through(DELUXE_SETUP, edited)
    assert [r.scores for r in state.rounds] == [(5, 0, 0, 10), (1, -4, -2, 8), (6, 2, 5, 6)]
    assert [r.leader for r in state.rounds] == [
        Leader(0, "first-round"), Leader(1, "tie-broken", (1, 2), 0), Leader(1, "lowest-total")]
    assert state.totals == (12, -2, 3, 24)


CLASSIC_SETUP = GameSetup(C, 3, 1, ("A", "C", "B", "D", "M"))
CLASSIC_ROUNDS = [
    by_cards("P2 P3 A8", "P4 P5 P6 P7 P8 P9 P10", "", last_trick_winner=2),
    by_numbers(0, 14, 0, last_trick_winner=0),
    by_numbers(4, 0, 10, last_trick_winner=1),
    by_numbers(0, 9, 5, last_trick_winner=1),
    by_cards("P2 P3 P4 P5 P6 P7 P8 P9 P10 A8", "", "", last_trick_winner=2),  # no Rebel in classic
]


def test_classic_five_round_game():
    """A classic game: exact scores and totals, the last trick winner leads the next round."""
    state = play_through(CLASSIC_SETUP, CLASSIC_ROUNDS)
    assert [r.scores for r in state.rounds] == [
        (7, 7, 0), (0, 14, 0), (4, 0, 10), (0, 9, 5), (14, 0, 0)]
    assert state.totals == (25, 30, 15)
    assert [r.leader for r in state.rounds] == [
        Leader(1, "first-round"), Leader(2, "last-trick"), Leader(0, "last-trick"),
        Leader(1, "last-trick"), Leader(1, "last-trick")]
    assert [r.by_cards for r in state.rounds] == [True, False, False, False, True]
    assert state.rounds[4].rebels == ()
    assert state.finished and state.standings.winners == (2,)


def test_classic_needs_the_last_trick_winner_to_know_the_next_leader():
    """Classic: without the last trick winner the next leader is unknown (``bad-leader``)."""
    rounds = [dataclasses.replace(CLASSIC_ROUNDS[0], last_trick_winner=None)]
    state = play_through(CLASSIC_SETUP, rounds)
    assert [(n, [p.code for p in problems]) for n, problems in state.errors] == [
        (1, ["bad-leader"])]
    assert state.next_leader is None and state.next_round_card is None


def test_classic_tie_is_shared():
    """Classic: a tie surviving the count of rounds at zero is a shared victory, no play-off."""
    rounds = [by_numbers(*s, last_trick_winner=0) for s in
              [(0, 5, 9), (5, 0, 9), (9, 9, 0), (0, 0, 0), (0, 0, 0)]]
    state = play_through(CLASSIC_SETUP, rounds)
    assert state.finished and not state.next_is_playoff
    assert (state.standings.winners, state.standings.decided_by) == ((0, 1), "shared")


@pytest.mark.parametrize(("scores", "warned"), [
    ((15, 0, 0, 0), False), ((-10, 0, 0, 0), False), ((5, 5, 5, 5), True), ((14, 0, 0, 0), True),
])
def test_by_numbers_round_with_an_impossible_total_is_warned(scores, warned):
    """Typed scores adding up to a total the Round card cannot produce get a warning."""
    state = play_through(DELUXE_SETUP, [by_numbers(*scores)])
    warnings = state.rounds[0].warnings
    assert [w.code for w in warnings] == (["impossible-round-total"] if warned else [])
    if warned:
        assert warnings[0].params == {"got": sum(scores), "expected": "-10 or 15"}
    assert state.rounds[0].lines is None and not state.rounds[0].by_cards


def test_by_numbers_bathroom_break_warning_uses_the_totals_before():
    """The possible totals of a typed Bathroom Break round depend on the totals before it."""
    tied = [by_numbers(5, 5, 5, 0), by_numbers(0, 0, 0, 3)]  # totals 5 5 5 3 before round 3
    doubled = play_through(DELUXE_SETUP, [*tied, by_numbers(10, 0, 0, 10)])
    assert [w.code for w in doubled.rounds[2].warnings] == []
    everyone = [by_numbers(5, 5, 5, 0), by_numbers(0, 0, 0, 5)]  # everyone at 5: nothing doubles
    state = play_through(DELUXE_SETUP, [*everyone, by_numbers(10, 0, 0, 10)])
    assert [w.code for w in state.rounds[2].warnings] == ["impossible-round-total"]


TIED_AFTER_THREE = [by_numbers(0, 0, 10, 5), by_numbers(5, 5, 0, 5), by_numbers(0, 0, 5, 5)]


def test_deluxe_tie_calls_a_playoff_round():
    """Deluxe: a tie surviving the zero-round count makes the next round a play-off, whose Round
    card the players draw."""
    state = play_through(DELUXE_SETUP, TIED_AFTER_THREE)
    assert state.totals == (5, 5, 15, 15)
    assert state.next_is_playoff and not state.finished
    assert state.standings.playoff == (0, 1)
    assert state.next_round_card is None
    assert state.next_leader == Leader(1, "tie-broken", (0, 1), 0)


def test_deluxe_playoff_round_resolves_the_tie():
    """A play-off round entry names its Round card; the lowest total after it wins."""
    playoff = by_cards("P1 P2 P3 P4 P5 P6 P7 P8 P9 P10 A8", "", "", "", round_card="Y")
    state = play_through(DELUXE_SETUP, [*TIED_AFTER_THREE, playoff])
    last = state.rounds[-1]
    assert (last.number, last.playoff, last.scores, last.rebels) == (4, True, (-10, 0, 0, 0), (0,))
    assert last.leader == Leader(1, "tie-broken", (0, 1), 0)
    assert state.finished and state.standings.winners == (0,)
    assert state.standings.playoffs_played == 1


def test_deluxe_playoff_tied_again_calls_another():
    """A play-off that ends tied calls one more play-off round."""
    again = by_numbers(5, 5, -5, 5, round_card="x")  # totals 10 10 10 20
    state = play_through(DELUXE_SETUP, [*TIED_AFTER_THREE, again])
    assert state.next_is_playoff and state.standings.playoff == (0, 1, 2)
    state = play_through(DELUXE_SETUP, [*TIED_AFTER_THREE, again,
                                        by_numbers(1, 0, 14, 0, round_card="z")])
    assert state.finished and state.standings.winners == (1,)


def test_playoff_round_needs_its_round_card():
    """A play-off round without a Round card cannot be scored."""
    state = play_through(DELUXE_SETUP, [*TIED_AFTER_THREE, by_numbers(5, 5, 0, 5)])
    assert [(n, [p.code for p in problems]) for n, problems in state.errors] == [
        (4, ["unknown-round-card"])]


def test_rounds_beyond_the_game_are_ignored_when_no_playoff_is_due():
    """Extra rounds after a decided game are not played."""
    state = play_through(DELUXE_SETUP, [*DELUXE_ROUNDS, by_numbers(0, 0, 0, 15, round_card="a")])
    assert len(state.rounds) == 3 and state.finished


def test_entered_leader_overrides_and_drives_the_next_tie_break():
    """An entered first-trick leader replaces the computed one, and the next tie-break scans from
    that seat."""
    rounds = [by_numbers(5, 0, 0, 10), by_numbers(0, 5, 5, 0, leader=2)]  # then 5 5 5 10
    state = play_through(DELUXE_SETUP, rounds)
    assert state.rounds[1].leader == Leader(2, "entered")
    assert state.next_leader == Leader(0, "tie-broken", (0, 1, 2), 2)
    plain = play_through(DELUXE_SETUP, [rounds[0], by_numbers(0, 5, 5, 0)])
    assert plain.rounds[1].leader == Leader(1, "tie-broken", (1, 2), 0)
    assert plain.next_leader == Leader(2, "tie-broken", (0, 1, 2), 1)


def test_round_that_cannot_be_scored_stops_the_replay():
    """A stored round that cannot be scored is reported with its number; earlier rounds stand."""
    broken = by_cards("P1 P2", "", "", "")  # most Princes and the Frog are missing
    state = play_through(DELUXE_SETUP, [DELUXE_ROUNDS[0], broken, DELUXE_ROUNDS[2]])
    assert len(state.rounds) == 1
    assert state.errors[0][0] == 2
    assert {p.code for p in state.errors[0][1]} == {"missing-card"}
    assert state.next_leader is None


def test_by_numbers_round_for_the_wrong_number_of_seats():
    """Typed scores need one score per seat."""
    state = play_through(DELUXE_SETUP, [by_numbers(15, 0, 0)])
    assert [p.code for p in state.errors[0][1]] == ["wrong-seat-count"]


def test_arranged_marriage_by_cards_in_a_game():
    """By-cards rounds pass the seats without tricks on to Arranged Marriage scoring."""
    setup = GameSetup(D, 4, 0, ("e", "a", "b", "c", "d"))
    state = play_through(setup, [by_cards("P1 P2 P3 P4 P5 P6 P7 P8 P9 P10 A8", "Q1", "", "",
                                          no_tricks=frozenset({2, 3}))])
    assert state.rounds[0].scores == (-10, 0, 5, 5)
    assert state.rounds[0].rebels == (0,)


@pytest.mark.parametrize(("edition", "players", "leader", "cards", "code"), [
    (D, 4, 4, ("a", "b", "c"), "bad-leader"),
    (D, 4, -1, ("a", "b", "c"), "bad-leader"),
    (D, 4, 0, ("a", "b", "c", "d"), "wrong-round-count"),
    (C, 4, 0, ("A", "B", "C"), "wrong-round-count"),
    (D, 4, 0, ("a", "b", "?"), "unknown-round-card"),
    (C, 4, 0, ("A", "B", "C", "D", "V"), "unknown-round-card"),
    (D, 2, 0, ("a", "b", "c"), "bad-player-count"),
])
def test_bad_game_setup(edition, players, leader, cards, code):
    """A game has 3 to 6 players, a first leader among them and 5 Round cards (3 allowed in
    Deluxe), all of its edition."""
    with pytest.raises(InvalidValueError) as caught:
        GameSetup(edition, players, leader, cards)
    assert caught.value.problem.code == code


def test_classic_final_round_needs_no_last_trick_winner():
    """Classic: nobody leads after the fifth round, so its last trick winner is not needed."""
    rounds = [*CLASSIC_ROUNDS[:4], dataclasses.replace(CLASSIC_ROUNDS[4], last_trick_winner=None)]
    state = play_through(CLASSIC_SETUP, rounds)
    assert state.errors == ()
    assert state.finished and state.standings.winners == (2,)


def error_codes(state) -> list[tuple[int, list[str]]]:
    return [(number, [p.code for p in problems]) for number, problems in state.errors]


@pytest.mark.parametrize("letter", ["?", "V1", ""])
def test_playoff_round_with_an_unknown_round_card_is_reported_not_raised(letter):
    """A play-off round naming no Round card of the edition is reported in ``errors``."""
    for playoff in (by_numbers(5, 5, 0, 5, round_card=letter),
                    by_cards("P1 P2 P3 P4 P5 P6 P7 P8 P9 P10 A8", "", "", "", round_card=letter)):
        state = play_through(DELUXE_SETUP, [*TIED_AFTER_THREE, playoff])
        assert error_codes(state) == [(4, ["unknown-round-card"])]
        assert len(state.rounds) == 3


def test_playoff_round_card_letter_is_stored_canonically():
    """A play-off Round card typed in the other case is shown with the edition's letter."""
    state = play_through(DELUXE_SETUP, [*TIED_AFTER_THREE, by_numbers(0, 1, 9, 9, round_card="X")])
    assert state.rounds[-1].round_card == "x"


@pytest.mark.parametrize("bad", [1.5, "3", None, True])
def test_by_numbers_score_must_be_a_whole_number(bad):
    """Typed scores are whole numbers; anything else is ``bad-score`` for that seat, not a crash."""
    state = play_through(DELUXE_SETUP, [by_numbers(15, 0, 0, 0), by_numbers(0, bad, 0, 15),
                                        by_numbers(0, 0, 0, 15)])
    assert error_codes(state) == [(2, ["bad-score"])]
    assert state.errors[0][1][0].seat == 1
    assert len(state.rounds) == 1


@pytest.mark.parametrize("winner", [3, -1, "1"])
def test_classic_last_trick_winner_must_be_a_seat(winner):
    """A last trick winner that is not a seat is ``bad-leader`` in ``errors``, not a crash."""
    rounds = [dataclasses.replace(CLASSIC_ROUNDS[0], last_trick_winner=winner)]
    assert error_codes(play_through(CLASSIC_SETUP, rounds)) == [(1, ["bad-leader"])]


@pytest.mark.parametrize("leader", [4, -1])
def test_entered_leader_must_be_a_seat(leader):
    """An entered first-trick leader that is not a seat is ``bad-leader``, not silently ignored."""
    state = play_through(DELUXE_SETUP, [by_numbers(15, 0, 0, 0, leader=leader)])
    assert error_codes(state) == [(1, ["bad-leader"])]
