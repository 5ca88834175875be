"""Baseline: the tables of release c3c3148 (Rebel Princess only, made by create_all then).

Revision ID: 0001
Revises:
Create Date: 2026-11-22
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "game",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("code", sa.String(16), nullable=False),
        sa.Column("edition", sa.String(16), nullable=False),
        sa.Column("round_cards", sa.String(8), nullable=False),
        sa.Column("first_leader", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_game_code", "game", ["code"], unique=True)
    op.create_table(
        "player",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("game_id", sa.Integer(), sa.ForeignKey("game.id"), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(40), nullable=False),
        sa.Column("princess", sa.String(40), nullable=True),
    )
    op.create_index("ix_player_game_id", "player", ["game_id"])
    op.create_table(
        "roundrecord",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("game_id", sa.Integer(), sa.ForeignKey("game.id"), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("action", sa.String(16), nullable=False),
        sa.Column("deleted", sa.Boolean(), nullable=False),
        sa.Column("undoes", sa.Integer(), nullable=True),
        sa.Column("mode", sa.String(8), nullable=False),
        sa.Column("round_card", sa.String(2), nullable=True),
        sa.Column("taken", sa.String(), nullable=True),
        sa.Column("no_tricks", sa.String(), nullable=True),
        sa.Column("scores", sa.String(), nullable=True),
        sa.Column("leader", sa.Integer(), nullable=True),
        sa.Column("last_trick_winner", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_roundrecord_game_id", "roundrecord", ["game_id"])
    op.create_table(
        "tricklog",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("game_id", sa.Integer(), sa.ForeignKey("game.id"), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("plays", sa.String(), nullable=False),
        sa.Column("powers", sa.String(), nullable=False),
        sa.Column("accepted", sa.String(), nullable=False),
        sa.Column("checks", sa.Boolean(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.UniqueConstraint("game_id", "number"),
    )
    op.create_index("ix_tricklog_game_id", "tricklog", ["game_id"])


def downgrade() -> None:
    for table in ("tricklog", "roundrecord", "player", "game"):
        op.drop_table(table)
