"""Entry by counts: a round entered as how many Princes each player took and who took the Frog.

Rounds stored before have no counts (they were entered by cards, by numbers or trick by trick).

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-22
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("roundrecord") as batch:
        batch.add_column(sa.Column("counts", sa.String(64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("roundrecord") as batch:
        batch.drop_column("counts")
