"""Groups: the people who play together, each with its games, players and history its own.

A :class:`~companion.models.Group` is reached only through its link (a token of 128 random bits
from ``secrets``); whoever holds it is a member. Every game and every person belongs to one
group, and every query of history, statistics and players is narrowed to one group here or in
:mod:`companion.play.summaries` and :mod:`companion.play.people`.

A game started by a phone that knows no group gets a group of its own, named after its players
(:func:`default_name`), which the table can rename. The functions for the person running a
server (:func:`overview`, :func:`delete_group`, :func:`idle_groups`) never show names.
"""

from __future__ import annotations

import secrets
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import delete, func, or_
from sqlalchemy.exc import OperationalError
from sqlmodel import Session, col, select

from ..models import (
    JOB_FINISHED,
    Entry,
    Game,
    GameLink,
    GameResult,
    Group,
    ImportJob,
    PairTotal,
    Person,
    PlayedBy,
    Player,
    RoundRecord,
    Total,
    TrickLog,
    stored_id,
)
from . import closed, push
from .tokens import is_token

NAME_MAX = 40
"""The longest group name (``Group.name``)."""


class GroupError(ValueError):
    """A rename that cannot be done; ``code`` says why (nothing was changed)."""

    def __init__(self, code: str, **params: object) -> None:
        super().__init__(code)
        self.code = code
        self.params = params


@dataclass(frozen=True)
class GroupRow:
    """A group as the person running the server sees it: figures, never names."""

    id: int
    games: int
    players: int
    created_at: datetime
    last_active: datetime


def new_token() -> str:
    """128 random bits from ``secrets``, as 32 hex digits."""
    return secrets.token_hex(16)


def default_name(names: Sequence[str]) -> str:
    """A new group's name: its first table's players, "Ana · Ben · Cy", cut after a whole name
    (with "…") to fit :data:`NAME_MAX`."""
    parts: list[str] = []
    for name in (" ".join(n.split()) for n in names):
        if not name:
            continue
        if len(" · ".join([*parts, name])) > NAME_MAX - 2:
            return " · ".join(parts) + " …" if parts else name[: NAME_MAX - 1] + "…"
        parts.append(name)
    return " · ".join(parts) or "?"


def new_group(session: Session, *, name: str) -> Group:
    """Add a group (flushed, not committed: the caller commits with what it stores in it)."""
    group = Group(name=clean_name(name)[:NAME_MAX] or "?", token=new_token())
    session.add(group)
    session.flush()
    return group


def clean_name(name: str) -> str:
    return " ".join(name.split())


def by_token(session: Session, token: str) -> Group | None:
    """The group this link opens, or None (unknown, replaced, or not a token's shape)."""
    if not is_token(token):
        return None
    return session.exec(select(Group).where(Group.token == token)).first()


def by_tokens(session: Session, tokens: Sequence[str]) -> list[Group]:
    """The groups of ``tokens`` that still open, in the order given."""
    wanted = [t for t in tokens if is_token(t)]
    if not wanted:
        return []
    found = {g.token: g for g in session.exec(select(Group).where(col(Group.token).in_(wanted)))}
    return [found[t] for t in wanted if t in found]


def by_ids(session: Session, ids: Sequence[int]) -> dict[int, Group]:
    if not ids:
        return {}
    return {g.id: g for g in session.exec(select(Group).where(col(Group.id).in_(ids)))
            if g.id is not None}


def rename(*, session: Session, group: Group, name: str) -> Group:
    """Rename a group. Raises :class:`GroupError` ``name-empty``, ``name-control`` (a control
    character: PostgreSQL stores no NUL) or ``name-too-long``."""
    name = clean_name(name)
    if not name:
        raise GroupError("name-empty")
    if any(unicodedata.category(c) in ("Cc", "Cs", "Cn") for c in name):
        raise GroupError("name-control")
    if len(name) > NAME_MAX:
        raise GroupError("name-too-long", max=NAME_MAX)
    group.name = name
    session.add(group)
    session.commit()
    return group


def replace_links(*, session: Session, group: Group) -> dict[str, str]:
    """Take back every link of the group at once: the group's own and each of its games' (scorer,
    viewer and seat links). Whoever held an old one can no longer open anything of the group;
    each old link is written down as closed (:mod:`companion.play.closed`), so such a phone is
    told the group is closed to it. Returns every game link replaced, ``{old token: new token}``,
    for the phone that did it to keep (the group's new link is ``group.token``)."""
    session.exec(select(Group.id).where(Group.id == group.id).with_for_update()).first()
    old = group.token
    group.token = new_token()
    session.add(group)
    games = select(Game.id).where(Game.group_id == group.id)
    live = session.exec(select(GameLink).where(col(GameLink.game_id).in_(games),
                                               col(GameLink.revoked_at).is_(None))).all()
    now = datetime.now(UTC)
    renamed: dict[str, str] = {}
    for link in live:
        link.revoked_at = now
        session.add(link)
        fresh = GameLink(game_id=link.game_id, role=link.role, token=new_token())
        session.add(fresh)
        renamed[link.token] = fresh.token
    closed.close(session, [old, *renamed, *_job_tokens(session, group.id)], what="group",
                 why="replaced")
    session.commit()
    return renamed


def _job_tokens(session: Session, group_id: int | None) -> list[str]:
    """The tokens of the import jobs that stored into the group (or are storing): their
    progress pages are doors of the group too, closed with its links. A finished job's row
    goes (its page is then only the closed page); a running one finishes, behind a closed
    page."""
    jobs = session.exec(select(ImportJob).where(or_(col(ImportJob.group_id) == group_id,
                                                    col(ImportJob.result_group_id) == group_id))
                        ).all()
    for job in jobs:
        if job.state in JOB_FINISHED:
            session.delete(job)
    return [job.token for job in jobs]


def delete_group(*, session: Session, group_id: int) -> bool:
    """Delete a group and everything in it (games, their entries, links and results, its
    players); False if there was no such group. One transaction: all or nothing. Every link of
    the group is written down as closed (:mod:`companion.play.closed`): a phone that comes back
    with one is told the game is gone.

    Saves of the group's games may be under way: the group's row, then its games' rows, are
    locked first (every save writes its game's row, its ``updated_at``), so a save either
    commits before the delete reads what to delete, or finds its game gone (and says so, see
    :func:`companion.play.store.check_still_there`). A deadlock the
    database broke anyway (or, on SQLite, a write that waited too long) is tried again."""
    for attempt in range(_ATTEMPTS):
        try:
            return _delete_group(session, group_id)
        except OperationalError:
            session.rollback()
            if attempt == _ATTEMPTS - 1:
                raise
    raise AssertionError("unreachable")


_ATTEMPTS = 3


def _delete_group(session: Session, group_id: int) -> bool:
    group = session.exec(select(Group).where(Group.id == group_id).with_for_update()).first()
    if group is None:
        return False
    games = list(session.exec(select(Game.id).where(Game.group_id == group_id)
                              .order_by(col(Game.id)).with_for_update()))
    tokens = list(session.exec(select(GameLink.token).where(col(GameLink.game_id).in_(games))))
    closed.close(session, [group.token, *_job_tokens(session, group_id)], what="group",
                 why="deleted")
    closed.close(session, tokens, what="game", why="deleted")
    push.leaving(session, games)  # their open pages are told, after the commit
    for model in (GameResult, PlayedBy, Entry, RoundRecord, TrickLog, GameLink, Player):
        session.execute(delete(model).where(col(model.game_id).in_(games)))
    session.execute(delete(Total).where(col(Total.group_id) == group_id))
    session.execute(delete(PairTotal).where(col(PairTotal.group_id) == group_id))
    session.execute(delete(Game).where(col(Game.group_id) == group_id))
    session.execute(delete(Person).where(col(Person.group_id) == group_id))
    session.execute(delete(Group).where(col(Group.id) == group_id))
    session.commit()
    return True


def delete_games(*, session: Session, game_ids: Sequence[int]) -> None:
    """Delete some games of a group and everything in them, in one transaction (an import
    refused half-way deletes what it staged this way, a few games at a time)."""
    for model in (GameResult, PlayedBy, Entry, RoundRecord, TrickLog, GameLink, Player):
        session.execute(delete(model).where(col(model.game_id).in_(game_ids)))
    session.execute(delete(Game).where(col(Game.id).in_(game_ids)))
    session.commit()


def overview(session: Session) -> list[GroupRow]:
    """Every group with its number of games and players, when it was made and last active (its
    newest game's last change, else when it was made): oldest activity first."""
    games = dict(session.exec(select(Game.group_id, func.count(col(Game.id)))
                              .group_by(col(Game.group_id))).all())
    latest = dict(session.exec(select(Game.group_id, func.max(Game.updated_at))
                               .group_by(col(Game.group_id))).all())
    people = dict(session.exec(select(Person.group_id, func.count(col(Person.id)))
                               .group_by(col(Person.group_id))).all())
    rows = []
    for stored, created in session.exec(select(Group.id, Group.created_at)).all():
        group_id = stored_id(stored)
        active = max(_utc(created), _utc(latest[group_id])) if latest.get(group_id) else \
            _utc(created)
        rows.append(GroupRow(group_id, int(games.get(group_id, 0)),
                             int(people.get(group_id, 0)), _utc(created), active))
    return sorted(rows, key=lambda r: (r.last_active, r.id))


def idle_groups(session: Session, *, days: int, now: datetime | None = None) -> list[int]:
    """The groups with no activity for more than ``days`` days (see :func:`overview`)."""
    cutoff = (now or datetime.now(UTC)) - timedelta(days=days)
    return [row.id for row in overview(session) if row.last_active < cutoff]


def _utc(when: datetime) -> datetime:
    return when.replace(tzinfo=UTC) if when.tzinfo is None else when.astimezone(UTC)
