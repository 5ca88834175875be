"""Live updates: every open page of a game asks ``/live/<token>`` every second whether the game
changed (a conditional request answered 304 while nothing did) and reloads when it did.

The polls are answered before Flask's request cycle by :mod:`companion.web.polls` (installed with
this blueprint); the view below gives the same answer, and answers what the fast path leaves to
Flask (a token that opens nothing: the 404 page)."""

from __future__ import annotations

from typing import Any

from flask import (
    Blueprint,
    Flask,
    current_app,
    g,
    request,
    url_for,
)
from werkzeug.wrappers import Response

from ..db import get_engine
from ..play import store
from ..web import polls
from .closed import closed_or_404
from .page_store import version_of

bp = Blueprint("live", __name__)


@bp.record_once
def _fast_path(state: Any) -> None:
    app: Flask = state.app
    polls.install(app)


@bp.app_context_processor
def _live_context() -> dict[str, Any]:
    """What a page opened through a link follows: the address it polls, the version it shows."""
    link = g.get("link")
    if link is None:
        return {"live_url": None}
    return {"live_url": url_for("live.live", token=link.token),
            "live_version": version_of(g.link_game)}


@bp.get("/live/<token>")
def live(token: str) -> Response:
    """The game's version, for the pages that follow it: 304 while nothing has changed."""
    version = store.version_by_token(get_engine(), token)
    if version is None:
        closed_or_404(token, 410)  # a link that closed: the page reloads and says why
    response = current_app.response_class(version, mimetype="text/plain")
    response.set_etag(version)
    response.headers["Cache-Control"] = "no-cache"
    return response.make_conditional(request)
