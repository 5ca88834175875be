"""The live polls' fast path (issue 31, item 2): ``/live/<token>`` is answered before Flask's
request cycle, with one query, and the same answer the Flask view gives — body, ETag, 304 while
nothing changed, cache and security headers — while anything else goes on to Flask."""

from __future__ import annotations

import pytest
from limits import parse
from werkzeug.test import Client
from werkzeug.wrappers import Response

from companion.web.polls import on_poll

from ..conftest import reveillez_link
from .test_lean_saves import statements


@pytest.fixture
def answered(app):
    """The statuses of the polls the fast path answered."""
    seen: list[int] = []
    on_poll(app, seen.append)
    return seen


def flask_alone(app) -> Client:
    """A client of the Flask app behind the fast path (the view, as before)."""
    return Client(app.extensions["companion.polls"].app, Response)


def same_answer(one, other) -> None:
    assert one.status_code == other.status_code
    assert one.data == other.data
    drop = {"Date", "X-Request-ID"}  # (a new id for each request)
    assert sorted((k, v) for k, v in one.headers.items() if k not in drop) == \
        sorted((k, v) for k, v in other.headers.items() if k not in drop)


def test_a_poll_is_answered_before_flask_as_the_view_answers_it(app, client, answered):
    token = reveillez_link(app, "viewer")
    fast, view = client.get(f"/live/{token}"), flask_alone(app).get(f"/live/{token}")
    same_answer(fast, view)
    assert fast.status_code == 200 and fast.headers["ETag"] == f'"{fast.text}"'
    assert "Set-Cookie" not in fast.headers and "Date" in fast.headers
    etag = {"If-None-Match": fast.headers["ETag"]}
    fast, view = client.get(f"/live/{token}", headers=etag), \
        flask_alone(app).get(f"/live/{token}", headers=etag)
    same_answer(fast, view)
    assert fast.status_code == 304 and fast.data == b""
    head = client.head(f"/live/{token}")
    assert head.status_code == 200 and head.data == b""
    assert answered == [200, 304, 200]


def test_a_save_changes_the_answer(app, client, answered):
    token = reveillez_link(app, "scorer")
    first = client.get(f"/live/{token}")
    page = client.get(f"/reveillez/g/{token}").text
    version = page.split('data-version="', 1)[1].split('"', 1)[0]
    assert client.post(f"/reveillez/g/{token}/act", data={
        "version": version, "key": "key-00000001", "do": "wake", "slot": "3",
        "value": "15"}).status_code == 303
    again = client.get(f"/live/{token}", headers={"If-None-Match": first.headers["ETag"]})
    assert again.status_code == 200 and again.text != first.text


def test_a_poll_is_one_query(app, client, answered, tmp_path):
    """One read of the link's game per poll: on SQLite as SQLAlchemy runs it; on PostgreSQL the
    polls' reader hands it straight to the driver, so it is read from the protocol trace (one
    Execute, of the statement that names the link's table)."""
    token = reveillez_link(app, "viewer")
    client.get(f"/live/{token}")
    if app.extensions["companion.engine"].dialect.name == "postgresql":
        sent = protocol(app, tmp_path, lambda: client.get(f"/live/{token}").status_code)
        assert [kind for kind, _ in sent].count("Execute") == 1, sent
        assert all("gamelink" in text for kind, text in sent if kind == "Parse"), sent
        return
    with statements(app) as seen:
        assert client.get(f"/live/{token}").status_code == 200
    assert len(seen) == 1 and "gamelink" in seen[0]


def protocol(app, folder, do) -> list[tuple[str, str]]:
    """What the polls' reader sent PostgreSQL while ``do()`` ran (each answered 200): the
    client's protocol trace, as (message kind, its text) of each message sent."""
    from sqlalchemy import event

    from companion.db import reader
    from companion.play import page_reads

    trace = folder / "trace.txt"
    traced = []
    with trace.open("w") as out:
        def follow(dbapi_connection, *_args):  # type: ignore[no-untyped-def]
            if dbapi_connection not in traced:  # from its first use (a ping included)
                dbapi_connection.pgconn.trace(out.fileno())
                traced.append(dbapi_connection)

        polls = reader(app.extensions["companion.engine"])
        held = page_reads.kept(polls)  # (the connection the polls keep taken, if any yet)
        if held is not None:
            follow(held)
        event.listen(polls, "connect", follow)
        event.listen(polls, "checkout", follow)
        try:
            assert do() == 200
        finally:
            event.remove(polls, "connect", follow)
            event.remove(polls, "checkout", follow)
            for dbapi_connection in traced:
                dbapi_connection.pgconn.untrace()
    lines = [line.split("\t") for line in trace.read_text().splitlines()]
    return [(parts[3], "\t".join(parts[4:])) for parts in lines if parts[1:2] == ["F"]]


@pytest.mark.parametrize("path", ["/live/" + "0" * 32, "/live/", "/live/" + "x" * 300])
def test_a_token_that_opens_nothing_gets_flasks_404_page(client, answered, path):
    response = client.get(path)
    assert response.status_code == 404 and "text/html" in response.headers["Content-Type"]
    assert answered == []


def test_other_methods_go_on_to_flask(app, client, answered):
    token = reveillez_link(app, "viewer")
    assert client.post(f"/live/{token}").status_code == 405
    assert answered == []


def test_polls_past_the_limit_wait(app, client, answered):
    token = reveillez_link(app, "viewer")
    polls = app.extensions["companion.polls"]
    polls.enabled, polls.limit = True, parse("3 per minute")
    codes = [client.get(f"/live/{token}").status_code for _ in range(4)]
    assert codes == [200, 200, 200, 429]
    late = client.get(f"/live/{token}")
    assert late.status_code == 429 and int(late.headers["Retry-After"]) > 0
    assert "X-Frame-Options" in late.headers
    other = client.get(f"/live/{token}", environ_base={"REMOTE_ADDR": "10.0.0.9"})
    assert other.status_code == 200  # each address counts on its own


def test_a_poll_with_nothing_new_is_counted_but_writes_no_access_line(app, client, answered,
                                                                      caplog):
    """One line per change (200), none per "nothing new" (304): an open page asks once a second,
    and a line a second per phone would drown the log (issue 36); /metrics still counts it."""
    import logging

    token = reveillez_link(app, "viewer")
    caplog.set_level(logging.INFO, logger="companion.access")
    caplog.clear()
    first = client.get(f"/live/{token}")
    client.get(f"/live/{token}", headers={"If-None-Match": first.headers["ETag"]})
    lines = [r.getMessage() for r in caplog.records if r.name == "companion.access"]
    assert answered == [200, 304]
    assert len(lines) == 1 and '" 200 ' in lines[0] and token not in lines[0]


def test_on_postgresql_a_poll_is_one_round_trip(app, client, answered, tmp_path):
    """The poll's read on PostgreSQL: one statement, no pre-ping, no BEGIN, no ROLLBACK on
    return (companion.db.reader), as on SQLite — read from the client's own protocol trace."""
    engine = app.extensions["companion.engine"]
    if engine.dialect.name != "postgresql":
        pytest.skip("PostgreSQL only (TEST_DATABASE_URL)")
    token = reveillez_link(app, "viewer")
    sent = [kind for kind, _ in protocol(app, tmp_path, lambda: min(
        client.get(f"/live/{token}").status_code for _ in range(3)))]
    round_trips = [kind for kind in sent if kind in ("Query", "Sync")]
    assert answered == [200, 200, 200]
    assert len(round_trips) == 3, sent
    assert "Query" not in sent, sent  # no BEGIN, ROLLBACK or ping: the parametrised read alone


def test_on_postgresql_a_dropped_connection_is_tried_again_once(app, client, answered):
    """Without the pre-ping a poll may meet a connection the database dropped (a restart, an
    idle timeout): the read is tried once more on a new one, still on the fast path."""
    from sqlalchemy import text

    engine = app.extensions["companion.engine"]
    if engine.dialect.name != "postgresql":
        pytest.skip("PostgreSQL only (TEST_DATABASE_URL)")
    token = reveillez_link(app, "viewer")
    assert client.get(f"/live/{token}").status_code == 200
    with engine.connect() as connection:  # every other connection to this database dropped
        dropped = connection.execute(text(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()")).scalar()
    assert dropped and dropped >= 1
    assert client.get(f"/live/{token}").status_code == 200
    assert answered == [200, 200]  # both answered by the fast path, not handed to Flask


@pytest.mark.parametrize(("sent", "status"), [
    ("{etag}", 304), ("W/{etag}", 304), ('"other", {etag}', 304), ("*", 304), ("{bare}", 304),
    ('"other"', 200), ('W/"other"', 200)])
def test_every_form_of_if_none_match_is_read_as_the_view_reads_it(app, client, answered, sent,
                                                                   status):
    """The fast path compares the ETag it gave as a string first (what a page sends back); a
    list, a weak tag, ``*``, a tag without its quotes or another tag are read by werkzeug, as
    the Flask view reads them."""
    token = reveillez_link(app, "viewer")
    etag = client.get(f"/live/{token}").headers["ETag"]
    header = {"If-None-Match": sent.format(etag=etag, bare=etag.strip('"'))}
    fast = client.get(f"/live/{token}", headers=header)
    same_answer(fast, flask_alone(app).get(f"/live/{token}", headers=header))
    assert fast.status_code == status


def test_the_date_header_is_the_time_of_the_answer(app, client, answered, monkeypatch):
    """The Date header is made once a second (kept between polls): it is still this second's."""
    import time

    from werkzeug.http import http_date

    token = reveillez_link(app, "viewer")
    now = [1_800_000_000.2]
    monkeypatch.setattr(time, "time", lambda: now[0])
    assert client.get(f"/live/{token}").headers["Date"] == http_date(1_800_000_000)
    now[0] += 0.5
    assert client.get(f"/live/{token}").headers["Date"] == http_date(1_800_000_000)
    now[0] += 1
    assert client.get(f"/live/{token}").headers["Date"] == http_date(1_800_000_001)


def postgresql_only(app) -> None:
    if app.extensions["companion.engine"].dialect.name != "postgresql":
        pytest.skip("PostgreSQL only (TEST_DATABASE_URL)")


def test_on_postgresql_the_read_is_prepared_once_then_run_by_name(app, client, answered,
                                                                 tmp_path):
    """The polls' read goes to libpq alone (companion.play.page_reads.read_row): sent whole for
    its first uses on a connection, then prepared there once and run by name — each poll still
    one round trip, no BEGIN, ping or ROLLBACK — and the answer is the view's all along."""
    from companion.play.page_reads import PREPARE_AFTER

    postgresql_only(app)
    token = reveillez_link(app, "viewer")
    view = flask_alone(app).get(f"/live/{token}").text
    uses = PREPARE_AFTER + 4
    sent = protocol(app, tmp_path, lambda: max(
        (r.status_code, r.text == view) for r in
        (client.get(f"/live/{token}") for _ in range(uses)))[0])
    kinds = [kind for kind, _ in sent]
    assert answered == [200] * uses
    assert all(client.get(f"/live/{token}").text == view for _ in range(3))
    assert "Query" not in kinds, sent
    assert kinds.count("Execute") == uses and kinds.count("Sync") == uses + 1, sent
    parsed = [text for kind, text in sent if kind == "Parse"]
    assert len(parsed) == PREPARE_AFTER + 1, sent  # (one of them the named statement's)
    assert sum("companion_poll_version" in text for text in parsed) == 1, sent


def test_on_postgresql_a_prepared_read_survives_a_dropped_connection_and_a_discard(
        app, client, answered):
    """A connection the database dropped after the read was prepared on it: the poll is tried
    once more on a new one, which prepares it afresh (nothing of the old connection's kept);
    a connection whose prepared statements went (``DEALLOCATE ALL``) prepares it again."""
    from sqlalchemy import text

    from companion.db import reader
    from companion.play import page_reads
    from companion.play.page_reads import PREPARE_AFTER

    postgresql_only(app)
    engine = app.extensions["companion.engine"]
    token = reveillez_link(app, "viewer")
    view = flask_alone(app).get(f"/live/{token}").text
    for _ in range(PREPARE_AFTER + 2):
        assert client.get(f"/live/{token}").text == view
    with engine.connect() as connection:  # every other connection to this database dropped
        dropped = connection.execute(text(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()")).scalar()
    assert dropped and dropped >= 1
    for _ in range(PREPARE_AFTER + 2):
        assert client.get(f"/live/{token}").text == view
    polls = page_reads.kept(reader(engine))  # the connection the polls keep taken
    assert polls is not None
    polls.execute("DEALLOCATE ALL")
    for _ in range(2):
        assert client.get(f"/live/{token}").text == view
    assert answered == [200] * (2 * PREPARE_AFTER + 6)  # every one by the fast path
