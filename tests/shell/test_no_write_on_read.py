"""No GET writes anything: every GET route of the URL map, opened by a browser holding a group's
links, by one holding none, the first time after the saves and again, sends no INSERT, UPDATE or
DELETE to the database. What the pages need (each game's summary for its chart and the history,
each game's links) is written by the save that changes it, in its own transaction.

A phone remembering a game is its signed session cookie, not a database write: that stays.
"""

from __future__ import annotations

import re
from contextlib import contextmanager

from flask import url_for
from sqlalchemy import Engine, delete, event
from sqlmodel import Session, select

from companion import create_app
from companion.db import get_session
from companion.games import by_key
from companion.models import Game, GameResult, Group
from companion.play import (
    export,
    kanai_duel,
    princesse_princesse,
    rebel_princess,
    reveillez,
    store,
    summaries,
)
from companion.scoring.princesse_princesse import RoundReveal
from companion.scoring.rebel_princess import Edition, PlayedRound
from companion.scoring.reveillez import PrincessCard, Wake
from tests.shell.test_group_isolation import addresses, member_of, store_group

WRITE = re.compile(r"\s*(INSERT|UPDATE|DELETE|REPLACE|UPSERT|MERGE)\b", re.IGNORECASE)


@contextmanager
def writes(app):
    """The writing statements sent to the database while the block runs."""
    engine = app.extensions["companion.engine"]
    found: list[str] = []

    def seen(_connection, _cursor, statement, _parameters, _context, _many) -> None:
        if WRITE.match(statement):
            found.append(statement)

    event.listen(engine, "before_cursor_execute", seen)
    try:
        yield found
    finally:
        event.remove(engine, "before_cursor_execute", seen)


def stored(app):
    with app.app_context():
        session = get_session()
        return {label: store_group(session, label) for label in ("A", "B")}


def every_get(app, a, b) -> int:
    """Every GET address, as A's member and as a stranger; how many were asked."""
    member, stranger = member_of(app, a), app.test_client()
    asked = 0
    for who, mine, theirs in ((member, a, [b]), (stranger, None, [a, b])):
        for _rule, path, _ in addresses(app, mine, theirs, "GET"):
            assert who.get(path).status_code < 500, path
            asked += 1
    return asked


def test_no_get_route_writes_first_time_or_again(app):
    groups = stored(app)
    a, b = groups["A"], groups["B"]
    with writes(app) as found:
        assert every_get(app, a, b) > 300  # the first draw of every page after the saves
        every_get(app, a, b)  # and pages already drawn
    assert found == []


def test_a_save_writes_the_summary_its_pages_read(app):
    """Each save path stores the game's summary in its own transaction: the score pad's chart
    and the history read it, fresh, without writing."""
    a = stored(app)["A"]
    with app.app_context():
        session = get_session()
        rp = store.get_game(session, a.codes[0])

        def fresh(game: Game) -> bool:
            session.expire_all()
            game = session.get(Game, game.id)
            row = session.get(GameResult, game.id)
            return row is not None and row.stamp == summaries.stamp_of(game)

        assert all(fresh(store.get_game(session, code)) for code in a.codes)
        rebel_princess.undo_last(session=session, game=rp)
        assert fresh(rp)
        pp = princesse_princesse.create_game(session=session, names=["Ana", "Bo"], first=0,
                                             group_id=a.group_id)
        assert fresh(pp)
        view = princesse_princesse.view_game(session, pp)
        princesse_princesse.save_round(session=session, view=view, based_on=view.version,
                                       key=None, reveal=RoundReveal.of([None, None],
                                                                       still_in={0}, spies={0}))
        assert fresh(pp)
        rv = reveillez.create_game(session=session, names=["Ana", "Bo"], first=0, variant=False,
                                   show_values=False, group_id=a.group_id)
        reveillez.record(session=session, game=rv, action=Wake(0, PrincessCard(20)),
                         based_on=0, key="wake-0")
        assert fresh(rv)
        kd, _ = kanai_duel.create(session=session, names=["Ana", "Bo"], mode=kanai_duel.REFEREE,
                                  variants=[], group_id=a.group_id)
        kanai_duel.play_round(session=session, game=kd, cards=["princess", "prince"],
                              based_on=0, key=None)
        assert fresh(kd)
        game = rebel_princess.create_game(session=session, edition=Edition(rp.edition),
                                          names=["Ana", "Bo", "Cy"], first_leader=0,
                                          round_cards=list("ady"), group_id=a.group_id)
        assert fresh(game)
        rebel_princess.save_round(session=session, game=game, number=1,
                                  played=PlayedRound(scores=(1, 2, 3)), mode="numbers",
                                  base_id=None)
        assert fresh(game)
        assert summaries.summary_of(session, game).progress  # the round is in the summary


def test_an_emptied_cache_is_read_without_writing_and_refilled_by_refresh(app):
    groups = stored(app)
    a, everything = groups["A"], [*groups["A"].codes, *groups["B"].codes]
    engine = app.extensions["companion.engine"]
    phone = member_of(app, a)
    with Session(engine) as session:
        session.exec(delete(GameResult))
        session.commit()
    with app.app_context(), app.test_request_context():
        session = get_session()
        pages = [url_for(by_key(game.kind).show_endpoint, code=link.token)
                 for game in (store.get_game(session, code) for code in a.codes)
                 for link in store.links_of(session, game).values()]
    with writes(app) as found:
        assert "Anouk" in phone.get(f"/group/{a.token}/history/").text
        for page in pages:  # each game's page (Rebel Princess's pad draws its chart)
            assert phone.get(page).status_code == 200, page
    assert found == []
    assert summaries.refresh(engine) == len(everything)
    assert summaries.refresh(engine) == 0
    with Session(engine) as session:
        assert len(session.exec(select(GameResult)).all()) == len(everything)


def test_a_server_start_writes_nothing_and_the_upgrade_stores_missing_summaries(app):
    """``create_app`` sends no INSERT, UPDATE or DELETE, even on a database whose summaries are
    missing; ``flask db upgrade`` (the step before a server starts) stores them, and ``flask
    summaries`` finds nothing left to do."""
    groups = stored(app)
    everything = [*groups["A"].codes, *groups["B"].codes]
    engine = app.extensions["companion.engine"]
    with Session(engine) as session:
        session.exec(delete(GameResult))
        session.commit()
    found: list[str] = []

    def seen(_connection, _cursor, statement, _parameters, _context, _many) -> None:
        if WRITE.match(statement):
            found.append(statement)

    event.listen(Engine, "before_cursor_execute", seen)  # (every engine: the new app's own)
    try:
        started = create_app({"TESTING": True, "SECRET_KEY": "test",
                              "DATABASE": app.config["DATABASE"],
                              "DATABASE_URL": app.config.get("DATABASE_URL")})
    finally:
        event.remove(Engine, "before_cursor_execute", seen)
    try:
        assert found == []
        with Session(engine) as session:
            assert session.exec(select(GameResult)).all() == []
        upgraded = started.test_cli_runner().invoke(args=["db", "upgrade"])
        assert upgraded.exit_code == 0, upgraded.output
        assert f"Summaries stored: {len(everything)} games" in upgraded.output
        with Session(engine) as session:
            assert len(session.exec(select(GameResult)).all()) == len(everything)
        again = started.test_cli_runner().invoke(args=["summaries"])
        assert again.exit_code == 0 and "Summaries stored: 0 games" in again.output
    finally:
        started.extensions["companion.engine"].dispose()


def test_imported_games_have_their_links_and_summaries_stored_with_them(app):
    """The import stores each game's links and summary in its own transaction: opening the
    imported games' pages and history writes nothing."""
    a = stored(app)["A"]
    with app.app_context():
        session = get_session()
        games = [store.get_game(session, code) for code in a.codes]
        document = export.dumps(export.export(session, games)).encode()
        made = export.import_file(session=session, raw=document, group_id=None,
                                    new_group_name="Imported")
        imported = session.exec(select(Game).where(Game.group_id == made.group_id)).all()
        assert len(imported) == len(a.codes)
        lacking = [game.code for game in imported
                   if set(store.ROLES) - {link.role for link in store.live_links(session, game)}]
        assert lacking == []
        tokens = [store.links_of(session, game)[role].token
                  for game in imported for role in store.ROLES]
        group = session.get(Group, made.group_id).token
    phone = app.test_client()
    with writes(app) as found:
        assert phone.get(f"/group/{group}/history/").status_code == 200
        for token in tokens:
            assert phone.get(f"/share/{token}").status_code in (200, 403)
            assert phone.get(f"/record/{token}").status_code in (200, 404)
    assert found == []
