"""The class database's tables: rounds, votes (one per exercise, round and student), and the schema's version.

Schema version 2 added ``votes.variant``; a version-1 database gains the column when it is opened
(:func:`add_variant_column`).
"""

from __future__ import annotations

import sqlalchemy as sa

SCHEMA_VERSION = 2
"""Recorded in the ``schema_version`` table: 1 had no ``votes.variant``; 2 has it."""

metadata = sa.MetaData()
schema_version = sa.Table("schema_version", metadata, sa.Column("version", sa.Integer, nullable=False))
rounds = sa.Table(
    "rounds",
    metadata,
    sa.Column("exercise", sa.String(200), primary_key=True),
    sa.Column("round", sa.Integer, primary_key=True),
    sa.Column("opened_at", sa.Float, nullable=False),
    sa.Column("revealed_at", sa.Float, nullable=True),
)
votes = sa.Table(
    "votes",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("exercise", sa.String(200), nullable=False),
    sa.Column("round", sa.Integer, nullable=False),
    sa.Column("student", sa.String(64), nullable=False),
    sa.Column("prediction", sa.Float, nullable=False),
    sa.Column("locked_at", sa.Float, nullable=False),
    sa.Column("variant", sa.String(64), nullable=True),
    sa.UniqueConstraint("exercise", "round", "student", name="one_vote_per_round"),
)


def add_variant_column(db: sa.Connection) -> None:
    """Give a version-1 ``votes`` table its ``variant`` column (a process racing to do it first is fine)."""
    if "variant" in {column["name"] for column in sa.inspect(db).get_columns("votes")}:
        return
    db.execute(sa.text("ALTER TABLE votes ADD COLUMN variant VARCHAR(64)"))
