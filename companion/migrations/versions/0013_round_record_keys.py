"""Rebel Princess's round records carry the idempotency key of the form that made them, as the
other games' entries do (``entry.key``): a form sent again (a double tap, a retry, the outbox
sending a save whose answer was lost) finds the record it stored and is answered like the first
sending, and the database refuses a second record with the same key in one game.

The column is nullable and has no default: records stored before have no key (they were judged
by their stored round, and still are when a form carries no key), and a server of the previous
release, still running during a rolling upgrade, names its columns when it writes a record, so
its records simply have none.

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("roundrecord") as batch:
        batch.add_column(sa.Column("key", sa.String(length=64), nullable=True))
        batch.create_unique_constraint("uq_roundrecord_game_key", ["game_id", "key"])


def downgrade() -> None:
    with op.batch_alter_table("roundrecord") as batch:
        batch.drop_constraint("uq_roundrecord_game_key", type_="unique")
        batch.drop_column("key")
