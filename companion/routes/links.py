"""Who may open a game, and as what: scorer and viewer links, sharing them, live updates.

Every game of every kind is opened through a link token (``/…/g/<token>…``), never through its
code: a **scorer** link may enter, edit and undo; a **viewer** link only watches. The shell
resolves the token before any game view runs (the view receives the game's code, as it always
has), refuses every write from a viewer link (403), and writes the token back into every game
URL the page builds, so the games' own code never deals with links. A guessed, replaced or
missing token is a 404; so is a game's code alone, except for the browser that created or
opened that game before links existed (it is sent on to the scorer link).

Every open view of a game asks ``/live/<token>`` every second whether the game changed (a
conditional request answered 304 while nothing did) and reloads when it did.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import zlib
from collections import OrderedDict
from collections.abc import Callable
from functools import cache
from typing import Any
from urllib.parse import urlsplit

import qrcode
import qrcode.image.svg
from flask import (
    Blueprint,
    Flask,
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
from flask_babel import get_locale
from flask_babel import gettext as _
from flask_wtf import FlaskForm
from flask_wtf.csrf import generate_csrf
from markupsafe import Markup
from sqlmodel import col, select
from werkzeug.wrappers import Response

from ..db import get_engine, get_session
from ..games import by_key
from ..models import Game, GameLink, Group, Person, Player
from ..play import store
from ..theme import theme_choice

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

def _open_by_link(endpoint: str | None, values: dict[str, Any] | None) -> None:
    if not endpoint or not values or "code" not in values:
        return
    kind = by_key(endpoint.partition(".")[0])
    if kind is None:
        return
    token = str(values["code"])
    db = get_session()
    found = store.link_and_game(db, token)
    if found is not None:
        link, game = found
        if game.kind != kind.key:
            abort(404)
        g.link, g.link_game = link, game
        values["code"] = game.code
        if link.role != "scorer" and request.method not in SAFE_METHODS and not (
                link.role in store.SEAT_ROLES and _for_seats(endpoint)):
            abort(403)
        return
    if token in remembered():  # the creator's browser, with an address from before links
        game = store.get_game(db, token, kind.key)
        if game is not None:
            scorer = store.links_of(db, game)["scorer"]
            _put_first(scorer.token, instead_of=token)
            abort(redirect(url_for(endpoint, **{**values, "code": scorer.token}),
                           307 if request.method not in SAFE_METHODS else 302))
    abort(404)


def for_seats(view: Callable[..., Any]) -> Callable[..., Any]:
    """Mark a game's write view that a seat's link may post to (it acts for that seat only; the
    view checks which seat, see :mod:`companion.play.kanai_duel`). Every other write refuses a
    seat's link, as it refuses a viewer's."""
    view.for_seats = True  # type: ignore[attr-defined]
    return view


def _for_seats(endpoint: str) -> bool:
    return bool(getattr(current_app.view_functions.get(endpoint), "for_seats", False))


def _token_in_urls(endpoint: str, values: dict[str, Any]) -> None:
    """A game URL built with the game's code gets the token this page was opened with."""
    if "code" not in values or by_key(endpoint.partition(".")[0]) is None:
        return
    if len(str(values["code"])) > CODE_MAX:
        return  # already a link token (32 hex digits): no game code is that long
    game = g.get("link_game")
    if game is not None and values["code"] == game.code:
        values["code"] = g.link.token
        return
    mine = g.get("mine_by_code")
    if mine is None and session.get("games"):
        mine = g.mine_by_code = {game.code: link.token for link, game in my_links()}
    if mine and values["code"] in mine:
        values["code"] = mine[values["code"]]
        g.urls_of_this_browser = True  # this page is this browser's own (see cached_page)


def entry_page(view: Callable[..., Any]) -> Callable[..., Any]:
    """Mark a game's page that holds an entry form: it is ``no-store``, so Back shows it afresh
    instead of a stale form that could be sent again with an old value. (Every set-up page is
    too; Rebel Princess's score pad is not: its entries are on pages of their own.)"""
    view.entry_page = True  # type: ignore[attr-defined]
    return view


def _entry_pages_not_stored(response: Response) -> Response:
    endpoint = request.endpoint or ""
    view = current_app.view_functions.get(endpoint)
    if response.mimetype == "text/html" and "Cache-Control" not in response.headers and (
            getattr(view, "entry_page", False) or endpoint.endswith(".new_game")):
        response.headers["Cache-Control"] = "no-store"
    return response


def _remember_opened(response: Response) -> Response:
    link = g.get("link")
    if link is not None and response.status_code == 200 and request.method == "GET":
        _put_first(link.token)
    return response


def _link_context() -> dict[str, Any]:
    link = g.get("link")
    if link is None:
        return {"link_role": None, "live_url": None, "share_page_url": None}
    return {"link_role": link.role, "live_url": url_for("links.live", token=link.token),
            "live_version": version_of(g.link_game),
            "share_page_url": url_for("links.share", token=link.token)
            if link.role == "scorer" else None}


# --- addresses a phone on the same network can open ----------------------------------------------

def public_base() -> str:
    """The address other phones use: ``PUBLIC_URL`` if configured, else this request's host —
    unless that is loopback, which no other phone can reach; then this machine's LAN address."""
    configured = current_app.config.get("PUBLIC_URL")
    if configured:
        return str(configured).rstrip("/")
    parts = urlsplit(request.host_url)
    host = parts.hostname or ""
    try:
        loopback = host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = False
    if loopback:
        addresses = _lan_addresses()
        if addresses:
            port = f":{parts.port}" if parts.port else ""
            return f"{parts.scheme}://{addresses[0]}{port}"
    return request.host_url.rstrip("/")


@cache
def _lan_addresses() -> tuple[str, ...]:
    """This machine's network addresses, looked up once per process (it runs a command)."""
    from ..serve import lan_addresses

    return tuple(lan_addresses())


_QR_CACHE: OrderedDict[str, bytes] = OrderedDict()
_QR_CACHE_SIZE = 1024
"""QR codes kept per process, zlib-compressed (about 3.5 kB each instead of 12 kB), at most
about 4 MB: drawing one costs about 9 ms of CPU."""

QR_MAX_AGE = 365 * 24 * 3600


def _qr_drawing(text: str) -> bytes:
    """The SVG QR code of ``text`` (qrcode's SVG factory needs no Pillow), zlib-compressed; the
    newest ``_QR_CACHE_SIZE`` are kept."""
    packed = _QR_CACHE.get(text)
    if packed is not None:
        _QR_CACHE.move_to_end(text)
        return packed
    image = qrcode.make(text, image_factory=qrcode.image.svg.SvgPathImage, box_size=8)
    svg = image.to_string(encoding="unicode")
    packed = _QR_CACHE[text] = zlib.compress(svg[svg.index("<svg"):].encode(), 1)
    while len(_QR_CACHE) > _QR_CACHE_SIZE:
        _QR_CACHE.popitem(last=False)
    return packed


def _qr_seal(text: str) -> str:
    """What proves a QR address was made here (so ``/qr.svg`` draws no one else's text), and
    the drawing's ETag: the same text always gives the same image."""
    key = str(current_app.config["SECRET_KEY"]).encode()
    return hmac.new(key, b"qr\0" + text.encode(), hashlib.sha256).hexdigest()[:32]


def qr_svg(text: str) -> str:
    """The QR code of ``text`` as an image from its own address (:func:`qr`), for a template's
    ``{{ … | safe }}``. A page never draws it: the phone fetches it once, when it is shown, and
    keeps it for a year (the address names the text, so the image never changes)."""
    url = url_for("links.qr", text=text, seal=_qr_seal(text))
    # No alt text: the address is written out beside every code, for whoever cannot scan it.
    return Markup('<img src="{}" alt="" width="180" height="180" loading="lazy">').format(url)


@bp.get("/qr.svg")
def qr() -> Response:
    """The QR code of an address a page of this server showed: drawn once per process, kept by
    the phone (``immutable``, a year) and revalidated without drawing (its ETag is its seal)."""
    text, seal = request.args.get("text", ""), request.args.get("seal", "")
    if not text or len(text) > 2048 or not hmac.compare_digest(seal, _qr_seal(text)):
        abort(404)
    response = current_app.response_class(mimetype="image/svg+xml")
    response.set_etag(seal)
    response.headers["Cache-Control"] = f"private, max-age={QR_MAX_AGE}, immutable"
    response = response.make_conditional(request)
    if response.status_code == 200:
        response.set_data(zlib.decompress(_qr_drawing(text)))
    return response


def game_address(game: Game, link: GameLink) -> str:
    """The full address of a game's page opened through ``link``."""
    kind = by_key(game.kind)
    path = url_for(kind.show_endpoint, code=link.token) if kind and kind.show_endpoint else "/"
    return public_base() + path


def version_of(game: Game) -> str:
    """Changes whenever anything is stored for the game (every write touches ``updated_at``)."""
    return store.version_string(game.id, game.updated_at)


# --- one rendering of a game's page for every phone that follows it ------------------------------

_PAGES: OrderedDict[tuple[object, ...], bytes] = OrderedDict()
_PAGES_BYTES = 8 * 1024 * 1024
"""At most this many bytes of pages are kept per process (about 300 score pads), newest used
last."""
_pages_bytes = 0
_CSRF_MARK = "\x00csrf-token\x00"  # no page holds a NUL: names refuse control characters


def cached_page(key: tuple[object, ...], render: Callable[[], str]) -> str:
    """The page ``render()`` makes, made once for every phone that opens it through the same link,
    in the same language and at the same address, while ``key`` stays the same.

    ``key`` must name everything the page shows that can change: the game's version (every write
    moves it), and whatever changes without moving it (players' names, the links shown). The
    link, language, chosen colour scheme, host and path are added here. What belongs to one
    browser never enters the cache: its CSRF token is put back per request, a page with flashed
    messages is rendered for that request only, and so is one that linked this browser's other
    games.
    """
    global _pages_bytes
    link = g.get("link")
    if link is None or request.method not in SAFE_METHODS or "_flashes" in session:
        return render()
    key = (*key, link.token, str(get_locale()), theme_choice(), request.host_url,
           request.full_path)
    csrf = generate_csrf()
    packed = _PAGES.get(key)
    if packed is not None:
        _PAGES.move_to_end(key)
        return packed.decode().replace(_CSRF_MARK, csrf)
    g.urls_of_this_browser = False
    page = render()
    if not g.urls_of_this_browser and _CSRF_MARK not in page:
        packed = page.replace(csrf, _CSRF_MARK).encode()
        _PAGES[key] = packed
        _pages_bytes += len(packed)
        while _pages_bytes > _PAGES_BYTES and _PAGES:
            _pages_bytes -= len(_PAGES.popitem(last=False)[1])
    return page


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
        abort(404)
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


@bp.get("/live/<token>")
def live(token: str) -> Response:
    """The game's version, for the pages that follow it: 304 while nothing has changed."""
    version = store.version_by_token(get_engine(), token)
    if version is None:
        abort(404)
    response = current_app.response_class(version, mimetype="text/plain")
    response.set_etag(version)
    response.headers["Cache-Control"] = "no-cache"
    return response.make_conditional(request)


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
    app.url_value_preprocessor(_open_by_link)
    app.url_defaults(_token_in_urls)
    app.after_request(_remember_opened)
    app.after_request(_entry_pages_not_stored)
    app.context_processor(_link_context)
