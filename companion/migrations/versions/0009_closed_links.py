"""Links that opened something once: ``closedlink`` keeps the SHA-256 digest of every link that
was replaced or whose group was deleted, with what it opened and why it closed, so that a phone
still holding one is told so (see :mod:`companion.play.closed`). Nothing stored before changes.

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "closedlink",
        sa.Column("digest", sa.String(64), primary_key=True),
        sa.Column("what", sa.String(8), nullable=False),
        sa.Column("why", sa.String(8), nullable=False),
        sa.Column("closed_at", sa.DateTime(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("closedlink")
