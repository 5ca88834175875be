"""Love Letter « Princesse Princesse »'s blueprints: the phone pages under ``/princesse-princesse/``
(set-up, tokens board, round end, turn log, history) and the stateless JSON API under
``/api/v1/princesse-princesse/`` (``round-end`` and ``turn-log``)."""

from __future__ import annotations

from flask import Blueprint

from ...history import GameSummary
from ...models import Game

bp = Blueprint("princesse_princesse", __name__)
api_bp = Blueprint("princesse_princesse_api", __name__)

from . import api, pages  # noqa: E402, F401  (register the views)

OPERATIONS = api.OPERATIONS


def home_view(game: Game, summary: GameSummary) -> GameSummary:
    """What the home page shows of a game (who won, else the round being played): its stored
    summary, no replay."""
    return summary
