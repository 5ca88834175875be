"""A save writes one index page less (issue 36): the index on the entries' game alone
(``ix_entry_game_id``) goes. Its column leads the unique constraint on (game, number)
(``uq_entry_game_seq``), whose index (or that of the one on (game, key), which PostgreSQL takes
as readily: both lead with the game) serves every query that reads a game's entries — by the
game and the number, in number order, their highest number, the games an export or a deletion
names, the foreign key's check when a game is deleted — on SQLite as on PostgreSQL
(``tests/shell/test_entry_index.py`` reads their plans). Every entry stored wrote its key into
it: on SQLite one more page of the write-ahead log at each save's COMMIT (a duel's round wrote
nine; seven now, the summary's UPDATE no longer naming ``finished`` either:
``tests/shell/test_save_pages.py``).

A 1.9.0 server already running when this runs (a rolling upgrade) goes on saving: what it
sends works unchanged (no query of it names the index; its summary UPDATE still names
``finished``: one page more at its saves). A 1.9.0 worker started after it sees a schema newer
than its own and, as every release does (:mod:`companion.ops.schema`), refuses writes with a 503
while its pages go on, and ``/readyz`` answers 503, so the proxy sends the phones to this
release's servers.

Revision ID: 0017
Revises: 0016
Create Date: 2026-11-30
"""

from __future__ import annotations

from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.drop_index("ix_entry_game_id", table_name="entry")


def downgrade() -> None:
    op.create_index("ix_entry_game_id", "entry", ["game_id"])
