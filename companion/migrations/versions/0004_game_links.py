"""Scorer and viewer links: each game is opened through an unguessable token with a role.

Games stored before get their links when the browser that created them next opens them.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-22
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "gamelink",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("game_id", sa.Integer(), sa.ForeignKey("game.id"), nullable=False),
        sa.Column("role", sa.String(8), nullable=False),
        sa.Column("token", sa.String(64), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("revoked_at", sa.DateTime(), nullable=True),
    )
    op.create_index("ix_gamelink_game_id", "gamelink", ["game_id"])
    op.create_index("ix_gamelink_token", "gamelink", ["token"], unique=True)


def downgrade() -> None:
    op.drop_table("gamelink")
