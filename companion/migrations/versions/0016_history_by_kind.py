"""History filtered by a game kind read from one index (issue 36): the group's games of that
kind, newest first (``ix_game_group_kind_updated``: group, kind, time), instead of the group's
games from the newest until enough of that kind turn up — a kind played rarely in a large group
read every newer game of the others. It takes the place of the index on the kind alone
(``ix_game_kind``), which no query of the app reads (every read by kind names the group too, or
the game's code): a save moves as many index entries as before on PostgreSQL.

A 1.1.0 server meanwhile reads and writes the same columns (an index is the database's own,
invisible to it).

Revision ID: 0016
Revises: 0015
Create Date: 2026-11-29
"""

from __future__ import annotations

from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_game_group_kind_updated", "game", ["group_id", "kind", "updated_at"])
    op.drop_index("ix_game_kind", table_name="game")


def downgrade() -> None:
    op.create_index("ix_game_kind", "game", ["kind"])
    op.drop_index("ix_game_group_kind_updated", table_name="game")
