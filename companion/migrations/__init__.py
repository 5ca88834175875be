"""Alembic migrations of the companion's database (SQLite by default, PostgreSQL too).

``companion.db.upgrade`` runs them on start (``make run``, ``flask --app companion init-db``).
A database made before migrations existed (release ``c3c3148``, tables made by ``create_all``)
is recognised by its tables, stamped at the baseline revision, then upgraded.

New migration: ``.venv/bin/alembic -c companion/migrations/alembic.ini revision -m "what"``
(then write ``upgrade``/``downgrade`` by hand; SQLite needs ``op.batch_alter_table``).
"""
