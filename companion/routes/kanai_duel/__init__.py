"""The Kanai duel's blueprints: its phone pages under ``/kanai-duel/`` (set-up, a game in referee
or two-phone mode, live updates) and its JSON API under ``/api/v1/kanai-duel/``."""

from __future__ import annotations

from dataclasses import dataclass

from flask import Blueprint

from ...history import GameSummary
from ...models import Game

bp = Blueprint("kanai_duel", __name__)
api_bp = Blueprint("kanai_duel_api", __name__)

from . import api, pages  # noqa: E402, F401  (register the views)

OPERATIONS = api.OPERATIONS


@dataclass(frozen=True)
class DuelHome:
    """What the home page shows of a duel: the score, then who won (``winner`` None and
    ``finished``: a draw), else the next round's number."""

    score: tuple[int, ...]
    finished: bool
    winner: int | None
    round_number: int


def home_view(game: Game, summary: GameSummary) -> DuelHome:
    """What the home page shows of a game, from its stored summary (no replay)."""
    return DuelHome(summary.scores, summary.finished,
                    summary.winners[0] if summary.winners else None, len(summary.progress) + 1)
