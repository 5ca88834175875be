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
from companion.play import store
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
    assert [shape(s) for s in seen] == PAGES[kind], seen
    if engine.dialect.name == "postgresql":
        assert reader(engine) is not engine and reader(reader(engine)) is reader(engine)
        assert taken == []  # the app's engine untouched: its ping, BEGIN and ROLLBACK


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
