"""A person's and a pair's finished games read from their own lists (``playedby``, migration
0015; issue 36, item 4): a person's last games (their page), history filtered by a player
(every page: the first, Older, Newer, Oldest) and the head-to-head page's games together list
exactly what the group's games listed before — the games of the group, of a kind with a
history, finished (or with no summary), in which the person (both people) sat, most recently
changed first, ties by id — on a group whose games were corrected, reopened and finished
again, deleted, left unfinished, merged and imported. And the lists read the people's index,
not the group's games from the newest: their cost is their own games'.

(Every test's app is also checked after the test: ``playedby`` is what its definition makes
from the games, whatever the test wrote — ``tests/conftest.py``, :func:`played_by`.)
"""

from __future__ import annotations

from itertools import permutations

from sqlalchemy import event, or_, text, tuple_
from sqlmodel import col, select

from companion.db import get_session
from companion.history import paging
from companion.models import Game, GameResult, Person, Player, RoundRecord
from companion.play import export, group_totals, groups, rebel_princess, store, summaries

from ..conftest import played_by
from .conftest import by_cards, by_numbers, kd_game, rebel_game, rv_game
from .test_history_page_cost import copy_games


def old_codes(session, group_id: int, person: int, with_person: int | None = None, *,
              limit: int | None = None, older_than=None, newer_than=None,
              oldest: bool = False) -> list[str]:
    """The list as :func:`summaries.records` read it before ``playedby`` (its query, kept
    here): the group's games from the (group, updated_at) index, those the person (and
    ``with_person``) sat in."""
    keys = [kind.key for kind in summaries.kinds_with_history()]
    where = [col(Game.group_id) == group_id, col(Game.kind).in_(keys),
             or_(col(GameResult.finished).is_(True), col(GameResult.game_id).is_(None))]
    for someone in (person, with_person):
        if someone is not None:
            where.append(col(Game.id).in_(select(Player.game_id).where(
                Player.person_id == someone)))
    when, game_id = col(Game.updated_at), col(Game.id)
    if older_than is not None:
        where.append(tuple_(when, game_id) < tuple_(*older_than))
    if newer_than is not None:
        where.append(tuple_(when, game_id) > tuple_(*newer_than))
    upwards = newer_than is not None or oldest
    order = (when.asc(), game_id.asc()) if upwards else (when.desc(), game_id.desc())
    codes = list(session.exec(
        select(Game.code).join(GameResult, col(GameResult.game_id) == col(Game.id),
                               isouter=True).where(*where).order_by(*order).limit(limit)))
    return codes[::-1] if upwards else codes


def _codes(records) -> list[str]:
    return [record.game.code for record in records]


def lists_as_before(app, group_id: int) -> int:
    """Every list of every person and every pair of the group, read now and as before, equal:
    a person's page (5), head to head (10), history by a player (all; pages of 2 from the
    newest, from each game's key older and newer, and the oldest 2). How many games the lists
    held (a test of nothing would hold none)."""
    seen = 0
    with app.app_context():
        session = get_session()
        people = [p.id for p in session.exec(select(Person).where(Person.group_id == group_id))]
        for person in people:
            _, page = summaries.records(session, group_id=group_id, person=person, limit=5)
            assert _codes(page) == old_codes(session, group_id, person, limit=5)
            _, every = summaries.records(session, group_id=group_id, person=person)
            assert _codes(every) == old_codes(session, group_id, person)
            seen += len(every)
            _, last = summaries.records(session, group_id=group_id, person=person, limit=2,
                                        count=False, oldest=True)
            assert _codes(last) == old_codes(session, group_id, person, limit=2, oldest=True)
            for record in every:
                key = summaries.page_key(record.game)
                for side in ("older_than", "newer_than"):
                    _, found = summaries.records(session, group_id=group_id, person=person,
                                                 limit=2, count=False, **{side: key})
                    assert _codes(found) == old_codes(session, group_id, person, limit=2,
                                                      **{side: key}), (person, side)
        for first, second in permutations(people, 2):
            _, together = summaries.records(session, group_id=group_id, person=first,
                                            with_person=second, limit=10, count=False)
            assert _codes(together) == old_codes(session, group_id, first, second, limit=10)
            seen += len(together)
    return seen


def _correct_round_one(session, code: str) -> None:
    """A finished Rebel Princess game corrected: its first round's cards given to other
    seats (it stays finished; its time moves)."""
    game = store.get_game(session, code)
    base = session.exec(select(RoundRecord).where(RoundRecord.game_id == game.id,
                                                  RoundRecord.number == 1)
                        .order_by(col(RoundRecord.seq).desc())).first()
    rebel_princess.save_round(session=session, game=game, number=1, mode="cards",
                              played=by_cards("P4 P5", "P1 P2 P3 A8", "", "P6 P7 P8 P9 P10"),
                              base_id=base.id)


def test_the_known_games_list_as_before(app, known):
    assert lists_as_before(app, known.group_id) > 20


def test_after_corrections_undos_deletions_merges_and_imports_the_lists_are_as_before(
        app, client, known):
    with app.app_context():
        session = get_session()
        _correct_round_one(session, known.codes["rp1"])  # finished, corrected: newest now
        rebel_princess.undo_last(session=session,  # reopened: out of every list
                                 game=store.get_game(session, known.codes["rp2"]))
        rv_game(session, ["Evee", "Ana"], [20, 10, 20, 5, 15], group_id=known.group_id)
        kd_game(session, ["Cy", "Ana"], ["prince/princess"], group_id=known.group_id)
        rebel_game(session, ["Di", "Eve", "Cy"], [("numbers", by_numbers(1, 2, 3))],
                   group_id=known.group_id)  # unfinished
        evee = session.exec(select(Person).where(Person.key == "evee")).one().id
    assert lists_as_before(app, known.group_id) > 20
    response = client.post(f"{known.base}/players/merge",
                           data={"source": evee, "target": known.person["Eve"]})
    assert response.status_code == 303
    assert lists_as_before(app, known.group_id) > 20
    with app.app_context():
        session = get_session()
        game = store.get_game(session, known.codes["rp2"])  # finished again, later
        rebel_princess.save_round(session=session, game=game, number=3,
                                  played=by_numbers(9, 0, 0, 0), mode="numbers", base_id=None)
        gone = store.get_game(session, known.codes["kd1"])
        groups.delete_games(session=session, game_ids=[gone.id])  # a finished game deleted
        games = [store.get_game(session, code) for code in known.codes.values()
                 if code != known.codes["kd1"]]
        document = export.dumps(export.export(session, games)).encode()
        made = export.import_file(session=session, raw=document, group_id=None,
                                  new_group_name="Imported")
    assert lists_as_before(app, known.group_id) > 20
    assert lists_as_before(app, made.group_id) > 20
    with app.app_context():
        session = get_session()
        assert groups.delete_group(session=session, group_id=made.group_id)
    assert lists_as_before(app, known.group_id) > 20


def test_ties_of_time_list_by_id_as_before(app, known):
    """Copies of the games keep their times: a person's lists order the ties as before."""
    copy_games(app, known.group_id, 3)
    assert lists_as_before(app, known.group_id) > 80


def test_a_rebuild_and_the_summaries_command_make_the_lists_again(app, known):
    """A game a 1.1.0 server finished during a rolling upgrade is in no list (that release
    did not keep them): `flask summaries --totals` makes every group's lists again, as a
    rebuild does."""
    kept, made = played_by(app)
    with app.extensions["companion.engine"].begin() as connection:
        connection.exec_driver_sql("DELETE FROM playedby")
    with app.app_context():
        session = get_session()
        assert summaries.records(session, group_id=known.group_id,
                                 person=known.person["Ana"])[1] == []
        group_totals.rebuild(session.connection(), [known.group_id])
        session.commit()
    assert played_by(app) == (kept, made)
    with app.extensions["companion.engine"].begin() as connection:
        connection.exec_driver_sql("DELETE FROM playedby")
    answer = app.test_cli_runner().invoke(args=["summaries", "--totals"])
    assert answer.exit_code == 0, answer.output
    assert played_by(app) == (kept, made)
    assert lists_as_before(app, known.group_id) > 20


def test_a_save_of_a_game_in_progress_writes_no_list(app, known):
    """A game in progress is in no list: its saves (most saves) write nothing more."""
    with app.app_context():
        session = get_session()
        game = rebel_game(session, ["Ana", "Ben", "Cy"], [("numbers", by_numbers(1, 2, 3))],
                          group_id=known.group_id)
        statements: list[str] = []
        engine = app.extensions["companion.engine"]

        def note(_connection, _cursor, statement, *_args):
            statements.append(statement)

        event.listen(engine, "before_cursor_execute", note)
        try:
            rebel_princess.save_round(session=session, game=game, number=2,
                                      played=by_numbers(2, 3, 1), mode="numbers", base_id=None)
        finally:
            event.remove(engine, "before_cursor_execute", note)
    assert statements and not any("playedby" in s for s in statements)


def _plan(app, statement) -> str:
    with app.extensions["companion.engine"].connect() as connection:
        compiled = statement.compile(connection, compile_kwargs={"literal_binds": True})
        return " / ".join(row[-1] for row in connection.exec_driver_sql(
            f"EXPLAIN QUERY PLAN {compiled}"))


def test_the_lists_read_the_peoples_index(app, known, monkeypatch):
    """On SQLite: a person's list and a pair's are read from ``playedby``'s index in its
    order (no sort, no scan of the group's games); the plan is the database's own."""
    if app.extensions["companion.engine"].dialect.name != "sqlite":
        return  # (PostgreSQL's plans depend on its statistics: the lists are compared above)
    captured = []
    real = summaries.Session.exec

    def keep(self, statement, *args, **kwargs):
        captured.append(statement)
        return real(self, statement, *args, **kwargs)

    ana, ben = known.person["Ana"], known.person["Ben"]
    with app.app_context():
        session = get_session()
        monkeypatch.setattr(type(session), "exec", keep)
        for query in ({"person": ana, "limit": 5},
                      {"person": ana, "with_person": ben, "limit": 10, "count": False},
                      {"person": ana, "limit": 30, "older_than": paging.parse_key(
                          "2026-01-01T00:00:00+00:00~9")}):
            captured.clear()
            summaries.records(session, group_id=known.group_id, **query)
            plans = [_plan(app, s) for s in captured if "playedby" in str(s)]
            assert len(plans) == 1, query
            assert "ix_playedby_people_updated" in plans[0], plans[0]
            assert "TEMP B-TREE" not in plans[0] and "SCAN game" not in plans[0], plans[0]


def test_a_server_of_the_previous_release_deletes_a_group_without_knowing_the_lists(app, known):
    """During a rolling upgrade a 1.1.0 server deletes a group as it did (its statements,
    which name no ``playedby``): the database deletes the group's lists with its games."""
    assert played_by(app)[0]
    group = {"g": known.group_id}
    games = "(SELECT id FROM game WHERE group_id = :g)"
    with app.extensions["companion.engine"].begin() as connection:
        for table in ("gameresult", "entry", "roundrecord", "tricklog", "gamelink", "player"):
            connection.execute(text(f"DELETE FROM {table} WHERE game_id IN {games}"), group)
        for table in ("total", "pairtotal", "game", "person"):
            connection.execute(text(f"DELETE FROM {table} WHERE group_id = :g"), group)
        connection.execute(text("DELETE FROM playgroup WHERE id = :g"), group)
    assert played_by(app) == (set(), set())


def test_a_finished_game_whose_summary_was_emptied_by_hand_can_be_corrected(app, known):
    """The summary cache may be emptied by hand: a correction of such a finished game (its
    summary then written as a first one) lists it again once, not twice (a save refused by
    the table's key would have lost the correction)."""
    code = known.codes["rp1"]
    with app.app_context():
        session = get_session()
        game_id = store.get_game(session, code).id
    with app.extensions["companion.engine"].begin() as connection:
        connection.execute(text("DELETE FROM gameresult WHERE game_id = :g"), {"g": game_id})
    with app.app_context():
        _correct_round_one(get_session(), code)
    kept, made = played_by(app)
    assert kept == made and {row for row in kept if row[0] == game_id}
    assert lists_as_before(app, known.group_id) > 20
