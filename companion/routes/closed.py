"""A link that opens nothing any more is told why: the group is closed to this phone (its links
were replaced), or the game is gone (its group was deleted) — a page of its own, still a 404 —
rather than a bare "not found"; ``/live`` answers such a link 410, which makes the page that
polls it reload and say why. A save that reaches a game deleted while it was on its way is told
the game is gone (410), never answered 500.
"""

from __future__ import annotations

from typing import NoReturn

from flask import Blueprint, abort, g, make_response, render_template
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm.exc import ObjectDeletedError, StaleDataError

from ..db import get_session
from ..play import closed, store
from ..play.closed import Closed

bp = Blueprint("closed", __name__)
"""No page of its own: what a link that closed, or a game deleted under a save, is answered
with, app-wide."""

GONE = Closed("game", "deleted")


def page(found: Closed, status: int = 410) -> tuple[str, int]:
    """The page that says why a link opens nothing: nothing of the game or the group on it
    (what the request had opened may be deleted rows)."""
    for name in ("link", "link_game", "group"):
        g.pop(name, None)
    return render_template("errors/closed.html", closed=found), status


def closed_or_404(token: str, status: int = 404) -> NoReturn:
    """Abort with a 404 (or ``status``): the page saying why, if ``token`` opened something
    here once (the group closed to this phone, the game gone); else the plain "not found"."""
    found = closed.why_closed(get_session(), token)
    if found is None:
        abort(404)
    abort(make_response(*page(found, status)))


@bp.app_errorhandler(store.GameGone)
def _gone(_error: store.GameGone) -> tuple[str, int]:
    return page(GONE)


def deleted_meanwhile() -> bool:
    """Whether the game this request opened through its link was deleted since (its group
    deleted while the request was under way)."""
    game = g.get("link_game")
    if game is None:
        return False
    try:
        store.check_still_there(get_session(), game)
    except store.GameGone:
        return True
    return False


@bp.app_errorhandler(IntegrityError)
@bp.app_errorhandler(StaleDataError)
@bp.app_errorhandler(ObjectDeletedError)
def _refused_write(error: IntegrityError | StaleDataError | ObjectDeletedError
                   ) -> tuple[str, int]:
    """A write the database refused, or a row found gone: the game deleted meanwhile is said
    so; anything else is the server's error (raised again: a 500, logged)."""
    if deleted_meanwhile():
        return page(GONE)
    raise error
