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
import re
import secrets
import zlib
from collections import OrderedDict
from collections.abc import Callable
from functools import cache
from pathlib import Path
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
    get_flashed_messages,
    has_app_context,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from flask.globals import request_ctx
from flask_babel import get_locale
from flask_babel import gettext as _
from flask_caching.backends import NullCache
from flask_wtf import FlaskForm
from flask_wtf.csrf import generate_csrf
from markupsafe import Markup
from sqlmodel import col, select
from werkzeug.wrappers import Response

from ..db import get_engine, get_session
from ..extensions import page_store
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
    # A page only reads: its link and game through Core (a page from the page store then
    # loads no ORM object); a write reads them into the session it writes with.
    found = store.link_and_game_to_read(db, token) if request.method in SAFE_METHODS \
        else store.link_and_game(db, token)
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


# --- one drawing of a game's page for every phone and every server process ----------------------

PAGE_MAX_BYTES = 32 * 1024
"""A drawing is kept zlib-compressed (a score pad: about 7 kB of its 28 kB) when it is at most
this big; the store keeps at most ``CACHE_THRESHOLD`` of them (1,000: at most 32 MB, about 8 MB
for score pads), or, in Redis, each for ``CACHE_DEFAULT_TIMEOUT`` (2 hours)."""
_MARK = re.compile("\x00(csrf|flashes|key[0-9]+)\x00")
"""Where a drawing leaves a place for one browser's part: its CSRF token, its flashed messages, the
idempotency key of each of its forms. No page holds a NUL otherwise: names refuse control
characters (a page that does is never kept)."""
_CSRF_MARK, _FLASH_MARK = "\x00csrf\x00", Markup("\x00flashes\x00")
VERSION_BYTES = 32
"""A kept drawing starts with the digest of the version it was drawn for (:func:`cached_page`)."""


@cache
def _code_stamp() -> str:
    """What this server's pages are made of (its code, templates, catalogues and static files),
    as a digest: a drawing made by another version of the app is never served (a server being
    upgraded next to one not yet upgraded, both on one Redis)."""
    digest = hashlib.sha256()
    root = Path(__file__).resolve().parent.parent
    for path in sorted(root.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def _store_key(key: tuple[object, ...]) -> str:
    """The store's name for a drawing: ``key`` with this app's code and secret (the QR codes'
    seals and the tokens depend on it), hashed."""
    secret = str(current_app.config["SECRET_KEY"])
    text = repr((_code_stamp(), hashlib.sha256(secret.encode()).hexdigest(), key))
    return hashlib.sha256(text.encode()).hexdigest()


def _drawn_once() -> bool:
    """Whether pages are kept at all (``CACHE_TYPE = "NullCache"`` draws each one afresh)."""
    return not isinstance(page_store.cache, NullCache)


def flash_area() -> Markup:
    """The flashed messages of this request, where ``base.html`` shows them; while a page is
    drawn for every phone, a place for them that each request fills (:func:`cached_page`)."""
    if g.get("page_keys") is not None:
        return _FLASH_MARK
    if not session.get("_flashes") and not request_ctx.flashes:
        return Markup("")  # what the template gives for no message, without drawing it
    return Markup(current_app.jinja_env.get_template("_flashes.html").render(
        messages=get_flashed_messages()))


def page_form_key() -> str:
    """A new idempotency key for a form about to be drawn. On a page drawn for every phone each
    request gets new ones in their places, one per form, as a fresh draw would have."""
    key = secrets.token_urlsafe(16)
    drawn = g.get("page_keys") if has_app_context() else None
    if drawn is not None:
        drawn.append(key)
    return key


def _put_back(drawing: str, csrf: str) -> str:
    """A drawing with this request's parts put in its places."""
    parts = {"csrf": csrf}

    def part(found: re.Match[str]) -> str:
        name = found[1]
        if name not in parts:  # the same form's key twice in a page is the same key
            parts[name] = str(flash_area()) if name == "flashes" else secrets.token_urlsafe(16)
        return parts[name]
    return _MARK.sub(part, drawing)


def cached_page(key: tuple[object, ...], render: Callable[[], str]) -> str:
    """The page ``render()`` makes, drawn once for every phone that opens it through the same
    link, in the same language and at the same address, while ``key`` stays the same, and kept
    in the shared store (:data:`companion.extensions.page_store`: this machine's server processes
    share it through files in the instance folder, several servers through Redis).

    ``key`` must name everything the page shows that can change: the game's version (every write
    moves it), and whatever changes without moving it (players' names, the links shown); the
    drawing is kept under the place it is shown at — the link (and so its role), language,
    chosen colour scheme, host, address the other phones use, path and whether htmx asked (a
    partial) — with a digest of ``key`` in front (:data:`VERSION_BYTES`), so a new version
    replaces the old drawing. What belongs to one browser never enters the store:
    its CSRF token, its flashed messages and its forms' idempotency keys are
    put in per request, and a page that linked this browser's other games is drawn for that
    request only. If the store does not answer (Redis down), the page is drawn.
    """
    link = g.get("link")
    if link is None or request.method not in SAFE_METHODS or not _drawn_once():
        return render()
    # One drawing per place (link, language, scheme, address, path, partial or not): a new
    # version of the page replaces the place's drawing instead of adding one, so the store
    # holds as many drawings as pages being looked at, not one per version ever drawn. The
    # version the drawing was made for is kept in front of it and checked when it is read.
    name = _store_key((link.token, str(get_locale()), theme_choice(), request.host_url,
                       public_base(), request.full_path,
                       request.headers.get("HX-Request") == "true"))
    version = bytes.fromhex(_store_key(key))
    csrf = generate_csrf()
    try:
        kept = page_store.get(name)
    except Exception:  # noqa: BLE001  (a store that does not answer: draw, as without one)
        current_app.logger.warning("page store unreachable: drawing the page", exc_info=True)
        kept = None
    if isinstance(kept, bytes) and kept[:len(version)] == version:
        return _put_back(zlib.decompress(kept[len(version):]).decode(), csrf)
    g.urls_of_this_browser = False
    g.page_keys = keys = []
    try:
        page = render()
    finally:
        g.page_keys = None
    drawing = page.replace(csrf, _CSRF_MARK)
    for number, form_key in enumerate(keys):
        drawing = drawing.replace(form_key, f"\x00key{number}\x00")
    if not g.urls_of_this_browser and "\x00" not in _MARK.sub("", drawing):
        packed = zlib.compress(drawing.encode(), 1)
        if len(packed) <= PAGE_MAX_BYTES:
            try:
                page_store.set(name, version + packed)
            except Exception:  # noqa: BLE001
                current_app.logger.warning("page store unreachable: page not kept",
                                           exc_info=True)
    return page.replace(_FLASH_MARK, flash_area())


def opened_game(code: str, kind: str) -> Game | None:
    """The game of ``kind`` this request opened through its link (read with the link), else the
    game stored under ``code``, else None."""
    game = g.get("link_game")
    if game is not None and game.code == code and game.kind == kind:
        return game
    return store.get_game(get_session(), code, kind)


def game_page(game: Game, render: Callable[[], str], *extra: object) -> str:
    """A game's page every phone at the table reloads after each change, drawn once per version
    (:func:`cached_page`), with what changes it without moving the version in its key: the
    players' names (a rename, a merge) and the game's links (a replaced one)."""
    names, tokens = store.names_and_links(get_session(), game)
    endpoint = request.endpoint or ""
    return cached_page((endpoint, game.id, version_of(game), names, tokens, *extra), render)


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
    from .. import polls

    polls.install(app)  # /live answered before Flask's request cycle (the view is its fallback)
    app.register_blueprint(bp)
    app.url_value_preprocessor(_open_by_link)
    app.url_defaults(_token_in_urls)
    app.after_request(_remember_opened)
    app.after_request(_entry_pages_not_stored)
    app.context_processor(_link_context)
    app.add_template_global(flash_area)
