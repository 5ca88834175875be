"""Glue for Love Letter « Princesse Princesse »: stored entries → the rules core → what pages show.

Only what players entered is stored, as append-only entries of the shared log
(:mod:`companion.play.store`); every view replays them through the rules core
(:mod:`companion.scoring.princesse_princesse`). Entry kinds and their ``data``:

- ``round``: a finished round — ``first`` (who started it), ``still_in``, ``cards`` (per seat, the
  card shown at the end or null), ``spies`` / ``princesses`` (the bonus answers), ``next_first``
  (who starts the next round: the only winner, or the one drawn among tied winners when the round
  was saved), ``drawn`` (true when it was a draw), ``log`` and ``face_up`` (the turn log it came
  from, if any). Its id is the ``seq`` of that entry.
- ``edit``: the same fields plus ``rid``, the round it replaces. ``undo``: ``rid``, the round
  removed.
- ``log-start`` (``first``, ``face_up``), ``turn`` (``turn``: the core's notation), ``turn-undo``
  and ``log-discard``: the turn log of the round being played.

Every write replays the game with the new entry first (through the core), so a refused entry
stores nothing, then appends it on the version the phone saw (``based_on``) with the form's
idempotency ``key``, and with the tokens board it leaves (``replay``): the game's summary is
made from it (the turn log's entries leave the board as it was).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Annotated, Any, cast

from pydantic import Field
from sqlmodel import Session

from ..games import GameGlue
from ..history import N_, Fact, GameSummary, ScoreUnit
from ..models import Game
from ..scoring.princesse_princesse import (
    CATALOGUE,
    AwardReason,
    GameProgress,
    PublicRound,
    RoundLine,
    RoundReveal,
    RoundSettlement,
    StartReason,
    StoredRound,
    Turn,
    add_round,
    draw_first_player,
    new_game,
    settle_round,
)
from ..scoring.problems import EntryError
from . import saved_games, store
from .entries import Empty, EntryShape, Seat

KIND = "princesse_princesse"


Seats = Annotated[list[Seat], Field(max_length=16)]


class _RoundEnd(EntryShape):
    first: Seat
    still_in: Seats
    cards: Annotated[list[Annotated[int, Field(ge=0, le=9)] | None], Field(max_length=16)]
    spies: Seats = []
    princesses: Seats = []
    next_first: Seat | None = None
    drawn: bool = False
    log: Annotated[list[Annotated[str, Field(max_length=200)]], Field(max_length=200)] = []
    face_up: Annotated[list[Annotated[int, Field(ge=0, le=9)]], Field(max_length=8)] = []


class _Edit(_RoundEnd):
    rid: Annotated[int, Field(ge=1)]


class _Undo(EntryShape):
    rid: Annotated[int, Field(ge=1)]


class _LogStart(EntryShape):
    first: Seat
    face_up: Annotated[list[Annotated[int, Field(ge=0, le=9)]], Field(max_length=8)] = []


class _Turn(EntryShape):
    turn: Annotated[str, Field(min_length=1, max_length=200)]  # its notation


ENTRY_SHAPES: Mapping[str, type[EntryShape]] = {
    "round": _RoundEnd, "edit": _Edit, "undo": _Undo, "log-start": _LogStart, "turn": _Turn,
    "turn-undo": Empty, "log-discard": Empty}
"""What each kind of a game's entries holds (:mod:`companion.play.entries`)."""
_rng = random.SystemRandom()


@dataclass(frozen=True)
class RoundView:
    """One round of the history: its id, what was entered and the tokens it gave."""

    rid: int
    line: RoundLine
    data: dict[str, Any]
    edited: int  # how many times it was edited

    @property
    def number(self) -> int:
        return self.line.number

    @property
    def settlement(self) -> RoundSettlement:
        return self.line.settlement

    @property
    def reveal(self) -> RoundReveal:
        return reveal_of(self.data)

    @property
    def drawn(self) -> bool:
        return bool(self.data.get("drawn"))

    @property
    def from_log(self) -> bool:
        return bool(self.data.get("log"))


@dataclass
class LogView:
    """The turn log of the round being played."""

    round: PublicRound
    first: int


@dataclass
class PrincesseGameView:
    """A game replayed: the tokens board, the history and the round in progress."""

    game: Game
    names: list[str]
    version: int
    progress: GameProgress
    rounds: list[RoundView]
    first: int  # who starts the round being played now
    first_reason: StartReason | None
    candidates: tuple[int, ...]  # the tied winners the starter was drawn among (if drawn)
    log: LogView | None
    game_first: int = 0  # who started the first round (the set-up's choice)
    changes: list[store.Stored] = field(default_factory=list)
    #: Rounds taken back by an undo, each as the history showed it just before (number, starter,
    #: reveal, tokens), in the order they were undone.
    undone: list[RoundView] = field(default_factory=list)

    @property
    def players(self) -> int:
        return len(self.names)

    @property
    def last(self) -> RoundView | None:
        return self.rounds[-1] if self.rounds else None

    def round_by_id(self, rid: int) -> RoundView | None:
        return next((r for r in self.rounds if r.rid == rid), None)


def reveal_of(data: Mapping[str, Any]) -> RoundReveal:
    """The core's reveal from a stored ``round`` / ``edit`` entry."""
    return RoundReveal(frozenset(data["still_in"]), tuple(data["cards"]),
                       frozenset(data.get("spies", ())), frozenset(data.get("princesses", ())))


def reveal_data(reveal: RoundReveal) -> dict[str, Any]:
    return {"still_in": sorted(reveal.still_in), "cards": list(reveal.cards),
            "spies": sorted(reveal.spies), "princesses": sorted(reveal.princesses)}


# --- reading a game -----------------------------------------------------------------------------

def create_game(*, session: Session, names: Sequence[str], first: int,
                group_id: int | None = None) -> Game:
    """Store a new game in group ``group_id`` (a new group if None); raises
    :class:`EntryError` (player count, first player)."""
    new_game(len(names), first)
    return store.create_game(session=session, kind=KIND, names=list(names),
                             settings={"first": first}, group_id=group_id)


def get_game(session: Session, code: str) -> Game | None:
    return store.get_game(session, code, KIND)


def first_of(game: Game) -> int:
    """Who started the game's first round (the set-up's choice)."""
    return int(store.settings_of(game)["first"])


def view_game(session: Session, game: Game) -> PrincesseGameView:
    """Replay every stored entry of ``game`` through the rules core (drawn after a save: the
    view it left, :mod:`.saved_games`)."""
    if (known := saved_games.known_view(session, game)) is not None:
        return cast(PrincesseGameView, known)
    names = store.names_of(session, game)
    entries = store.entries(session, game)
    return replay(game, names, first_of(game), entries)


def replay(game: Game, names: list[str], first: int,
           entries: Sequence[store.Stored]) -> PrincesseGameView:
    """The game after ``entries``: the rounds as they stand now and the pending turn log."""
    order: list[int] = []
    current: dict[int, dict[str, Any]] = {}
    edits: dict[int, int] = {}
    log: dict[str, Any] | None = None
    undone: list[RoundView] = []
    for entry in entries:
        data = entry.data
        if entry.kind == "round":
            order.append(entry.seq)
            current[entry.seq] = data
            log = None
        elif entry.kind == "edit":
            current[data["rid"]] = data
            edits[data["rid"]] = edits.get(data["rid"], 0) + 1
        elif entry.kind == "undo":
            was = next((r for r in _rounds(len(names), first, order, current, edits)[1]
                        if r.rid == data["rid"]), None)
            if was is not None:
                undone.append(was)
            order.remove(data["rid"])
            log = None
        elif entry.kind == "log-start":
            log = {"first": data["first"], "face_up": data.get("face_up", []), "turns": []}
        elif entry.kind == "turn" and log is not None:
            log["turns"].append(data["turn"])
        elif entry.kind == "turn-undo" and log is not None and log["turns"]:
            log["turns"].pop()
        elif entry.kind == "log-discard":
            log = None
    progress, rounds = _rounds(len(names), first, order, current, edits)
    starter, reason, candidates = _next_starter(first, progress, rounds)
    log_view = None
    if log is not None:
        public = PublicRound(len(names), log["first"], tuple(log["face_up"]))
        for text in log["turns"]:
            public.push(Turn.from_notation(text))
        log_view = LogView(public, log["first"])
    return PrincesseGameView(game, names, entries[-1].seq if entries else 0, progress, rounds,
                             starter, reason, candidates, log_view, first, list(entries), undone)


def _rounds(players: int, first: int, order: Sequence[int], current: dict[int, dict[str, Any]],
            edits: dict[int, int]) -> tuple[GameProgress, list[RoundView]]:
    """The rounds ``order`` (as ``current`` has them) played one after the other."""
    progress = new_game(players, first)
    rounds: list[RoundView] = []
    for rid in order:
        data = current[rid]
        # Stored history: who really started a round is a fact, even after an earlier edit.
        progress = add_round(progress, StoredRound(data["first"], reveal_of(data)),
                             check_first=False)
        rounds.append(RoundView(rid, progress.rounds[-1], data, edits.get(rid, 0)))
    return progress, rounds


def _next_starter(first: int, progress: GameProgress, rounds: list[RoundView]
                  ) -> tuple[int, StartReason | None, tuple[int, ...]]:
    if progress.game_over:
        return first, None, ()
    if not rounds:
        return first, StartReason.CHOSEN, ()
    last = rounds[-1]
    candidates = last.settlement.round_winners
    stored = last.data.get("next_first")
    if isinstance(stored, int) and stored in candidates:
        return stored, (StartReason.DRAWN if len(candidates) > 1 else StartReason.WON), candidates
    return candidates[0], StartReason.WON, candidates  # not reachable with stored data


# --- writing ------------------------------------------------------------------------------------

def _settle_next_first(settlement: RoundSettlement,
                       keep: int | None = None) -> tuple[int | None, bool]:
    """Who starts after this round: the only winner, the one kept from before an edit if still
    a candidate, or one drawn at random among tied winners (the draw is stored)."""
    candidates = settlement.next_first_candidates
    if not candidates:
        return None, False
    if len(candidates) == 1:
        return candidates[0], False
    if keep in candidates:
        return keep, True
    return draw_first_player(candidates, _rng), True


def save_round(*, session: Session, view: PrincesseGameView, based_on: int, key: str | None,
               reveal: RoundReveal, rid: int | None = None,
               log: Sequence[str] | None = None, face_up: Sequence[int] = ()) -> store.Stored:
    """Store a new round (``rid`` None) or an edit of round ``rid``; raises :class:`EntryError`
    (the reveal, a round after the end of the game, an unknown round)."""
    if rid is None:
        progress = view.progress
        if progress.game_over:
            raise EntryError(CATALOGUE.problem("game-already-over"))
        first = view.log.first if log is not None and view.log is not None else view.first
        after = add_round(progress, StoredRound(first, reveal), check_first=False)
        next_first, drawn = _settle_next_first(after.rounds[-1].settlement)
        data = {"first": first, **reveal_data(reveal), "next_first": next_first,
                "drawn": drawn, "log": list(log or []), "face_up": list(face_up)}
        saved_games.leaves(session, lambda game, names, entries: _after_round(
            view, game, names, entries, after))
        return store.append(session=session, game=view.game, kind="round", data=data,
                            based_on=based_on, key=key, replay=after)
    old = view.round_by_id(rid)
    if old is None:
        raise EntryError(CATALOGUE.problem("round-not-found"))
    settlement = settle_round(reveal, old.line.tokens_before)
    next_first, drawn = _settle_next_first(settlement, old.data.get("next_first"))
    data = {**old.data, **reveal_data(reveal), "rid": rid, "next_first": next_first,
            "drawn": drawn}
    # The whole game is replayed with the edit before it is stored: an edit that ends the game
    # before later rounds were played is refused (``game-already-over``), nothing stored.
    edited = replay(view.game, view.names, view.game_first,
                    [*view.changes, store.Stored(based_on + 1, "edit", data, key,
                                                 datetime.now(UTC))])
    return store.append(session=session, game=view.game, kind="edit", data=data,
                        based_on=based_on, key=key, replay=edited.progress)


def _after_round(view: PrincesseGameView, game: Game, names: Sequence[str],
                 entries: Sequence[store.Stored], after: GameProgress) -> PrincesseGameView:
    """The game a new round leaves (:func:`companion.play.saved_games.leaves`), as
    :func:`replay` makes it of ``entries``, the round's the last: ``view``'s rounds and the
    round, whose tokens the save worked out (``after``); no turn log."""
    new = entries[-1]
    rounds = [*view.rounds, RoundView(new.seq, after.rounds[-1], new.data, 0)]
    starter, reason, candidates = _next_starter(view.game_first, after, rounds)
    return PrincesseGameView(game, list(names), new.seq, after, rounds, starter, reason,
                             candidates, None, view.game_first, list(entries), view.undone)


def undo_round(*, session: Session, view: PrincesseGameView, based_on: int, key: str | None,
               rid: int) -> store.Stored:
    """Remove round ``rid`` from the game (the history keeps it)."""
    if view.round_by_id(rid) is None:
        raise EntryError(CATALOGUE.problem("round-not-found"))
    after = replay(view.game, view.names, view.game_first,
                   [*view.changes, store.Stored(based_on + 1, "undo", {"rid": rid}, key,
                                                datetime.now(UTC))])
    return store.append(session=session, game=view.game, kind="undo", data={"rid": rid},
                        based_on=based_on, key=key, replay=after.progress)


def start_log(*, session: Session, view: PrincesseGameView, based_on: int, key: str | None,
              face_up: Sequence[int]) -> store.Stored:
    """Start the turn log of the round being played; raises :class:`EntryError` (set-up)."""
    if view.progress.game_over:
        raise EntryError(CATALOGUE.problem("game-already-over"))
    PublicRound(view.players, view.first, tuple(face_up))
    return store.append(session=session, game=view.game, kind="log-start",
                        data={"first": view.first, "face_up": list(face_up)},
                        based_on=based_on, key=key, replay=view.progress)


def play_turn(*, session: Session, view: PrincesseGameView, based_on: int, key: str | None,
              turn: Turn) -> store.Stored:
    """Add one turn to the log; raises :class:`EntryError` with every reason it is refused."""
    if view.log is None:
        raise EntryError(CATALOGUE.problem("round-over"))
    view.log.round.play(turn)  # checks; the view is thrown away after the write
    return store.append(session=session, game=view.game, kind="turn", data={"turn": str(turn)},
                        based_on=based_on, key=key, replay=view.progress)


def undo_turn(*, session: Session, view: PrincesseGameView, based_on: int, key: str | None
              ) -> store.Stored:
    """Take back the last turn of the log (or drop an empty log)."""
    if view.log is None:
        raise EntryError(CATALOGUE.problem("round-over"))
    kind = "turn-undo" if view.log.round.turns else "log-discard"
    return store.append(session=session, game=view.game, kind=kind, data={},
                        based_on=based_on, key=key, replay=view.progress)


def discard_log(*, session: Session, view: PrincesseGameView, based_on: int, key: str | None
                ) -> store.Stored:
    """Abandon the turn log (the round end can still be entered by the fast path)."""
    return store.append(session=session, game=view.game, kind="log-discard", data={},
                        based_on=based_on, key=key, replay=view.progress)


def finish_log(*, session: Session, view: PrincesseGameView, based_on: int, key: str | None,
               cards: Mapping[int, int]) -> store.Stored:
    """Save the round the log ended: the log fills who is still in and both bonuses, the table
    gives the final cards. Raises :class:`EntryError`."""
    if view.log is None:
        raise EntryError(CATALOGUE.problem("round-over"))
    public = view.log.round
    reveal = public.reveal(cards)
    return save_round(session=session, view=view, based_on=based_on, key=key, reveal=reveal,
                      log=[str(t) for t in public.turns], face_up=public.face_up)


# --- history: what a game came to (stored with every save, see companion.play.summaries) ----

TOKEN_FACTS = (
    (AwardReason.LAST_IN, "tokens-last-in", N_("Tokens: last one still in")),
    (AwardReason.HIGHEST, "tokens-highest-card", N_("Tokens: highest card")),
    (AwardReason.TIED, "tokens-tied-highest", N_("Tokens: tied on the highest card")),
    (AwardReason.SPY, "tokens-spy", N_("Tokens: Spy bonus")),
    (AwardReason.PRINCESSES, "tokens-princesses", N_("Tokens: Princesses bonus")),
)
"""How a favour token was won, as statistics count them (one fact per reason)."""


def summary(session: Session, game: Game) -> GameSummary:
    """What a game came to, for history and statistics: favour tokens round by round, the
    winners, and each player's tokens by how they were won."""
    return summary_from(game, view_game(session, game).progress)


def summary_from(game: Game, progress: GameProgress) -> GameSummary:
    """:func:`summary` of the game whose rounds came to ``progress`` (a save's own replay, see
    :func:`companion.play.store.note_replay`)."""
    players = progress.players
    won: dict[tuple[AwardReason, int], int] = {}  # (counted in one pass, issue 36)
    for line in progress.rounds:
        for award in line.settlement.awards:
            won[award.reason, award.seat] = won.get((award.reason, award.seat), 0) + 1
    facts = tuple(Fact(key, label, tuple(won.get((reason, seat), 0) for seat in range(players)))
                  for reason, key, label in TOKEN_FACTS)
    return GameSummary(
        finished=progress.game_over, winners=tuple(progress.winners),
        scores=tuple(progress.tokens), unit=ScoreUnit.TOKENS,
        progress=tuple(tuple(line.settlement.tokens_after) for line in progress.rounds),
        facts=facts, first=first_of(game))


GLUE = GameGlue(GameProgress, summary, summary_from, ENTRY_SHAPES)
"""This game in history and statistics (:class:`companion.games.GameGlue`)."""
