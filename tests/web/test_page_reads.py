"""A game's page drawn afresh (a page-store miss: the scorer's page after each save) reads what it
shows once, counted on the database the suite runs on (SQLite, or PostgreSQL under ``make
test-postgres``); on PostgreSQL every read goes through the polls' reader (autocommit): no
connection of the app's engine is taken, so no ping, no ``BEGIN`` and no ``ROLLBACK`` (issue 36:
entry p99 on PostgreSQL)."""

from __future__ import annotations

import pytest
from sqlalchemy import event

from companion.db import get_session, reader
from companion.models import Player
from companion.play import page_reads, store
from tests.shell.test_lean_saves import statements
from tests.shell.test_save_statements import shape

from .test_push_drawing import _new

PAGES = {
    "rebel-princess": [
        "SELECT gamelink",  # the scorer link and its game
        "SELECT player",  # the seats (princesses, people)
        "SELECT gamelink",  # the live links: the viewer link shared, the page's stream
        "SELECT roundrecord",  # (the running chart: from their replay, nothing read again)
    ],
    **dict.fromkeys(["princesse-princesse", "reveillez", "kanai-duel"], [
        "SELECT gamelink",  # the scorer link and its game
        "SELECT player",  # the names and live links (the page store's key), names kept
        "SELECT entry",
    ]),
}


@pytest.mark.parametrize("kind", list(PAGES))
def test_a_games_page_drawn_afresh_reads_each_thing_once(app, client, kind):
    path = _new(client, kind)
    engine = app.extensions["companion.engine"]
    taken: list[object] = []

    def note(*_args: object) -> None:
        taken.append(1)

    event.listen(engine, "checkout", note)
    try:
        with statements(app) as seen:
            page = client.get(path)
    finally:
        event.remove(engine, "checkout", note)
    assert page.status_code == 200
    assert "Ana" in page.text  # (the names read for the key are the names shown)
    postgresql = engine.dialect.name == "postgresql"
    expected = PAGES[kind]
    if postgresql and kind == "rebel-princess":  # the seats and the live links: one read
        expected = ["SELECT gamelink", "SELECT player", "SELECT roundrecord"]
    assert [shape(s) for s in seen] == expected, seen
    if postgresql:
        assert reader(engine) is not engine and reader(reader(engine)) is reader(engine)
        assert taken == []  # the app's engine untouched: its ping, BEGIN and ROLLBACK
        alone = {read.sql for read in (page_reads.LINK_AND_GAME, page_reads.NAMES_AND_LINKS,
                                       page_reads.SEATS_AND_LINKS, page_reads.ENTRIES,
                                       page_reads.ROUND_RECORDS)}
        assert sum(s in alone for s in seen) == len(expected), seen  # (every read)


def _postgresql_only(app) -> None:
    if app.extensions["companion.engine"].dialect.name != "postgresql":
        pytest.skip("PostgreSQL only (TEST_DATABASE_URL)")


def test_on_postgresql_the_reads_sent_to_libpq_alone_give_sqlalchemys_rows(app, client):
    """Each of page_reads' statements gives the rows store's own statement gives through
    SQLAlchemy, value for value, type for type (before and after it is prepared)."""
    from sqlalchemy import text

    from companion.play.page_reads import PREPARE_AFTER

    _postgresql_only(app)
    token = _new(client, "reveillez").rsplit("/", 1)[1]
    assert client.post(f"/reveillez/g/{token}/act", data={
        "do": "wake", "slot": "0", "value": "5", "version": "0", "key": "k" * 16}).status_code \
        in (200, 303)
    engine = app.extensions["companion.engine"]
    with engine.connect() as connection:
        game_id = connection.execute(text(
            "SELECT game_id FROM gamelink WHERE token = :t"), {"t": token}).scalar()
        expected = {
            page_reads.LINK_AND_GAME: connection.execute(
                page_reads.LINK_AND_GAME_ROW, {"token": token}).all(),
            page_reads.NAMES_AND_LINKS: connection.execute(
                store._NAMES_AND_LINKS, {"game": game_id}).all(),
            page_reads.ENTRIES: connection.execute(
                store._ENTRIES, {"game": game_id}).all()}
    assert all(expected.values())
    for statement, rows in expected.items():
        value = token if statement is page_reads.LINK_AND_GAME else game_id
        for _ in range(PREPARE_AFTER + 2):
            found = page_reads.rows(reader(engine), statement, value)
            assert found == [tuple(row) for row in rows]
            assert [[type(v) for v in row] for row in found] == \
                [[type(v) for v in row] for row in rows]


def test_on_postgresql_the_seats_and_links_read_at_once_are_the_sessions(app, client):
    """Rebel Princess's page reads its seats and its live links in one round trip on the reader:
    the same objects, column for column, as the session's two reads (a replaced link left out,
    the seats in play order), before and after the statement is prepared; elsewhere, nothing
    (the page reads them through its session)."""
    from companion.models import Game, GameLink
    from companion.play import rebel_princess
    from companion.play.page_reads import PREPARE_AFTER

    token = _new(client, "rebel-princess").rsplit("/", 1)[1]
    with app.app_context():
        session = get_session()
        link = store.link_by_token(session, token)
        assert link is not None
        game = session.get(Game, link.game_id)
        assert game is not None
        store.replace_link(session, game, "viewer", commit=True)
        session.close()
        if app.extensions["companion.engine"].dialect.name != "postgresql":
            assert page_reads.seats_and_links(get_session(), link.game_id) is None
            return
        players = [p.model_dump() for p in rebel_princess.players_of(session, game)]
        links = sorted((k.model_dump() for k in store.live_links(session, game)),
                       key=lambda k: k["id"])
        session.close()
        assert len(links) == 2 and [p["seat"] for p in players] == sorted(
            p["seat"] for p in players)
        for _ in range(PREPARE_AFTER + 2):
            found = page_reads.seats_and_links(get_session(), link.game_id)
            assert found is not None
            seats, live = found
            assert [p.model_dump() for p in seats] == players
            assert [k.model_dump() for k in live] == links
            assert all(isinstance(k, GameLink) and k.created_at.tzinfo for k in live)
            get_session().close()


def test_on_postgresql_the_round_records_read_at_once_are_the_sessions(app, client):
    """Rebel Princess's page reads its round records in one round trip on the reader: the same
    objects, column for column (an aware ``created_at`` included), in the same order, as the
    session's read, before and after the statement is prepared; inside a transaction (a
    write), or elsewhere than PostgreSQL, nothing (the session reads them)."""
    from sqlmodel import col, select

    from companion.models import RoundRecord
    from companion.play.page_reads import PREPARE_AFTER
    from tests.web.test_push import SCORES

    path = _new(client, "rebel-princess")
    for number in (1, 2):
        assert client.post(f"{path}/round/{number}/numbers", data=SCORES).status_code == 302
    with app.app_context():
        session = get_session()
        link = store.link_by_token(session, path.rsplit("/", 1)[1])
        assert link is not None
        stored = [r.model_dump() for r in session.exec(
            select(RoundRecord).where(RoundRecord.game_id == link.game_id)
            .order_by(col(RoundRecord.id)))]
        assert [r["number"] for r in stored] == [1, 2]
        assert page_reads.round_records(session, link.game_id) is None  # (in a transaction)
        session.close()
        if app.extensions["companion.engine"].dialect.name != "postgresql":
            assert page_reads.round_records(get_session(), link.game_id) is None
            return
        for _ in range(PREPARE_AFTER + 2):
            found = page_reads.round_records(get_session(), link.game_id)
            assert found is not None
            assert [r.model_dump() for r in found] == stored
            assert all(r.created_at.tzinfo for r in found)
            get_session().close()


def test_on_postgresql_a_page_survives_a_dropped_connection(app, client):
    """The reader's connections are never pinged: one the database dropped is tried once more,
    on a new one, and the page is drawn as before."""
    from sqlalchemy import text

    _postgresql_only(app)
    path = _new(client, "kanai-duel")
    first = client.get(path)
    engine = app.extensions["companion.engine"]
    with engine.connect() as connection:  # every other connection to this database dropped
        dropped = connection.execute(text(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()")).scalar()
    assert dropped and dropped >= 1
    again = client.get(path)
    assert first.status_code == again.status_code == 200


def test_the_names_kept_for_a_page_are_forgotten_by_a_flush(app, client):
    """The names :func:`store.names_and_links` read answer :func:`store.names_of` until the
    session flushes (a rename) or its transaction ends."""
    token = _new(client, "reveillez").rsplit("/", 1)[1]
    with app.app_context():
        session = get_session()
        game = store.game_by_token(session, token)
        assert game is not None
        assert store.names_and_links(session, game)[0] == ("Ana", "Ben", "Cy")
        with statements(app) as seen:
            assert store.names_of(session, game) == ["Ana", "Ben", "Cy"]
        assert seen == []  # kept
        player = session.exec(store.select(Player).where(Player.game_id == game.id,
                                                         Player.seat == 1)).one()
        player.name = "Bea"
        session.add(player)
        session.flush()
        assert store.names_of(session, game) == ["Ana", "Bea", "Cy"]
        session.rollback()
        assert store.names_of(session, game) == ["Ana", "Ben", "Cy"]


def test_the_score_pads_chart_is_the_one_its_kept_summary_draws(app, client):
    """Rebel Princess's pad draws its running totals from the replay it made for the pad, not
    from the game's kept summary read again: the same chart, in either language."""
    from flask import render_template

    from companion.history import charts
    from companion.play import summaries

    from .test_push import SCORES, _new_game

    path, token = _new_game(client)
    for number in (1, 2):
        scores = dict(SCORES, **{f"score_{number - 1}": "5", f"score_{number % 4}": "2"})
        assert client.post(f"{path}/round/{number}/numbers", data=scores).status_code == 302
    for lang in ("en", "fr"):
        page = client.get(path, headers={"Accept-Language": lang}).text
        with app.test_request_context(headers={"Accept-Language": lang}):
            session = get_session()
            game = store.game_by_token(session, token)
            assert game is not None
            record = summaries.record_of(session, game)
            assert record is not None and len(record.summary.progress) == 2
            chart = charts.line_chart(record.names, record.summary.progress,
                                      record.summary.winners, record.summary.step)
            drawn = render_template("history/_line_chart.html", chart=chart)
        assert 'data-chart="running" data-steps="2"' in drawn
        assert drawn.strip() in page


def test_a_pages_version_is_the_polls_whatever_the_servers_time_zone(app, client,
                                                                     monkeypatch):
    """The version a page follows and the one its polls answer are the same number in a server
    process whose local time is not UTC (PostgreSQL's ``timestamp`` comes back from libpq
    without its zone: read as UTC, as it is stored, never as local time)."""
    import re
    import time

    monkeypatch.setenv("TZ", "Europe/Paris")
    time.tzset()
    try:
        path = _new(client, "kanai-duel")
        page = client.get(path).text
        followed = re.search(r'data-live-version="([^"]+)"', page)
        assert followed is not None
        assert client.get(path.replace("/kanai-duel/g/", "/live/")).text == followed[1]
    finally:
        monkeypatch.undo()
        time.tzset()


def test_on_postgresql_the_reads_keep_one_connection_taken(app, client):
    """A page's reads and the polls after the first take no connection from the reader's pool
    and give none back: one is kept taken by this process (:func:`page_reads.taken`); a thread
    that finds it in use reads on one of the pool's, given back; the engine's disposal closes
    the kept one."""
    import threading

    _postgresql_only(app)
    path = _new(client, "reveillez")
    token = path.rsplit("/", 1)[1]
    polls = reader(app.extensions["companion.engine"])
    assert client.get(path).status_code == 200
    kept = page_reads.kept(polls)
    assert kept is not None and not kept.closed
    taken: list[object] = []

    def note(*_args: object) -> None:
        taken.append(1)

    event.listen(polls, "checkout", note)
    try:
        for _ in range(3):
            assert client.get(path).status_code == 200
            assert client.get(f"/live/{token}").status_code == 200
        assert page_reads.kept(polls) is kept
        with page_reads.taken(polls) as first:  # (this thread reads on the kept one)
            assert first.dbapi_connection is kept
            other: list[object] = []
            thread = threading.Thread(target=lambda: other.append(
                page_reads.read_row(polls, "x", "SELECT 1", ())))
            thread.start()
            thread.join()
            assert other == [(1,)]
    finally:
        event.remove(polls, "checkout", note)
    assert len(taken) == 1  # (the other thread's, from the pool)
    assert polls.pool.checkedout() == 1  # (the kept one: the other given back)
    polls.dispose()
    assert kept.closed and page_reads.kept(polls) is None
    assert client.get(f"/live/{token}").status_code == 200  # (and reads take one again)
