"""A whole game of favour tokens, replayed from its rounds: the tokens board.

Rules (rulebook, seed 002, « Mise en place », « Commencer la manche suivante », « Remporter la
partie »): the first round is started by whoever wrote a handwritten letter most recently (the table
says who); each later round by the previous round's winner, or by one of the tied winners drawn at
random (the draw is made once with :func:`~.round_end.draw_first_player` and stored as the round's
``first``). Tokens add up round after round; the game ends after the round in which someone reaches
the tokens needed, and every player at or above it wins. No round can follow the end of the game.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from companion.scoring.problems import EntryError, Problem

from .cards import player_count_problem, tokens_needed
from .problems import CATALOGUE
from .round_end import RoundReveal, RoundSettlement, settle_round


class StartReason(StrEnum):
    """Why a player starts a round (shown on the tokens board)."""

    CHOSEN = "chosen"  # first round: the table's choice (latest handwritten letter)
    WON = "won"  # the previous round's only winner
    DRAWN = "drawn"  # drawn at random among the previous round's tied winners


@dataclass(frozen=True)
class StoredRound:
    """One finished round as the app keeps it: who started it and what was revealed at its end."""

    first: int
    reveal: RoundReveal


@dataclass(frozen=True)
class RoundLine:
    """One round of the history, with the tokens it gave."""

    number: int
    first: int
    first_reason: StartReason
    tokens_before: tuple[int, ...]
    settlement: RoundSettlement


@dataclass(frozen=True)
class GameProgress:
    """The tokens board: tokens per seat against the threshold, the history, what comes next."""

    players: int
    threshold: int
    rounds: tuple[RoundLine, ...]
    tokens: tuple[int, ...]
    game_over: bool
    winners: tuple[int, ...]
    next_candidates: tuple[int, ...]

    @property
    def round_number(self) -> int:
        """The number of the round being played now (or that would come next)."""
        return len(self.rounds) + 1

    @property
    def next_first(self) -> int | None:
        """Who starts the next round, or ``None`` when a draw among several is needed (or over)."""
        return self.next_candidates[0] if len(self.next_candidates) == 1 else None

    @property
    def next_reason(self) -> StartReason | None:
        if self.game_over:
            return None
        if not self.rounds:
            return StartReason.CHOSEN
        return StartReason.WON if len(self.next_candidates) == 1 else StartReason.DRAWN

    def first_problems(self, first: int) -> list[Problem]:
        """Why ``first`` cannot start the next round: ``game-already-over``,
        ``first-not-a-candidate``, ``unknown-seat``; empty if they can."""
        if self.game_over:
            return [CATALOGUE.problem("game-already-over")]
        if not isinstance(first, int) or not 0 <= first < self.players:
            return [CATALOGUE.problem("unknown-seat", value=first, players=self.players)]
        if first not in self.next_candidates:
            return [CATALOGUE.problem("first-not-a-candidate", seat=first,
                                      round=self.round_number)]
        return []


def new_game(players: int, first: int) -> GameProgress:
    """The board before the first round; raises :class:`EntryError` (``players-out-of-range``,
    ``unknown-seat``)."""
    problem = player_count_problem(players)
    if problem is not None:
        raise EntryError(problem)
    if not isinstance(first, int) or isinstance(first, bool) or not 0 <= first < players:
        raise EntryError(CATALOGUE.problem("unknown-seat", value=first, players=players))
    return GameProgress(players=players, threshold=tokens_needed(players), rounds=(),
                        tokens=(0,) * players, game_over=False, winners=(),
                        next_candidates=(first,))


def add_round(progress: GameProgress, round_: StoredRound, *,
              check_first: bool = True) -> GameProgress:
    """The board after one more round; raises :class:`EntryError` listing every problem (the
    starter, the reveal, a round after the end of the game), each with the round's number.

    With ``check_first=False`` (history already stored), a starter who is not one of the previous
    round's winners is taken as the table's choice (:attr:`StartReason.CHOSEN`) instead of being
    refused: who really started is a fact of the table, and an edit of an earlier round must not
    make the rest of the history unreadable.
    """
    number = progress.round_number
    problems = progress.first_problems(round_.first)
    if not check_first:
        problems = [p for p in problems if p.code != "first-not-a-candidate"]
    if round_.reveal.players != progress.players:
        problems.append(CATALOGUE.problem("wrong-length", field="held",
                                          expected=progress.players, got=round_.reveal.players))
    if problems:
        raise EntryError(_numbered(problems, number))
    try:
        settlement = settle_round(round_.reveal, progress.tokens)
    except EntryError as error:
        raise EntryError(_numbered(error.problems, number)) from None
    reason = progress.next_reason or StartReason.CHOSEN
    if round_.first not in progress.next_candidates:
        reason = StartReason.CHOSEN
    line = RoundLine(number, round_.first, reason, progress.tokens, settlement)
    return GameProgress(
        players=progress.players, threshold=progress.threshold, rounds=(*progress.rounds, line),
        tokens=settlement.tokens_after, game_over=settlement.game_over,
        winners=settlement.game_winners, next_candidates=settlement.next_first_candidates)


def replay_game(players: int, first: int, rounds: Sequence[StoredRound], *,
                check_first: bool = True) -> GameProgress:
    """The board after ``rounds``, each checked in turn; raises :class:`EntryError`.
    ``check_first``: see :func:`add_round`."""
    progress = new_game(players, first)
    for round_ in rounds:
        progress = add_round(progress, round_, check_first=check_first)
    return progress


def _numbered(problems: Sequence[Problem], number: int) -> list[Problem]:
    return [CATALOGUE.problem(p.code, seat=p.seat, card=p.card, **{**p.params, "round": number})
            for p in problems]
