"""The registry: every game the companion knows, and the one place the shell learns about them.

Each game is a package in each layer — its rules core in ``companion/scoring/<key>/``, its
blueprint in ``companion/routes/<key>``, its templates in ``companion/templates/<key>/``, its
rulings in ``companion/rulings/<key>/``, its French catalogue in ``companion/translations/<key>/`` —
and one :class:`GameKind` line in :data:`GAMES`. The shell builds the home page, the new-game
chooser, the header, the rules chooser, the OpenAPI document and the remembered games from this
list; adding a game changes nothing else in the shell (see the README, "How to add a game").

A game's routes module (``GameKind.routes``) exposes (each part is a ``Protocol`` below, checked
with ``isinstance``):

- ``bp``: the blueprint of its pages, without a prefix: the shell mounts it under ``/<slug>/``.
  Its name is the game's ``key``; its views take the game code as ``code``, so the shell can
  remember every game a phone opens.
- ``api_bp`` (optional): its JSON API blueprint, without a prefix: the shell mounts it under
  ``/api/v1/<slug>/``, makes it CSRF-exempt and gives it the shared error handlers.
- ``OPERATIONS`` (optional): its API endpoints as :class:`ApiOperation`, for the OpenAPI document.
- ``home_view(game, summary)`` (optional): what the home page shows of one of its games, read
  from its stored summary (no replay: a phone's home lists up to dozens of games).
- ``OLD_ADDRESSES`` (optional, for a game whose pages once lived outside its slug): the
  beginnings of those page addresses (below the slug) that were once at the root, such as
  ``"/g/"``; the shell redirects each old address to its page under the slug.
- ``rulings_addresses()`` (optional, for a game with rulings pages of its own): those pages, as
  :class:`companion.routes.shell.RulingsAddresses`, for the phone's offline copy.

The registry loads a game's routes module (by name) only to mount its blueprints and read what
its pages offer. What the app does with a stored game below the pages goes through the game's
glue module (``GameKind.play``, ``companion/play/<key>.py``), which exposes:

- ``summary(session, game)`` (optional): what a game came to, as a
  :class:`companion.history.GameSummary`, for history and statistics; with it
  ``summary_from(game, replay)``, the same summary from what a save replayed and noted (see
  :func:`companion.play.store.note_replay`). A save stores it (:mod:`companion.play.summaries`),
  never reaching up into the game's pages.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from flask import Blueprint

PACKAGE_DIR = Path(__file__).parent


@dataclass(frozen=True)
class ApiOperation:
    """One POST endpoint of a game's JSON API, as the OpenAPI document describes it."""

    endpoint: str
    operation_id: str
    summary: str
    request: type[Any]
    response: type[Any]


# -- the contract of a game's routes module (see the module docstring), one Protocol per part ---

@runtime_checkable
class GameRoutes(Protocol):
    """Every game's routes module: the blueprint of its pages."""

    bp: Blueprint


@runtime_checkable
class HasApi(Protocol):
    """A game with a JSON API: its blueprint and its operations for the OpenAPI document."""

    api_bp: Blueprint
    OPERATIONS: Sequence[ApiOperation]


@runtime_checkable
class HasHomeView(Protocol):
    """A game the home page shows more of than its name and players."""

    def home_view(self, game: Any, summary: Any) -> Any: ...


@runtime_checkable
class HasSummary(Protocol):
    """A game's glue module (``GameKind.play``) for a game in history and statistics: what a
    game came to, read from the database, and the same from what a save replayed and noted
    (see :func:`companion.play.store.note_replay`)."""

    def summary(self, session: Any, game: Any) -> Any: ...

    def summary_from(self, game: Any, replay: Any) -> Any: ...


@runtime_checkable
class HasEntryShapes(Protocol):
    """A game's glue module declaring what each kind of its stored entries may hold
    (:mod:`companion.play.entries`): a save and an import store nothing else."""

    ENTRY_SHAPES: Mapping[str, type[Any]]


@runtime_checkable
class HasOldAddresses(Protocol):
    """A game whose pages once lived at the root: the beginnings of the addresses that moved."""

    OLD_ADDRESSES: Sequence[str]


@runtime_checkable
class HasRulingsAddresses(Protocol):
    """A game with rulings pages of its own, for the phone's offline copy."""

    def rulings_addresses(self, lang: str) -> Any: ...


@dataclass(frozen=True)
class GameKind:
    """What the shell knows of one game. Names and pitch are given in English and French."""

    key: str  # the package name in every layer, and the blueprint's name
    slug: str  # in URLs and the API: /<slug>/..., /api/v1/<slug>/...
    names: dict[str, str]
    pitch: dict[str, str]
    players: tuple[int, int]
    routes: str | None = None  # the module with ``bp`` (None: "coming soon")
    play: str | None = None  # its glue module, ``companion.play.<key>`` (summaries for history)
    new_endpoint: str | None = None  # the game's own set-up page
    show_endpoint: str | None = None  # a game's page, ``url_for(show_endpoint, code=...)``
    rules_endpoint: str | None = None  # its rulings index (default: the shared rulings pages)
    rulings: str | None = None  # a package holding rulings.toml in the shared format
    emblem: str = "♛"
    short: dict[str, str] | None = None  # for the phone's header, where space is short
    # A game sold in editions of their own names: each edition's name (a game's ``edition``).
    editions: dict[str, dict[str, str]] = field(default_factory=dict, compare=False)
    extra: dict[str, Any] = field(default_factory=dict, compare=False)

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
        return self.routes is not None

    @property
    def player_range(self) -> str:
        low, high = self.players
        return f"{low}" if low == high else f"{low}–{high}"

    def module(self) -> ModuleType | None:
        """The game's routes module (its blueprints and what its pages offer the shell)."""
        return importlib.import_module(self.routes) if self.routes else None

    def play_module(self) -> ModuleType | None:
        """The game's glue module (no Flask: what lies below the pages reads only this one)."""
        return importlib.import_module(self.play) if self.play else None

    def api_operations(self) -> Sequence[ApiOperation]:
        module = self.module()
        return tuple(module.OPERATIONS) if isinstance(module, HasApi) else ()

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
        players=(3, 6), routes="companion.routes.rebel_princess",
        play="companion.play.rebel_princess",
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
        players=(2, 6), routes="companion.routes.princesse_princesse",
        play="companion.play.princesse_princesse",
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
        players=(2, 5), routes="companion.routes.reveillez",
        play="companion.play.reveillez", new_endpoint="reveillez.new_game",
        show_endpoint="reveillez.show", rulings="companion.rulings.reveillez", emblem="☾",
        short={"en": "Wake the 12", "fr": "Réveillez les 12"}),
    GameKind(
        key="kanai_duel", slug="kanai-duel",
        names={"en": "Princes & Princesses duel", "fr": "Duel Princes & Princesses"},
        pitch={"en": "Two players, eight characters, a secret pick: a referee on one phone or a "
                     "secret reveal on two.",
               "fr": "Deux joueurs, huit personnages, un choix secret : un arbitre sur un "
                     "téléphone ou une révélation secrète sur deux."},
        players=(2, 2), routes="companion.routes.kanai_duel",
        play="companion.play.kanai_duel",
        new_endpoint="kanai_duel.new_game", show_endpoint="kanai_duel.show",
        rulings="companion.rulings.kanai_duel", emblem="⚔",
        short={"en": "P&P duel", "fr": "Duel P&P"}),
]
"""Every game, in the order of the home page. Adding a game: one line here."""


def registry() -> list[GameKind]:
    """Every registered game (the list the shell reads; tests may add a toy game to it)."""
    return GAMES


def by_slug(slug: str) -> GameKind | None:
    return next((game for game in registry() if game.slug == slug), None)


def by_key(key: str) -> GameKind | None:
    return next((game for game in registry() if game.key == key), None)
