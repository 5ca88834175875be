"""Who may open a game, and as what: scorer and viewer links, and sharing them.

Every game of every kind is opened through a link token (``/…/g/<token>…``), never through its
code: a **scorer** link may enter, edit and undo; a **viewer** link only watches. The shell
resolves the token before any game view runs (the view receives the game's code, as it always
has), refuses every write from a viewer link (403), and writes the token back into every game
URL the page builds, so the games' own code never deals with links. A guessed, replaced or
missing token is a 404; so is a game's code alone, except for the browser that created or
opened that game before links existed (it is sent on to the scorer link).

The other phones open a game from its QR code (:mod:`companion.routes.qr`), at the address they
can reach (:mod:`companion.routes.addresses`); every open view of a game follows it through
:mod:`companion.routes.live`, and is drawn once for every phone
(:mod:`companion.routes.page_store`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from flask import (
    Blueprint,
    abort,
    current_app,
    flash,
    g,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from flask_babel import gettext as _
from flask_wtf import FlaskForm
from sqlmodel import col, select
from werkzeug.wrappers import Response

from ..db import get_session
from ..games import by_key
from ..models import Game, GameLink, Group, Person, Player
from ..play import page_reads, store, summaries
from ..web.requests import itself
from .addresses import game_address, public_base
from .closed import closed_or_404
from .qr import qr_svg

bp = Blueprint("links", __name__)

SAFE_METHODS = ("GET", "HEAD", "OPTIONS")
REMEMBERED = 30
"""How many games a phone remembers (the newest opened first)."""
CODE_MAX = 16
"""No game code is longer (``Game.code``); a link token is 32 characters."""


# --- what this browser remembers ------------------------------------------------------------------

def remembered() -> list[str]:
    """This browser's games, newest first: link tokens (and, from before links, game codes)."""
    items = session.get("games", [])
    return [i for i in items if isinstance(i, str)] if isinstance(items, list) else []


def _put_first(item: str, *, instead_of: str | None = None) -> None:
    items = [i for i in remembered() if i not in (item, instead_of)]
    updated = [item, *items][:REMEMBERED]
    if updated != remembered():
        session["games"] = updated


def remember(code_or_token: str) -> None:
    """Put a game first on this phone's list: a link token, or the code of a game this browser
    has just created (it keeps the scorer link)."""
    db = get_session()
    if store.link_by_token(db, code_or_token) is not None:
        _put_first(code_or_token)
        return
    game = store.get_game(db, code_or_token)
    if game is not None:
        _put_first(store.links_of(db, game)["scorer"].token, instead_of=code_or_token)


RENAMED = "companion.links_renamed"
"""``app.extensions[RENAMED]``: what each game does when links this browser holds are replaced
(a list of functions taking ``{old token: new token}``; the duel keeps its seats)."""


def keep_renamed(renamed: dict[str, str]) -> None:
    """After links were replaced by this browser (a group's links all at once): it keeps the new
    ones — its remembered games, in the same order, and whatever each game kept per link."""
    items = remembered()
    updated = [renamed.get(item, item) for item in items]
    if updated != items:
        session["games"] = updated
        g.pop("my_links", None)
    for hook in current_app.extensions.get(RENAMED, ()):
        hook(renamed)


def my_links() -> list[tuple[GameLink, Game]]:
    """This browser's games with the link it holds, newest first (old codes upgraded): one
    query for every link (a code from before links costs one more), read once per request."""
    items = tuple(remembered())
    known = g.get("my_links")
    if known is not None and known[0] == items:
        return list(known[1])
    db = get_session()
    tokens = [item for item in items if CODE_MAX < len(item) <= 64]
    by_token: dict[str, tuple[GameLink, Game]] = {
        link.token: (link, game) for link, game in db.exec(
            select(GameLink, Game).join(Game, col(Game.id) == col(GameLink.game_id))
            .where(col(GameLink.token).in_(tokens), col(GameLink.revoked_at).is_(None)))
    } if tokens else {}
    found: list[tuple[GameLink, Game]] = []
    for item in items:
        pair = by_token.get(item)
        if pair is None and len(item) <= CODE_MAX:
            game = store.get_game(db, item)
            pair = (store.links_of(db, game)["scorer"], game) if game is not None else None
        if pair is not None and all(pair[1].id != other.id for _, other in found):
            found.append(pair)
    g.my_links = (items, tuple(found))
    return found


def game_url(game: Game, role: str = "viewer") -> str:
    """The address of a stored game's page through its ``role`` link (``viewer``: read-only),
    for lists such as history that show games this phone may not have opened."""
    kind = by_key(game.kind)
    if kind is None or not kind.show_endpoint:
        return url_for("shell.index")
    token = g.get("viewer_tokens", {}).get(game.id) if role == "viewer" else None
    if token is None:
        token = store.links_of(get_session(), game)[role].token
    return url_for(kind.show_endpoint, code=token)


def know_viewer_links(games: Iterable[Game]) -> None:
    """Read the viewer links of a list's games in one query (kept for this request), so that
    :func:`game_url` and ``record_url`` link each without a query of its own."""
    ids = [game.id for game in games if game.id is not None]
    known = g.setdefault("viewer_tokens", {})
    known.update(summaries.viewer_tokens(get_session(), [i for i in ids if i not in known]))


# --- playing again with the same table ----------------------------------------------------------

AGAIN = "again"
"""The query parameter of a game's set-up page that names the game to play again (a link token)."""


def game_to_play_again(kind_key: str) -> tuple[Game, list[str]] | None:
    """The game a set-up page was asked to start again from, and its players' names in seat
    order: ``?again=<token>`` with a live scorer or viewer link of a game of this kind. Anything
    else (no token, a guessed or replaced one, a game's code, another game's link) is None: the
    page shows the empty set-up, as if nothing had been asked."""
    token = request.args.get(AGAIN, "")
    if not token or len(token) <= CODE_MAX:  # a game's code opens nothing, here as anywhere
        return None
    db = get_session()
    found = store.link_and_game(db, token)
    if found is None or found[1].kind != kind_key:
        return None
    game = found[1]
    # Each seat's person as the group knows them now (a rename or a merge since is followed; a
    # second "Ana" at that table is "Ana 2"): the same names typed again find the same people.
    names = db.exec(select(Person.name).join(Player, col(Player.person_id) == col(Person.id))
                    .where(Player.game_id == game.id).order_by(col(Player.seat))).all()
    return game, list(names)


# --- resolving a link before a game's view runs -------------------------------------------------

@bp.app_url_value_preprocessor
def _open_by_link(endpoint: str | None, values: dict[str, Any] | None) -> None:
    if not endpoint or not values or "code" not in values:
        return
    kind = by_key(endpoint.partition(".")[0])
    if kind is None:
        return
    token = str(values["code"])
    method = itself(request).method
    view = itself(current_app).view_functions.get(endpoint)
    db = get_session(reads_only=method in SAFE_METHODS and _marked(endpoint, "reads_only", view))
    # A page only reads: its link and game through Core (a page from the page store then
    # loads no ORM object); a write that only appends entries (:func:`appends`) reads them
    # through Core too, in its transaction; any other write reads them into the session it
    # writes with.
    # (a page drawn after a save that noted its game, routes/live.py: nothing read again)
    saved = itself(g).get("saved_game") if method in SAFE_METHODS else None
    found = saved.opened_by(token) if saved is not None else None
    if saved is not None and found is not None:
        store.know_saved(db, saved)
    else:
        found = page_reads.link_and_game_to_read(db, token) if method in SAFE_METHODS \
            else store.link_and_game_to_append(db, token, entries=not _marked(
                endpoint, "appends_records", view)) if _marked(endpoint, "appends", view) \
            else store.link_and_game(db, token)
    if found is not None:
        link, game = found
        if game.kind != kind.key:
            abort(404)
        kept = itself(g)
        kept.link, kept.link_game = link, game
        values["code"] = game.code
        if link.role != "scorer" and method not in SAFE_METHODS and not (
                link.role in store.SEAT_ROLES and _marked(endpoint, "for_seats", view)):
            abort(403)
        return
    if token in remembered():  # the creator's browser, with an address from before links
        remembered_game = store.get_game(db, token, kind.key)
        if remembered_game is not None:
            scorer = store.links_of(db, remembered_game)["scorer"]
            _put_first(scorer.token, instead_of=token)
            abort(redirect(url_for(endpoint, **{**values, "code": scorer.token}),
                           307 if request.method not in SAFE_METHODS else 302))
    closed_or_404(token)


def for_seats(view: Callable[..., Any]) -> Callable[..., Any]:
    """Mark a game's write view that a seat's link may post to (it acts for that seat only; the
    view checks which seat, see :mod:`companion.play.kanai_duel`). Every other write refuses a
    seat's link, as it refuses a viewer's."""
    vars(view)["for_seats"] = True
    return view


def appends(view: Callable[..., Any]) -> Callable[..., Any]:
    """Mark a game's write view whose every write is :func:`companion.play.store.append` (an
    entry, the game's stamp and summary, through Core; Rebel Princess's round record is written
    the same way) and which changes no ORM object of the link or the game: its link and game
    are read without loading them into the session (see
    :func:`companion.play.store.link_and_game_to_append`), and the save runs on a connection of
    its own (:func:`companion.db.open_save`). Every check of the link (its role, its game's
    kind) is the same."""
    vars(view)["appends"] = True
    return view


def appends_records(view: Callable[..., Any]) -> Callable[..., Any]:
    """:func:`appends` for a view of a game that keeps its rounds as records, not entries
    (Rebel Princess's round saves and undo): its first read brings no entries."""
    vars(view)["appends_records"] = True
    return appends(view)


def reads_only(view: Callable[..., Any]) -> Callable[..., Any]:
    """Mark a game's page whose GET only reads the database (its own page, which every phone at
    the table loads after each change): the request's session reads through the polls' reader
    on PostgreSQL (:func:`companion.db.get_session`'s ``reads_only``). Such a view never
    writes."""
    vars(view)["reads_only"] = True
    return view


def _marked(endpoint: str, mark: str, view: Any = None) -> bool:
    """Whether the view of ``endpoint`` (``view``, when the caller has found it) carries
    ``mark`` (:func:`for_seats`, :func:`appends`, :func:`reads_only`)."""
    if view is None:
        view = itself(current_app).view_functions.get(endpoint)
    return bool(getattr(view, mark, False))


@bp.app_url_defaults
def _token_in_urls(endpoint: str, values: dict[str, Any]) -> None:
    """A game URL built with the game's code gets the token this page was opened with (while a
    page is drawn to be shared by the link's roles, the mark each puts its own token in:
    :func:`companion.routes.page_store.link_mark`)."""
    if "code" not in values or by_key(endpoint.partition(".")[0]) is None:
        return
    if len(str(values["code"])) > CODE_MAX:
        return  # already a link token (32 hex digits): no game code is that long
    kept = itself(g)  # (read once: every URL of a page comes here, see web.requests.itself)
    game = kept.get("link_game")
    if game is not None and values["code"] == game.code:
        values["code"] = kept.get("link_mark") or kept.link.token
        return
    mine = kept.get("mine_by_code")
    if mine is None and itself(session).get("games"):
        mine = kept.mine_by_code = {game.code: link.token for link, game in my_links()}
    if mine and values["code"] in mine:
        values["code"] = mine[values["code"]]
        kept.urls_of_this_browser = True  # this page is this browser's own (see cached_page)


def entry_page(view: Callable[..., Any]) -> Callable[..., Any]:
    """Mark a game's page that holds an entry form: it is ``no-store``, so Back shows it afresh
    instead of a stale form that could be sent again with an old value. (Every set-up page is
    too; Rebel Princess's score pad is not: its entries are on pages of their own.)"""
    view.entry_page = True  # type: ignore[attr-defined]
    return view


def opened(token: str) -> None:
    """This browser was shown the page of the link with ``token``: first on its list."""
    _put_first(token)


@bp.after_app_request
def _remember_opened(response: Response) -> Response:
    link = itself(g).get("link")
    if link is not None and response.status_code == 200 and itself(request).method == "GET":
        opened(link.token)
    return response


def not_stored(endpoint: str) -> bool:
    """Whether the page of ``endpoint`` is answered ``no-store`` (:func:`entry_page`)."""
    view = itself(current_app).view_functions.get(endpoint)
    return bool(getattr(view, "entry_page", False) or endpoint.endswith(".new_game"))


@bp.after_app_request
def _entry_pages_not_stored(response: Response) -> Response:
    # (the view's mark first: the answer's type is read only for an entry page's answers)
    if not_stored(itself(request).endpoint or "") and (
            response.mimetype == "text/html" and "Cache-Control" not in response.headers):
        response.headers["Cache-Control"] = "no-store"
    return response


@bp.app_context_processor
def _link_context() -> dict[str, Any]:
    link = g.get("link")
    if link is None:
        return {"link_role": None, "share_page_url": None, "shared_roles": False}
    mark = g.get("link_mark")
    if mark:  # (drawn for the scorer and the viewers, each keeps its bits: page_store.py)
        return {"link_role": link.role, "shared_roles": True, "share_page_url": url_for(
            "links.share", token=link.token if link.role == "scorer" else mark)}
    return {"link_role": link.role, "share_page_url": url_for("links.share", token=link.token)
            if link.role == "scorer" else None, "shared_roles": False}


def opened_game(code: str, kind: str) -> Game | None:
    """The game of ``kind`` this request opened through its link (read with the link), else the
    game stored under ``code``, else None."""
    game: Game | None = itself(g).get("link_game")
    if game is not None and game.code == code and game.kind == kind:
        return game
    return store.get_game(get_session(), code, kind)


# --- pages ----------------------------------------------------------------------------------------

class ReplaceForm(FlaskForm):
    """Replace one link (the button is the whole form; CSRF protected)."""


def _scorer_link(token: str) -> tuple[GameLink, Game]:
    """The live scorer link ``token`` and its game, else 404 or 403 (a viewer link, or a seat's
    link of a two-phone duel: a seat never replaces a link, the other seat's included)."""
    db = get_session()
    link = store.link_by_token(db, token)
    game = db.get(Game, link.game_id) if link is not None else None
    if link is None or game is None:
        closed_or_404(token)
    if link.role != "scorer":
        abort(403)
    g.link, g.link_game = link, game
    return link, game


@bp.get("/share/<token>")
def share(token: str) -> str:
    """Both links of a game as QR codes: watch (viewer) and keep score (scorer); and the link
    of the game's group, so the rest of the table can join the group as well as the game."""
    link, game = _scorer_link(token)
    links = store.links_of(get_session(), game)
    addresses = {role: game_address(game, links[role]) for role in store.ROLES}
    group = get_session().get(Group, game.group_id)
    if group is not None:
        addresses["group"] = public_base() + url_for("groups.home", group_token=group.token)
    return render_template("shell/share.html", game=game, kind=by_key(game.kind),
                           addresses=addresses, qr={r: qr_svg(a) for r, a in addresses.items()},
                           form=ReplaceForm(), names=store.names_of(get_session(), game),
                           game_group=group)


@bp.post("/share/<token>/replace/<role>")
def replace(token: str, role: str) -> Response:
    """Replace a link: whoever had the old one can no longer open the game."""
    link, game = _scorer_link(token)
    if role not in store.ROLES or not ReplaceForm().validate_on_submit():
        abort(400)
    fresh = store.replace_link(get_session(), game, role)
    if role == "scorer":
        _put_first(fresh.token, instead_of=token)
        flash(_("New scorer link made: the old one no longer opens this game."))
        return redirect(url_for("links.share", token=fresh.token), 303)
    flash(_("New viewer link made: the old one no longer opens this game."))
    return redirect(url_for("links.share", token=token), 303)
