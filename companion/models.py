"""Storage: games of every kind, their players, and what players entered, append-only.

Tables hold what players entered, never computed scores: each game's rules core replays a game
from its entries on every view. Nothing is ever overwritten, so the history shows every change.

- ``Group`` is the people who play together: its games of every kind, its players, its history.
  It is reached only through its link (``token``, 128 random bits); replacing the link changes
  the token, and the old one opens nothing. Every game and every person belongs to one group;
  nothing of one group is shown through another's link.
- ``Game`` is one row per game of any kind (``kind`` is the registry key, see
  :mod:`companion.games`); ``settings`` holds a game's set-up as JSON (its own shape per game).
  The Rebel Princess columns (``edition``, ``round_cards``, ``first_leader``) are empty for the
  other games.
- ``Player``: the seats of a game, in play order; each points at the ``Person`` who sat there.
- ``Person``: a group's players across games (no accounts: a name, unique in its group once case
  and accents are set aside). A new seat finds or creates its person by name
  (:mod:`companion.play.people`); renaming and merging people keeps every game.
- ``GameResult``: what each game came to as its rules core says (finished, winners, scores,
  running totals, facts): a cache for history and statistics, rebuilt whenever the game changes
  (its ``stamp``) and never exported; deleting every row loses nothing.
- ``Entry``: the append-only log of the games other than Rebel Princess: one row per thing
  entered (a round, an action, an edit, an undo), numbered ``seq`` 1, 2, 3 … per game. The
  database refuses a second row with the same ``(game_id, seq)`` — two phones that both saw
  version 4 cannot both write version 5 — and a second row with the same ``(game_id, key)`` — a
  double tap or a network retry carries the same key and is stored once.
- Rebel Princess keeps its own tables: ``RoundRecord`` (every version of every round: entering,
  editing and undoing each add one; the newest record of a round number is the current one, or,
  if ``deleted``, the round is not there) and ``TrickLog`` (a round being entered trick by trick).

The schema is changed only by migrations (``companion/migrations/``), never by ``create_all``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from functools import cache
from typing import Any, TypeVar, cast

from sqlalchemy import Index, LargeBinary, Table, UniqueConstraint, inspect
from sqlalchemy.orm import configure_mappers
from sqlmodel import Field, SQLModel


def _now() -> datetime:
    return datetime.now(UTC)


def stored_id(value: int | None) -> int:
    """An id read from the database. SQLModel types every id column ``int | None`` (a new row
    has none until it is flushed); a row read back always has one, so this is where that is
    said, once, for the type checker and for anyone reading."""
    if value is None:
        raise ValueError("a stored row without an id (not flushed yet?)")
    return value


def table_of(model: type[SQLModel]) -> Table:
    """A table class's SQLAlchemy ``Table``, for statements built once in SQLAlchemy Core
    (SQLModel sets ``__table__`` on its table classes without declaring it to type checkers)."""
    table = inspect(model).local_table
    assert isinstance(table, Table)
    return table


Loaded = TypeVar("Loaded", bound=SQLModel)


@cache
def _mappers_ready() -> None:
    """SQLAlchemy's mappers set up, once (the first ORM use does it; :func:`loaded` may come
    first)."""
    configure_mappers()


def loaded(model: type[Loaded], table: Table, values: Sequence[Any]) -> Loaded:
    """An object of ``model`` made from a row of ``table``'s columns, in their order, as
    SQLAlchemy's loader makes one (the values put in place: no constructor, no validation of
    what was stored), tracked by no session: a page's or a save's link and game read through
    Core (:mod:`companion.play.store`) for a fraction of the constructor's cost."""
    make, names = _maker(model, table)
    made = cast(Loaded, make())
    made.__dict__.update(zip(names, values, strict=True))
    return made


@cache
def _maker(model: type[SQLModel], table: Table) -> tuple[Callable[[], Any], tuple[str, ...]]:
    """How :func:`loaded` makes an object of ``model`` (its class manager's ``new_instance``,
    the mappers set up first) and the names of ``table``'s columns, in their order: looked up
    once (a save's link and game are made on every save, issue 36)."""
    _mappers_ready()
    return inspect(model).class_manager.new_instance, tuple(c.name for c in table.c)


def made(model: type[Loaded], **values: Any) -> Loaded:
    """A new object of ``model`` (one to store) as its constructor makes one — ``values`` and,
    for each field not given, its default (a ``default_factory`` called) — without the
    constructor's cost (an attribute set through validation's machinery per field: ~0.1 ms for
    a round record, issue 36). Table classes are not validated when constructed either: what
    ``values`` hold was checked before. Raises ``TypeError`` for a field that is not
    ``model``'s, or a required one left out, as the constructor would not say."""
    make, defaults, factories, required = _made_by(model)
    if unknown := values.keys() - defaults.keys() - factories.keys() - required:
        raise TypeError(f"{model.__name__} has no field {sorted(unknown)}")
    if missing := required - values.keys():
        raise TypeError(f"{model.__name__} needs {sorted(missing)}")
    built = cast(Loaded, make())
    built.__dict__.update(defaults)
    built.__dict__.update({name: factory() for name, factory in factories.items()
                           if name not in values})
    built.__dict__.update(values)
    object.__setattr__(built, "__pydantic_fields_set__", set(values))  # (as pydantic's own)
    return built


@cache
def _made_by(model: type[SQLModel]) -> tuple[Callable[[], Any], dict[str, Any],
                                                 dict[str, Callable[[], Any]], frozenset[str]]:
    """How :func:`made` makes an object of ``model``: its class manager's ``new_instance`` and
    its fields' defaults, factories and required names, looked up once."""
    _mappers_ready()
    defaults: dict[str, Any] = {}
    factories: dict[str, Callable[[], Any]] = {}
    required: set[str] = set()
    for name, field in model.model_fields.items():
        if field.default_factory is not None:
            factories[name] = cast(Callable[[], Any], field.default_factory)
        elif field.is_required():
            required.add(name)
        else:
            defaults[name] = field.default
    return inspect(model).class_manager.new_instance, defaults, factories, frozenset(required)


class Group(SQLModel, table=True):
    """The people who play together, reached by one link: whoever holds ``token`` is a member
    (starts games in the group, sees its history, renames its players, exports and imports)."""

    __tablename__ = "playgroup"  # "group" is a keyword of SQL

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(max_length=40)
    token: str = Field(max_length=64, unique=True, index=True)
    created_at: datetime = Field(default_factory=_now)


class Game(SQLModel, table=True):
    # A group's history lists its games newest first: one index serves the group and the order;
    # filtered by a game kind, another serves the group, the kind and the order.
    __table_args__ = (Index("ix_game_group_updated", "group_id", "updated_at"),
                      Index("ix_game_group_kind_updated", "group_id", "kind", "updated_at"))

    id: int | None = Field(default=None, primary_key=True)
    code: str = Field(index=True, unique=True, max_length=16)
    group_id: int = Field(foreign_key="playgroup.id")
    kind: str = Field(default="rebel_princess", max_length=32,
                      sa_column_kwargs={"server_default": "rebel_princess"})
    settings: str | None = None  # JSON: the set-up of a game other than Rebel Princess
    # Rebel Princess only:
    edition: str | None = Field(default=None, max_length=16)
    round_cards: str | None = Field(default=None, max_length=8)  # one letter per round, "abcde"
    first_leader: int | None = None
    created_at: datetime = Field(default_factory=_now)
    updated_at: datetime = Field(default_factory=_now)


class Person(SQLModel, table=True):
    """One of a group's players, across every game. ``key`` is the name folded for
    comparison (case, accents and spaces set aside: "Zoé" and "zoe " are one person); the
    database refuses a second person with the same key in one group."""

    __table_args__ = (UniqueConstraint("group_id", "key", name="uq_person_group_key"),)

    id: int | None = Field(default=None, primary_key=True)
    group_id: int = Field(foreign_key="playgroup.id", index=True)
    name: str = Field(max_length=40)
    key: str = Field(max_length=80)
    created_at: datetime = Field(default_factory=_now)


class Player(SQLModel, table=True):
    """A seat of one game, with the name typed there and the person who sat in it. The database
    refuses a second player on the same seat and the same person on two seats of one game."""

    __table_args__ = (UniqueConstraint("game_id", "seat", name="uq_player_game_seat"),
                      UniqueConstraint("game_id", "person_id", name="uq_player_game_person"))

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id", index=True)
    seat: int
    name: str = Field(max_length=40)
    princess: str | None = Field(default=None, max_length=40)
    # Filled when the seat is stored, from the name (companion.play.people); never null in the
    # database.
    person_id: int | None = Field(default=None, foreign_key="person.id", index=True,
                                  nullable=False)


class RoundRecord(SQLModel, table=True):
    """One version of one round: entering, editing and undoing each add one.

    ``seq`` numbers a game's records 1, 2, 3 … in the order they were made; the database refuses
    a second record with the same number, so two writes based on the same version of the game
    can never both be stored (the loser re-reads the game and is judged again), and a second
    record with the same ``key`` (a form sent again is stored once, as ``Entry`` does).
    """

    __table_args__ = (UniqueConstraint("game_id", "seq", name="uq_roundrecord_game_seq"),
                      UniqueConstraint("game_id", "key", name="uq_roundrecord_game_key"))

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id", index=True)
    seq: int
    number: int
    action: str = Field(max_length=16)  # entered, edited, undone
    deleted: bool = False
    undoes: int | None = None  # the record this one reverts (action "undone")
    mode: str = Field(default="cards", max_length=8)  # cards, counts, numbers, tricks
    round_card: str | None = Field(default=None, max_length=2)  # play-off rounds only
    taken: str | None = None  # cards per seat, seats split by "|", cards by " "
    no_tricks: str | None = None  # seats that won no trick, "0,3"
    scores: str | None = None  # typed scores, "3,0,-2,5"
    counts: str | None = Field(default=None, max_length=64)  # Princes per seat / Frog, "3,2,0,4/1"
    leader: int | None = None  # who led the first trick, when a power changed it
    last_trick_winner: int | None = None  # classic: leads the next round
    # The idempotency key of the form that made this record (see companion.play.store.keyed):
    # None for records made before migration 0013, by an import, or by a form without one.
    key: str | None = Field(default=None, max_length=64)
    created_at: datetime = Field(default_factory=_now)


class TrickLog(SQLModel, table=True):
    """A round being entered trick by trick ("Enter tricks"), kept until its scores are confirmed.

    One row per game and round number, updated in place: it is a scratch pad, not history (the
    confirmed round becomes a ``RoundRecord``). ``version`` goes up with every change, so a tap
    made on a phone that had not seen the latest change is refused instead of landing on the
    wrong seat.
    """

    __table_args__ = (UniqueConstraint("game_id", "number"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id", index=True)
    number: int
    plays: str = ""  # card codes in the order they were played, "Q3 Q7 P12 F9 ..."
    # JSON, one object per power use or haggle, in order: {"at": cards played before it, "seat",
    # "power" (a Princess slug, or "haggle"), and what that use needs ("target", "suit", "cards",
    # "more": see PowerNote in companion/play/rebel_princess_tricks/board.py, and each power's
    # declaration in companion/scoring/rebel_princess/engine/powers.py).
    powers: str = "[]"
    accepted: str = "[]"  # JSON: the keys of the rule breaches the players accepted
    checks: bool = True  # judge the plays; the players can switch it off for the game
    version: int = 0
    updated_at: datetime = Field(default_factory=_now)


class Entry(SQLModel, table=True):
    """One thing entered in a game other than Rebel Princess: append-only, numbered per game.

    ``kind`` names what it is in the game's own terms ("round", "wake", "pick", "undo" …) and
    ``data`` holds it as JSON in the game's own shape; the game's glue module reads them back.
    """

    __table_args__ = (UniqueConstraint("game_id", "seq", name="uq_entry_game_seq"),
                      UniqueConstraint("game_id", "key", name="uq_entry_game_key"))

    id: int | None = Field(default=None, primary_key=True)
    # No index of its own (migration 0017): (game, seq)'s serves every read by the game.
    game_id: int = Field(foreign_key="game.id")
    seq: int  # 1, 2, 3 … per game: the game's version after this entry
    kind: str = Field(max_length=24)
    data: str = "{}"  # JSON
    key: str | None = Field(default=None, max_length=64)  # idempotency key of the form or request
    created_at: datetime = Field(default_factory=_now)


class GameLink(SQLModel, table=True):
    """A link that opens a game: whoever has it is a scorer (may enter, edit, undo) or a viewer
    (sees the game, can change nothing). The token is the only way in: 32 random bytes from
    ``secrets``, so it cannot be guessed. Replacing a link revokes it (``revoked_at``) and adds a
    new one; a revoked token opens nothing."""

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id", index=True)
    role: str = Field(max_length=8)  # scorer, viewer
    token: str = Field(max_length=64, unique=True, index=True)
    created_at: datetime = Field(default_factory=_now)
    revoked_at: datetime | None = None


class GameResult(SQLModel, table=True):
    """What a game came to, as its rules core says (a ``GameSummary`` as JSON in ``data``).

    A cache, not a record: it is rebuilt when ``stamp`` no longer matches the game (every write
    to a game moves its ``updated_at``), it is never exported, and it can be emptied at any time.
    """

    # The group's games in progress are listed through one index (group, finished), whatever
    # the group has finished: the game's group, moved with it.
    __table_args__ = (Index("ix_gameresult_group_finished", "group_id", "finished"),)

    game_id: int = Field(foreign_key="game.id", primary_key=True)
    group_id: int | None = Field(default=None, foreign_key="playgroup.id")
    stamp: str = Field(max_length=64)
    finished: bool = False
    data: str = "{}"  # the summary but its running totals: what statistics read
    progress: str = "[]"  # the running totals, for charts


JOB_FINISHED = ("done", "refused", "abandoned")
"""The states of an :class:`ImportJob` that has ended."""


class ImportJob(SQLModel, table=True):
    """An import or restore of an export file, run outside the request that sent it
    (:mod:`companion.play.imports`): the file until it is read, how far it got, and what came
    of it. ``token`` (128 random bits) opens its progress page, for the phone that sent it.

    ``state`` is ``waiting``, ``checking`` (the file read once: ``done`` games out of none
    known yet), ``storing`` (``done`` of ``total``), then ``done``, ``refused`` (``problems``:
    JSON, the codes and details of :class:`companion.history.export_format.ImportProblem`) or
    ``abandoned`` (its process stopped: ``heartbeat_at`` went stale, and the games it had
    staged were deleted). Until it is done its games are in the hidden group ``staging_id``,
    which no link opens; ``group_id`` is the group they go to (None: a restore, into a new group
    made at the end, ``result_group_id`` — or, when the file's games are already in one of the
    groups ``known_groups`` (JSON: the ids of the groups the restoring phone knows), into that
    one, which the job looks for, not the request that sent the file)."""

    __tablename__ = "importjob"

    id: int | None = Field(default=None, primary_key=True)
    token: str = Field(max_length=64, unique=True, index=True)
    state: str = Field(default="waiting", max_length=16, index=True)
    group_id: int | None = None
    new_group_name: str = Field(default="", max_length=40)
    known_groups: str | None = None
    staging_id: int | None = None
    result_group_id: int | None = None
    file: bytes | None = Field(default=None, sa_type=LargeBinary)
    total: int = 0
    done: int = 0
    added: int = 0
    skipped: int = 0
    problems: str | None = None
    created_at: datetime = Field(default_factory=_now)
    heartbeat_at: datetime = Field(default_factory=_now)


class ClosedLink(SQLModel, table=True):
    """A link that opened a group or a game once and opens nothing now: replaced, or its group
    deleted. Kept so that a phone still holding it is told why (the group is closed to it, or
    the game is gone) instead of a bare "not found". Only the link's SHA-256 digest is stored:
    what is written here opens nothing, and says nothing of the token."""

    digest: str = Field(primary_key=True, max_length=64)
    what: str = Field(max_length=8)  # group, game
    why: str = Field(max_length=8)  # replaced, deleted
    closed_at: datetime = Field(default_factory=_now)


class Total(SQLModel, table=True):
    """A group's finished games of one kind added up for one person (``person_id``), or for
    the whole group (``person_id`` 0: its finished games of that kind, ``games`` alone): what
    the statistics and the players' pages read, one row per line shown, whatever the group
    holds.

    A cache, like :class:`GameResult`, kept in the transaction of every write that changes a
    game's summary (:mod:`companion.play.group_totals`): a game that finishes adds its seats, a
    finished game changed or reopened takes its old seats away first. ``best`` is the best
    score (the lowest when ``lower_wins``) and ``best_count`` how many games scored it;
    ``facts`` holds the game's own counts as JSON (``[[key, label, aggregate, total,
    count], …]``); ``last_at`` when the newest of these games last changed (a game's
    ``updated_at`` only grows: a finished game changed again counts its new time). Never
    exported; :func:`companion.play.group_totals.rebuild` makes a group's again from its games'
    summaries.
    """

    __table_args__ = (UniqueConstraint("group_id", "kind", "person_id",
                                       name="uq_total_group_kind_person"),)

    id: int | None = Field(default=None, primary_key=True)
    group_id: int = Field(foreign_key="playgroup.id")
    kind: str = Field(max_length=32)
    person_id: int  # 0: the group's own line (no foreign key: no person 0)
    games: int = 0
    wins: int = 0
    score_sum: int = 0
    best: int | None = None
    best_count: int = 0
    unit: str = Field(default="points", max_length=16)
    lower_wins: bool = False
    facts: str = "[]"
    last_at: datetime | None = None  # when the newest of these games last changed


class PairTotal(SQLModel, table=True):
    """Two people's finished games together in one game kind (``low`` < ``high``: person ids),
    added up for the head-to-head page: games, each one's wins, each one's games finished ahead
    of the other, and games level. One row per pair and kind, whatever the group holds.

    A cache kept with :class:`Total` in the same transaction
    (:mod:`companion.play.group_totals`): a game that finishes adds each pair of its seats, one
    changed or reopened takes its old counts away first; merging two people moves the one's
    pairs to the other; :func:`companion.play.group_totals.rebuild` makes a group's again from
    its games' summaries. Never exported.
    """

    __table_args__ = (UniqueConstraint("group_id", "low", "high", "kind",
                                       name="uq_pairtotal_group_pair_kind"),)

    id: int | None = Field(default=None, primary_key=True)
    group_id: int = Field(foreign_key="playgroup.id")
    kind: str = Field(max_length=32)
    low: int
    high: int
    games: int = 0
    wins_low: int = 0
    wins_high: int = 0
    ahead_low: int = 0
    ahead_high: int = 0
    level: int = 0


class PlayedBy(SQLModel, table=True):
    """A finished game listed under one person (``low`` == ``high``: a person id) or under two
    people who both sat in it (``low`` < ``high``), with the game's ``updated_at``: what a
    person's last games, history filtered by a player and the head-to-head page's games
    together read, newest first, from one index whatever the group holds (their own games, not
    the group's newer ones).

    A cache like :class:`Total`, kept in the same transaction by the same functions
    (:mod:`companion.play.group_totals`): a game that finishes adds its rows, a finished game
    changed or reopened has its rows written again or taken away, a merge moves them, a rebuild
    makes a group's again from its games (finished as their stored summaries say, each row's
    time the game's). Never exported.
    """

    __tablename__ = "playedby"
    __table_args__ = (Index("ix_playedby_people_updated", "low", "high", "updated_at",
                            "game_id"),)

    # (Deleted with its game by the database too: a server of the release before this table,
    # during a rolling upgrade, deletes a group's games without knowing it.)
    game_id: int = Field(foreign_key="game.id", primary_key=True, ondelete="CASCADE")
    low: int = Field(primary_key=True)
    high: int = Field(primary_key=True)
    updated_at: datetime

