"""No fixed cost that buys nothing: the session cookie is signed and sent only when it changed
(or once a day, to keep its month); the live poll and the JSON API never open the session; the
live poll is one query on a pooled connection, without the ORM."""

from __future__ import annotations

import time

import pytest
from sqlalchemy import event

from companion.web import session_cookie

from ..conftest import reveillez_link


@pytest.fixture
def viewer(app):
    return reveillez_link(app, "viewer")


def cookie_of(response) -> list[str]:
    return [v for v in response.headers.getlist("Set-Cookie") if v.startswith("session=")]


def test_the_cookie_is_sent_when_it_changes_not_on_every_page(client, viewer):
    first = client.get(f"/reveillez/g/{viewer}")
    assert cookie_of(first) and "Expires=" in cookie_of(first)[0]  # made, kept a month
    assert cookie_of(client.get(f"/reveillez/g/{viewer}")) == []  # nothing changed
    assert cookie_of(client.get("/")) == []
    assert cookie_of(client.get("/lang/fr?next=/")) == []


def test_an_unchanged_cookie_is_sent_again_once_a_day(client, viewer, monkeypatch):
    client.get(f"/reveillez/g/{viewer}")
    assert cookie_of(client.get("/")) == []
    later = time.time() + session_cookie.REFRESH_AFTER.total_seconds() + 60
    monkeypatch.setattr(session_cookie.time, "time", lambda: later)
    assert cookie_of(client.get("/"))


class Opened(Exception):
    pass


def test_live_and_the_api_never_open_the_session(app, client, viewer, monkeypatch):
    client.get(f"/reveillez/g/{viewer}")  # the browser holds a session cookie
    assert client.get_cookie("session") is not None

    def refuse(_app):
        raise Opened

    monkeypatch.setattr(app.session_interface, "get_signing_serializer", refuse)
    for answer in (client.get(f"/live/{viewer}"), client.get(f"/live/{'0' * 32}"),
                   client.get("/api/v1/openapi.json"),
                   client.post("/api/v1/reveillez/standings", data="{",
                               content_type="application/json")):
        assert answer.status_code < 500
        assert "Set-Cookie" not in answer.headers


def test_live_is_one_query_without_the_orm(app, client, viewer, monkeypatch, tmp_path):
    from .test_lean_saves import statements as run

    def no_orm():
        raise AssertionError("/live opened an ORM session")

    monkeypatch.setattr("companion.routes.links.get_session", no_orm)
    if app.extensions["companion.engine"].dialect.name == "postgresql":
        # The polls' reader hands its SELECT to the driver: read from the protocol trace.
        from .test_live_polls import protocol

        answers: list[int] = []

        def two_polls() -> int:
            answer = client.get(f"/live/{viewer}")
            answers.extend([answer.status_code, client.get(f"/live/{viewer}", headers={
                "If-None-Match": answer.headers["ETag"]}).status_code])
            return answer.status_code

        sent = protocol(app, tmp_path, two_polls)
        assert answers == [200, 304]
        assert [kind for kind, _ in sent].count("Execute") == 2, sent  # one each
        return
    with run(app) as statements:
        answer = client.get(f"/live/{viewer}")
        again = client.get(f"/live/{viewer}", headers={"If-None-Match": answer.headers["ETag"]})
    assert answer.status_code == 200 and again.status_code == 304
    assert len(statements) == 2, statements  # one each
    assert "gamelink.token" in statements[0]


def test_a_page_from_the_store_is_two_queries_without_the_orm(app, client, viewer):
    """A viewer's page already drawn is served from the page store with two Core queries
    (the link with its game, the names and links that can change the page) and no ORM object
    loaded, no template drawn (issue 31, item 3)."""
    from flask import template_rendered
    from sqlalchemy.orm import Mapper

    from .test_lean_saves import statements as every_statement

    client.get(f"/reveillez/g/{viewer}")  # drawn once, and kept
    # (on PostgreSQL a page's reads go through the polls' reader, to libpq alone: counted too)
    loaded: list[object] = []
    drawn: list[object] = []

    def load(target, _context) -> None:
        loaded.append(target)

    event.listen(Mapper, "load", load)
    template_rendered.connect(lambda *_a, **_k: drawn.append(1), app)
    try:
        with every_statement(app) as statements:
            page = client.get(f"/reveillez/g/{viewer}")
    finally:
        event.remove(Mapper, "load", load)
    assert page.status_code == 200 and drawn == []
    assert len(statements) == 2, statements
    assert "gamelink" in statements[0] and loaded == []


def test_on_postgresql_a_page_from_the_store_begins_no_transaction(app, client, viewer):
    """On PostgreSQL a page drawn already reads through the polls' reader (autocommit): the
    app's engine lends no connection, so no pre-ping, no BEGIN, no ROLLBACK — what SQLite
    does not pay either (issue 36, item 2)."""
    engine = app.extensions["companion.engine"]
    if engine.dialect.name != "postgresql":
        pytest.skip("PostgreSQL only (TEST_DATABASE_URL)")
    client.get(f"/reveillez/g/{viewer}")  # drawn once, and kept
    lent: list[object] = []

    def checkout(*_args) -> None:
        lent.append(1)

    event.listen(engine, "checkout", checkout)
    try:
        page = client.get(f"/reveillez/g/{viewer}")
    finally:
        event.remove(engine, "checkout", checkout)
    assert page.status_code == 200
    assert lent == []



def _open(app, cookie: str):
    """The session a request with this cookie opens."""
    with app.test_request_context("/", headers={"Cookie": f"session={cookie}"}) as context:
        return app.session_interface.open_session(app, context.request)


def test_a_cookie_verified_once_is_not_trusted_changed_expired_or_under_new_keys(app, client,
                                                                                viewer,
                                                                                monkeypatch):
    """A cookie verified before is not verified again (issue 36), but only that very text,
    under those keys, within the session's lifetime: a changed cookie, an expired one and one
    signed with a key since replaced open an empty session, as they did before."""
    import itsdangerous.timed

    client.get(f"/reveillez/g/{viewer}")  # the browser's session: this game's link remembered
    value = client.get_cookie("session").value
    first = dict(_open(app, value))
    assert first.get("games")  # verified, and now remembered
    assert dict(_open(app, value)) == first  # the same text: the same session
    head, _, signature = value.rpartition(".")
    tampered = f"{head}.{'A' if signature[0] != 'A' else 'B'}{signature[1:]}"
    assert dict(_open(app, tampered)) == {}
    later = time.time() + app.permanent_session_lifetime.total_seconds() + 60
    monkeypatch.setattr(session_cookie.time, "time", lambda: later)
    monkeypatch.setattr(itsdangerous.timed.time, "time", lambda: later)
    assert dict(_open(app, value)) == {}  # too old, remembered or not
    monkeypatch.undo()
    assert dict(_open(app, value)) == first
    app.secret_key = "another"
    assert dict(_open(app, value)) == {}  # the key that signed it is no longer the app's


def test_a_session_changed_by_one_request_is_not_what_the_next_opens(app, client, viewer):
    """The session a remembered cookie opens is a copy: a request that changes its session
    (and fails before sending a new cookie) leaves the next request's session as signed."""
    client.get(f"/reveillez/g/{viewer}")
    value = client.get_cookie("session").value
    first = _open(app, value)
    signed = {key: list(item) if isinstance(item, list) else item for key, item in first.items()}
    for item in first.values():
        if isinstance(item, list):
            item.append("spoiled")
    assert any(isinstance(item, list) for item in first.values())
    for _ in range(2):
        assert dict(_open(app, value)) == signed
