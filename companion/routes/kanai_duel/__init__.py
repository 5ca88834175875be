"""The Kanai duel's blueprints: its phone pages under ``/kanai-duel/`` (set-up, a game in referee
or two-phone mode, live updates) and its JSON API under ``/api/v1/kanai-duel/``."""

from __future__ import annotations

from dataclasses import dataclass

from sqlmodel import Session

from ...history import N_, Fact, GameSummary, ScoreUnit
from ...history.summary import running_totals
from ...models import Game
from ...play import kanai_duel as play
from ...scoring.kanai_duel import Duel, Result
from . import api, pages  # noqa: F401  (register the views)
from .blueprints import api_bp as api_bp  # (the registry asks the package for both)
from .blueprints import bp as bp

OPERATIONS = api.OPERATIONS


@dataclass(frozen=True)
class DuelHome:
    """What the home page shows of a duel: the score, then who won (``winner`` None and
    ``finished``: a draw), else the next round's number."""

    score: tuple[int, ...]
    finished: bool
    winner: int | None
    round_number: int
    by_princess: bool = False  # won at once: the Princess met the Prince (the score says nothing)


def home_view(game: Game, summary: GameSummary) -> DuelHome:
    """What the home page shows of a game, from its stored summary (no replay)."""
    by_princess = any(fact.key == "wins-by-princess" and any(fact.values) for fact in summary.facts)
    return DuelHome(summary.scores, summary.finished,
                    summary.winners[0] if summary.winners else None, len(summary.progress) + 1,
                    by_princess)


def summary(session: Session, game: Game) -> GameSummary:
    """What a duel came to, for history and statistics: round wins round by round, the winner
    (none on a draw), and whether the Princess won it against the Prince."""
    return summary_from(game, play.view_game(session, game).duel)


def summary_from(_game: Game, duel: Duel) -> GameSummary:
    """:func:`summary` of the game replayed as ``duel`` (a save's own replay, see
    :func:`companion.play.store.note_replay`)."""
    outcome = duel.outcome()
    winners = (outcome.winner,) if outcome is not None and outcome.winner is not None else ()
    by_princess = outcome is not None and outcome.result is Result.PRINCESS
    return GameSummary(
        finished=outcome is not None, winners=winners, scores=tuple(duel.score()),
        unit=ScoreUnit.ROUND_WINS,
        progress=running_totals([r.points for r in duel.results]),
        facts=(Fact("wins-by-princess", N_("Wins by the Princess"),
                    tuple(int(by_princess and seat in winners) for seat in range(2))),))
