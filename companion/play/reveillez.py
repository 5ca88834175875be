"""Glue for « Réveillez les 12 princesses »: stored entries → the rules core's
ReveillezGameState → rows.

A game is a :class:`~companion.models.Game` row (kind ``reveillez``) whose settings hold the set-up
(players, who starts, the variant, whether put-back princesses show their value) and an
append-only log of :class:`~companion.models.Entry` rows: ``action`` (the action's notation, as
the core writes it) and ``undo``. Every view replays the log through
:class:`~companion.scoring.reveillez.ReveillezGameState` (``push`` for actions, ``pop`` for
undos); every write replays it first and lets the core check the new action, so a refused action
stores nothing.

The table screen builds an action over several taps (a :class:`Draft`): :func:`plan` says which
question comes next (which princess, her value, the Rose's companion, "dragon?" …) or that the
action is complete, reading the core's own problems (``value-needed``, ``companion-needed``,
``jester-wake-needed``) rather than repeating its rules.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Annotated, Any, cast

from pydantic import Field
from sqlmodel import Session

from ..games import GameGlue
from ..history import N_, Aggregate, Fact, GameSummary, StepUnit
from ..models import Game
from ..scoring.problems import EntryError, Problem
from ..scoring.reveillez import (
    Action,
    CentrePick,
    Discard,
    DiscardCheck,
    Event,
    Jester,
    JesterCount,
    PrincessCard,
    ReveillezCard,
    ReveillezGameState,
    Setup,
    Sleep,
    Steal,
    Wake,
    parse_action,
    read_discard,
    read_princess,
)
from ..scoring.reveillez.cards import read_card
from . import saved_games, store
from .entries import Empty, EntryShape

KIND = "reveillez"


class _Action(EntryShape):
    action: Annotated[str, Field(min_length=1, max_length=200)]  # its notation


ENTRY_SHAPES: Mapping[str, type[EntryShape]] = {"action": _Action, "undo": Empty}
"""What each kind of a game's entries holds (:mod:`companion.play.entries`)."""
MAX_NAME = 24
ASKS = frozenset({"value-needed", "companion-needed", "jester-wake-needed"})
"""Core problems that mean "not finished yet": the table asks the next question instead."""


@dataclass(frozen=True)
class Settings:
    """A stored game's set-up."""

    players: int
    first: int
    variant: bool
    show_values: bool = False

    @property
    def setup(self) -> Setup:
        return Setup(self.players, self.first, self.variant)

    @classmethod
    def of(cls, game: Game) -> Settings:
        data = store.settings_of(game)
        return cls(int(data["players"]), int(data["first"]), bool(data["variant"]),
                   bool(data.get("show_values", False)))


@dataclass(frozen=True)
class LogItem:
    """One stored action as the history shows it: its entry number, what it did, what the app
    knew of each princess it moved right after it (so its line reads as it was written, even once
    undone), and whether an undo took it back since."""

    seq: int
    event: Event
    undone: bool = False
    cards: dict[int, PrincessCard | None] = field(default_factory=dict)


@dataclass(frozen=True)
class TableView:
    """Everything the table screen shows of one game, replayed from its entries."""

    game: Game
    names: list[str]
    settings: Settings
    state: ReveillezGameState
    version: int
    log: list[LogItem] = field(default_factory=list)


def create_game(*, session: Session, names: list[str], first: int, variant: bool,
                show_values: bool, group_id: int | None = None) -> Game:
    """Store a new game in group ``group_id`` (a new group if None); raises EntryError
    (``players-range``, ``seat-range``) from the core."""
    setup = Setup.make(len(names), first, variant)
    return store.create_game(session=session, kind=KIND, names=names, settings={
        "players": setup.players, "first": setup.first, "variant": setup.variant,
        "show_values": bool(show_values)}, group_id=group_id)


def get_game(session: Session, code: str) -> Game | None:
    return store.get_game(session, code, KIND)


def view_game(session: Session, game: Game) -> TableView:
    """Replay the game's entries through the rules core (drawn after a save: the view it
    left, :mod:`.saved_games`)."""
    if (known := saved_games.known_view(session, game)) is not None:
        return cast(TableView, known)
    settings = Settings.of(game)
    state = ReveillezGameState(settings.setup)
    log: list[LogItem] = []
    live: list[int] = []  # indexes in ``log`` of the actions still in effect
    version = 0
    for entry in store.entries(session, game):
        version = entry.seq
        if entry.kind == "action":
            live.append(len(log))
            event = state.push(parse_action(entry.data["action"]))
            log.append(LogItem(entry.seq, event,
                               cards={m.princess: state.card(m.princess) for m in event.moves}))
        elif entry.kind == "undo" and live:
            state.pop()
            index = live.pop()
            log[index] = replace(log[index], undone=True)
    return TableView(game, store.names_of(session, game), settings, state, version, log)


def record(*, session: Session, game: Game, action: Action, based_on: int, key: str) -> Event:
    """Check ``action`` on the game as it stands, then store it after version ``based_on``.
    The same form sent again is answered like the first (its event); a changed copy of a form
    already stored raises :class:`~companion.play.store.KeyConflict`. Raises EntryError
    (nothing stored) or :class:`~companion.play.store.StaleWrite`."""
    view = view_game(session, game)
    earlier = store.replayed(session, game, key)
    if earlier is not None:
        event = _event_of(view, earlier.seq)
        assert event is not None  # (an action's key: what it stored is an event, not an undo)
        return event
    if view.version != based_on:
        raise store.StaleWrite(view.version)
    event = view.state.play(action)
    _leaves(session, view, event, based_on + 1)
    store.append(session=session, game=game, kind="action", data={"action": str(event.action)},
                 based_on=based_on, key=key, replay=view.state)
    return event


def undo(*, session: Session, game: Game, based_on: int, key: str) -> bool:
    """Take back the last action still in effect (an ``undo`` entry; the history keeps it).
    Returns False when there is nothing to undo. Raises StaleWrite, or KeyConflict (a changed
    copy of a form already stored)."""
    view = view_game(session, game)
    if store.replayed(session, game, key) is not None:
        return True
    if not len(view.state) and view.version == based_on:
        return False
    if len(view.state):
        view.state.pop()
    _leaves(session, view, None, based_on + 1)
    store.append(session=session, game=game, kind="undo", data={}, based_on=based_on, key=key,
                 replay=view.state)
    return True


def _leaves(session: Session, view: TableView, event: Event | None, version: int) -> None:
    """The table a write leaves (:func:`companion.play.saved_games.leaves`): ``view`` (its
    state already played on) with ``event`` logged, or (None: an undo) its last action still in
    effect marked undone, at ``version`` — what :func:`view_game` makes of the entries then."""
    log = list(view.log)
    if event is not None:
        log.append(LogItem(version, event, cards={
            m.princess: view.state.card(m.princess) for m in event.moves}))
    elif live := [index for index, item in enumerate(log) if not item.undone]:
        log[live[-1]] = replace(log[live[-1]], undone=True)
    saved_games.leaves(session, lambda game, names, _: TableView(
        game, list(names), view.settings, view.state, version, log))


def _event_of(view: TableView, seq: int) -> Event | None:
    """The event entry ``seq`` stored (None for an undo)."""
    return next((item.event for item in view.log if item.seq == seq), None)


def stored_item(view: TableView, seq: int) -> LogItem | None:
    """The log line of entry ``seq``: what a form stored (None for an undo)."""
    return next((item for item in view.log if item.seq == seq), None)


# --------------------------------------------------------------------------- drafts

ACTIONS = ("wake", "steal", "sleep", "jester", "discard")


@dataclass(frozen=True)
class Draft:
    """An action being built on the table screen, tap after tap (plain values from the form)."""

    do: str
    slot: int | None = None
    value: int | None = None
    name: str | None = None
    companion_slot: int | None = None
    companion_value: int | None = None
    companion_name: str | None = None
    princess: int | None = None
    defended: bool | None = None
    dest: int | None = None
    revealed: str | None = None
    cards: tuple[str, ...] = ()

    def fields(self) -> dict[str, Any]:
        """The draft as form fields (for the hidden inputs of the next question)."""
        out: dict[str, Any] = {}
        for name in ("do", "slot", "value", "name", "companion_slot", "companion_value",
                     "companion_name", "princess", "dest", "revealed"):
            value = getattr(self, name)
            if value is not None and value != "":
                out[name] = value
        if self.defended is not None:
            out["defended"] = "yes" if self.defended else "no"
        if self.cards:
            out["cards"] = " ".join(self.cards)
        return out


@dataclass(frozen=True)
class Plan:
    """What the table does with a draft: the question to ask next (``step``), or the complete
    ``action``; the problems to show; the jester's count and the discard check when known."""

    step: str
    action: Action | None = None
    problems: list[Problem] = field(default_factory=list)
    count: JesterCount | None = None
    discard: DiscardCheck | None = None
    seat: int | None = None  # who wakes a princess (the jester's count may name another seat)

    @property
    def is_ready(self) -> bool:
        return self.step == "ready"


def _princess(value: int | None, name: str | None, problems: list[Problem]
              ) -> PrincessCard | None:
    if value is None:
        return None
    card, found = read_princess(value, name)
    problems.extend(found)
    return card


def _wake_plan(state: ReveillezGameState, draft: Draft, seat: int, count: JesterCount | None,
               make: Any) -> Plan:
    """The shared questions of waking a princess: where, her value, the Rose's companion."""
    if draft.slot is None:
        return Plan("slot", count=count, seat=seat)
    problems: list[Problem] = []
    card = _princess(draft.value, draft.name, problems)
    if problems:
        return Plan("value", problems=problems, count=count, seat=seat)
    companion_card = _princess(draft.companion_value, draft.companion_name, problems)
    if problems:
        return Plan("companion-value", problems=problems, count=count, seat=seat)
    companion = None if draft.companion_slot is None else CentrePick(draft.companion_slot,
                                                                companion_card)
    action = make(Wake(draft.slot, card, companion))
    problems = state.check(action)
    codes = {p.code for p in problems}
    if "value-needed" in codes:
        asked_slot = next(p for p in problems if p.code == "value-needed").params["number"] - 1
        step = "value" if asked_slot == draft.slot else "companion-value"
        real = [p for p in problems if p.code not in ASKS]
        return Plan(step, problems=real, count=count, seat=seat)
    if "companion-needed" in codes:
        return Plan("companion", count=count, seat=seat)
    return Plan("ready", action, problems, count=count, seat=seat)


def plan(state: ReveillezGameState, draft: Draft) -> Plan:
    """The next question for ``draft`` on ``state``, or the complete action with every problem
    the core finds in it (never raises)."""
    if state.is_over:
        return Plan("over", problems=state.check(Discard((ReveillezCard(number=1),))))
    seat = state.turn
    if draft.do == "wake":
        return _wake_plan(state, draft, seat, None, lambda wake: wake)
    if draft.do == "jester":
        if draft.revealed is None:
            return Plan("revealed", seat=seat)
        revealed, problem = read_card(draft.revealed)
        if revealed is None:
            return Plan("revealed", problems=[problem] if problem else [], seat=seat)
        count = state.jester_count(revealed)
        if count.play_again:
            action: Action = Jester(revealed)
            return Plan("ready", action, state.check(action), count=count, seat=seat)
        assert count.wakes is not None
        return _wake_plan(state, draft, count.wakes, count, lambda wake: Jester(revealed, wake))
    if draft.do in ("steal", "sleep"):
        if draft.princess is None:
            return Plan("target", seat=seat)
        target: Action = (Steal(draft.princess, dragon=bool(draft.defended))
                          if draft.do == "steal" else
                          Sleep(draft.princess, draft.dest, wand=bool(draft.defended)))
        problems = state.check(target)
        if problems or draft.defended is not None:
            return Plan("ready", target, problems, seat=seat)
        return Plan("defence", target, seat=seat)
    if draft.do == "discard":
        cards: list[ReveillezCard] = []
        problems = []
        for value in draft.cards:
            card, problem = read_card(value)
            if card is not None:
                cards.append(card)
            elif problem is not None:
                problems.append(problem)
        check = read_discard(cards)
        if problems:
            return Plan("cards", problems=problems, discard=check, seat=seat)
        action = Discard(tuple(cards))
        return Plan("cards", action, state.check(action) if cards else [], discard=check,
                    seat=seat)
    return Plan("choose", seat=seat)


def record_draft(*, session: Session, game: Game, draft: Draft, based_on: int, key: str,
                 final: bool = True) -> tuple[Plan, Event | None]:
    """Plan the draft on the game as it stands; store it when complete and ``final``. Returns the
    plan and the stored event (None while a question is pending). Raises EntryError when the
    complete action is refused, StaleWrite when the game moved on."""
    view = view_game(session, game)
    earlier = store.replayed(session, game, key)  # KeyConflict: a changed copy of a saved form
    if earlier is not None:  # this very tap was stored already: answered like the first
        return Plan("ready"), _event_of(view, earlier.seq)
    if view.version != based_on:
        raise store.StaleWrite(view.version)
    current = plan(view.state, draft)
    ready = current.is_ready or (final and current.step == "cards")
    if not ready or current.action is None:
        if current.problems and final:
            raise EntryError(current.problems)
        return current, None
    if current.problems:
        raise EntryError(current.problems)
    event = view.state.play(current.action)
    _leaves(session, view, event, based_on + 1)
    store.append(session=session, game=game, kind="action", data={"action": str(event.action)},
                 based_on=based_on, key=key, replay=view.state)
    return current, event


# --- history: what a game came to (stored with every save, see companion.play.summaries) ----

def summary(session: Session, game: Game) -> GameSummary:
    """What a game came to, for history and statistics: the points after every action, the
    winners, and the princesses each winner held (averaged over a player's wins)."""
    return summary_from(game, view_game(session, game).state)


def summary_from(game: Game, state: ReveillezGameState) -> GameSummary:
    """:func:`summary` of the game replayed as ``state`` (a save's own replay, see
    :func:`companion.play.store.note_replay`)."""
    settings = Settings.of(game)
    standings = state.standings()
    return GameSummary(
        finished=state.is_over, winners=tuple(standings.winners),
        scores=tuple(standings.points), progress=state.progress(), step=StepUnit.TURN,
        facts=(Fact("princesses-when-winning", N_("Princesses when winning (average)"),
                    tuple(standings.princesses), Aggregate.MEAN_WHEN_WON),),
        first=settings.first)


GLUE = GameGlue(ReveillezGameState, summary, summary_from, ENTRY_SHAPES)
"""This game in history and statistics (:class:`companion.games.GameGlue`)."""
