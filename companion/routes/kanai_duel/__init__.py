"""The Kanai duel's blueprints: its phone pages under ``/kanai-duel/`` (set-up, a game in referee
or two-phone mode, live updates) and its JSON API under ``/api/v1/kanai-duel/``."""

from __future__ import annotations

from dataclasses import dataclass

from ...games import GamePages
from ...history import GameSummary
from ...models import Game
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



PAGES = GamePages(bp=bp, api_bp=api_bp, operations=OPERATIONS, home_view=home_view)
"""What the shell mounts and calls of this game (:class:`companion.games.GamePages`)."""
