"""Migration 0012 (import jobs) on a database written by the last landed release, 584e0b5:
the table is there and empty, every game is kept, and a restore runs on it as a job."""

from __future__ import annotations

import io
import sqlite3

import pytest

from companion.db import head
from companion.models import ImportJob

from ..conftest import finished_import, upgraded_copy


@pytest.fixture(scope="module")
def upgraded(tmp_path_factory):
    yield from upgraded_copy(tmp_path_factory.mktemp("jobs-upgrade"), "584e0b5")


def test_the_release_before_had_no_job_table_and_the_upgrade_adds_it(upgraded):
    _, path = upgraded
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT version_num FROM alembic_version").fetchall() == [(head(),)]
        assert db.execute("SELECT count(*) FROM importjob").fetchone() == (0,)
        columns = {row[1] for row in db.execute("PRAGMA table_info(importjob)")}
        assert columns == set(ImportJob.__table__.columns.keys())  # the model's, every one
        assert db.execute("SELECT count(*) FROM game").fetchone()[0] > 0


def test_a_backup_of_the_upgraded_database_restores_as_a_job(upgraded):
    app, path = upgraded
    with sqlite3.connect(path) as db:
        games = db.execute("SELECT count(*) FROM game").fetchone()[0]
        token = db.execute("SELECT token FROM playgroup ORDER BY id").fetchone()[0]
    phone = app.test_client()
    backup = phone.get(f"/group/{token}/history/export.json").data
    answer = finished_import(phone, phone.post("/import", data={
        "file": (io.BytesIO(backup), "backup.json")}, content_type="multipart/form-data"))
    assert answer.status_code == 303
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT state, file FROM importjob").fetchall() == [("done", None)]
        assert db.execute("SELECT count(*) FROM game").fetchone()[0] == \
            games + backup.count(b'"code"')
