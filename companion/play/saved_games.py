"""What a save hands on after its commit: the game as the save itself left it (issue 35).

A save on its own connection (:func:`companion.db.open_save`) reads its link, the game, the
players' names, the game's live links and its entries (Rebel Princess: its seats and round
records), judges the write by replaying the game, and commits. After the commit the game's new
version is published (:mod:`companion.play.push`) and the scorer's page drawn for the viewers
(``routes/live.py``): both need exactly what the save has just read and computed. The save
notes it here before its commit (:func:`note`), as a :class:`SavedGame`; the publisher takes
it (:func:`taken`) and the drawing's session is given it (:func:`know`), so that nothing is
read and nothing replayed again after the commit.

What is noted is the game at the version the save stored: the stamp it wrote (its version), the
entries it read plus the one it wrote, and (where the game's glue makes it) the game's view
replayed with it — the values a fresh load reads and replays. A save that cannot say so (no
names or links read with its link, entries not all read, written through the ORM session, a
second game changed in the same commit) notes nothing, or what it notes is dropped, and the
publisher and the drawing read as before.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlmodel import Session

from ..models import Game, GameLink, Player, loaded, table_of

_LINK, _GAME = table_of(GameLink), table_of(Game)
_GAME_COLUMNS = tuple(column.name for column in _GAME.c)
_STAMP = _GAME_COLUMNS.index("updated_at")
_SAVED = "companion.saved_game"
"""Where a saving session keeps its :class:`SavedGame` until its commit (or rollback)."""
_KNOWN = "companion.saved_game.known"
"""Where a drawing's session keeps the :class:`SavedGame` it was given (:func:`know`)."""


@dataclass(frozen=True)
class SavedGame:
    """A game as a save left it: what a fresh load of its page would read, at its new version."""

    link: GameLink
    """The link the save came through (the scorer's), tracked by no session."""
    game: Game
    """Its game, with the stamp the save stored (its version), tracked by no session."""
    names: tuple[str, ...]
    """The players' names in seat order."""
    links: tuple[tuple[int, str, str], ...]
    """The game's live links, oldest first: (id, role, token)."""
    entries: tuple[Any, ...]
    """Every entry of the game at this version, oldest first (Rebel Princess: its round
    records), as a read gives them."""
    records: bool = False
    """Whether :attr:`entries` are round records (Rebel Princess), not entries."""
    players: tuple[Player, ...] | None = None
    """Rebel Princess: its seats (every column), in seat order (None: not read)."""
    view: Callable[[], Any] | None = None
    """The game's view at this version as the glue's ``view_game`` gives it, made from the
    save's own replay (None: the drawing replays :attr:`entries`)."""

    def tokens(self) -> tuple[tuple[str, str], ...]:
        """The role and token of each live link, oldest first."""
        return tuple((role, token) for _, role, token in self.links)

    def opened_by(self, token: str) -> tuple[GameLink, Game] | None:
        """The live link of ``token`` and the game, as a read of them by that token gives
        them (tracked by no session); None for a token that is not one of its live links."""
        if token == self.link.token:
            return self.link, self.game
        found = next((link for link in self.link_rows() if link.token == token), None)
        return (found, self.game) if found is not None else None

    def link_rows(self) -> list[GameLink]:
        """The live links as objects tracked by no session (never write them)."""
        assert self.game.id is not None
        return [loaded(GameLink, _LINK, (link_id, self.game.id, role, token, None, None))
                for link_id, role, token in self.links]


_READ = "companion.saved_game.read"
"""Where a saving session keeps what its first read brought (:func:`read_with_link`)."""


def read_with_link(session: Session, link: GameLink, game: Game, names: tuple[str, ...] | None,
                   links: tuple[tuple[int, str, str], ...] | None) -> None:
    """A save's first read on its own connection brought ``link``, its ``game``, the players'
    ``names`` and the game's live ``links`` (None: not read; nothing is noted then)."""
    session.info[_READ] = (link, game, names, links)


def as_read(stamp: datetime) -> datetime:
    """A stamp the save wrote as a read gives it back (naive, in UTC: the columns keep no
    zone)."""
    return stamp.astimezone(UTC).replace(tzinfo=None) if stamp.tzinfo else stamp


View = Callable[[Game, tuple[str, ...], Sequence[Any]], Any]
"""What makes a game's view at the version a save leaves, from the save's own replay: called
with the game (its stamp as stored), its players' names and all its entries."""
_LEAVES = "companion.saved_game.leaves"


def leaves(session: Session, view: View) -> None:
    """The write about to be stored on ``session`` leaves its game's view as ``view`` makes it
    (a game's glue, from the replay that checked the write: the page drawn after the commit
    replays nothing). Said before the write; taken by it (:func:`entry_written`)."""
    session.info[_LEAVES] = view


def entry_written(session: Session, game: Game, entries: Sequence[Any] | None,
                  written: Any = None, *, players: Sequence[Player] | None = None,
                  view: View | None = None, records: bool = False) -> None:
    """The save about to be committed on ``session`` (on its own connection) leaves ``game`` —
    read by its first read, its stamp the one it writes — with ``entries`` and the one it
    ``written`` (all of them, oldest first; Rebel Princess: its round records, and its seats
    ``players``) and its view as ``view`` makes it (else as the glue said, :func:`leaves`;
    else None: replayed from the entries by the drawing). Nothing is noted when the entries
    were not all read (None), or the first read did not bring the game's names and links, or
    read another game."""
    found = session.info.get(_READ)
    said: View | None = session.info.pop(_LEAVES, None)  # (taken either way: said for one)
    view = view or said
    if (entries is None or found is None or found[1] is not game or found[2] is None
            or found[3] is None):
        return
    if written is not None:
        entries = [*entries, written]
    link, _, names, links = found
    # (a copy of the game as a read after the commit gives it: its stamp as stored)
    values = [getattr(game, name) for name in _GAME_COLUMNS]
    values[_STAMP] = as_read(game.updated_at)
    copy = loaded(Game, _GAME, values)
    kept = tuple(entries)
    session.info[_SAVED] = SavedGame(
        link, copy, names, links, kept, records,
        tuple(players) if players is not None else None,
        (lambda: view(copy, names, kept)) if view is not None else None)


def drop(session: Session) -> None:
    """Forget what a save noted (its transaction rolled back: a retry notes afresh)."""
    session.info.pop(_SAVED, None)
    session.info.pop(_LEAVES, None)


def taken(session: Session) -> SavedGame | None:
    """What the save just committed on ``session`` noted (taken: said once), or None."""
    found: SavedGame | None = session.info.pop(_SAVED, None)
    return found


def know(session: Session, saved: SavedGame) -> None:
    """Give ``session`` (a drawing's, after the save's commit) what the save left: its reads of
    the game at that version are answered from it (:func:`known`)."""
    session.info[_KNOWN] = saved


def known(session: Session, game_id: int | None) -> SavedGame | None:
    """What ``session`` was given of game ``game_id`` at the version it was given, or None."""
    found: SavedGame | None = session.info.get(_KNOWN)
    return found if found is not None and game_id is not None \
        and found.game.id == game_id else None


def known_view(session: Session, game: Game) -> Any:
    """The view of ``game`` that ``session`` was given, when ``game`` is at that version; else
    None (the caller reads and replays)."""
    found = known(session, game.id)
    if found is None or found.view is None or found.game.updated_at != game.updated_at:
        return None
    return found.view()
