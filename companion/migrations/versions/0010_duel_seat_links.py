"""Every two-phone Kanai duel has its seat links: a duel stored before seat links (a secret key
per seat in its settings, kept by each phone) gets its two here, once, instead of on the first
page a phone holding a key opened (a write on a GET). The phone that kept a seat's key is sent
to that seat's join page, whose button takes the seat (see
:mod:`companion.routes.kanai_duel.pages`).

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-27
"""

from __future__ import annotations

import json
import secrets
from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None

SEAT_ROLES = ("seat1", "seat2")


def upgrade() -> None:
    connection = op.get_bind()
    now = datetime.now(UTC).replace(tzinfo=None)
    duels = connection.execute(sa.text(
        "SELECT id, settings FROM game WHERE kind = 'kanai_duel'")).all()
    for game_id, settings in duels:
        try:
            mode = json.loads(settings or "{}").get("mode")
        except (ValueError, AttributeError):
            continue
        if mode != "phones":
            continue
        have = set(connection.execute(sa.text(
            "SELECT role FROM gamelink WHERE game_id = :game AND revoked_at IS NULL"),
            {"game": game_id}).scalars())
        for role in SEAT_ROLES:
            if role not in have:
                connection.execute(sa.text(
                    "INSERT INTO gamelink (game_id, role, token, created_at)"
                    " VALUES (:game, :role, :token, :now)"),
                    {"game": game_id, "role": role, "token": secrets.token_hex(16), "now": now})


def downgrade() -> None:
    pass  # the links stay: the schema is unchanged
