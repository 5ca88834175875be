"""Rebel Princess round records are numbered per game, and the database refuses a duplicate.

Every entry, edit and undo of a game gets the next number (``seq``); the unique constraint on
``(game_id, seq)`` makes "check, then write" one atomic step: two saves based on the same version
cannot both be stored, on SQLite and PostgreSQL alike. Records stored before get their numbers in
the order they were made.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-22
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("roundrecord") as batch:
        batch.add_column(sa.Column("seq", sa.Integer(), nullable=True))
    op.execute(
        "UPDATE roundrecord SET seq = (SELECT count(*) FROM roundrecord AS earlier "
        "WHERE earlier.game_id = roundrecord.game_id AND earlier.id <= roundrecord.id)")
    with op.batch_alter_table("roundrecord") as batch:
        batch.alter_column("seq", existing_type=sa.Integer(), nullable=False)
        batch.create_unique_constraint("uq_roundrecord_game_seq", ["game_id", "seq"])


def downgrade() -> None:
    with op.batch_alter_table("roundrecord") as batch:
        batch.drop_constraint("uq_roundrecord_game_seq", type_="unique")
        batch.drop_column("seq")
