"""Every game has its scorer and viewer links: those stored before links (and games imported
without them) get theirs here, once, instead of on the first page that asks for them — no page
writes (see :func:`companion.play.store.links_of`).

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-26
"""

from __future__ import annotations

import secrets
from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

ROLES = ("scorer", "viewer")


def upgrade() -> None:
    connection = op.get_bind()
    now = datetime.now(UTC).replace(tzinfo=None)
    for role in ROLES:
        lacking = connection.execute(sa.text(
            "SELECT id FROM game WHERE id NOT IN (SELECT game_id FROM gamelink"
            " WHERE role = :role AND revoked_at IS NULL)"), {"role": role}).scalars().all()
        for game_id in lacking:
            connection.execute(sa.text(
                "INSERT INTO gamelink (game_id, role, token, created_at)"
                " VALUES (:game, :role, :token, :now)"),
                {"game": game_id, "role": role, "token": secrets.token_hex(16), "now": now})


def downgrade() -> None:
    pass  # the links stay: the schema is unchanged
