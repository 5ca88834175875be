"""« Réveillez les 12 princesses »: the phone pages (set-up, the table, history) and the stateless
JSON API under ``/api/v1/reveillez/`` (standings, jester, discard)."""

from __future__ import annotations

from ...games import GamePages
from ...history import GameSummary
from ...models import Game
from ...scoring.reveillez import PRINCESSES
from . import api, pages  # noqa: F401  (register the views)
from .blueprints import api_bp as api_bp  # (the registry asks the package for both)
from .blueprints import bp as bp

OPERATIONS = api.OPERATIONS


def home_view(game: Game, summary: GameSummary) -> int:
    """What the home page shows of a game besides its summary: how many princesses are still
    asleep (the twelve less those in front of the players: the summary's
    ``princesses-when-winning`` fact holds each seat's), with no replay."""
    held = next((f.values for f in summary.facts if f.key == "princesses-when-winning"), ())
    return PRINCESSES - sum(held)


PAGES = GamePages(bp=bp, api_bp=api_bp, operations=OPERATIONS, home_view=home_view)
"""What the shell mounts and calls of this game (:class:`companion.games.GamePages`)."""
