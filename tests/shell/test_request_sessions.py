"""A request's database session (companion.db.get_session) is one a request before closed and
gave back: as new (nothing of the request before in it: no object, no transaction, no info, no
connection), kept for a few requests at most."""

from __future__ import annotations

from flask import g
from sqlmodel import select

from companion import db
from companion.models import Game


def _closed(app):
    return db._closed_sessions(app.extensions["companion.engine"])


def test_a_request_gets_the_session_the_one_before_closed_as_new(app, client):
    with app.test_request_context("/"):
        first = db.get_session()
        first.info["said"] = "before"
        first.exec(select(Game)).all()
        assert first.in_transaction()
    assert first in _closed(app)  # (the context's end closed it and kept it)
    assert not first.in_transaction() and first.bind is None and not first.info
    with app.test_request_context("/"):
        second = db.get_session()
        assert second is first and first not in _closed(app)
        assert second.bind is app.extensions["companion.engine"]
        assert not second.info and not second.in_transaction() and len(second.identity_map) == 0
        assert second.expire_on_commit is False
        assert second.exec(select(Game)).all() == []
    assert client.get("/").status_code == 200


def test_a_page_reads_through_its_own_connection_in_a_kept_session(app, client):
    with app.test_request_context("/"):
        db.get_session()
    with app.test_request_context("/"):
        session = db.get_session(reads_only=True)
        kept = session.info.get(db._READS)
        assert session.bind is (kept if kept is not None else db.reader(db.get_engine()))
    assert db._READS not in session.info


def test_a_session_changed_or_past_the_count_is_not_kept(app, monkeypatch):
    with app.test_request_context("/"):
        changed = db.get_session()
        changed.expire_on_commit = True
    assert changed not in _closed(app)
    monkeypatch.setattr(db, "CLOSED_KEPT", 2)
    _closed(app).clear()
    contexts = [app.app_context() for _ in range(4)]  # (four at once: each its own g)
    for context in contexts:
        context.push()
        db.get_session()
    for context in reversed(contexts):
        context.pop()
    assert len(_closed(app)) == 2


def test_a_request_without_a_session_keeps_none(app):
    _closed(app).clear()
    with app.test_request_context("/"):
        assert g.get("db_session") is None
    assert _closed(app) == []
