"""The Kanai duel's blueprints: its phone pages under ``/kanai-duel/`` (set-up, a game in referee
or two-phone mode, live updates) and its JSON API under ``/api/v1/kanai-duel/``."""

from __future__ import annotations

from flask import Blueprint
from sqlmodel import Session

from ...models import Game
from ...play import kanai_duel as play

bp = Blueprint("kanai_duel", __name__, url_prefix="/kanai-duel")
api_bp = Blueprint("kanai_duel_api", __name__, url_prefix="/api/v1/kanai-duel")

from . import api, pages  # noqa: E402, F401  (register the views)

OPERATIONS = api.OPERATIONS


def home_view(session: Session, game: Game) -> play.DuelView:
    """What the home page shows of a game: replayed, as an onlooker sees it."""
    return play.view_game(session, game)
