"""Live updates: every open page of a game asks ``/live/<token>`` every second whether the game
changed (a conditional request answered 304 while nothing did) and reloads when it did.

Behind a proxy that pushes (:mod:`companion.play.push`), a viewer's page swaps in the live part
each change brings, drawn here once per change and language (:func:`viewer_part`): the part of
the page between ``LIVE_PART`` and ``LIVE_PART_END`` (base.html), as that viewer would load it.

The polls are answered before Flask's request cycle by :mod:`companion.web.polls` (installed with
this blueprint); the view below gives the same answer, and answers what the fast path leaves to
Flask (a token that opens nothing: the 404 page)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import (
    Blueprint,
    Flask,
    current_app,
    g,
    has_request_context,
    request,
    url_for,
)
from werkzeug.wrappers import Response

from ..db import get_engine, get_session
from ..games import by_key
from ..play import push, store
from ..web import polls
from ..web.i18n import current_lang
from .closed import closed_or_404
from .page_store import live_links_read, version_of

bp = Blueprint("live", __name__)


@bp.record_once
def _fast_path(state: Any) -> None:
    app: Flask = state.app
    polls.install(app)


@bp.app_context_processor
def _live_context() -> dict[str, Any]:
    """What a page opened through a link follows: the address it polls, the version it shows."""
    link = g.get("link")
    part_only = bool(g.get("live_part_only"))
    if link is None:
        return {"live_url": None, "live_part_only": part_only}
    # The game's own page through the viewer link: the one page every viewer holds alike.
    viewer = link.role == "viewer" and request.endpoint == _page_endpoint(g.link_game.kind)
    return {"live_url": url_for("live.live", token=link.token),
            "live_version": version_of(g.link_game),
            "live_part": viewer, "live_part_only": part_only and viewer,
            # (the part drawn alone has no page around it to listen)
            "push_url": None if part_only else push.subscribe_url(
                get_engine(), g.link_game.id, current_lang() if viewer else None,
                live_links_read(g.link_game.id))}


def _page_endpoint(kind_key: str) -> str | None:
    """The endpoint of a game's own page (``/g/<code>``), whose viewers get its part pushed."""
    kind = by_key(kind_key)
    return f"{kind.pages().bp.name}.show" if kind is not None else None


LIVE_PART = '<div class="live-part" data-live-part>'
LIVE_PART_END = "<!--/live-part-->"
"""Around a viewer's page's live part (base.html): what a pushed change swaps in (app.js)."""


def viewer_part(app: Flask) -> Callable[[int, str], str | None]:
    """What draws the viewers' live part of a game in a language for ``app``'s publisher: the
    game's page opened through its viewer link, as a phone in that language with no cookie
    would load it — through the same view — and only its live part: base.html draws the content
    alone (``live_part_only``), without the page around it, and the page store is neither read
    nor written (a phone that holds a stream is sent the part and loads no page; one that loads
    the page draws and keeps it, as after any change). The address is the one the change came
    through (its host and scheme), else ``PUBLIC_URL``. What belongs to one browser (its CSRF
    token, its forms' keys) is the drawing request's: each page puts its own back (app.js)."""

    def draw(game_id: int, lang: str) -> str | None:
        base = request.host_url if has_request_context() else str(
            app.config.get("PUBLIC_URL") or "http://localhost/")
        with app.app_context():
            # (read with the version after the commit; else, drawn another way, read here)
            found = push.viewer_being_drawn(game_id) or store.viewer_link(get_session(), game_id)
            endpoint = _page_endpoint(found[0]) if found is not None else None
            if found is None or endpoint is None:
                return None
            path = app.url_map.bind("localhost").build(endpoint, {"code": found[1]})
            # A context of its own (its own g, session and request): the change's request, if
            # any, goes on untouched once this one is popped.
            with app.test_request_context(path, base_url=base,
                                          headers={"Accept-Language": lang}):
                g.live_part_only = True
                # The checks a load passes and the view; not the after-request steps: their
                # headers, access line and counts are for an answer sent, and this one never is
                # (about 8 % of a drawing's CPU).
                answer = app.preprocess_request()
                response = app.make_response(answer if answer is not None
                                             else app.dispatch_request())
        if response.status_code != 200:
            return None
        page = response.get_data(as_text=True)
        if not page.lstrip().startswith("<!doctype"):
            return page  # the part alone (base.html)
        start = page.find(LIVE_PART)
        end = page.find(LIVE_PART_END, start)
        return page[start + len(LIVE_PART):end] if 0 <= start < end else None

    return draw


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
