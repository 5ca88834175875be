"""Alembic migrations of the companion's database (SQLite by default, PostgreSQL too).

``flask db upgrade`` (:func:`companion.db.upgrade`) runs them, and nothing else does: a server
only checks the schema at start (:mod:`companion.ops.schema`). Migrations import the storage
core (``db``, ``models``), the helpers and the pure layers; only Alembic imports them.
A database made before migrations existed (release ``c3c3148``, tables made by ``create_all``)
is recognised by its tables, stamped at the baseline revision, then upgraded.

New migration: ``.venv/bin/alembic -c companion/migrations/alembic.ini revision -m "what"``
(then write ``upgrade``/``downgrade`` by hand; SQLite needs ``op.batch_alter_table``).
"""
