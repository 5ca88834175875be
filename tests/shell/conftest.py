"""Fixtures of the shell's tests that more than one file needs."""

from __future__ import annotations

import pytest


@pytest.fixture
def postgres_engine(app):
    """The app's engine, on PostgreSQL only: a test that asks for it is skipped on SQLite
    (``make test-postgres`` runs it: TEST_DATABASE_URL)."""
    engine = app.extensions["companion.engine"]
    if engine.dialect.name != "postgresql":
        pytest.skip("PostgreSQL only (TEST_DATABASE_URL)")
    return engine
