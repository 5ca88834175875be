"""Groups: one server for many tables, each group's games and players its own.

- ``playgroup``: a group of people who play together, reached only through its link (``token``,
  128 random bits from ``secrets``, unique).
- ``game.group_id`` and ``person.group_id``: every game and every person belongs to one group.
- A person's folded name (``key``) is now unique within its group, not across the server: two
  groups may each have their Ana.

Everything stored before (one trusted group per server) goes into one group, named "Our table"
— only if anything was stored: an empty database gets no group. Its link can be printed with
``flask --app companion groups link <id>``; a browser that created or opened those games keeps
them and is shown that group on its home page (see :mod:`companion.routes.groups`).

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-24
"""

from __future__ import annotations

import secrets
from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

FIRST_GROUP = "Our table"


def upgrade() -> None:
    op.create_table(
        "playgroup",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("name", sa.String(40), nullable=False),
        sa.Column("token", sa.String(64), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_playgroup_token", "playgroup", ["token"], unique=True)
    bind = op.get_bind()
    stored = bind.execute(sa.text(
        "SELECT (SELECT COUNT(*) FROM game) + (SELECT COUNT(*) FROM person)")).scalar_one()
    group = None
    if stored:
        first = bind.execute(sa.text("SELECT MIN(created_at) FROM game")).scalar()
        bind.execute(sa.text("INSERT INTO playgroup (name, token, created_at) "
                             "VALUES (:name, :token, :at)"),
                     {"name": FIRST_GROUP, "token": secrets.token_hex(16),
                      "at": first or datetime.now(UTC)})
        group = bind.execute(sa.text("SELECT MIN(id) FROM playgroup")).scalar_one()
    for table in ("game", "person"):
        with op.batch_alter_table(table) as batch:
            batch.add_column(sa.Column("group_id", sa.Integer(), nullable=True))
        if group is not None:
            bind.execute(sa.text(f"UPDATE {table} SET group_id = :group"), {"group": group})
        with op.batch_alter_table(table) as batch:
            batch.alter_column("group_id", existing_type=sa.Integer(), nullable=False)
            batch.create_foreign_key(f"fk_{table}_group_id_playgroup", "playgroup",
                                     ["group_id"], ["id"])
            if table == "game":  # a group's games, newest first
                batch.create_index("ix_game_group_updated", ["group_id", "updated_at"])
            else:
                batch.create_index("ix_person_group_id", ["group_id"])
    with op.batch_alter_table("person") as batch:
        batch.drop_index("ix_person_key")
        batch.create_unique_constraint("uq_person_group_key", ["group_id", "key"])


def downgrade() -> None:
    with op.batch_alter_table("person") as batch:
        batch.drop_constraint("uq_person_group_key", type_="unique")
        batch.create_index("ix_person_key", ["key"], unique=True)
    for table in ("person", "game"):
        with op.batch_alter_table(table) as batch:
            batch.drop_index("ix_game_group_updated" if table == "game"
                             else "ix_person_group_id")
            batch.drop_constraint(f"fk_{table}_group_id_playgroup", type_="foreignkey")
            batch.drop_column("group_id")
    op.drop_index("ix_playgroup_token", table_name="playgroup")
    op.drop_table("playgroup")
