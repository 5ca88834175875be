"""Imports run as jobs outside the request (issue 28): the ``importjob`` table, where each one
keeps its file until read, its progress and its outcome.

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "importjob",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("token", sa.String(length=64), nullable=False),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("group_id", sa.Integer(), nullable=True),
        sa.Column("new_group_name", sa.String(length=40), nullable=False),
        sa.Column("known_groups", sa.String(), nullable=True),
        sa.Column("staging_id", sa.Integer(), nullable=True),
        sa.Column("result_group_id", sa.Integer(), nullable=True),
        sa.Column("file", sa.LargeBinary(), nullable=True),
        sa.Column("total", sa.Integer(), nullable=False),
        sa.Column("done", sa.Integer(), nullable=False),
        sa.Column("added", sa.Integer(), nullable=False),
        sa.Column("skipped", sa.Integer(), nullable=False),
        sa.Column("problems", sa.String(), nullable=True),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("heartbeat_at", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_importjob_token", "importjob", ["token"], unique=True)
    op.create_index("ix_importjob_state", "importjob", ["state"])


def downgrade() -> None:
    op.drop_index("ix_importjob_state", "importjob")
    op.drop_index("ix_importjob_token", "importjob")
    op.drop_table("importjob")
