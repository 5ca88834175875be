"""The variant « caprices de princesses » (rulebook « Variante » and « Questions de princesses »;
REVEILLEZ.md « Variant »)."""

from __future__ import annotations

from companion.scoring.reveillez import (
    CentrePick,
    MoveKind,
    PrincessCard,
    Reason,
    Special,
    Steal,
    Wake,
    parse_action,
)

ROSE = PrincessCard(5, "rose")
DOG = PrincessCard(10, "chien")
CAT = PrincessCard(15, "chat")


def codes(state, action) -> list[str]:
    return [p.code for p in state.check(parse_action(action) if isinstance(action, str)
                                        else action)]


# ------------------------------------------------------------------ the Rose

def test_rose_wakes_another_princess_with_her(game):
    """Under the variant, the Rose woken from the centre brings another sleeping princess chosen
    by the same player; both are put in front of them (« choisissez une autre princesse
    endormie et mettez les 2 devant vous »)."""
    state = game(3, variant=True)
    event = state.play(Wake(4, ROSE, CentrePick(9, PrincessCard(20))))
    assert state.awake_of(0) == (4, 9) and state.points(0) == 25
    assert [m.kind for m in event.moves] == [MoveKind.WOKEN, MoveKind.WOKEN]
    assert state.turn == 1


def test_rose_asks_for_her_companion(game):
    """The app asks which princess the Rose brings (problem ``companion-needed``)."""
    state = game(3, variant=True)
    assert codes(state, Wake(4, ROSE)) == ["companion-needed"]
    assert state.needs_companion(4, ROSE) and not state.needs_companion(4, DOG)


def test_rose_companion_needs_her_value(game):
    """The companion is a princess like any other: an unseen one needs her printed value."""
    assert codes(game(3, variant=True), Wake(4, ROSE, CentrePick(9))) == ["value-needed"]


def test_rose_companion_is_another_princess(game):
    """The Rose cannot be her own companion, nor bring a free slot."""
    state = game(3, variant=True, actions=["wake 0 20"])
    assert codes(state, Wake(4, ROSE, CentrePick(4, PrincessCard(10)))) == ["companion-same-slot"]
    assert codes(state, Wake(4, ROSE, CentrePick(0, PrincessCard(10)))) == ["slot-empty"]


def test_rose_companion_cannot_be_a_second_rose(game):
    """There is one Rose: her companion cannot carry her name."""
    state = game(3, variant=True)
    assert codes(state, Wake(4, ROSE, CentrePick(5, PrincessCard(5, "rose")))) == ["name-taken"]


def test_rose_woken_by_a_jester_count_brings_a_companion(game):
    """The Rose woken by the seat a jester's count reaches also brings a companion
    (REVEILLEZ.md: « prince or jester »)."""
    state = game(4, variant=True, actions=["jester 2 wake 0 5:rose + 1 10"])
    assert state.awake_of(1) == (0, 1) and state.turn == 1


def test_rose_taken_by_a_knight_brings_nobody(game):
    """A knight taking the Rose takes her alone (« Questions de princesses »)."""
    state = game(3, variant=True, actions=["wake 0 5:rose + 1 10"])
    sleeping = state.sleeping()
    event = state.play(Steal(0))
    assert state.awake_of(1) == (0,) and state.sleeping() == sleeping
    assert len(event.moves) == 1


def test_rose_woken_again_brings_another_companion(game):
    """Put back to sleep and woken a second time, the Rose brings another princess again
    (« Questions de princesses »)."""
    state = game(3, variant=True, actions=["wake 0 5:rose + 1 10", "sleep 0 0"])
    assert codes(state, "wake 0") == ["companion-needed"]
    state.play(parse_action("wake 0 + 2 15"))
    assert state.awake_of(2) == (0, 2)


def test_last_sleeping_rose_comes_alone(game, give):
    """When no other princess sleeps, the Rose comes alone (REVEILLEZ.md)."""
    state = game(5, variant=True)
    for seat, values in enumerate([[5, 5, 5], [5, 5], [5, 5], [5, 5], [5, 5]]):
        give(state, seat, *values)
    while state.turn != 1:
        state.play(parse_action("discard 1"))
    last = state.sleeping_slots()[0]
    assert state.sleeping() == 1 and not state.needs_companion(last, ROSE)
    assert codes(state, Wake(last, ROSE)) == []


def test_rose_and_companion_are_checked_for_the_win_together(game, give):
    """The Rose and her companion arrive together, so the win is checked once both are in front
    of the player: one game end, reason princesses (our reading)."""
    state = give(game(3, variant=True), 0, 10, 10, 10)
    while state.turn != 0:
        state.play(parse_action("discard 1"))
    slots = state.sleeping_slots()
    event = state.play(Wake(slots[0], ROSE, CentrePick(slots[1], PrincessCard(20))))
    assert event.outcome.winners == (0,) and event.outcome.reason is Reason.PRINCESSES
    assert state.awake_of(0)[-2:] == (slots[0], slots[1])


def test_without_the_variant_the_rose_comes_alone(game):
    """Without the variant the Rose is an ordinary 5-point princess: no companion."""
    state = game(3)
    assert codes(state, Wake(4, ROSE)) == []
    assert codes(state, Wake(4, ROSE, CentrePick(5, PrincessCard(10)))) == ["companion-unexpected"]


def test_only_the_rose_brings_a_companion(game):
    """Another princess brings nobody, even under the variant."""
    state = game(3, variant=True)
    assert codes(state, Wake(4, DOG, CentrePick(5, PrincessCard(10)))) == ["companion-unexpected"]


# ------------------------------------------------------------------ the Dog and the Cat

def test_second_pet_goes_back_to_sleep_and_ends_the_turn(game):
    """Holding the Dog and waking the Cat: she goes back face down to the centre and the turn
    ends (« elles s'entendent comme chien et chat ! »)."""
    state = game(3, variant=True, actions=["wake 0 10:chien", "discard 1", "discard 1"])
    event = state.play(Wake(6, CAT))
    assert state.awake_of(0) == (0,) and state.princess_in(6) == 6
    assert [m.kind for m in event.moves] == [MoveKind.SENT_BACK] and state.turn == 1
    assert state.card_in(6) == CAT  # the app remembers her
    assert state.find(Special.CAT) == 6


def test_cat_then_dog_is_the_same(game):
    """The rule works both ways: holding the Cat, the Dog goes back."""
    state = game(2, variant=True, actions=["wake 0 15:chat", "discard 1", "wake 3 10:chien"])
    assert state.awake_of(0) == (0,) and state.princess_in(3) == 3


def test_pet_brought_by_the_rose_goes_back(game):
    """The Rose's companion follows the rule too: the Rose stays, the second pet goes back."""
    state = game(3, variant=True, actions=["wake 0 10:chien", "discard 1", "discard 1"])
    event = state.play(Wake(4, ROSE, CentrePick(8, CAT)))
    assert state.awake_of(0) == (0, 4) and state.princess_in(8) == 8
    assert [m.kind for m in event.moves] == [MoveKind.WOKEN, MoveKind.SENT_BACK]


def test_pet_woken_by_a_jester_count_goes_back(game):
    """The seat a jester's count reaches is bound by the rule as well."""
    state = game(3, variant=True, actions=["discard 1", "wake 0 15:chat"])
    event = state.play(parse_action("jester 3 wake 5 10:chien"))  # seat 2 counts 3: seat 1
    assert event.count.wakes == 1 and [m.kind for m in event.moves] == [MoveKind.SENT_BACK]
    assert state.awake_of(1) == (0,) and state.princess_in(5) == 5


def test_knight_cannot_create_the_pair(game):
    """A knight cannot take the Cat while its player holds the Dog, nor the Dog while holding the
    Cat (REVEILLEZ.md, our reading)."""
    state = game(3, variant=True, actions=["wake 0 15:chat", "wake 1 10:chien", "discard 1"])
    assert codes(state, Steal(1)) == ["pets-apart"]
    assert state.stealable() == ()
    state.play(parse_action("discard 1"))
    assert codes(state, Steal(0)) == ["pets-apart"]


def test_knight_may_take_a_pet_when_its_player_has_none(game):
    """A player without the other pet may take the Dog or the Cat with a knight."""
    state = game(3, variant=True, actions=["wake 0 15:chat", "discard 1"])
    assert codes(state, Steal(0)) == []


def test_without_the_variant_dog_and_cat_may_meet(game):
    """Without the variant the Dog and the Cat are ordinary princesses."""
    state = game(2, actions=["wake 0 10:chien", "discard 1", "wake 1 15:chat", "wake 2 5"])
    assert state.awake_of(0) == (0, 1)
    assert codes(state, Steal(2)) == []


def test_the_knight_says_which_pet_it_cannot_take_and_why(game):
    """The princesses a knight may not take are named with why (pets-apart), so that the page
    says it rather than leaving the Dog out silently; none without the variant."""
    state = game(3, variant=True, actions=["wake 0 15:chat", "wake 1 10:chien", "discard 1"])
    assert [(p, [x.code for x in why]) for p, why in state.unstealable()] == [(1, ["pets-apart"])]
    assert game(3, variant=False, actions=["wake 0 15:chat", "wake 1 10:chien",
                                           "discard 1"]).unstealable() == ()
