"""Storage: games, their players, and every version of every round entry.

Tables hold what players entered, never computed scores: the scoring core replays a game from
its round entries on every view. Round entries are append-only: entering, editing and undoing each
add a ``RoundRecord``; the newest record of a round number is the current one (or, if ``deleted``,
the round is not there). Nothing is ever overwritten, so the history shows every change.
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import UniqueConstraint
from sqlmodel import Field, SQLModel


def _now() -> datetime:
    return datetime.now(UTC)


class Game(SQLModel, table=True):
    id: int | None = Field(default=None, primary_key=True)
    code: str = Field(index=True, unique=True, max_length=16)
    edition: str = Field(max_length=16)
    round_cards: str = Field(max_length=8)  # one letter per planned round, e.g. "abcde"
    first_leader: int
    created_at: datetime = Field(default_factory=_now)
    updated_at: datetime = Field(default_factory=_now)


class Player(SQLModel, table=True):
    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id", index=True)
    seat: int
    name: str = Field(max_length=40)
    princess: str | None = Field(default=None, max_length=40)


class RoundRecord(SQLModel, table=True):
    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id", index=True)
    number: int
    action: str = Field(max_length=16)  # entered, edited, undone
    deleted: bool = False
    undoes: int | None = None  # the record this one reverts (action "undone")
    mode: str = Field(default="cards", max_length=8)  # cards, numbers
    round_card: str | None = Field(default=None, max_length=2)  # play-off rounds only
    taken: str | None = None  # cards per seat, seats split by "|", cards by " "
    no_tricks: str | None = None  # seats that won no trick, "0,3"
    scores: str | None = None  # typed scores, "3,0,-2,5"
    leader: int | None = None  # who led the first trick, when a power changed it
    last_trick_winner: int | None = None  # classic: leads the next round
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
    # "power" (a Princess slug, or "haggle"), and what that use needs ("target", "suit", "zero",
    # "cards": see POWER_ARGS in companion/trick_entry.py).
    powers: str = "[]"
    accepted: str = "[]"  # JSON: the keys of the rule breaches the players accepted
    checks: bool = True  # judge the plays; the players can switch it off for the game
    version: int = 0
    updated_at: datetime = Field(default_factory=_now)
