"""« Réveillez les 12 princesses »: the phone pages (set-up, the table, history) and the stateless
JSON API under ``/api/v1/reveillez/`` (standings, jester, discard)."""

from __future__ import annotations

from flask import Blueprint
from sqlmodel import Session

from ...models import Game
from ...play import reveillez as play

bp = Blueprint("reveillez", __name__, url_prefix="/reveillez")
api_bp = Blueprint("reveillez_api", __name__, url_prefix="/api/v1/reveillez")

from . import api, pages  # noqa: E402, F401  (register the views)

OPERATIONS = api.OPERATIONS


def home_view(session: Session, game: Game) -> play.TableView:
    """What the home page shows of a game: it is replayed to say where it stands."""
    return play.view_game(session, game)
