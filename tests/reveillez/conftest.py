"""Factories for the « Réveillez » core tests: a game from a set-up and actions in notation, and
a helper that gives a seat princesses (the other seats discard one card meanwhile)."""

from __future__ import annotations

from collections.abc import Callable, Iterable

import pytest

from companion.scoring.reveillez import (
    Action,
    Card,
    Discard,
    GameState,
    PrincessCard,
    Setup,
    Wake,
    parse_action,
)

ONE = Discard((Card(number=1),))


def _build(players: int = 3, *, variant: bool = False, first: int = 0,
          actions: Iterable[Action | str] = ()) -> GameState:
    """A game with ``actions`` played (checked) in order."""
    state = GameState(Setup.make(players, first, variant))
    for action in actions:
        state.play(parse_action(action) if isinstance(action, str) else action)
    return state


def _give(state: GameState, seat: int, *cards: int | PrincessCard) -> GameState:
    """Let ``seat`` wake princesses worth ``cards`` (from the first sleeping slots), the other
    seats discarding one card on their turns; returns the state."""
    for card in cards:
        while state.turn != seat:
            state.play(ONE)
        princess = card if isinstance(card, PrincessCard) else PrincessCard(card)
        state.play(Wake(state.sleeping_slots()[0], princess))
    return state


def _pass_to(state: GameState, seat: int) -> GameState:
    """Discard one card on every turn until it is ``seat``'s turn."""
    while state.turn != seat:
        state.play(ONE)
    return state


@pytest.fixture
def game() -> Callable[..., GameState]:
    """``game(players, variant=, first=, actions=[...])``"""
    return _build


@pytest.fixture
def give() -> Callable[..., GameState]:
    """``give(state, seat, 20, 15, …)``"""
    return _give


@pytest.fixture
def pass_to() -> Callable[[GameState, int], GameState]:
    """``pass_to(state, seat)``"""
    return _pass_to
