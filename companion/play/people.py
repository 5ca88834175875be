"""The group's players across games: who sat in each seat, renaming and merging.

A :class:`~companion.models.Person` is one of a group's players; each seat of a game (a
:class:`~companion.models.Player` row) points at one of the game's group. Names are compared
folded — case, accents and extra spaces set aside (:func:`name_key`) — so "Zoé" typed at one game
and "zoe" at the next are the same person of that group, and the database keeps keys unique in a
group. Every function here works inside one group: a person of another group is "unknown".

Every game's set-up stores its seats as it always did: :func:`install` hooks the session so that a
seat stored without a person finds (or creates) the person of its name. Two seats of one game
whose names fold alike are two people: the later one becomes "Ana 2" (" 3" …) in the group.

Renaming a person renames their seats in every game, so score pads read the new name; merging
two people (a typo) moves every seat of one to the other. Neither touches what was played.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import Insert, event, insert, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection
from sqlalchemy.orm import Session as OrmSession
from sqlmodel import Session, col, select

from ..common.person_names import name_key
from ..models import Game, Person, Player, stored_id
from . import group_totals

NAME_MAX = 24
"""The longest name a rename may give: the shortest name field of any game's set-up."""
STORED_MAX = 40
"""The longest name the ``person`` table holds (a seat's name is at most this long too)."""


class PeopleError(ValueError):
    """A rename or merge that cannot be done; ``code`` says why (nothing was changed)."""

    def __init__(self, code: str, **params: object) -> None:
        super().__init__(code)
        self.code = code
        self.params = params


@dataclass(frozen=True)
class PersonRow:
    """A person and when they last played (their newest game's last change)."""

    id: int
    name: str
    last_played: datetime | None


def clean_name(name: str) -> str:
    """A name as stored: single spaces, no spaces around it."""
    return " ".join(name.split())


def numbered(name: str, number: int) -> str:
    """``Ana`` → ``Ana 2``: the name of the second person called Ana at one table."""
    suffix = f" {number}"
    return name[: STORED_MAX - len(suffix)] + suffix


# --- finding the person of a seat ------------------------------------------------------------

def _insert_ignoring_conflict(connection: Connection, name: str, key: str, group_id: int
                              ) -> None:
    values = {"name": name, "key": key, "group_id": group_id, "created_at": datetime.now(UTC)}
    statement: postgresql.Insert | sqlite.Insert | Insert
    if connection.dialect.name == "postgresql":
        statement = postgresql.insert(Person).values(**values).on_conflict_do_nothing(
            index_elements=["group_id", "key"])
    elif connection.dialect.name == "sqlite":
        statement = sqlite.insert(Person).values(**values).on_conflict_do_nothing(
            index_elements=["group_id", "key"])
    else:  # pragma: no cover - the app runs on SQLite and PostgreSQL only
        statement = insert(Person).values(**values)
    connection.execute(statement)


def person_for(connection: Connection, name: str, group_id: int, avoid: Iterable[int] = ()
               ) -> int:
    """The id of the person of group ``group_id`` called ``name`` (created if new), or of
    "name 2", "name 3" … when that person is in ``avoid`` (already seated at this table). Safe
    when two games are stored at once: the database's unique key decides, and both read the
    same person back."""
    avoid = set(avoid)
    base = clean_name(name) or "?"
    label, number = base, 1
    while True:
        key = name_key(label)
        mine = select(Person.id).where(Person.group_id == group_id, Person.key == key)
        found = connection.execute(mine).scalar()
        if found is None:
            _insert_ignoring_conflict(connection, label, key, group_id)
            found = connection.execute(mine).scalar_one()
        if found not in avoid:
            return int(found)
        number += 1
        label = numbered(base, number)


def _link_new_seats(session: OrmSession, _context: object, _instances: object) -> None:
    """Before a flush: give every new seat without a person the person of its name."""
    new = [row for row in session.new if isinstance(row, Player) and row.person_id is None]
    if not new:
        return
    with session.no_autoflush:
        connection = session.connection()
        by_game: dict[int | None, list[Player]] = {}
        for row in new:
            by_game.setdefault(row.game_id, []).append(row)
        for game_id, rows in by_game.items():
            group_id = connection.execute(
                select(Game.group_id).where(Game.id == game_id)).scalar_one()
            seated = set(connection.execute(
                select(Player.person_id).where(Player.game_id == game_id)).scalars())
            seated |= {row.person_id for row in session.new
                       if isinstance(row, Player) and row.game_id == game_id and row.person_id}
            for row in sorted(rows, key=lambda r: r.seat):
                row.person_id = person_for(connection, row.name, group_id, seated)
                seated.add(row.person_id)


def install() -> None:
    """Hook every session (once): seats stored by any game's set-up get their person."""
    if not event.contains(OrmSession, "before_flush", _link_new_seats):
        event.listen(OrmSession, "before_flush", _link_new_seats)


# --- reading ---------------------------------------------------------------------------------

def people(session: Session, group_id: int) -> list[PersonRow]:
    """Every person of the group, the most recent player first (when each last played: from
    the group's totals and its games in progress, whatever the group has finished)."""
    names = dict(session.exec(select(Person.id, Person.name)
                              .where(Person.group_id == group_id)).all())
    last = group_totals.last_played(session.connection(), group_id)
    found = [PersonRow(stored_id(pid), name, last.get(stored_id(pid)))
             for pid, name in names.items()]
    return sorted(found, key=lambda p: (p.last_played is None, _desc(p.last_played),
                                        name_key(p.name)))


def _desc(when: datetime | None) -> float:
    return -when.timestamp() if when is not None else 0.0


def known_names(session: Session, group_id: int, limit: int = 200) -> list[str]:
    """The names to offer when a game of the group is set up: the most recent players first."""
    return [p.name for p in people(session, group_id)[:limit]]


def get_person(session: Session, group_id: int, person_id: int) -> Person | None:
    """The person of the group with this id, or None (unknown, or another group's)."""
    if not 0 < person_id < 2**31:  # beyond any id the database holds (PostgreSQL's integer)
        return None
    person = session.get(Person, person_id)
    return person if person is not None and person.group_id == group_id else None


def names_by_id(session: Session, group_id: int) -> dict[int, str]:
    """The group's people's names by id."""
    return {stored_id(pid): name for pid, name in session.exec(
        select(Person.id, Person.name).where(Person.group_id == group_id))}


# --- renaming and merging --------------------------------------------------------------------

def rename(*, session: Session, group_id: int, person_id: int, name: str) -> Person:
    """Rename a person of the group and their seats in every game.

    Raises :class:`PeopleError`: ``unknown-person``, ``name-empty``, ``name-too-long``, or
    ``name-taken`` (another person of the group has this name once folded: merge them
    instead)."""
    person = get_person(session, group_id, person_id)
    if person is None:
        raise PeopleError("unknown-person")
    name = clean_name(name)
    if not name:
        raise PeopleError("name-empty")
    if len(name) > NAME_MAX:
        raise PeopleError("name-too-long", max=NAME_MAX)
    key = name_key(name)
    other = session.exec(select(Person).where(Person.group_id == group_id, Person.key == key,
                                              Person.id != person_id)).first()
    if other is not None:
        raise PeopleError("name-taken", other=other.name)
    person.name, person.key = name, key
    session.add(person)
    session.execute(update(Player).where(col(Player.person_id) == person_id).values(name=name))
    session.commit()
    return person


def shared_games(session: Session, first: int, second: int) -> list[str]:
    """The codes of the games both people sat in."""
    mine = select(Player.game_id).where(Player.person_id == first)
    rows = session.exec(select(Game.code).join(Player, col(Player.game_id) == col(Game.id))
                        .where(Player.person_id == second, col(Player.game_id).in_(mine)))
    return list(rows)


def merge(*, session: Session, group_id: int, source: int, target: int) -> Person:
    """Merge person ``source`` into ``target`` (both of the group): every seat of ``source``
    becomes ``target``'s (named like them) and ``source`` is removed. Games and what was played
    stay as they were.

    Raises :class:`PeopleError`: ``unknown-person``, ``same-person``, or ``played-together``
    (both sat at one game: they are two people)."""
    if source == target:
        raise PeopleError("same-person")
    kept = get_person(session, group_id, target)
    gone = get_person(session, group_id, source)
    if kept is None or gone is None:
        raise PeopleError("unknown-person")
    together = shared_games(session, source, target)
    if together:
        raise PeopleError("played-together", games=len(together), other=gone.name)
    session.execute(update(Player).where(col(Player.person_id) == source)
                    .values(person_id=target, name=kept.name))
    group_totals.merge(session.connection(), group_id=group_id, source=source, target=target)
    session.delete(gone)
    session.commit()
    return kept


def seats_of(session: Session, game_ids: Sequence[int] | None = None
             ) -> dict[int, list[int]]:
    """Each game's people, seat by seat: ``{game_id: [person_id of seat 0, …]}``."""
    query = select(Player.game_id, Player.seat, Player.person_id).order_by(
        col(Player.game_id), col(Player.seat))
    if game_ids is not None:
        query = query.where(col(Player.game_id).in_(game_ids))
    found: dict[int, list[int]] = {}
    for game_id, _seat, person_id in session.exec(query):
        found.setdefault(stored_id(game_id), []).append(stored_id(person_id))
    return found
