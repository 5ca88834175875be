"""Each group's finished games added up per person and game kind (``total``), kept with every
save: statistics and the players' pages read one row per line shown instead of every game.
Filled here for the games already stored, from their stored summaries. And each stored summary
knows its game's group (``gameresult.group_id``, indexed with ``finished``): a group's games in
progress are found without reading its finished ones.

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-27
"""

from __future__ import annotations

import json

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "total",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("group_id", sa.Integer(), sa.ForeignKey("playgroup.id"), nullable=False),
        sa.Column("kind", sa.String(length=32), nullable=False),
        sa.Column("person_id", sa.Integer(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("wins", sa.Integer(), nullable=False),
        sa.Column("score_sum", sa.Integer(), nullable=False),
        sa.Column("best", sa.Integer(), nullable=True),
        sa.Column("best_count", sa.Integer(), nullable=False),
        sa.Column("unit", sa.String(length=16), nullable=False),
        sa.Column("lower_wins", sa.Boolean(), nullable=False),
        sa.Column("facts", sa.String(), nullable=False),
        sa.Column("last_at", sa.DateTime(), nullable=True),
        sa.UniqueConstraint("group_id", "kind", "person_id", name="uq_total_group_kind_person"),
    )
    with op.batch_alter_table("gameresult") as batch:
        batch.add_column(sa.Column("group_id", sa.Integer(), nullable=True))
        batch.create_foreign_key("fk_gameresult_group_id", "playgroup", ["group_id"], ["id"])
    op.execute("UPDATE gameresult SET group_id ="
               " (SELECT game.group_id FROM game WHERE game.id = gameresult.game_id)")
    op.create_index("ix_gameresult_group_finished", "gameresult", ["group_id", "finished"])
    _fill(op.get_bind())
    op.execute(LAST_AT)


LAST_AT = (
    "UPDATE total SET last_at = (SELECT max(game.updated_at) FROM game"
    " JOIN player ON player.game_id = game.id JOIN gameresult ON gameresult.game_id = game.id"
    " WHERE gameresult.finished AND game.group_id = total.group_id AND game.kind = total.kind"
    " AND player.person_id = total.person_id) WHERE total.person_id != 0")


def _fill(connection: sa.engine.Connection) -> None:
    """Every group's lines, from its finished games' stored summaries (JSON read by the pure
    history code) and who sat where."""
    from companion.history.stats import Line, Played, lines
    from companion.history.summary import GameSummary

    people: dict[int, list[int]] = {}
    for game_id, person in connection.execute(sa.text(
            "SELECT game_id, person_id FROM player ORDER BY game_id, seat")):
        people.setdefault(game_id, []).append(person)
    by_group: dict[int, list[Played]] = {}
    for game_id, group_id, kind, data in connection.execute(sa.text(
            "SELECT game.id, game.group_id, game.kind, gameresult.data FROM game"
            " JOIN gameresult ON gameresult.game_id = game.id WHERE gameresult.finished")):
        by_group.setdefault(group_id, []).append(
            Played(kind, GameSummary.from_json(data), tuple(people.get(game_id, ()))))
    for group_id, played in by_group.items():
        counted: dict[str, Line] = {}
        for game in played:
            counted.setdefault(game.kind, Line(0, game.kind, game.summary.unit,
                                               game.summary.lower_wins)).games += 1
        for line in [*counted.values(), *lines(played).values()]:
            facts = [[f.key, f.label, str(f.aggregate), f.total, f.count]
                     for f in line.facts.values()]
            connection.execute(sa.text(
                "INSERT INTO total (group_id, kind, person_id, games, wins, score_sum, best,"
                " best_count, unit, lower_wins, facts) VALUES (:group_id, :kind, :person,"
                " :games, :wins, :score_sum, :best, :best_count, :unit, :lower_wins, :facts)"),
                {"group_id": group_id, "kind": line.kind, "person": line.person,
                 "games": line.games, "wins": line.wins, "score_sum": line.score_sum,
                 "best": line.best, "best_count": line.best_count, "unit": str(line.unit),
                 "lower_wins": line.lower_wins,
                 "facts": json.dumps(facts, ensure_ascii=False)})


def downgrade() -> None:
    op.drop_table("total")
    op.drop_index("ix_gameresult_group_finished", "gameresult")
    with op.batch_alter_table("gameresult") as batch:
        batch.drop_constraint("fk_gameresult_group_id", type_="foreignkey")
        batch.drop_column("group_id")
