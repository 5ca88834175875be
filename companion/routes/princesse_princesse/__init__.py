"""Love Letter « Princesse Princesse »'s blueprints: the phone pages under ``/princesse-princesse/``
(set-up, tokens board, round end, turn log, history) and the stateless JSON API under
``/api/v1/princesse-princesse/`` (``round-end`` and ``turn-log``)."""

from __future__ import annotations

from ...games import GamePages
from ...history import GameSummary
from ...models import Game
from . import api, pages  # noqa: F401  (register the views)
from .blueprints import api_bp as api_bp  # (the registry asks the package for both)
from .blueprints import bp as bp

OPERATIONS = api.OPERATIONS


def home_view(game: Game, summary: GameSummary) -> GameSummary:
    """What the home page shows of a game (who won, else the round being played): its stored
    summary, no replay."""
    return summary


PAGES = GamePages(bp=bp, api_bp=api_bp, operations=OPERATIONS, home_view=home_view)
"""What the shell mounts and calls of this game (:class:`companion.games.GamePages`)."""
