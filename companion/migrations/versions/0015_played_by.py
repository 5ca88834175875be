"""Each person's and each pair of people's finished games by time (``playedby``), kept with
every save as the totals are (issue 36): a person's last games, history filtered by a player
and the head-to-head page's games together read their own games from one index, newest first,
instead of the group's games from the newest until enough of theirs are found. Filled here
from the games already stored (finished as their stored summaries say, at their
``updated_at``).

Revision ID: 0015
Revises: 0014
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "playedby",
        # Deleted with its game by the database: a 1.1.0 server (during a rolling upgrade)
        # deletes a group's games without knowing this table.
        sa.Column("game_id", sa.Integer(), sa.ForeignKey("game.id", ondelete="CASCADE"),
                  nullable=False),
        sa.Column("low", sa.Integer(), nullable=False),
        sa.Column("high", sa.Integer(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("game_id", "low", "high"),
    )
    op.create_index("ix_playedby_people_updated", "playedby",
                    ["low", "high", "updated_at", "game_id"])
    # The same statement as companion.play.group_totals.RELIST (copied: a migration keeps
    # what it did, whatever the code becomes).
    op.get_bind().execute(sa.text(
        "INSERT INTO playedby (game_id, low, high, updated_at)"
        " SELECT first.game_id, first.person_id, second.person_id, game.updated_at"
        " FROM player AS first JOIN player AS second ON second.game_id = first.game_id"
        " AND second.person_id >= first.person_id JOIN game ON game.id = first.game_id"
        " JOIN gameresult ON gameresult.game_id = first.game_id"
        " WHERE gameresult.finished = :yes"), {"yes": True})


def downgrade() -> None:
    op.drop_index("ix_playedby_people_updated", table_name="playedby")
    op.drop_table("playedby")
