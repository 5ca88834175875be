"""The group's players across games, and a cache of what each game came to.

- ``person``: one row per player of the group, with a ``key`` (the name folded: case, accents and
  spaces set aside) that the database keeps unique.
- ``player.person_id``: every seat points at its person. Seats stored before are backfilled with
  one person per distinct name once folded ("Zoé", "zoe" and "ZOE" are one person, named by the
  spelling used most, the earliest on a tie). Two seats of one game whose names fold alike are
  two people: the later seat's person gets " 2" (" 3" …) after the name, as a new seat would.
- The database now refuses a second player on the same seat of a game, and the same person on
  two seats of one game.
- ``gameresult``: the cached summary of each game for history and statistics (rebuilt on demand,
  so nothing is backfilled).

The folding is written out here rather than imported: a migration must keep doing what it did
when it was written (``companion.common.person_names.name_key`` does the same today).

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-23
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

NAME_MAX = 40


def _key(name: str) -> str:
    decomposed = unicodedata.normalize("NFKD", name)
    bare = "".join(c for c in decomposed if not unicodedata.combining(c))
    return " ".join(bare.casefold().split())


def _numbered(name: str, number: int) -> str:
    suffix = f" {number}"
    return name[: NAME_MAX - len(suffix)] + suffix


def upgrade() -> None:
    op.create_table(
        "person",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("name", sa.String(NAME_MAX), nullable=False),
        sa.Column("key", sa.String(80), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
    )
    op.create_index("ix_person_key", "person", ["key"], unique=True)
    op.create_table(
        "gameresult",
        sa.Column("game_id", sa.Integer(), sa.ForeignKey("game.id"), primary_key=True),
        sa.Column("stamp", sa.String(64), nullable=False),
        sa.Column("finished", sa.Boolean(), nullable=False),
        sa.Column("data", sa.String(), nullable=False),
        sa.Column("progress", sa.String(), nullable=False),
    )
    with op.batch_alter_table("player") as batch:
        batch.add_column(sa.Column("person_id", sa.Integer(), nullable=True))
    _backfill(op.get_bind())
    with op.batch_alter_table("player") as batch:
        batch.alter_column("person_id", existing_type=sa.Integer(), nullable=False)
        batch.create_foreign_key("fk_player_person_id_person", "person", ["person_id"], ["id"])
        batch.create_index("ix_player_person_id", ["person_id"])
        batch.create_unique_constraint("uq_player_game_seat", ["game_id", "seat"])
        batch.create_unique_constraint("uq_player_game_person", ["game_id", "person_id"])


def _backfill(bind: sa.engine.Connection) -> None:
    seats = bind.execute(sa.text(
        "SELECT player.id, player.game_id, player.name, game.created_at FROM player "
        "JOIN game ON game.id = player.game_id ORDER BY player.game_id, player.seat")).all()
    # Which name each seat stands for: within one game, a name that folds like an earlier
    # seat's is numbered (two people called Ana at one table).
    wanted: list[tuple[int, str, object]] = []
    used: dict[int, set[str]] = {}
    for player_id, game_id, name, created in seats:
        taken = used.setdefault(game_id, set())
        label, number = name, 1
        while _key(label) in taken:
            number += 1
            label = _numbered(name, number)
        taken.add(_key(label))
        wanted.append((player_id, label, created))
    spellings: dict[str, Counter[str]] = {}
    first_seen: dict[str, tuple[int, object]] = {}
    order: dict[str, int] = {}  # where each spelling first appears
    for index, (_, label, created) in enumerate(wanted):
        key = _key(label)
        spellings.setdefault(key, Counter())[label] += 1
        first_seen.setdefault(key, (index, created))
        order.setdefault(label, index)
    ids: dict[str, int] = {}
    for key in sorted(first_seen, key=lambda k: first_seen[k][0]):
        name = " ".join(max(spellings[key], key=lambda s: (spellings[key][s], -order[s])).split())
        # A person is as old as their first game (the value is copied as the database holds it).
        created = first_seen[key][1] or datetime.now(UTC)
        bind.execute(sa.text("INSERT INTO person (name, key, created_at) "
                             "VALUES (:name, :key, :created)"),
                     {"name": name, "key": key, "created": created})
        ids[key] = bind.execute(sa.text("SELECT id FROM person WHERE key = :key"),
                                {"key": key}).scalar_one()
    for player_id, label, _ in wanted:
        bind.execute(sa.text("UPDATE player SET person_id = :person WHERE id = :id"),
                     {"person": ids[_key(label)], "id": player_id})


def downgrade() -> None:
    with op.batch_alter_table("player") as batch:
        batch.drop_constraint("uq_player_game_person", type_="unique")
        batch.drop_constraint("uq_player_game_seat", type_="unique")
        batch.drop_index("ix_player_person_id")
        batch.drop_constraint("fk_player_person_id_person", type_="foreignkey")
        batch.drop_column("person_id")
    op.drop_table("gameresult")
    op.drop_index("ix_person_key", table_name="person")
    op.drop_table("person")
