"""The game state: turns, prince, knight and dragon, potion and wand, jester, discard, the win
check, memory of princesses, undo and notation (rulebook « Le jeu », « Fin du jeu », « Questions de
princesses »; REVEILLEZ.md)."""

from __future__ import annotations

import pytest

from companion.scoring.problems import EntryError
from companion.scoring.reveillez import (
    CentrePick,
    Discard,
    Jester,
    MoveKind,
    PrincessCard,
    Reason,
    ReveillezCard,
    ReveillezGameState,
    Setup,
    Sleep,
    Steal,
    Wake,
    parse_action,
)


def codes(state: ReveillezGameState, action) -> list[str]:
    return [p.code for p in state.check(parse_action(action) if isinstance(action, str)
                                        else action)]


# ------------------------------------------------------------------ set-up and turns

def test_start_has_twelve_sleeping_princesses(game):
    """The 12 princesses start asleep in the centre, nobody has any (« Mise en place »)."""
    state = game(4)
    assert state.sleeping_slots() == tuple(range(12)) and state.free_slots() == ()
    assert all(state.awake_of(seat) == () for seat in range(4))
    assert all(state.card(p) is None for p in range(12))


def test_left_of_the_dealer_starts(game):
    """The player left of the dealer starts (the set-up's ``first``)."""
    assert game(4, first=2).turn == 2


@pytest.mark.parametrize(("players", "first"), [(1, 0), (6, 0), (3, 3), (3, -1)])
def test_setup_refuses(players, first):
    """2–5 players; the first seat must be at the table."""
    with pytest.raises(EntryError) as caught:
        Setup.make(players, first)
    assert caught.value.codes in (["players-range"], ["seat-range"])


def test_turns_go_clockwise(game):
    """After each action the next seat clockwise plays (« on tourne en sens horaire »)."""
    state = game(3, first=1)
    seats = [state.play(Discard((ReveillezCard(number=1),))).seat for _ in range(5)]
    assert seats == [1, 2, 0, 1, 2] and state.turn == 0


def test_setup_notation_round_trips():
    """``Setup.parse(str(setup)) == setup``."""
    for setup in (Setup(3), Setup(5, 4, True), Setup(2, 1)):
        assert Setup.parse(str(setup)) == setup
    with pytest.raises(EntryError):
        Setup.parse("3 first=0 colour=blue")


# ------------------------------------------------------------------ prince

def test_prince_wakes_a_sleeping_princess(game):
    """A prince takes a sleeping princess from the centre and puts her face up in front of its
    player (« Jouer un prince pour réveiller une princesse endormie »)."""
    state = game(3)
    event = state.play(Wake(5, PrincessCard(15)))
    assert state.awake_of(0) == (5,) and state.holder(5) == 0
    assert state.princess_in(5) is None and 5 in state.free_slots()
    assert state.points(0) == 15 and state.card(5) == PrincessCard(15)
    assert [m.kind for m in event.moves] == [MoveKind.WOKEN]


def test_waking_an_unseen_princess_needs_her_value(game):
    """The app asks the value printed on a princess it has not seen (REVEILLEZ.md)."""
    assert codes(game(3), Wake(2)) == ["value-needed"]


@pytest.mark.parametrize(("action", "code"), [
    ("wake 12 10", "slot-range"), (Wake(-1, PrincessCard(10)), "slot-range"),
])
def test_wake_needs_a_slot_of_the_centre(game, action, code):
    """Slots go from 0 to 11."""
    assert codes(game(3), action) == [code]


def test_wake_needs_a_sleeping_princess(game):
    """A free slot holds nobody to wake."""
    state = game(3, actions=["wake 4 10"])
    assert codes(state, "wake 4 10") == ["slot-empty"]


def test_princess_names_are_unique(game):
    """Two princesses cannot have the same name (our reading)."""
    state = game(3, actions=["wake 0 10:Aurore"])
    assert codes(state, "wake 1 15:aurore") == ["name-taken"]
    assert codes(state, "wake 1 15:Belle") == []


# ------------------------------------------------------------------ memory

def test_put_back_princess_keeps_her_value(game):
    """A princess put back to sleep is remembered: waking her again needs no value
    (REVEILLEZ.md « Princess values »; rulebook NB under the potion)."""
    state = game(3, actions=["wake 0 20:Aurore", "wake 7 10", "sleep 0 7"])
    assert state.princess_in(7) == 0 and state.card_in(7) == PrincessCard(20, "Aurore")
    state.play(parse_action("wake 7"))
    assert state.awake_of(0) == (0,) and state.points(0) == 20


def test_remembered_value_cannot_be_changed(game):
    """A remembered princess keeps her value; a different value is refused (undo instead)."""
    state = game(3, actions=["wake 0 20", "wake 7 10", "sleep 0 7"])
    assert codes(state, "wake 7 15") == ["princess-differs"]
    assert codes(state, "wake 7 20:Aurore") == ["princess-differs"]
    assert codes(state, "wake 7 20") == []


def test_unwoken_princess_stays_unknown(game):
    """The app learns a value only when the princess is woken."""
    state = game(3, actions=["wake 0 20"])
    assert state.card_in(1) is None and state.card(1) is None


# ------------------------------------------------------------------ knight and dragon

def test_knight_takes_an_opponents_princess(game):
    """A knight takes an awake princess from an opponent and puts her in front of its player
    (« Jouer un chevalier pour enlever une princesse éveillée chez un adversaire »)."""
    state = game(3, actions=["wake 0 20", "steal 0"])
    assert state.awake_of(0) == () and state.awake_of(1) == (0,)
    assert state.history[-1].moves[0].kind is MoveKind.STOLEN
    assert state.history[-1].moves[0].source == 0


@pytest.mark.parametrize(("actions", "target", "code"), [
    (["wake 0 20", "wake 1 10", "discard 1"], 0, "own-princess"),
    (["wake 0 20"], 1, "not-awake"),
    (["wake 0 20"], 12, "princess-range"),
])
def test_knight_needs_an_opponents_awake_princess(game, actions, target, code):
    """A knight aims only at an awake princess of another player."""
    assert codes(game(3, actions=actions), Steal(target)) == [code]


def test_dragon_stops_the_knight(game):
    """A dragon played at once cancels the knight: nothing moves (« Dragons »)."""
    state = game(3, actions=["wake 0 20"])
    event = state.play(Steal(0, dragon=True))
    assert state.awake_of(0) == (0,) and state.awake_of(1) == ()
    assert event.is_countered and event.moves == () and event.defender == 0


def test_dragon_costs_no_turn_and_play_goes_left_of_the_knight(game):
    """The dragon's player loses no turn; play resumes left of the knight's player."""
    state = game(3, actions=["wake 0 20", "discard 1", "discard 1", "wake 1 10"])
    assert state.turn == 1
    state.play(Steal(0, dragon=True))
    assert state.turn == 2
    state.play(Discard((ReveillezCard(number=1),)))
    assert state.turn == 0  # the dragon's player plays normally


def test_defence_cannot_be_played_later():
    """A dragon or a wand forgotten is lost: a defence is part of the knight's or the potion's
    entry, there is no later action for it (« Questions de princesses »)."""
    for text in ("dragon 0", "wand 0", "defend 0"):
        with pytest.raises(EntryError) as caught:
            parse_action(text)
        assert caught.value.codes == ["notation"]


def test_knight_can_win_at_once(game, give):
    """Reaching a threshold with a knight wins at once (REVEILLEZ.md « Winning »)."""
    state = give(game(3), 0, 5, 5, 5, 5)
    give(state, 1, 10)
    while state.turn != 0:
        state.play(Discard((ReveillezCard(number=1),)))
    event = state.play(Steal(state.awake_of(1)[0]))
    assert event.outcome is not None and event.outcome.winners == (0,)
    assert event.outcome.reason is Reason.PRINCESSES and state.is_over


# ------------------------------------------------------------------ potion and wand

def test_potion_puts_a_princess_back_to_sleep_on_a_free_slot(game):
    """A potion puts an opponent's princess face down on a free slot (« Jouer une potion »)."""
    state = game(3, actions=["wake 0 20", "wake 1 10", "sleep 1 0"])
    assert state.awake_of(1) == () and state.princess_in(0) == 1
    assert state.history[-1].moves[0].kind is MoveKind.ASLEEP
    assert state.points(1) == 0


def test_potion_default_slot_is_the_first_free_one(game):
    """Without a chosen slot the princess goes to the first free slot (our reading)."""
    state = game(3, actions=["wake 3 20", "wake 1 10", "sleep 1"])
    assert state.princess_in(1) == 1
    assert state.history[-1].action == Sleep(1, 1)


def test_potion_needs_a_free_slot(game):
    """A sleeping princess already occupies a taken slot."""
    state = game(3, actions=["wake 0 20"])
    assert codes(state, "sleep 0 5") == ["slot-taken"]
    assert codes(state, "sleep 0 12") == ["slot-range"]


@pytest.mark.parametrize(("target", "code"), [(0, "own-princess"), (5, "not-awake")])
def test_potion_needs_an_opponents_awake_princess(game, target, code):
    """A potion aims only at an awake princess of another player."""
    state = game(3, actions=["wake 0 20", "discard 1", "discard 1"])
    assert codes(state, Sleep(target)) == [code]


def test_wand_stops_the_potion(game):
    """A wand played at once cancels the potion: nothing moves, play goes on left of the
    potion's player (« Baguettes »)."""
    state = game(3, actions=["wake 0 20"])
    event = state.play(Sleep(0, wand=True))
    assert state.awake_of(0) == (0,) and event.is_countered and event.moves == ()
    assert state.turn == 2 and str(event.action) == "sleep 0 wand"


# ------------------------------------------------------------------ jester

def test_jester_power_card_plays_again(game):
    """A power card revealed by the jester: same player plays again."""
    state = game(3, actions=["jester chevalier"])
    assert state.turn == 0 and state.history[-1].count is not None
    state.play(Wake(0, PrincessCard(10)))
    assert state.awake_of(0) == (0,)


def test_jester_number_wakes_for_the_seat_reached(game):
    """A number: the seat reached by the count wakes a princess; then the jester's left
    neighbour plays."""
    state = game(4, actions=["jester 6 wake 2 15"])
    assert state.awake_of(1) == (2,) and state.awake_of(0) == ()
    assert state.turn == 1 and state.history[-1].count.path == (0, 1, 2, 3, 0, 1)


def test_jester_number_needs_the_princess_woken(game):
    """A number revealed: the app asks which princess the seat reached wakes."""
    problems = game(4).check(Jester(ReveillezCard(number=3)))
    assert [p.code for p in problems] == ["jester-wake-needed"] and problems[0].seat == 2


def test_jester_power_card_wakes_nobody(game):
    """A power card revealed: nobody wakes a princess."""
    assert codes(game(4), "jester prince wake 0 10") == ["jester-no-wake"]


def test_jester_count_can_win_outside_the_winners_turn(game, give, pass_to):
    """The seat a jester's count reaches can win on someone else's turn (REVEILLEZ.md)."""
    state = give(game(3), 1, 10, 10, 10, 10)
    pass_to(state, 2)
    event = state.play(parse_action(f"jester 3 wake {state.sleeping_slots()[0]} 5"))
    assert event.seat == 2 and event.outcome.winners == (1,)
    assert event.outcome.reason is Reason.PRINCESSES


def test_state_jester_count_query(game):
    """The table asks the state what a revealed card does for the player to move."""
    state = game(3, first=2)
    assert state.jester_count(2).wakes == 0 and state.jester_count("potion").play_again


# ------------------------------------------------------------------ discard

def test_valid_discard_ends_the_turn(game):
    """A discard allowed by the rules is the turn's action."""
    state = game(3, actions=["discard 2 3 5"])
    assert state.turn == 1 and state.history[-1].action == Discard(
        tuple(ReveillezCard(number=n) for n in (2, 3, 5)))


@pytest.mark.parametrize(("cards", "code"), [("2 3", "discard-invalid"),
                                             ("1 2 4", "discard-invalid"),
                                             ("1 1 1 1 1 5", "discard-too-many")])
def test_invalid_discard_is_refused(game, cards, code):
    """Only one card, an identical pair or an addition may be discarded."""
    assert codes(game(3), f"discard {cards}") == [code]


def test_empty_discard_is_refused(game):
    """A discard has at least one card."""
    assert codes(game(3), Discard(())) == ["discard-empty"]


# ------------------------------------------------------------------ winning

@pytest.mark.parametrize(("players", "values"), [(2, [10] * 5), (3, [20, 20, 10]),
                                                 (4, [5] * 4), (5, [20, 20])])
def test_threshold_wins_at_once(game, give, players, values):
    """The first to reach the target wins at once (« Fin du jeu »)."""
    state = give(game(players), 0, *values)
    assert state.history[-1].outcome is not None and state.outcome.winners == (0,)
    assert [e.outcome is not None for e in state.history].count(True) == 1


def test_finished_game_takes_no_more_actions(game, give):
    """Once won, the game takes no action (undo is the way back)."""
    state = give(game(2), 0, 20, 20, 10)
    assert codes(state, "discard 1") == ["game-over"]
    with pytest.raises(EntryError):
        state.push(Discard((ReveillezCard(number=1),)))
    state.pop()
    assert not state.is_over and codes(state, "discard 1") == []


def test_last_princess_all_awake_most_points(game, give):
    """When the last princess is woken and nobody reached a target, the most points win."""
    state = game(4)
    for seat, values in enumerate([[10, 10, 5], [20, 10, 5], [5, 5, 5], [15, 5]]):
        give(state, seat, *values)
    assert not state.is_over
    give(state, 3, 5)
    assert state.outcome.reason is Reason.ALL_AWAKE and state.outcome.winners == (1,)


def test_all_awake_tie_is_a_shared_win(game, give):
    """Equal points when nobody is left asleep: a shared win (REVEILLEZ.md)."""
    state = game(4)
    for seat, values in enumerate([[15, 10, 5], [10, 10, 5], [5, 5, 5], [20, 5]]):
        give(state, seat, *values)
    give(state, 3, 5)
    assert state.outcome.winners == (0, 3)


def test_threshold_with_the_last_princess_beats_more_points(game, give):
    """Thresholds are checked before the all-awake comparison (REVEILLEZ.md « Winning »)."""
    state = game(3)
    give(state, 1, 20, 10, 10, 5)
    give(state, 2, 10, 10, 10)
    give(state, 0, 5, 5, 5, 5)
    assert state.sleeping() == 1 and not state.is_over
    give(state, 0, 5)
    assert state.outcome.winners == (0,) and state.outcome.reason is Reason.PRINCESSES


# ------------------------------------------------------------------ undo, history, notation

def test_pop_undoes_everything(game):
    """Undo restores the centre, the holdings, what was learnt and the turn."""
    state = game(3, actions=["wake 0 20"])
    before = (state.notation(), state.standings(), state.turn, state.card(1))
    state.play(Wake(1, PrincessCard(10)))
    state.pop()
    assert (state.notation(), state.standings(), state.turn, state.card(1)) == before
    assert state.card(1) is None


def test_notation_round_trips(game):
    """A game rebuilt from its notation is the same game."""
    state = game(4, variant=True, first=3, actions=[
        "wake 0 5:rose + 1 20", "wake 2 10:chien", "jester potion", "discard 4 4",
        "steal 2 dragon", "sleep 2 0", "jester 7 wake 3 '15:Princesse des crêpes'"])
    again = ReveillezGameState.from_notation(state.notation())
    assert again.notation() == state.notation()
    assert again.standings() == state.standings()
    assert ReveillezGameState.replay(state.setup, state.actions).notation() == state.notation()
    assert eval(repr(state)).notation() == state.notation()


@pytest.mark.parametrize("action", [
    Wake(3, PrincessCard(10)), Wake(3),
    Wake(3, PrincessCard(5, "rose"), CentrePick(7, PrincessCard(20))),
    Steal(4), Steal(4, dragon=True), Sleep(4, 9), Sleep(4, wand=True), Sleep(4),
    Jester(ReveillezCard.parse("bouffon")),
    Jester(ReveillezCard(number=6), Wake(3, PrincessCard(15, "La Belle"))),
    Discard((ReveillezCard(number=1), ReveillezCard(number=3), ReveillezCard(number=4),
             ReveillezCard(number=8))),
])
def test_action_notation_round_trips(action):
    """``parse_action(str(action)) == action``."""
    assert parse_action(str(action)) == action


@pytest.mark.parametrize("text", ["", "fly 3", "wake", "wake x 10", "steal 3 wand",
                                  "jester 5 sleep 3", "wake 1 10 + 2 10 + 3 10", "sleep a"])
def test_bad_notation(text):
    """Unreadable notation is refused with ``notation``."""
    with pytest.raises(EntryError) as caught:
        parse_action(text)
    assert caught.value.codes == ["notation"]


def test_history_lists_every_action(game):
    """The history keeps every action with its seat, in order."""
    state = game(3, actions=["wake 0 20", "jester dragon", "steal 0", "discard 5"])
    assert [(e.index, e.seat) for e in state.history] == [(0, 0), (1, 1), (2, 1), (3, 2)]
    assert len(state) == 4 and [str(a) for a in state.actions][2] == "steal 0"


def test_stealable_and_sleepable(game):
    """The princesses a knight or a potion may aim at are the other players' awake ones."""
    state = game(3, actions=["wake 0 20", "wake 1 10", "wake 2 5"])
    assert state.stealable() == (1, 2) and state.sleepable() == (1, 2)
    assert state.stealable(1) == (0, 2)


def test_grid_shows_each_princess_once(game):
    """The table's 4×3 grid shows the 12 princesses: asleep where they sleep, awake on a free
    slot (where they were last woken from while it is free) with their holder."""
    state = game(3, actions=["wake 3 20", "wake 5 10", "sleep 3 5"])
    places = state.places()
    assert sorted(p.princess for p in places) == list(range(12))
    by_slot = {p.slot: p for p in places}
    assert by_slot[5].princess == 3 and not by_slot[5].is_awake   # put back to sleep in 5
    assert by_slot[3].princess == 5 and by_slot[3].holder == 1     # 5's own slot is taken
    assert by_slot[3].card == PrincessCard(10)
    assert all(not by_slot[s].is_awake for s in (0, 1, 2, 4, 6, 7, 8, 9, 10, 11))


def test_a_notation_read_again_is_the_same_action_and_a_bad_one_is_refused_again():
    """Notations are read once per process (every page and save replays the stored actions):
    the action read again equals a fresh reading, and a bad notation is refused every time."""
    texts = ["wake 3 10", "wake 3 5:rose + 7 20", "wake 2 '12:Belle au bois'", "steal 4 dragon",
             "sleep 2 5", "sleep 2 wand",
             "jester 5 wake 1 15", "jester chevalier", "discard 1 3 4 8"]
    first = [parse_action(text) for text in texts]
    parse_action.cache_clear()
    assert [parse_action(text) for text in texts] == first
    assert [parse_action(text) for text in texts] == first
    for _ in range(2):
        with pytest.raises(EntryError) as caught:
            parse_action("dragon 0")
        assert caught.value.codes == ["notation"]
