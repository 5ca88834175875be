"""Live updates: every open page of a game asks ``/live/<token>`` every second whether the game
changed (a conditional request answered 304 while nothing did) and reloads when it did.

Behind a proxy that pushes (:mod:`companion.play.push`), a viewer's page swaps in the live part
each change brings, drawn here once per change and language (:func:`viewer_part`): the part of
the page between ``LIVE_PART`` and ``LIVE_PART_END`` (base.html), as that viewer would load it.

The polls are answered before Flask's request cycle by :mod:`companion.web.polls` (installed with
this blueprint); the view below gives the same answer, and answers what the fast path leaves to
Flask (a token that opens nothing: the 404 page)."""

from __future__ import annotations

import io
import urllib.parse
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
from markupsafe import Markup
from werkzeug.wrappers import Response

from ..db import get_engine, get_session
from ..play import push, store, versions
from ..web import metrics, polls
from ..web.i18n import current_lang
from ..web.requests import itself
from . import links, page_store
from .closed import closed_or_404
from .links import SAFE_METHODS
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
        return {"live_url": None, "live_part_only": part_only, "part_marks": None}
    game = g.link_game
    if page_store.sharing():  # (the page drawn for its scorer and viewers: page_store)
        return _shared_live_context(game)
    # The game's own page through the viewer link: the one page every viewer holds alike.
    viewer = link.role == "viewer" and request.endpoint == _page_endpoint(game.kind)
    return {"live_url": url_for("live.live", token=link.token),
            "live_version": version_of(game),
            "live_part": viewer, "live_part_only": part_only and viewer, "part_marks": None,
            # (the part drawn alone has no page around it to listen)
            "push_url": None if part_only else push.subscribe_url(
                get_engine(), game.id, current_lang() if viewer else None,
                live_links_read(game.id))}


def _shared_live_context(game: Any) -> dict[str, Any]:
    """:func:`_live_context` for the game's own page drawn to be shared between its scorer link
    and its viewer link (routes/page_store.py): the link's token marked, the content between
    the part's marks, the viewers' live part's box and stream theirs, the scorer's its own."""
    mark = page_store.link_mark()
    ids = live_links_read(game.id)
    scorer = push.subscribe_url(get_engine(), game.id, None, ids)
    viewers = push.subscribe_url(get_engine(), game.id, current_lang(), ids)
    return {"live_url": url_for("live.live", token=mark), "live_version": version_of(game),
            "live_part": False, "live_part_only": False,
            "part_marks": (page_store.for_role(Markup(LIVE_PART), "viewers") + page_store.PART,
                           page_store.PART_END + page_store.for_role(
                               Markup(f"{LIVE_PART_END}</div>"), "viewers")),
            "push_url": scorer if scorer == viewers else Markup(
                page_store.for_role(scorer or "", "scorer")
                + page_store.for_role(viewers or "", "viewers"))}


@bp.app_template_filter("for_scorer")
def _for_scorer(text: str) -> str:
    """A page's bits for its scorer only (``{% filter for_scorer %}…{% endfilter %}``)."""
    return page_store.for_role(text, "scorer")


@bp.app_template_filter("for_viewers")
def _for_viewers(text: str) -> str:
    """A page's bits for everyone but its scorer (``{% filter for_viewers %}…{% endfilter %}``)."""
    return page_store.for_role(text, "viewers")


_page_endpoint = page_store.page_endpoint
"""The endpoint of a game's own page (``/g/<code>``), whose viewers get its part pushed."""


LIVE_PART = '<div class="live-part" data-live-part>'
LIVE_PART_END = "<!--/live-part-->"
"""Around a viewer's page's live part (base.html): what a pushed change swaps in (app.js)."""
SHARED_KINDS = page_store.SHARED_KINDS
_BODY = ("CONTENT_TYPE", "CONTENT_LENGTH", "HTTP_CONTENT_TYPE", "HTTP_CONTENT_LENGTH",
         "werkzeug.request")


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
        try:
            shared = _shared_part(app, game_id, lang)
        except Exception:  # (drawn through the viewer link instead, as without it)
            app.logger.warning("viewers' part not shared: drawing it", exc_info=True)
            shared = None
        if shared is not None:
            metrics.count_push_part("shared")
            return shared
        metrics.count_push_part("drawn")
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
                g.saved_game = push.saved_being_drawn(game_id)  # (if noted: nothing read)
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


def _shared_part(app: Flask, game_id: int, lang: str) -> str | None:
    """The viewers' part of game ``game_id`` in ``lang`` taken from the scorer's page, drawn
    once for both, when this request is the scorer's write to that game in that language (a
    game of :data:`SHARED_KINDS`), else None.

    The scorer's browser is sent to its page after the write (a form's, not htmx's: that one
    answers a partial): that page is drawn here, as its next request would draw it (the same
    link, cookies, language, colours and host: the page store's name for it), and kept in the
    page store, so that request finds it drawn.
    The drawing has a mark for the link's token in its game URLs and its content marked
    (:func:`page_store.shared_drawing`); the viewers' part is that content with the viewer
    link's token in the mark's places and the scorer's bits dropped. Nobody where they don't
    belong: a part that holds any other live link's token, or this request's, or the CSRF
    token of the scorer's browser, is never published (counted ``refused``; the part is drawn
    through the viewer link)."""
    if (not has_request_context() or request.method in SAFE_METHODS
            or request.headers.get("HX-Request") == "true"):
        return None  # (an htmx write answers a partial: the scorer's page is not asked next)
    link, game = g.get("link"), g.get("link_game")
    viewer = push.viewer_being_drawn(game_id)
    tokens = push.tokens_being_drawn(game_id)
    if (link is None or game is None or game.id != game_id or link.role != "scorer"
            or viewer is None or tokens is None or viewer[0] not in SHARED_KINDS
            or ("scorer", link.token) not in tokens or current_lang() != lang
            or not page_store.drawn_once()):
        return None
    endpoint = _page_endpoint(viewer[0])
    if endpoint is None:
        return None
    environ = {key: value for key, value in request.environ.items() if key not in _BODY}
    environ.update({"REQUEST_METHOD": "GET", "QUERY_STRING": "", "wsgi.input": io.BytesIO(),
                    "PATH_INFO": app.url_map.bind("localhost").build(
                        endpoint, {"code": link.token})})
    with app.app_context():
        # Its own context (g, session, request) over a copy of the write's: the scorer's GET.
        with app.request_context(environ):
            # (what the save left, if it noted it: nothing read or replayed again, links.py)
            g.saved_game = push.saved_being_drawn(game_id)
            drawn = page_store.shared_drawing()
            answer = app.preprocess_request()
            response = app.make_response(answer if answer is not None
                                         else app.dispatch_request())
    drawing = drawn.get("drawing")
    if response.status_code != 200 or drawing is None:
        return None
    # (the write's own g again: its answer may be this page, :func:`_answer_with_the_page`)
    g.page_of_the_write = (environ["PATH_INFO"], endpoint, drawing, link.role, link.token)
    part = page_store.viewers_part(drawing, viewer[1])
    if part is None:
        return None
    # (and the CSRF token of the scorer's browser the page was drawn with: marked out above)
    kept_out = [token for role, token in tokens if token != viewer[1]] + [
        link.token, drawn.get("csrf") or link.token]
    if any(token in part for token in kept_out):
        metrics.count_push_part("refused")
        app.logger.warning("viewers' part taken from the scorer's page refused: drawn again")
        return None
    return part


OUTBOX_HEADER = "Companion-Outbox"
"""Sent with a save by the phone's outbox (drafts.js) with the value ``page``: it can take the
page the save leads to in the answer (:func:`_answer_with_the_page`)."""
PAGE_HEADER = "Companion-Page"
"""On a save answered with its page (200): the address of that page."""


@bp.after_app_request
def _answer_with_the_page(response: Response) -> Response:
    """A save the outbox sent (:data:`OUTBOX_HEADER`) that drew the page it leads to while it
    was stored — the scorer link's write of a game of :data:`SHARED_KINDS`, drawn for the
    viewers' part (:func:`_shared_part`) and kept in the page store for the scorer's next
    request — is answered 200 with that page and its address (:data:`PAGE_HEADER`) instead of
    its redirect (302 or 303): the phone shows it without asking for it. It is the page that
    request would get: this browser's CSRF token and flashed messages, new form keys, the
    page's own ``Cache-Control``, the game first on this phone's list. Any other answer (a
    refusal, a seat's write, a page not drawn, a redirect elsewhere, a client that did not
    ask) goes as it is."""
    kept = itself(g).get("page_of_the_write")  # (read once: see web.requests.itself)
    if (kept is None or response.status_code not in (302, 303)
            or itself(request).headers.get(OUTBOX_HEADER) != "page"):
        return response
    path, endpoint, drawing, role, token = kept
    location = response.headers.get("Location", "")
    where = urllib.parse.urlsplit(location)
    if ((where.scheme and where.scheme != request.scheme) or where.netloc not in ("", request.host)
            or where.path != request.script_root + path or where.query):
        return response
    try:
        page = page_store.page_of(drawing, role, token)
    except Exception:  # (the save is stored: its redirect, as without this)
        current_app.logger.warning("page not put in the save's answer", exc_info=True)
        return response
    if "\x00" in page:  # (a mark left: not a page to show)
        return response
    answer = current_app.response_class(page, mimetype="text/html")
    answer.headers[PAGE_HEADER] = location
    if links.not_stored(endpoint):
        answer.headers["Cache-Control"] = "no-store"
    for cookie in response.headers.getlist("Set-Cookie"):
        answer.headers.add("Set-Cookie", cookie)
    links.opened(token)
    return answer


@bp.get("/live/<token>")
def live(token: str) -> Response:
    """The game's version, for the pages that follow it: 304 while nothing has changed."""
    version = versions.version_by_token(get_engine(), token)
    if version is None:
        closed_or_404(token, 410)  # a link that closed: the page reloads and says why
    response = current_app.response_class(version, mimetype="text/plain")
    response.set_etag(version)
    response.headers["Cache-Control"] = "no-cache"
    return response.make_conditional(request)
