"""Rebel Princess's blueprints: the phone pages (score pad, round entry, trick entry, rulings)
and the JSON API under ``/api/v1/rebel-princess/``.

The pages keep the URLs of games stored before the game shell (``/g/<code>…``); set-up and
rulings live under ``/rebel-princess/``.
"""

from __future__ import annotations

from flask import Blueprint
from sqlmodel import Session

from ...models import Game
from ...play import rebel_princess as play

bp = Blueprint("rebel_princess", __name__)
api_bp = Blueprint("rebel_princess_api", __name__, url_prefix="/api/v1/rebel-princess")

from . import api, pages, trick_pages  # noqa: E402, F401  (register the views)

OPERATIONS = api.OPERATIONS


def home_view(session: Session, game: Game) -> play.GameView:
    """What the home page shows of a game: it is replayed to say where it stands."""
    return play.view_game(session, game)
