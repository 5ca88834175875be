"""Each group's head-to-head counts kept per pair of people and game kind (``pairtotal``), with
every save as the per-person totals are (issue 36): the head-to-head page reads one row per
game kind instead of every game the first person played. Filled here from the finished games
already stored (their stored summaries and who sat where).

Revision ID: 0014
Revises: 0012
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "pairtotal",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("group_id", sa.Integer(), sa.ForeignKey("playgroup.id"), nullable=False),
        sa.Column("kind", sa.String(length=32), nullable=False),
        sa.Column("low", sa.Integer(), nullable=False),
        sa.Column("high", sa.Integer(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("wins_low", sa.Integer(), nullable=False),
        sa.Column("wins_high", sa.Integer(), nullable=False),
        sa.Column("ahead_low", sa.Integer(), nullable=False),
        sa.Column("ahead_high", sa.Integer(), nullable=False),
        sa.Column("level", sa.Integer(), nullable=False),
        sa.UniqueConstraint("group_id", "low", "high", "kind",
                            name="uq_pairtotal_group_pair_kind"),
    )
    _fill(op.get_bind())


def _fill(connection: sa.engine.Connection) -> None:
    """Every group's pairs, from its finished games' stored summaries (read by the pure
    history code, as 0011 did) and who sat where, one group at a time."""
    from companion.history.stats import pairs
    from companion.history.summary import GameSummary

    people: dict[int, list[int]] = {}
    for game_id, person in connection.execute(sa.text(
            "SELECT game_id, person_id FROM player ORDER BY game_id, seat")):
        people.setdefault(game_id, []).append(person)
    counted: dict[tuple[int, str, int, int], list[int]] = {}
    for game_id, group_id, kind, data in connection.execute(sa.text(
            "SELECT game.id, game.group_id, game.kind, gameresult.data FROM game"
            " JOIN gameresult ON gameresult.game_id = game.id WHERE gameresult.finished")):
        found = pairs(GameSummary.from_json(data), people.get(game_id, []))
        for (low, high), counts in found.items():
            kept = counted.setdefault((group_id, kind, low, high), [0] * 6)
            for index, value in enumerate(counts):
                kept[index] += value
    insert = sa.text(
        "INSERT INTO pairtotal (group_id, kind, low, high, games, wins_low, wins_high,"
        " ahead_low, ahead_high, level) VALUES (:group_id, :kind, :low, :high, :games,"
        " :wins_low, :wins_high, :ahead_low, :ahead_high, :level)")
    names = ("games", "wins_low", "wins_high", "ahead_low", "ahead_high", "level")
    rows = [{"group_id": group_id, "kind": kind, "low": low, "high": high,
             **dict(zip(names, counts, strict=True))}
            for (group_id, kind, low, high), counts in counted.items()]
    if rows:
        connection.execute(insert, rows)


def downgrade() -> None:
    op.drop_table("pairtotal")
