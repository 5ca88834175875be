"""Factories for the « Réveillez » core tests: a game from a set-up and actions in notation, and
a helper that gives a seat princesses (the other seats discard one card meanwhile)."""

from __future__ import annotations

from collections.abc import Callable, Iterable

import pytest

from companion.scoring.reveillez import (
    Action,
    Discard,
    PrincessCard,
    ReveillezCard,
    ReveillezGameState,
    Setup,
    Wake,
    parse_action,
)

ONE = Discard((ReveillezCard(number=1),))


def _build(players: int = 3, *, variant: bool = False, first: int = 0,
          actions: Iterable[Action | str] = ()) -> ReveillezGameState:
    """A game with ``actions`` played (checked) in order."""
    state = ReveillezGameState(Setup.make(players, first, variant))
    for action in actions:
        state.play(parse_action(action) if isinstance(action, str) else action)
    return state


def _give(state: ReveillezGameState, seat: int, *cards: int | PrincessCard) -> ReveillezGameState:
    """Let ``seat`` wake princesses worth ``cards`` (from the first sleeping slots), the other
    seats discarding one card on their turns; returns the state."""
    for card in cards:
        while state.turn != seat:
            state.play(ONE)
        princess = card if isinstance(card, PrincessCard) else PrincessCard(card)
        state.play(Wake(state.sleeping_slots()[0], princess))
    return state


def _pass_to(state: ReveillezGameState, seat: int) -> ReveillezGameState:
    """Discard one card on every turn until it is ``seat``'s turn."""
    while state.turn != seat:
        state.play(ONE)
    return state


@pytest.fixture
def game() -> Callable[..., ReveillezGameState]:
    """``game(players, variant=, first=, actions=[...])``"""
    return _build


@pytest.fixture
def give() -> Callable[..., ReveillezGameState]:
    """``give(state, seat, 20, 15, …)``"""
    return _give


@pytest.fixture
def pass_to() -> Callable[[ReveillezGameState, int], ReveillezGameState]:
    """``pass_to(state, seat)``"""
    return _pass_to
