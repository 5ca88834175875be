"""Many games: a kind and JSON settings on every game, and the append-only entry log.

Rebel Princess's columns of ``game`` become optional (the other games leave them empty); every
game stored before this revision is a Rebel Princess game.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-22
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("game") as batch:
        batch.add_column(sa.Column("kind", sa.String(32), nullable=False,
                                   server_default="rebel_princess"))
        batch.add_column(sa.Column("settings", sa.String(), nullable=True))
        batch.alter_column("edition", existing_type=sa.String(16), nullable=True)
        batch.alter_column("round_cards", existing_type=sa.String(8), nullable=True)
        batch.alter_column("first_leader", existing_type=sa.Integer(), nullable=True)
        batch.create_index("ix_game_kind", ["kind"])
    op.create_table(
        "entry",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("game_id", sa.Integer(), sa.ForeignKey("game.id"), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(24), nullable=False),
        sa.Column("data", sa.String(), nullable=False),
        sa.Column("key", sa.String(64), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.UniqueConstraint("game_id", "seq", name="uq_entry_game_seq"),
        sa.UniqueConstraint("game_id", "key", name="uq_entry_game_key"),
    )
    op.create_index("ix_entry_game_id", "entry", ["game_id"])


def downgrade() -> None:
    op.drop_table("entry")
    with op.batch_alter_table("game") as batch:
        batch.drop_index("ix_game_kind")
        batch.drop_column("settings")
        batch.drop_column("kind")
