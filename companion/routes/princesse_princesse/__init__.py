"""Love Letter « Princesse Princesse »'s blueprints: the phone pages under ``/princesse-princesse/``
(set-up, tokens board, round end, turn log, history) and the stateless JSON API under
``/api/v1/princesse-princesse/`` (``round-end`` and ``turn-log``)."""

from __future__ import annotations

from flask import Blueprint
from sqlmodel import Session

from ...models import Game
from ...play import princesse_princesse as play

bp = Blueprint("princesse_princesse", __name__, url_prefix="/princesse-princesse")
api_bp = Blueprint("princesse_princesse_api", __name__,
                   url_prefix="/api/v1/princesse-princesse")

from . import api, pages  # noqa: E402, F401  (register the views)

OPERATIONS = api.OPERATIONS


def home_view(session: Session, game: Game) -> play.GameView:
    """What the home page shows of a game: it is replayed to say where it stands."""
    return play.view_game(session, game)
