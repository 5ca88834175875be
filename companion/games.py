"""The registry: every game the companion knows, and the one place the shell learns about them.

Each game is a package in each layer — its rules core in ``companion/scoring/<key>/``, its
blueprint in ``companion/routes/<key>``, its templates in ``companion/templates/<key>/``, its
rulings in ``companion/rulings/<key>/``, its French catalogue in ``companion/translations/<key>/`` —
and one :class:`GameKind` line in :data:`GAMES`. The shell builds the home page, the new-game
chooser, the header, the rules chooser, the OpenAPI document and the remembered games from this
list; adding a game changes nothing else in the shell (see the README, "How to add a game").

A game plugs in through two typed objects, registered under its key with :func:`plug_in` by the
app's assembly (:func:`companion.factory.plug_in_games`, one line per game) and checked by
``mypy --strict`` where the game builds them and where they are plugged in. The registry imports
no game: the games' pages read it (an import loop otherwise). Whether a game is playable is a
fact of its registry line (``coming_soon`` marks one that is listed only), so the registry tells
the same before any app is built; a playable game whose parts were never plugged in fails
loudly when they are read (LookupError), never shows as nothing.

- ``GameKind.pages()`` is its :class:`GamePages` (its routes package's ``PAGES``): ``bp``, the
  blueprint of its pages, without a prefix (the shell mounts it under ``/<slug>/``; its name is
  the game's ``key``; its views take the game code as ``code``, so the shell can remember every
  game a phone opens); ``api_bp`` (optional), its JSON API blueprint, mounted under
  ``/api/v1/<slug>/``, CSRF-exempt with the shared error handlers; ``operations``, its API
  endpoints for the OpenAPI document; ``home_view(game, summary)`` (optional), what the home page
  shows of one of its games, read from its stored summary (no replay); ``old_addresses`` (for a
  game whose pages once lived at the root), the beginnings of those addresses, such as ``"/g/"``,
  which the shell redirects under the slug; ``rulings_addresses(lang)`` (optional, for a game
  with rulings pages of its own), those pages for the phone's offline copy.
- ``GameKind.glue()`` is its :class:`GameGlue` (its glue module's ``GLUE``, no Flask):
  ``summary(session, game)``, what a game came to, as a :class:`companion.history.GameSummary`,
  for history and statistics, and ``summary_from(game, replay)``, the same from what a save
  replayed and noted (:func:`companion.play.store.note_replay`); ``entry_shapes``, what each
  kind of its stored entries may hold (:mod:`companion.play.entries`). A save stores the
  summary (:mod:`companion.play.summaries`), never reaching up into the game's pages.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Generic, Protocol, TypeVar

if TYPE_CHECKING:
    from flask import Blueprint
    from pydantic import BaseModel
    from sqlmodel import Session

    from .history import GameSummary
    from .models import Game

PACKAGE_DIR = Path(__file__).parent


@dataclass(frozen=True)
class ApiOperation:
    """One POST endpoint of a game's JSON API, as the OpenAPI document describes it."""

    endpoint: str
    operation_id: str
    summary: str
    request: type[BaseModel]
    response: type[BaseModel]


SearchRow = tuple[str, ...]
"""One rulings entry as a phone searches it offline (address, title, notes, terms...)."""


@dataclass(frozen=True)
class RulingsAddresses:
    """Addresses of rulings pages, for a phone's offline copy (:mod:`companion.routes.pwa`):
    each of ``pages`` answers a page; each of ``aliases`` redirects to one of them; ``search``
    holds, for each search page, its entries for searching offline (``static/rulings_search.js``).
    """

    pages: tuple[str, ...]
    aliases: Mapping[str, str] = field(default_factory=dict)
    search: Mapping[str, tuple[SearchRow, ...]] = field(default_factory=dict)
    weigh_summary: tuple[str, ...] = ()
    """Search pages whose search also counts a word's times in the summary (Rebel Princess)."""


@dataclass(frozen=True)
class GamePages:
    """What a game's pages offer the shell (see the module docstring)."""

    bp: Blueprint
    api_bp: Blueprint | None = None
    operations: Sequence[ApiOperation] = ()
    home_view: Callable[[Game, GameSummary], object] | None = None
    old_addresses: Sequence[str] = ()
    rulings_addresses: Callable[[str], RulingsAddresses] | None = None


class Glue(Protocol):
    """A game's history and statistics as the shell and the saves call them."""

    def summary(self, session: Session, game: Game) -> GameSummary: ...

    def summary_from(self, game: Game, replay: object) -> GameSummary: ...

    @property
    def entry_shapes(self) -> Mapping[str, type[BaseModel]]:
        """What each kind of the game's stored entries may hold (:mod:`companion.play.entries`)."""
        ...


Replay = TypeVar("Replay")


@dataclass(frozen=True)
class GameGlue(Generic[Replay]):
    """A game's :class:`Glue`: ``summary`` reads and replays a stored game; ``from_replay``
    reads what a save of this game replayed and noted, of type ``replay``; ``entry_shapes``, the
    shape of each kind of its stored entries (its ``ENTRY_SHAPES``): a save and an import store
    nothing else (:mod:`companion.play.entries`)."""

    replay: type[Replay]
    read: Callable[[Session, Game], GameSummary]
    from_replay: Callable[[Game, Replay], GameSummary]
    entry_shapes: Mapping[str, type[BaseModel]]

    def summary(self, session: Session, game: Game) -> GameSummary:
        return self.read(session, game)

    def summary_from(self, game: Game, replay: object) -> GameSummary:
        """The summary from a noted replay; one of another type is a bug (TypeError)."""
        if not isinstance(replay, self.replay):
            raise TypeError(f"{type(replay).__name__} is not a {self.replay.__name__}")
        return self.from_replay(game, replay)


@dataclass(frozen=True)
class GameKind:
    """What the shell knows of one game. Names and pitch are given in English and French."""

    key: str  # the package name in every layer, and the blueprint's name
    slug: str  # in URLs and the API: /<slug>/..., /api/v1/<slug>/...
    names: dict[str, str]
    pitch: dict[str, str]
    players: tuple[int, int]
    new_endpoint: str | None = None  # the game's own set-up page
    show_endpoint: str | None = None  # a game's page, ``url_for(show_endpoint, code=...)``
    rules_endpoint: str | None = None  # its rulings index (default: the shared rulings pages)
    rulings: str | None = None  # a package holding rulings.toml in the shared format
    emblem: str = "♛"
    short: dict[str, str] | None = None  # for the phone's header, where space is short
    coming_soon: bool = False  # listed, not yet playable: no parts to plug in
    # A game sold in editions of their own names: each edition's name (a game's ``edition``).
    editions: dict[str, dict[str, str]] = field(default_factory=dict, compare=False)
    extra: dict[str, object] = field(default_factory=dict, compare=False)

    def name(self, lang: str) -> str:
        return self.names["fr" if lang.startswith("fr") else "en"]

    def game_name(self, edition: str | None, lang: str, *, short: bool = False) -> str:
        """The name of one game of this kind: its edition's own where editions have names
        (a Deluxe game is « Rebel Princess Deluxe » in French too), else the kind's (its
        short name, with ``short``)."""
        names = self.editions.get(edition or "") or (self.short or self.names if short
                                                      else self.names)
        return names["fr" if lang.startswith("fr") else "en"]

    def short_name(self, lang: str) -> str:
        return (self.short or self.names)["fr" if lang.startswith("fr") else "en"]

    def pitch_in(self, lang: str) -> str:
        return self.pitch["fr" if lang.startswith("fr") else "en"]

    @property
    def available(self) -> bool:
        """Playable: a fact of the registry line (not ``coming_soon``), true before any app is
        built, so whoever reads the registry first (a command, a test's parameters) sees every
        game; its parts are plugged in by the app's assembly (:func:`plug_in`)."""
        return not self.coming_soon

    def _parts(self) -> _Parts:
        """The plugged-in parts of a playable game (those :func:`plug_in_later` promised are
        plugged in now); one not plugged in is a missing line in
        :func:`companion.factory.plug_in_games` (LookupError, never a silent "nothing")."""
        if not self.available:
            raise LookupError(f"{self.key} is coming soon: it has no parts")
        while self.key not in _PLUGGED and _LATER:
            _LATER.pop(0)()
        if self.key not in _PLUGGED:
            raise LookupError(f"{self.key} is not plugged in: companion.factory.plug_in_games "
                              "plugs in every game (create_app runs it first)")
        return _PLUGGED[self.key]

    def pages(self) -> GamePages:
        """What the game's pages offer the shell (LookupError: not playable or not plugged in,
        as in the operator's app, which has no pages)."""
        pages = self._parts().pages
        if pages is None:
            raise LookupError(f"{self.key}'s pages are not plugged in (its glue only)")
        return pages

    def glue(self) -> Glue | None:
        """The game's summaries for history (None: it is not in the history, or not playable)."""
        return self._parts().glue if self.available else None

    @property
    def player_range(self) -> str:
        low, high = self.players
        return f"{low}" if low == high else f"{low}–{high}"

    def api_operations(self) -> Sequence[ApiOperation]:
        return tuple(self.pages().operations) if self.available else ()

    @property
    def translations(self) -> Path | None:
        """The folder of this game's own French catalogue, if it has one."""
        folder = PACKAGE_DIR / "translations" / self.key
        return folder if folder.is_dir() else None



GAMES: list[GameKind] = [
    GameKind(
        key="rebel_princess", slug="rebel-princess",
        names={"en": "Rebel Princess", "fr": "Rebelles Princesses"},
        pitch={"en": "Tricks to dodge the Princes: the score pad, every special round, who leads "
                     "and who won, for Deluxe and Rebelles Princesses.",
               "fr": "Des plis pour éviter les Princes : la feuille de score, chaque manche "
                     "spéciale, qui ouvre et qui gagne, en Deluxe et Rebelles Princesses."},
        # The Deluxe edition is Bezier's, in English only: « Rebel Princess Deluxe » on every
        # box. « Rebelles Princesses » is the French box, the classic edition (RULINGS.md).
        editions={"deluxe": {"en": "Rebel Princess Deluxe", "fr": "Rebel Princess Deluxe"},
                  "classic": {"en": "Rebelles Princesses", "fr": "Rebelles Princesses"}},
        players=(3, 6),
        new_endpoint="rebel_princess.new_game", show_endpoint="rebel_princess.show",
        rules_endpoint="rebel_princess.rules_index", emblem="♛"),
    GameKind(
        key="princesse_princesse", slug="princesse-princesse",
        names={"en": "Princesse Princesse (Love Letter)",
               "fr": "Princesse Princesse (Love Letter)"},
        pitch={"en": "Favour tokens, round ends and who may be targeted, with a turn log that "
                     "counts the unseen cards.",
               "fr": "Les jetons de faveur, la fin des manches et les cibles permises, avec un "
                     "journal des tours qui compte les cartes invisibles."},
        players=(2, 6),
        new_endpoint="princesse_princesse.new_game", show_endpoint="princesse_princesse.show",
        rulings="companion.rulings.princesse_princesse", emblem="✉",
        short={"en": "Princesse Princesse", "fr": "Princesse Princesse"}),
    GameKind(
        key="reveillez", slug="reveillez",
        names={"en": "Wake the 12 Princesses", "fr": "Réveillez les 12 princesses"},
        pitch={"en": "Who woke which princess, points to win, jester counts and additions "
                     "checked at a glance.",
               "fr": "Qui a réveillé quelle princesse, les points pour gagner, le bouffon et les "
                     "additions vérifiés d'un coup d'œil."},
        players=(2, 5), new_endpoint="reveillez.new_game",
        show_endpoint="reveillez.show", rulings="companion.rulings.reveillez", emblem="☾",
        short={"en": "Wake the 12", "fr": "Réveillez les 12"}),
    GameKind(
        key="kanai_duel", slug="kanai-duel",
        names={"en": "Princes & Princesses duel", "fr": "Duel Princes & Princesses"},
        pitch={"en": "Two players, eight characters, a secret pick: a referee on one phone or a "
                     "secret reveal on two.",
               "fr": "Deux joueurs, huit personnages, un choix secret : un arbitre sur un "
                     "téléphone ou une révélation secrète sur deux."},
        players=(2, 2),
        new_endpoint="kanai_duel.new_game", show_endpoint="kanai_duel.show",
        rulings="companion.rulings.kanai_duel", emblem="⚔",
        short={"en": "P&P duel", "fr": "Duel P&P"}),
]
"""Every game, in the order of the home page. Adding a game: one line here, and its parts
plugged in by :func:`companion.factory.plug_in_games`."""


@dataclass(frozen=True)
class _Parts:
    pages: GamePages | None
    glue: Glue | None


_PLUGGED: dict[str, _Parts] = {}
"""Each plugged-in game's parts, by key (:func:`plug_in`)."""

_LATER: list[Callable[[], None]] = []
"""What :func:`plug_in_later` promised, run the first time a part not plugged in is read."""


def plug_in(key: str, pages: GamePages | None = None, glue: Glue | None = None) -> None:
    """Register a game's parts under its registry line's ``key``: the app's assembly does it
    for every game (:func:`companion.factory.plug_in_games`) before it mounts the blueprints,
    so the registry itself imports no game (the games' pages import the registry). A part
    given as None keeps what was plugged in before (the glue alone, then the pages). A key with
    no playable registry line is a mistake (LookupError)."""
    kind = by_key(key)
    if kind is None or not kind.available:
        raise LookupError(f"no playable registry line for {key!r}")
    before = _PLUGGED.get(key, _Parts(None, None))
    _PLUGGED[key] = _Parts(pages or before.pages, glue or before.glue)


def plug_in_later(plug: Callable[[], None]) -> None:
    """Have ``plug`` (which calls :func:`plug_in`) run the first time a game's parts are read
    before they were plugged in: the operator's app plugs in the games' glue this way, so a
    command that reads no game (``flask groups list``) loads no game either."""
    if plug not in _LATER:
        _LATER.append(plug)


def registry() -> list[GameKind]:
    """Every registered game (the list the shell reads; tests may add a toy game to it)."""
    return GAMES


def by_slug(slug: str) -> GameKind | None:
    return next((game for game in registry() if game.slug == slug), None)


def by_key(key: str) -> GameKind | None:
    for game in registry():  # (a loop, not a generator: asked a few times by every request)
        if game.key == key:
            return game
    return None
