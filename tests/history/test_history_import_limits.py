"""Limits on every way in (issue 28): an import counts as a game started against the new-games
limit, and the restore that needs no link has a per-client limit of its own."""

from __future__ import annotations

import io
import json

from sqlmodel import func, select

from companion import create_app
from companion.db import get_session
from companion.history.export_format import FORMAT, VERSION
from companion.models import ImportJob
from companion.web import security
from companion.web.security import RESTORE_LIMIT, limit_figures

from ..conftest import database_config, empty_tables, finished_import

EMPTY = json.dumps({"format": FORMAT, "version": VERSION, "players": [], "games": []}).encode()
REVEILLEZ = {"names-0": "Ana", "names-1": "Ben", "first": "0"}


def limited_app(tmp_path):
    app = create_app({"TESTING": True, "SECRET_KEY": "t", "WTF_CSRF_ENABLED": False,
                      "RATELIMIT_ENABLED": True, **database_config(tmp_path)})
    empty_tables(app)  # (PostgreSQL is shared by the tests)
    return app


def send(client, address: str):
    return client.post(address, data={"file": (io.BytesIO(EMPTY), "backup.json")},
                       content_type="multipart/form-data")


def jobs(app) -> int:
    with app.app_context():
        return get_session().exec(select(func.count()).select_from(ImportJob)).one()


def test_the_restore_that_needs_no_link_has_its_own_limit(tmp_path):
    app = limited_app(tmp_path)
    phone = app.test_client()
    per_hour = limit_figures(RESTORE_LIMIT)[0][0]
    for _ in range(per_hour):
        assert finished_import(phone, send(phone, "/import")).status_code == 303
    refused = send(phone, "/import")
    assert refused.status_code == 429 and "Retry-After" in refused.headers
    assert jobs(app) == per_hour  # the refused file was not even kept
    other = app.test_client()
    other.environ_base["REMOTE_ADDR"] = "10.0.0.2"
    assert finished_import(other, send(other, "/import")).status_code == 303  # not refused
    app.extensions["companion.engine"].dispose()


def test_a_client_refused_new_games_is_refused_imports(tmp_path, monkeypatch):
    """With the new-games limit lowered to 3: two games and one import use it up; then a new
    game, an import into the group and a restore are each refused, and store nothing."""
    monkeypatch.setattr(security, "CREATE_LIMIT", "3 per hour")
    app = limited_app(tmp_path)
    phone = app.test_client()
    assert phone.post("/reveillez/new", data=REVEILLEZ).status_code == 303
    assert phone.post("/reveillez/new", data=REVEILLEZ).status_code == 303
    group = phone.get("/").text.split('href="/group/', 1)[1].split("/", 1)[0]
    assert finished_import(phone, send(phone, f"/group/{group}/history/import")) \
        .status_code == 303
    assert phone.post("/reveillez/new", data=REVEILLEZ).status_code == 429
    before = jobs(app)
    assert send(phone, f"/group/{group}/history/import").status_code == 429
    assert send(phone, "/import").status_code == 429
    assert jobs(app) == before
    app.extensions["companion.engine"].dispose()
