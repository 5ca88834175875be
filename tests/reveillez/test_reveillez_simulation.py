"""Seeded random games played with a real deck, checked against invariants after every action:
the 12 princesses are always accounted for, the game ends exactly once, points match the printed
values, the Dog and the Cat never meet under the variant, the 67 red cards are all somewhere, and
undo and replay give the same game back."""

from __future__ import annotations

import functools
import itertools
import random

import pytest

from companion.scoring.problems import EntryError
from companion.scoring.reveillez import (
    HAND_SIZE,
    PRINCESSES,
    CentrePick,
    Discard,
    Jester,
    MoveKind,
    PowerCard,
    PrincessCard,
    Reason,
    ReveillezCard,
    ReveillezGameState,
    Setup,
    Sleep,
    Special,
    Steal,
    Wake,
    deck,
    evaluate,
    read_discard,
)

LIMIT = 600
"""Actions after which a game is declared stuck (none should get there)."""

PRINCE, KNIGHT, POTION, JESTER = (
    ReveillezCard(power=p)
    for p in (PowerCard.PRINCE, PowerCard.CHEVALIER, PowerCard.POTION, PowerCard.BOUFFON))
DRAGON, WAND = ReveillezCard(power=PowerCard.DRAGON), ReveillezCard(power=PowerCard.BAGUETTE)


class Table:
    """The physical table the app follows: hidden princess cards, the deck, the discard pile and
    the hands. Its random players choose among the actions their hands allow."""

    def __init__(self, seed: int, players: int, variant: bool) -> None:
        self.rng = rng = random.Random(seed)
        # Some tables have only small princesses, so that games also end with all awake.
        values = (5, 10, 15, 20) if seed % 3 else (5, 5, 10)
        self.truth = [PrincessCard(rng.choice(values)) for _ in range(PRINCESSES)]
        rose, dog, cat = rng.sample(range(PRINCESSES), 3)
        self.truth[rose] = PrincessCard(5, "rose")
        self.truth[dog] = PrincessCard(self.truth[dog].value, "chien")
        self.truth[cat] = PrincessCard(self.truth[cat].value, "chat")
        self.draw = deck()
        rng.shuffle(self.draw)
        self.discard: list[ReveillezCard] = []
        self.hands = [[self.draw.pop() for _ in range(HAND_SIZE)] for _ in range(players)]
        self.state = ReveillezGameState(Setup(players, rng.randrange(players), variant))

    # -- cards

    def top(self) -> ReveillezCard:
        if not self.draw:  # « Mélangez la défausse pour reformer une pioche »
            self.draw, self.discard = self.discard, []
            self.rng.shuffle(self.draw)
        return self.draw.pop()

    def spend(self, seat: int, *cards: ReveillezCard) -> None:
        for card in cards:
            self.hands[seat].remove(card)
            self.discard.append(card)

    def refill(self, seat: int) -> None:
        while len(self.hands[seat]) < HAND_SIZE:
            self.hands[seat].append(self.top())

    def defends(self, seat: int, card: ReveillezCard) -> bool:
        if card in self.hands[seat] and self.rng.random() < 0.8:
            self.spend(seat, card)
            self.refill(seat)
            return True
        return False

    # -- choices

    def pick(self, slot: int) -> CentrePick:
        princess = self.state.princess_in(slot)
        assert princess is not None
        return CentrePick(slot, self.truth[princess] if self.state.card(princess) is None else None)

    def wake(self) -> Wake:
        slots = list(self.state.sleeping_slots())
        self.rng.shuffle(slots)
        first = self.pick(slots[0])
        princess = self.state.princess_in(first.slot)
        assert princess is not None
        companion = None
        if self.state.needs_companion(first.slot, self.truth[princess]):
            companion = self.pick(slots[1])
        return Wake(first.slot, first.card, companion)

    def discard_choice(self, hand: list[ReveillezCard]) -> tuple[ReveillezCard, ...]:
        choices = [(card,) for card in hand]
        for size in range(2, len(hand) + 1):
            for cards in itertools.combinations(hand, size):
                if read_discard(cards).is_valid:
                    choices.append(cards)
        return self.rng.choice(choices)

    def turn(self) -> None:
        state, rng = self.state, self.rng
        seat = state.turn
        hand = self.hands[seat]
        options = ["discard"]
        if PRINCE in hand:
            options.append("prince")
        if KNIGHT in hand and state.stealable():
            options.append("knight")
        if POTION in hand and state.sleepable():
            options.append("potion")
        if JESTER in hand:
            options.append("jester")
        choice = rng.choice(options)
        action: Steal | Sleep | Wake | Jester | Discard
        if choice == "prince":
            self.spend(seat, PRINCE)
            action = self.wake()
        elif choice == "knight":
            self.spend(seat, KNIGHT)
            target = rng.choice(state.stealable())
            holder = state.holder(target)
            assert holder is not None
            action = Steal(target, dragon=self.defends(holder, DRAGON))
        elif choice == "potion":
            self.spend(seat, POTION)
            target = rng.choice(state.sleepable())
            holder = state.holder(target)
            assert holder is not None
            wand = self.defends(holder, WAND)
            slot = None if wand or rng.random() < 0.5 else rng.choice(state.free_slots())
            action = Sleep(target, slot, wand)
        elif choice == "jester":
            self.spend(seat, JESTER)
            revealed = self.top()
            count = state.jester_count(revealed)
            if count.play_again:
                hand.append(revealed)
                action = Jester(revealed)
            else:
                self.discard.append(revealed)
                action = Jester(revealed, self.wake())
        else:
            cards = self.discard_choice(hand)
            self.spend(seat, *cards)
            action = Discard(cards)
        event = state.play(action)
        if event.turn != seat:
            self.refill(seat)

    # -- invariants

    def check(self) -> None:
        state = self.state
        sleeping = [state.princess_in(slot) for slot in state.sleeping_slots()]
        awake = [p for seat in range(state.players) for p in state.awake_of(seat)]
        assert sorted(sleeping + awake) == list(range(PRINCESSES))  # all 12 accounted for
        assert len(state.free_slots()) == len(awake)
        assert sorted(place.princess for place in state.places()) == list(range(PRINCESSES))
        for seat in range(state.players):
            assert state.points(seat) == sum(self.truth[p].value for p in state.awake_of(seat))
            if state.variant:
                pets = {self.truth[p].special for p in state.awake_of(seat)}
                assert not {Special.DOG, Special.CAT} <= pets
        for princess, card in enumerate(self.truth):
            assert state.card(princess) in (None, card)
        cards = len(self.draw) + len(self.discard) + sum(len(hand) for hand in self.hands)
        assert cards == 67


@functools.cache
def play_out(seed: int, players: int, variant: bool) -> Table:
    """The seeded game, played once per test session (tests work on copies of its state)."""
    table = Table(seed, players, variant)
    while not table.state.is_over:
        assert len(table.state) < LIMIT, "game stuck"
        table.turn()
        table.check()
    return table


CASES = [(seed, players, variant) for seed in range(12) for players in (2, 3, 4, 5)
         for variant in (False, True)]


@pytest.mark.parametrize(("seed", "players", "variant"), CASES)
def test_random_game_invariants(seed, players, variant):
    """Every action keeps the 12 princesses accounted for; the game ends exactly once, with
    winners who meet the rules; undo and replay rebuild the same game."""
    state = play_out(seed, players, variant).state.copy()
    history = state.history
    endings = [event.index for event in history if event.outcome is not None]
    assert endings == [len(history) - 1]  # the game ends exactly once, at its last action
    outcome = state.outcome
    assert outcome is not None and outcome == history[-1].outcome
    goal = state.target
    if outcome.reason is Reason.ALL_AWAKE:
        assert state.sleeping() == 0
        assert all(outcome.points[w] == max(outcome.points) for w in outcome.winners)
    else:
        assert len(outcome.winners) == 1
        (winner,) = outcome.winners
        assert (outcome.princesses[winner] >= goal.princesses
                or outcome.points[winner] >= goal.points)
    assert [p.code for p in state.check(Discard((ReveillezCard(number=1),)))] == ["game-over"]
    with pytest.raises(EntryError):
        state.push(Discard((ReveillezCard(number=1),)))
    # The same game replayed from its notation, then undone action by action.
    again = ReveillezGameState.from_notation(state.notation())
    assert again.standings() == state.standings()
    before_end = state.copy()
    before_end.pop()
    assert not before_end.is_over
    assert not evaluate([before_end.values_of(s) for s in range(players)],
                        before_end.sleeping()).is_over
    while len(state):
        state.pop()
    assert state.sleeping_slots() == tuple(range(PRINCESSES)) and state.turn == state.setup.first


def test_simulation_exercises_every_rule():
    """The simulated games meet every kind of move (else the invariants prove little)."""
    kinds: set[object] = set()
    for seed, players, variant in CASES:
        for event in play_out(seed, players, variant).state.history:
            kinds.update(move.kind for move in event.moves)
            kinds.add(type(event.action).__name__)
            if event.is_countered:
                kinds.add("countered")
            if event.count is not None:
                kinds.add("play-again" if event.count.play_again else "count")
            if event.outcome is not None:
                kinds.add(event.outcome.reason)
            if isinstance(event.action, Wake) and event.action.companion is not None:
                kinds.add("rose")
    assert set(MoveKind) | {"Wake", "Steal", "Sleep", "Jester", "Discard", "countered",
                            "play-again", "count", "rose"} | set(Reason) <= kinds


def _replayed_progress(state: ReveillezGameState) -> tuple[tuple[int, ...], ...]:
    """Every seat's points after each action, counted by replaying the actions afresh."""
    again, progress = ReveillezGameState(state.setup), []
    for action in state.actions:
        again.push(action)
        progress.append(again.standings().points)
    return tuple(progress)


@pytest.mark.parametrize(("seed", "players", "variant"), CASES)
def test_progress_kept_as_played_is_what_a_replay_counts(seed, players, variant):
    """The points after each action, kept as the actions are played (a save's history summary
    reads them), are those a replay of the actions counts: for a whole game, and after actions
    undone and others played in their place."""
    state = play_out(seed, players, variant).state.copy()
    assert state.progress() == _replayed_progress(state) and len(state.progress()) == len(state)
    for _ in range(min(4, len(state))):
        state.pop()
        assert state.progress() == _replayed_progress(state)
    state.push(Discard((ReveillezCard(number=1),)))
    state.push(Wake(state.sleeping_slots()[0], PrincessCard(20)))
    assert state.progress() == _replayed_progress(state)
