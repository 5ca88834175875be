"""The shell around the games: home, the new-game chooser, each game's landing page, the rules
chooser and the shared rulings pages, and the games this phone remembers.

Everything here is built from the registry (:mod:`companion.games`); nothing names a game.
A browser remembers the games it created or opened (the links it holds, see
:mod:`companion.routes.links`) in its signed session cookie, and the home page lists only those:
the server never lists every stored game to whoever opens ``/``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from flask import (
    Blueprint,
    abort,
    g,
    redirect,
    render_template,
    request,
    url_for,
)
from flask.blueprints import BlueprintSetupState
from werkzeug.routing import BaseConverter, ValidationError
from werkzeug.wrappers import Response

from .. import rulings
from ..db import get_session
from ..games import (
    GameKind,
    RulingsAddresses,
    SearchRow,
    by_key,
    by_slug,
    registry,
)
from ..models import Game
from ..play import store, summaries
from ..web.i18n import current_lang
from ..web.theme import theme_choice
from . import groups, links
from .links import my_links

bp = Blueprint("shell", __name__)


class GameConverter(BaseConverter):
    """``/<game:kind>/``: a registered game's slug, given to the view as its :class:`GameKind`."""

    def to_python(self, value: str) -> GameKind:
        kind = by_slug(value)
        if kind is None:
            raise ValidationError()
        return kind

    def to_url(self, value: GameKind | str) -> str:
        return value if isinstance(value, str) else value.slug


@dataclass(frozen=True)
class RememberedGame:
    """A game on this phone's list: its kind, its row, and where it opens."""

    kind: GameKind
    game: Game
    names: list[str]
    url: str
    view: Any = None  # what the game's ``home_view(game, summary)`` says of it, if it has one
    role: str = "scorer"  # the role of the link this phone holds
    token: str = ""  # that link's token: the game as this phone knows it
    summary: Any = None  # its stored summary (a GameSummary), for a game in history


# --- the games of this phone --------------------------------------------------------------------

def remember(code: str) -> None:
    """A game was just created on this phone: it keeps the game's scorer link (or the link
    given, such as a duel's seat), and the game's group becomes its last used (a new group made
    for the game is remembered here too)."""
    links.remember(code)
    game = store.get_game(get_session(), code) or store.game_by_token(get_session(), code)
    if game is not None:
        groups.started_in(game.group_id)


def my_games(kind: GameKind | None = None) -> list[RememberedGame]:
    """The games this phone remembers (of ``kind`` if given), newest opened first, each with the
    link this phone holds."""
    db = get_session()
    held = []
    for link, game in my_links():
        game_kind = by_key(game.kind)
        if game_kind is None or not game_kind.available or (kind and game_kind != kind):
            continue
        held.append((game_kind, link, game))
    # What each game came to is stored with it: three queries in all, whatever the number of
    # games, and no game replayed (issue 23: five queries and a replay per game).
    games = [game for _, _, game in held]
    names = summaries.names_by_game(db, games)
    stored = summaries.summaries(db, games)
    found = []
    for game_kind, link, game in held:
        pages = game_kind.pages()
        summary = stored.get(game.id or 0)
        view = pages.home_view(game, summary) \
            if pages.home_view and summary is not None else None
        found.append(RememberedGame(game_kind, game, list(names.get(game.id or 0, ())),
                                    url_for(game_kind.show_endpoint or "shell.index",
                                            code=link.token), view, link.role, link.token,
                                    summary))
    return found


# --- pages --------------------------------------------------------------------------------------

@bp.get("/")
def index() -> str:
    """Home: the games the companion knows, and the games in progress on this phone."""
    return render_template("shell/index.html", kinds=registry(), games=my_games(),
                           groups=groups.my_groups())


@bp.get("/new")
def new_game() -> str:
    """New game: pick the game; its own set-up page follows."""
    return render_template("shell/new.html", kinds=registry())


@bp.get("/<game:kind>/")
def game_home(kind: GameKind) -> str:
    """One game: what it is, a new game, its rules, and its games on this phone."""
    return render_template("shell/game.html", kind=kind, games=my_games(kind))


@bp.get("/rules")
def rules() -> str | Response:
    """The rules chooser (an old Rebel Princess search link is sent to that game's search)."""
    query = request.args.get("q")
    if query is not None:
        arguments: dict[str, Any] = request.args.to_dict()
        return redirect(url_for("rebel_princess.rules_index", **arguments), 301)
    return render_template("shell/rules.html", kinds=registry())


@bp.get("/rules/<path:rest>")
def old_rules(rest: str) -> Response:
    """Rebel Princess's rulings lived under ``/rules/`` before the shell: keep those links."""
    return redirect(f"/rebel-princess/rules/{rest}", 301)


def _rulings_of(kind: GameKind) -> rulings.Rulings:
    if not kind.rulings:
        abort(404)
    return rulings.load(kind.rulings)


@bp.get("/<game:kind>/rules")
def game_rules(kind: GameKind) -> str:
    """A game's rulings: search, or browse them by group."""
    book = _rulings_of(kind)
    query = request.args.get("q", "").strip()[:80]
    return render_template("shell/rules_index.html", kind=kind, book=book, query=query,
                           found=book.search(query) if query else None)


@bp.get("/<game:kind>/rules/<slug>")
def game_rule(kind: GameKind, slug: str) -> str:
    """One rulings entry of a game, with how this app reads it and the related entries."""
    book = _rulings_of(kind)
    try:
        entry = book.entry(slug)
    except KeyError:
        abort(404)
    return render_template("shell/rules_entry.html", kind=kind, entry=entry,
                           related=book.related(slug))


# --- the rulings a phone keeps for offline use ------------------------------------------------

"""One entry in a phone's offline search index: its address, title, a note (the edition), its
summary, the edition it belongs to ("" for any), then :meth:`rulings.SearchTerms.as_row` (its
names joined, its exact forms)."""


def rulings_addresses(lang: str = "en") -> RulingsAddresses:
    """The rules chooser and every rulings page of every game, with each game's offline search
    index in ``lang``: the shared pages of a game with ``rulings`` data are listed here; a game
    with pages of its own lists them itself (``rulings_addresses(lang)`` in its routes module)."""
    pages = [url_for("shell.rules")]
    aliases: dict[str, str] = {}
    search: dict[str, tuple[SearchRow, ...]] = {}
    weigh_summary: list[str] = []
    for kind in registry():
        own = kind.pages() if kind.available else None
        if own and own.rulings_addresses:
            found = own.rulings_addresses(lang)
            pages += found.pages
            aliases.update(found.aliases)
            search.update(found.search)
            weigh_summary += found.weigh_summary
        elif kind.rulings:
            book = rulings.load(kind.rulings)
            index = url_for("shell.game_rules", kind=kind)
            entries = [(url_for("shell.game_rule", kind=kind, slug=e.slug), e)
                       for e in book.entries]
            pages += [index, *(path for path, _ in entries)]
            search[index] = tuple(
                (path, (f"{e.value} · " if e.value is not None else "") + e.name(lang), "",
                 e.summary(lang), "", *book.terms(e).as_row()) for path, e in entries)
    return RulingsAddresses(tuple(pages), aliases, search, tuple(weigh_summary))


# --- what every page knows ----------------------------------------------------------------------

def current_game() -> GameKind | None:
    """The game of this request: the blueprint's, or the ``/<game>/`` in the path."""
    kind = by_key(request.blueprint or "") or by_key(
        (request.blueprint or "").removesuffix("_api"))
    if kind is None:
        value = (request.view_args or {}).get("kind")
        kind = value if isinstance(value, GameKind) else None
    if kind is None and g.get("link_game") is not None:
        kind = by_key(g.link_game.kind)  # a page about a game outside its blueprint (sharing)
    return kind


def rules_url(kind: GameKind | None) -> str:
    """Where "Rules" in the header goes: this game's rulings, else the chooser."""
    if kind is not None and kind.rules_endpoint:
        return url_for(kind.rules_endpoint)
    if kind is not None and kind.rulings:
        return url_for("shell.game_rules", kind=kind)
    return url_for("shell.rules")


def current_edition(kind: GameKind | None) -> str | None:
    """The edition of the game this request opened (through its link), if it is of ``kind``."""
    game = g.get("link_game")
    return game.edition if kind is not None and game is not None and game.kind == kind.key \
        else None


@bp.app_context_processor
def _shell_context() -> dict[str, Any]:
    kind = current_game()
    lang = current_lang()
    edition = current_edition(kind)
    # What this page's game is called (its edition's name where it has one): the header, the
    # page's <title> and every game page read these two, from the registry's game_name only.
    names = {"current_game_name": kind.game_name(edition, lang),
             "current_game_short": kind.game_name(edition, lang, short=True)} if kind else {}
    return {"current_game": kind, "rules_url": rules_url(kind), "game_kinds": registry(),
            "lang_name": lang, "theme": theme_choice(), **names}


# --- a game's addresses from before it moved ----------------------------------------------------

def old_addresses(kind: GameKind, beginnings: tuple[str, ...]) -> Blueprint:
    """Every page of ``kind`` whose address below its slug begins with one of ``beginnings`` once
    lived at the root: its old address redirects to it, with its query string — a GET for good
    (301), any other method keeping its method and body (308), so that a phone holding an old
    page, link or QR code, or a save waiting in its outbox, reaches the same page. The
    redirecting blueprint (``<key>_moved``) only redirects: the page it leads to checks the link
    and the form as always. It is registered after the game's own blueprint, whose addresses it
    reads then; nothing is written (no CSRF check needed)."""
    moved = Blueprint(f"{kind.key}_moved", __name__)
    prefix = f"/{kind.slug}"

    @moved.record_once
    def _redirect_each(state: BlueprintSetupState) -> None:
        for rule in list(state.app.url_map.iter_rules()):
            blueprint, _, name = rule.endpoint.partition(".")
            old = rule.rule.removeprefix(prefix)
            if blueprint != kind.key or not old.startswith(beginnings):
                continue
            state.add_url_rule(old, endpoint=name, view_func=_redirect_to(rule.endpoint),
                               methods=sorted((rule.methods or set()) - {"HEAD", "OPTIONS"}))
    return moved


def _redirect_to(endpoint: str) -> Any:
    def moved(**values: Any) -> Response:
        target = url_for(endpoint, **values)
        query = request.query_string.decode()
        return redirect(f"{target}?{query}" if query else target,
                        301 if request.method in ("GET", "HEAD") else 308)
    return moved
