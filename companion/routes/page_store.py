"""The page store: one drawing of a game's page for every phone and every server process.

A game's page is drawn once per version of the game and kept in the shared store
(:data:`companion.extensions.page_store`: files in the instance folder for this machine's
server processes, Redis for several servers), with a place left for each browser's own parts
(its CSRF token, its flashed messages, its forms' idempotency keys) that each request fills
(:func:`cached_page`, :func:`game_page`).
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import zlib
from collections.abc import Callable, Sequence
from functools import cache, lru_cache
from pathlib import Path

from flask import (
    current_app,
    g,
    get_flashed_messages,
    has_app_context,
    request,
    session,
)
from flask.globals import request_ctx
from flask_babel import get_locale
from flask_caching.backends import NullCache
from markupsafe import Markup, escape

from ..db import get_session
from ..extensions import generate_csrf, page_store
from ..games import by_key
from ..models import Game, GameLink
from ..play import page_reads, saved_games, store, versions
from ..web import metrics
from ..web.theme import theme_choice
from .addresses import public_base
from .links import SAFE_METHODS


def live_links_are(game: Game, ids: Sequence[int]) -> None:
    """This request has read the ids of ``game``'s live links (with what keys its page): the
    page's live stream is named from them (:func:`live_links_read`), in step with the key."""
    g.live_links_read = (game.id, tuple(ids))


def live_links_read(game_id: int | None) -> tuple[int, ...] | None:
    """The ids of game ``game_id``'s live links if this request read them already, else None."""
    found: tuple[int | None, tuple[int, ...]] | None = g.get("live_links_read")
    return found[1] if found is not None and found[0] == game_id else None


def version_of(game: Game) -> str:
    """Changes whenever anything is stored for the game (every write touches ``updated_at``)."""
    return versions.version_string(game.id, game.updated_at)


PAGE_MAX_BYTES = 32 * 1024
"""A drawing is kept zlib-compressed (a score pad: about 7 kB of its 28 kB) when it is at most
this big; the store keeps at most ``CACHE_THRESHOLD`` of them (1,000: at most 32 MB, about 8 MB
for score pads), or, in Redis, each for ``CACHE_DEFAULT_TIMEOUT`` (2 hours). A store that keeps
drawings as drawn (:func:`packs_drawings`: this machine's files) keeps one when it is at most
:data:`RAW_FACTOR` times as big."""
RAW_FACTOR = 4
"""How much bigger than :data:`PAGE_MAX_BYTES` a drawing kept as drawn may be (about what zlib
saves on a page): the same pages are kept either way (1,000 files: at most 128 MB of disk,
about 28 MB for score pads)."""
_MARK = re.compile("\x00(csrf|flashes|key[0-9]+)\x00")
"""Where a drawing leaves a place for one browser's part: its CSRF token, its flashed messages, the
idempotency key of each of its forms. No page holds a NUL otherwise: names refuse control
characters (a page that does is never kept)."""
_CSRF_MARK, _FLASH_MARK = "\x00csrf\x00", Markup("\x00flashes\x00")
PART, PART_END = Markup("\x00part\x00"), Markup("\x00/part\x00")
"""Around the content of a page drawn to be shared (:func:`shared_drawing`): the part the
viewers' pages swap in (base.html's content block)."""
_ROLE_ONLY = re.compile("\x00(scorer|viewers)\x00(.*?)\x00/\\1\x00", re.S)
"""What a page drawn to be shared shows its scorer only, or its viewers only
(:func:`for_role`): each side keeps its own and drops the other's."""
VERSION_BYTES = 32
"""A kept drawing starts with the digest of the version it was drawn for (:func:`cached_page`)."""


@cache
def _link_mark(secret: str) -> str:
    return hmac.new(secret.encode(), b"companion: the link a page is drawn through",
                    hashlib.sha256).hexdigest()[:32]


def link_mark() -> str:
    """What a page drawn to be shared (:func:`shared_drawing`) has in every game URL instead of
    the token of the link it is drawn through: 32 hex digits (a URL keeps them as they are) that
    the app's secret derives, so every server agrees on them and no page, input or token holds
    them otherwise. The scorer's page gets the scorer's token put back, the viewers' part the
    viewer link's."""
    return _link_mark(str(current_app.config["SECRET_KEY"]))


def sharing() -> bool:
    """Whether the page being drawn is drawn to be shared (:func:`shared_drawing`)."""
    return bool(g.get("link_mark")) if has_app_context() else False


def for_role(text: str, role: str) -> Markup:
    """``text`` shown only to a page opened through the scorer link (``role`` "scorer"), or only
    to the others ("viewers"): while a page is drawn to be shared, both sides are drawn, each
    marked, and each side keeps its own (:func:`_resolved`)."""
    shown = escape(text)  # (a template's block is Markup already: kept as it is)
    if sharing():
        return Markup(f"\x00{role}\x00{shown}\x00/{role}\x00")
    link = g.get("link")
    scorer = link is not None and link.role == "scorer"
    return shown if scorer == (role == "scorer") else Markup("")


def _resolved(drawing: str, role: str, token: str) -> str:
    """A drawing shared between roles as the page of a link of ``role`` with ``token``: the
    other side's bits dropped, the marks out, the token in every game URL."""
    keep = "scorer" if role == "scorer" else "viewers"
    drawing = _ROLE_ONLY.sub(lambda found: found[2] if found[1] == keep else "", drawing)
    return drawing.replace(PART, "").replace(PART_END, "").replace(link_mark(), token)


def viewers_part(drawing: str, token: str) -> str | None:
    """The viewers' live part out of a page drawn to be shared (:func:`shared_drawing`) as a
    viewer link with ``token`` loads it: its content, the scorer's bits dropped, the viewer
    link's token in every game URL, fresh form keys and no CSRF token (each page puts its own
    in: app.js). None when the drawing has no such part, or holds a mark of anything else."""
    start = drawing.find(PART)
    end = drawing.find(PART_END, start)
    if not 0 <= start < end:
        return None
    part = _resolved(drawing[start + len(PART):end], "viewer", token)
    keys: dict[str, str] = {}

    def own(found: re.Match[str]) -> str:
        name = found[1]
        if name.startswith("key"):
            return keys.setdefault(name, secrets.token_urlsafe(16))
        return ""  # (a CSRF token: the page's own; flashes: never in a part)
    part = _MARK.sub(own, part)
    return None if "\x00" in part else part


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
    seals and the tokens depend on it) and whether its forms carry a CSRF token, hashed."""
    config = current_app.config
    text = repr((_code_stamp(), _secret_digest(str(config["SECRET_KEY"])),
                 config.get("WTF_CSRF_ENABLED", True), key))
    return hashlib.sha256(text.encode()).hexdigest()


@lru_cache(maxsize=16)
def _secret_digest(secret: str) -> str:
    """The app's secret as it enters a store key (hashed: the store never holds it), worked
    out once per secret rather than twice per page."""
    return hashlib.sha256(secret.encode()).hexdigest()


def packs_drawings() -> bool:
    """Whether the store is given drawings zlib-compressed: Redis (its memory, its network)
    and the others, but not this machine's files (:class:`~companion.web.page_files.PageFiles`
    says ``packed = False``), where zlib would cost 0.1–0.2 ms of CPU a drawing (some 4 %) to
    save disk the system's page cache holds anyway, and 0.06 ms on every page served from it."""
    return bool(getattr(page_store.cache, "packed", True))


def drawn_once() -> bool:
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
    moves it), and whatever changes without moving it (players' names, the links shown). The
    drawing is kept under the place it is shown at — the link (and so its role), language,
    chosen colour scheme, host, address the other phones use, path and whether htmx asked (a
    partial) — with a digest of ``key`` in front (:data:`VERSION_BYTES`), checked when it is
    read: a new version replaces the place's drawing instead of adding one, so the store holds
    as many drawings as pages being looked at, not one per version ever drawn. What belongs to
    one browser never enters the store: its CSRF token, its flashed messages and its forms'
    idempotency keys are put in per request, and a page that linked this browser's other games
    is drawn for that request only. If the store does not answer (Redis down), the page is
    drawn.
    """
    link = g.get("link")
    if (link is None or request.method not in SAFE_METHODS or not drawn_once()
            or g.get("live_part_only")):  # (a viewers' part drawn alone: routes/live.py)
        return render()
    name = _page_name(link.token, request.full_path)
    version = bytes.fromhex(_store_key(key))
    shared: dict[str, str] | None = g.get("shared_drawing")
    if shared is not None:
        # Drawn with no browser's token: its place marked where Flask-WTF keeps this request's
        # (every form and ``csrf_token()`` reads it there), not signed only to be marked out.
        csrf = _CSRF_MARK
        setattr(g, current_app.config.get("WTF_CSRF_FIELD_NAME") or "csrf_token", csrf)
    else:
        csrf = generate_csrf()
    if shared is None:  # (drawn to be shared: after a write, which moved the version)
        try:
            kept = page_store.get(name)
        except Exception:  # a store that does not answer: draw, as without one
            current_app.logger.warning("page store unreachable: drawing the page",
                                       exc_info=True)
            kept = None
        hit = isinstance(kept, bytes) and kept[:VERSION_BYTES] == version
        metrics.count_page_store(hit=hit)
        if hit:
            assert isinstance(kept, bytes)
            held = kept[VERSION_BYTES:]
            return _put_back((zlib.decompress(held) if packs_drawings() else held).decode(),
                             csrf)
        if shares_roles(link):  # (the scorer's and the viewer link's page: one drawing)
            return _drawn_for_both(link, version, render)
    g.urls_of_this_browser = False
    keys: list[str] = []
    g.page_keys = keys
    if shared is not None:
        g.link_mark, g.shared_drawing = link_mark(), None
        if request.path.endswith(f"/{link.token}"):  # (its language links: web.i18n)
            g.drawn_path = request.path[:-len(link.token)] + link_mark()
    try:
        page = render()
    finally:
        g.page_keys = g.link_mark = g.drawn_path = None
    drawing = page if shared is not None else page.replace(csrf, _CSRF_MARK)
    for number, form_key in enumerate(keys):
        drawing = drawing.replace(form_key, f"\x00key{number}\x00")
    if shared is not None:  # one drawing for the scorer's page and the viewers' part
        if not g.urls_of_this_browser:  # (a page of this browser's own is never shared)
            shared["drawing"], shared["csrf"] = drawing, csrf
        drawing = _resolved(drawing, link.role, link.token)
    if not g.urls_of_this_browser:
        _keep(name, version, drawing)
    if shared is not None:
        return ""  # (kept, and the viewers' part cut from it: this answer is never sent)
    return page.replace(_FLASH_MARK, flash_area())


SHARED_KINDS = frozenset({"rebel_princess", "princesse_princesse", "reveillez", "kanai_duel"})
"""The games whose own page (``/g/<code>``) is the same page through the scorer link and the
viewer link, but for the bits each role's templates mark (``for_scorer``, ``for_viewers``): it
is drawn once for both (:func:`shares_roles`), and the viewers' live part a scorer's write pushes
is taken from the scorer's drawing (routes/live.py ``_shared_part``). The duel's too: its scorer
link holds no seat (its page shows what the viewer link's shows, hands and picks of neither
seat); a seat's link (two phones) is neither, and its page, which shows that seat's own hand,
is drawn for it alone."""
SHARED_ROLES = ("scorer", "viewer")
"""The links whose pages of a game of :data:`SHARED_KINDS` come from one drawing."""


def page_endpoint(kind_key: str) -> str | None:
    """The endpoint of a game's own page (``/g/<code>``)."""
    kind = by_key(kind_key)
    return f"{kind.pages().bp.name}.show" if kind is not None else None


def _page_name(token: str, full_path: str) -> str:
    """The store's name for the page at ``full_path`` through the link with ``token``, as this
    request's browser sees it (language, colours, host, address, htmx or not)."""
    return _store_key((token, str(get_locale()), theme_choice(), request.host_url,
                       public_base(), full_path, request.headers.get("HX-Request") == "true"))


def shares_roles(link: GameLink) -> bool:
    """Whether this request's page, when drawn, is drawn once for the scorer link and the
    viewer link of its game (:func:`_drawn_for_both`): a plain load (no query, not htmx) of the
    own page of a game of :data:`SHARED_KINDS` through either."""
    game = g.get("link_game")
    return (link.role in SHARED_ROLES and game is not None and game.kind in SHARED_KINDS
            and request.method == "GET" and not request.query_string
            and request.path.endswith(f"/{link.token}")
            and request.headers.get("HX-Request") != "true"
            and request.endpoint == page_endpoint(game.kind))


def _drawn_for_both(link: GameLink, version: bytes, render: Callable[[], str]) -> str:
    """This request's page (not in the store: :func:`cached_page`) drawn to be shared (the
    link's token marked, each role's bits marked: :func:`for_role`): the page of this link and
    the page of the other role's link, each resolved from the one drawing, are kept under their
    own names for ``version``; this request gets its own with its parts put in. The other
    role's page is kept only if it holds no token of another live link of the game (the
    viewer's: none but its own; the scorer's: none but its own and the viewer's, which it
    shows) and no mark left; else it is drawn when asked for, as without this."""
    # Drawn with no browser's token: its place marked where Flask-WTF keeps this request's
    # (this request's own, signed already, put back after, for its own page).
    field = current_app.config.get("WTF_CSRF_FIELD_NAME") or "csrf_token"
    signed = g.pop(field, None)
    setattr(g, field, _CSRF_MARK)
    g.urls_of_this_browser = False
    keys: list[str] = []
    g.page_keys, g.link_mark = keys, link_mark()
    g.drawn_path = request.path[:-len(link.token)] + g.link_mark  # (web.i18n.switch_url)
    try:
        drawing = render()
    finally:
        g.page_keys = g.link_mark = g.drawn_path = None
        g.pop(field, None)
        if signed is not None:
            setattr(g, field, signed)
    for number, form_key in enumerate(keys):
        drawing = drawing.replace(form_key, f"\x00key{number}\x00")
    own = _resolved(drawing, link.role, link.token)
    if not g.urls_of_this_browser:  # (a page of this browser's own is never kept)
        pages = {link.token: own}
        # (the live links this request read for the page's key: none read again)
        tokens = page_reads.links_read(get_session(), g.link_game.id) or {}
        other = next(role for role in SHARED_ROLES if role != link.role)
        if tokens.get(link.role) == link.token and other in tokens:
            page = _resolved(drawing, other, tokens[other])
            shown = {tokens[other]} | ({tokens["viewer"]} if other == "scorer" else set())
            if not any(token in page for token in set(tokens.values()) - shown):
                pages[tokens[other]] = page
            else:
                current_app.logger.warning("a page drawn to be shared holds another link's "
                                           "token: kept for its own link only")
        for token, page in pages.items():
            _keep(_page_name(token, request.full_path.replace(link.token, token)),
                  version, page)
    return _put_back(own, generate_csrf())


def _keep(name: str, version: bytes, drawing: str) -> None:
    """Keep ``drawing`` (each browser's parts marked) in the store under ``name`` for
    ``version``, if it holds no other mark and is not too big (:data:`PAGE_MAX_BYTES`)."""
    if "\x00" in _MARK.sub("", drawing):
        return
    packs = packs_drawings()
    packed = zlib.compress(drawing.encode(), 1) if packs else drawing.encode()
    if len(packed) <= (PAGE_MAX_BYTES if packs else PAGE_MAX_BYTES * RAW_FACTOR):
        try:
            page_store.set(name, version + packed)
        except Exception:
            current_app.logger.warning("page store unreachable: page not kept", exc_info=True)


def shared_drawing() -> dict[str, str]:
    """Ask that the game page this request draws next be drawn to be shared between its link
    and the viewers (routes/live.py): game URLs with :func:`link_mark` for the link's token, the
    content between :data:`PART` marks, the bits of one role only marked (:func:`for_role`). The
    page store keeps it as the link's own page (the marks resolved, its token put back), and
    the dict returned gets the drawing under ``"drawing"`` (each browser's own parts marked as
    in the store) and the CSRF token it was drawn with under ``"csrf"`` (none: its mark, each
    page's own is put in its place) — unless the page was
    not drawn now (no store), or linked this browser's own games. It is drawn without looking
    in the store first (the write before it moved the version: what the store holds is an
    older drawing), and the request's own answer is empty: it is never sent (the scorer's
    browser loads its page from the store)."""
    found: dict[str, str] = {}
    g.shared_drawing = found
    return found


def page_of(drawing: str, role: str, token: str) -> str:
    """The page of a link of ``role`` with ``token`` out of a drawing made to be shared
    (:func:`shared_drawing`), as this request's browser gets it from the store: the other
    role's bits dropped, the token in every game URL, this request's CSRF token, flashed
    messages and new form keys in their places."""
    return _put_back(_resolved(drawing, role, token), generate_csrf())


def game_page(game: Game, render: Callable[[], str], *extra: object) -> str:
    """A game's page every phone at the table reloads after each change, drawn once per version
    (:func:`cached_page`), with what changes it without moving the version in its key: the
    players' names (a rename, a merge) and the game's links (a replaced one)."""
    if g.get("live_part_only"):  # a viewers' part drawn alone: no store, no key to read
        return render()
    saved = saved_games.known(get_session(), game.id)  # (drawn after a save: as it left them)
    if saved is not None:
        links = sorted(saved.links, key=lambda link: link[2])  # (by token, as the read orders)
        names, tokens, ids = (saved.names, tuple(token for _, _, token in links),
                              tuple(link_id for link_id, _, _ in links))
    else:
        names, tokens, ids = store.names_and_links(get_session(), game)
    live_links_are(game, ids)
    endpoint = request.endpoint or ""
    return cached_page((endpoint, game.id, version_of(game), names, tokens, *extra), render)
