"""A save that only appends (a duel's round: a view marked ``links.appends``) runs on a Core
connection of its own, with no ORM transaction (:func:`companion.db.open_save`): its begin,
flush and commit machinery were a tenth of such a save's cost (issue 36). Pinned here: such a
save begins no ORM transaction and gives its connection back; one that loses a race at its
INSERT (the database's unique key refusing it) is rolled back on that connection and refused as
stale, storing nothing; and a save on its own connection refuses to commit an ORM change it
would otherwise drop.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime

import pytest
from sqlalchemy import event, insert, select
from sqlalchemy.orm import Mapper
from sqlalchemy.orm import Session as OrmSession

from companion.db import commit_save, get_session, open_save, rollback_save, saving_on
from companion.models import Entry, Person, table_of

from .test_lean_saves import statements, version_of
from .test_save_round_trips import new_duel


def _entries(app, url: str) -> list[tuple[int, str, str]]:
    engine = app.extensions["companion.engine"]
    token = url.rsplit("/", 1)[1]
    with engine.connect() as connection:
        return [tuple(row) for row in connection.exec_driver_sql(
            "SELECT e.seq, e.kind, e.data FROM entry e JOIN gamelink k ON k.game_id = e.game_id "
            f"WHERE k.token = '{token}' ORDER BY e.seq")]


def test_a_duel_round_begins_no_orm_transaction_and_gives_its_connection_back(app, client):
    url = new_duel(client)
    engine = app.extensions["companion.engine"]
    begun: list[object] = []

    def began(session, _transaction, _connection) -> None:
        begun.append(session)

    event.listen(OrmSession, "after_begin", began)
    try:
        for cards in (("general", "minister"), ("minister", "general")):
            version = version_of(client, url)
            begun.clear()
            with statements(app) as seen:
                answer = client.post(f"{url}/round", data={
                    "first": cards[0], "second": cards[1], "version": str(version),
                    "key": f"k{version}"})
            assert answer.status_code == 303, answer.text
            assert begun == []  # the whole save on its own connection
            assert any(s.startswith("INSERT INTO entry") for s in seen)
            assert engine.pool.checkedout() == 0
    finally:
        event.remove(OrmSession, "after_begin", began)
    assert [seq for seq, _, _ in _entries(app, url)] == [1, 2]


@pytest.mark.parametrize("rival_kind", ["round", "undo"])
def test_a_round_that_loses_the_race_at_its_insert_stores_nothing_and_is_told_so(
        app, client, rival_kind):
    url = new_duel(client)
    engine = app.extensions["companion.engine"]
    assert client.post(f"{url}/round", data={
        "first": "general", "second": "minister", "version": "0", "key": "a"}).status_code == 303
    with engine.connect() as connection:
        game_id = connection.exec_driver_sql(
            f"SELECT game_id FROM gamelink WHERE token = '{url.rsplit('/', 1)[1]}'").scalar()
    rival = json.dumps({"cards": ["prince", "wizard"]} if rival_kind == "round" else {})
    fired: list[bool] = []

    def rival_first(_conn, _cursor, statement, _params, _context, _many) -> None:
        """Another phone's entry stored (and committed) between this save's read and its
        INSERT: the database's unique key, not the version check, refuses this one."""
        if fired or not statement.startswith("INSERT INTO entry"):
            return
        fired.append(True)
        with engine.connect() as other:
            other.execute(insert(table_of(Entry)).values(
                game_id=game_id, seq=2, kind=rival_kind, key=None, data=rival,
                created_at=datetime.now(UTC)))
            other.commit()

    event.listen(engine, "before_cursor_execute", rival_first)
    try:
        answer = client.post(f"{url}/round", data={
            "first": "minister", "second": "general", "version": "1", "key": "b"})
    finally:
        event.remove(engine, "before_cursor_execute", rival_first)
    assert fired
    assert answer.status_code == 409, answer.text
    assert 'data-problem="stale-write"' in answer.text
    assert [(seq, kind) for seq, kind, _ in _entries(app, url)] == [(1, "round"),
                                                                     (2, rival_kind)]
    assert engine.pool.checkedout() == 0
    # The same form again, on the game as it is now, is a new round stored after the rival's.
    version = version_of(client, url)
    assert version == 2
    assert client.post(f"{url}/round", data={
        "first": "minister", "second": "general", "version": "2", "key": "b"}).status_code == 303
    assert [seq for seq, _, _ in _entries(app, url)] == [1, 2, 3]


def test_a_save_on_its_own_connection_refuses_to_commit_an_orm_change(app):
    with app.test_request_context():
        session = get_session()
        open_save(session, lambda connection: connection.exec_driver_sql("SELECT 1").scalar())
        session.add(Person(group_id=1, name="Lost", key="lost"))
        with pytest.raises(RuntimeError):
            commit_save(session)
    with app.app_context():
        assert get_session().exec(select(Person).where(Person.name == "Lost")).first() is None


def test_what_a_save_reads_after_its_own_write_is_read_in_its_own_transaction(app, client):
    """Between a save's first statement and its COMMIT, every read of the request's session —
    the entries, a page's reads — goes through the save's connection, never the polls' reader
    (on PostgreSQL a read there would not see the save's own write, nor be in its transaction)."""
    from companion.play import page_reads, store

    url = new_duel(client)
    token = url.rsplit("/", 1)[1]
    with app.test_request_context():
        session = get_session()
        found = store.link_and_game_to_append(session, token)
        assert found is not None
        game = found[1]
        connection = saving_on(session)
        assert connection is not None
        before = len(store.entries(session, game))
        session.info.pop(store._READ, None)  # (read again below, not from memory)
        connection.execute(insert(table_of(Entry)).values(
            game_id=game.id, seq=before + 1, kind="round", key="mine",
            data=json.dumps({"first": "general", "second": "minister"}),
            created_at=datetime.now(UTC)))
        assert page_reads.direct(session) is None
        assert [e.key for e in store.entries(session, game)][-1] == "mine"
        with page_reads.reading(session) as reading:
            assert reading.exec_driver_sql(
                f"SELECT count(*) FROM entry WHERE game_id = {game.id} AND key = 'mine'"
            ).scalar() == 1
        rollback_save(session)
    assert [seq for seq, _, _ in _entries(app, url)] == list(range(1, before + 1))


def _sqlite_only(app) -> None:
    if app.extensions["companion.engine"].dialect.name != "sqlite":
        pytest.skip("SQLite only (its saves' statements go to the sqlite3 cursor alone)")


def test_on_sqlite_a_saves_reads_sent_to_its_driver_give_sqlalchemys_rows(app, client):
    """A save's link lookup and entries read on SQLite go to the sqlite3 cursor alone
    (page_reads.save_rows; a save's first read, page_reads.save_link_and_game, brings both in
    one statement): row for row, value for value, type for type what SQLAlchemy's statements
    give (aware datetimes included)."""
    from companion.play import page_reads, store

    _sqlite_only(app)
    url = new_duel(client)
    token = url.rsplit("/", 1)[1]
    for version, (first, second, key) in enumerate((("general", "minister", "a"),
                                                    ("minister", "general", None))):
        assert client.post(f"{url}/round", data={  # (an entry without a key: its NULL too)
            "first": first, "second": second, "version": str(version),
            **({"key": key} if key else {})}).status_code == 303
    with app.app_context(), app.extensions["companion.engine"].connect() as connection:
        link = connection.execute(page_reads.LINK_AND_GAME_ROW, {"token": token}).all()
        assert len(link) == 1
        game_id = link[0][len(page_reads._LINK.c)]  # (the game's id: its first column)
        entries = connection.execute(store._ENTRIES, {"game": game_id}).all()
        assert entries
        for read, value, rows in ((page_reads.LINK_AND_GAME, token, link),
                                  (page_reads.ENTRIES, game_id, entries)):
            found = page_reads.save_rows(connection, read, value)
            assert found == [tuple(row) for row in rows]
            assert [[type(v) for v in row] for row in found] == \
                [[type(v) for v in row] for row in rows]
        assert page_reads.save_rows(connection, page_reads.LINK_AND_GAME, "0" * 32) == []
        # a save's first read: the link, its game and its entries in one statement
        row, read, names, links = page_reads.save_link_and_game(
            get_session(), connection, token)
        assert tuple(row) == tuple(link[0]) and list(read) == [tuple(r) for r in entries]
        assert [type(v) for v in row] == [type(v) for v in link[0]]
        assert [[type(v) for v in r] for r in read] == [[type(v) for v in r] for r in entries]
        assert len(read) == 2 and read[1][3] is None  # (oldest first; the NULL key as None)
        assert names == ("Ana", "Ben") and links is not None and len(links) == 2
        assert page_reads.save_link_and_game(get_session(), connection, "0" * 32)[0] is None


def test_on_sqlite_a_statement_sent_to_the_driver_fails_as_sqlalchemys_error(app):
    """A driver error of a statement sent to the sqlite3 cursor alone (on_driver) is
    SQLAlchemy's: a unique key's refusal an IntegrityError (what a save's race is read from),
    without the values sent (a link token is never in a log); nothing is left written."""
    from sqlalchemy.exc import IntegrityError, OperationalError

    from companion.play.driver_statements import on_driver

    _sqlite_only(app)
    secret = "f" * 32
    with app.extensions["companion.engine"].connect() as connection:
        with pytest.raises(OperationalError) as failed:
            on_driver(connection, "SELECT nothing FROM nowhere WHERE token = ?", (secret,),
                      fetch=True)
        assert secret not in str(failed.value)
        connection.begin()
        assert on_driver(connection, "INSERT INTO playgroup (name, token, created_at) "
                         "VALUES ('A', ?, '2026-01-01 00:00:00')", (secret,)) == 1
        with pytest.raises(IntegrityError) as refused:
            on_driver(connection, "INSERT INTO playgroup (name, token, created_at) "
                      "VALUES ('B', ?, '2026-01-01 00:00:00')", (secret,))
        assert secret not in str(refused.value)
        connection.rollback()
        assert connection.exec_driver_sql(
            f"SELECT count(*) FROM playgroup WHERE token = '{secret}'").scalar() == 0


# --- Princesse Princesse and Réveillez: every save appends (issue 36) ---------------------------

def _new_game(client, kind: str, names: tuple[str, ...] = ("Ana", "Ben", "Cléo")) -> str:
    new = client.post(f"/{kind}/new", data={
        **{f"names-{seat}": name for seat, name in enumerate(names)}, "first": "0"})
    assert new.status_code == 303
    return f"/{kind}/g/{new.headers['Location'].rsplit('/', 1)[1]}"


def _pp_saves(client, url: str) -> list:
    """Each write of a Princesse Princesse table, in an order a table can send them: a round,
    its edit, its undo, a turn log started, a turn, its undo, the log dropped, a log to the
    round's end. Each item reads what its form needs (the version, a round's id) and gives
    the POST to send."""
    keys = iter(range(1, 100))

    def post(path: str, **data):
        def prepare():
            form = {"version": version_of(client, url), "key": f"key-{next(keys):08}", **data}
            return lambda: client.post(f"{url}/{path}", data=form)
        return prepare

    def edit():
        rid = re.search(r"round\?edit=(\d+)", client.get(f"{url}/history").text)[1]
        return post(f"round?edit={rid}", step="2", **{"in": ["1"], "card-1": "7"})()

    def undo():
        rid = re.search(r"round/(\d+)/undo", client.get(f"{url}/history").text)[1]
        return post(f"round/{rid}/undo")()

    face_up = {"face-up-0": "1", "face-up-1": "1", "face-up-2": "2"}
    return [post("round", step="2", **{"in": ["0", "1"], "card-0": "3", "card-1": "5"}),
            edit, undo, post("log/start", **face_up), post("log/turn", card="4"),
            post("log/undo"), post("log/discard"), post("log/start", **face_up),
            post("log/turn", card="0"),
            post("log/turn", card="1", target="0", named="9", hit="yes"), post("log/finish")]


def _reveillez_saves(client, url: str) -> list:
    def post(path: str, key: str, **data):
        def prepare():
            form = {"version": version_of(client, url), "key": key, **data}
            return lambda: client.post(f"{url}/{path}", data=form)
        return prepare

    return [post("act", "key-00000001", do="wake", slot="3", value="15"),
            post("undo", "key-00000002"),
            post("act", "key-00000003", do="wake", slot="4", value="10")]


@contextmanager
def _orm_watched(engine) -> Iterator[tuple[list[object], list[object], list[int]]]:
    """What happens meanwhile: the ORM transactions begun (their sessions), the ORM objects
    loaded, and ``engine``'s COMMITs (one 1 each)."""
    begun: list[object] = []
    loaded: list[object] = []
    committed: list[int] = []

    def began(session, _transaction, _connection) -> None:
        begun.append(session)

    def load(target, _context) -> None:
        loaded.append(target)

    def commit(_connection) -> None:
        committed.append(1)

    event.listen(OrmSession, "after_begin", began)
    event.listen(Mapper, "load", load)
    event.listen(engine, "commit", commit)
    try:
        yield begun, loaded, committed
    finally:
        event.remove(OrmSession, "after_begin", began)
        event.remove(Mapper, "load", load)
        event.remove(engine, "commit", commit)


@pytest.mark.parametrize("kind", ["princesse-princesse", "reveillez"])
def test_every_save_of_the_entry_games_begins_no_orm_transaction_and_loads_no_object(
        app, client, kind):
    """Princesse Princesse's and Réveillez's writes only append (views marked
    ``links.appends``): each runs on its own connection — no ORM transaction begun, no ORM
    object loaded (the link, the game, the seats read through Core), one COMMIT, the connection
    given back — and stores its entry."""
    url = _new_game(client, kind, ("Ana", "Ben") if kind == "princesse-princesse" else
                    ("Ana", "Ben", "Cléo"))
    engine = app.extensions["companion.engine"]
    saves = _pp_saves(client, url) if kind == "princesse-princesse" else \
        _reveillez_saves(client, url)
    with _orm_watched(engine) as (begun, loaded, committed):
        for number, prepare in enumerate(saves, 1):
            save = prepare()
            begun.clear()
            loaded.clear()
            committed.clear()
            answer = save()
            assert answer.status_code == 303, (number, answer.text)
            assert begun == [] and loaded == [], number
            assert committed == [1], number
            assert engine.pool.checkedout() == 0
            assert len(_entries(app, url)) == number


@pytest.mark.parametrize("kind", ["princesse-princesse", "reveillez"])
def test_an_entry_games_save_that_loses_the_race_at_its_insert_stores_nothing(app, client,
                                                                              kind):
    """As a duel's round: another phone's entry committed between this save's read and its
    INSERT — the database refuses it, it is rolled back on its own connection and answered as
    stale (409, the page drawn afresh on that connection), nothing of it stored."""
    url = _new_game(client, kind)
    engine = app.extensions["companion.engine"]
    with engine.connect() as connection:
        game_id = connection.exec_driver_sql(
            f"SELECT game_id FROM gamelink WHERE token = '{url.rsplit('/', 1)[1]}'").scalar()
    fired: list[bool] = []

    def rival_first(_conn, _cursor, statement, _params, _context, _many) -> None:
        if fired or not statement.startswith("INSERT INTO entry"):
            return
        fired.append(True)
        with engine.connect() as other:
            other.execute(insert(table_of(Entry)).values(
                game_id=game_id, seq=1, kind="log-start" if kind == "princesse-princesse"
                else "undo", key=None,
                data=json.dumps({"first": 0} if kind == "princesse-princesse" else {}),
                created_at=datetime.now(UTC)))
            other.commit()

    form = {"version": "0", "key": "key-00000001"}
    if kind == "princesse-princesse":
        path, form = "round", {**form, "step": "2", "in": ["0", "1"], "card-0": "3",
                               "card-1": "5"}
    else:
        path, form = "act", {**form, "do": "wake", "slot": "3", "value": "15"}
    event.listen(engine, "before_cursor_execute", rival_first)
    try:
        answer = client.post(f"{url}/{path}", data=form)
    finally:
        event.remove(engine, "before_cursor_execute", rival_first)
    assert fired
    assert answer.status_code == 409, answer.text
    assert ('data-problem="stale-write"' if kind == "princesse-princesse"
            else 'data-problem="stale"') in answer.text, answer.text
    assert [seq for seq, _, _ in _entries(app, url)] == [1]
    assert engine.pool.checkedout() == 0
    assert version_of(client, url) == 1


# --- Rebel Princess: a round's record written through Core (issue 36) ---------------------------

def _new_rebel(client) -> str:
    from .test_lean_saves import RP_NAMES

    new = client.post("/rebel-princess/new", data={
        "edition": "deluxe", "length": "5", "first_leader": "0", **RP_NAMES,
        **{f"cards-{i}": letter for i, letter in enumerate("abcde")}})
    assert new.status_code == 302
    return f"/rebel-princess/g/{new.headers['Location'].rsplit('/', 1)[1]}"


def _records(app, url: str) -> list[tuple[int, int, str]]:
    engine = app.extensions["companion.engine"]
    token = url.rsplit("/", 1)[1]
    with engine.connect() as connection:
        return [tuple(row) for row in connection.exec_driver_sql(
            "SELECT r.seq, r.number, r.action FROM roundrecord r "
            f"JOIN gamelink k ON k.game_id = r.game_id WHERE k.token = '{token}' ORDER BY r.seq")]


def test_every_rebel_princess_round_save_begins_no_orm_transaction_and_loads_no_object(
        app, client):
    """Rebel Princess's round saves (by cards, by counts, by numbers, an edit, the pad's undo:
    views marked ``links.appends``) write the round's record, the game's stamp and its summary
    through Core on their own connection: no ORM transaction begun, no ORM object loaded, one
    COMMIT, the connection given back; what is stored is what the ORM wrote before."""
    from .test_lean_saves import ROUND_A, assert_summary_fresh

    url = _new_rebel(client)
    engine = app.extensions["companion.engine"]
    numbers = {"base": "", "leader": "", "confirm": "y",
               **{f"score_{s}": v for s, v in enumerate(["3", "2", "4", "1"])}}

    def counts() -> dict[str, str]:
        page = client.get(f"{url}/round/1/counts").text
        base = re.search(r'name="base"[^>]*value="(\d+)"', page)[1]
        return {"base": base, "leader": "", "princes_0": "4", "princes_1": "2",
                "princes_2": "2", "princes_3": "2", "frog": "1"}

    saves = [(lambda: ROUND_A, "round/1/cards", (1, 1, "entered")),
             (counts, "round/1/counts", (2, 1, "edited")),
             (lambda: numbers, "round/2/numbers", (3, 2, "entered")),
             (lambda: {}, "undo", (4, 2, "undone"))]
    with _orm_watched(engine) as (begun, loaded, committed):
        for number, (form, path, stored) in enumerate(saves, 1):
            data = form()
            begun.clear()
            loaded.clear()
            committed.clear()
            answer = client.post(f"{url}/{path}", data=data)
            assert answer.status_code == 302, (path, answer.text)
            assert begun == [] and loaded == [], path
            assert committed == [1], path
            assert engine.pool.checkedout() == 0
            assert len(_records(app, url)) == number and _records(app, url)[-1] == stored
            assert_summary_fresh(app, url.rsplit("/", 1)[1])


def test_a_rebel_princess_round_that_loses_the_race_at_its_insert_is_judged_again(app, client):
    """Another phone's round 1 committed between this save's read and its INSERT: the database
    refuses the record number, the save is rolled back on its own connection and judged again
    on the game read afresh there — round 1 is saved already (422), nothing of it stored."""
    url = _new_rebel(client)
    engine = app.extensions["companion.engine"]
    with engine.connect() as connection:
        game_id = connection.exec_driver_sql(
            f"SELECT game_id FROM gamelink WHERE token = '{url.rsplit('/', 1)[1]}'").scalar()
    fired: list[bool] = []

    def rival_first(_conn, _cursor, statement, _params, _context, _many) -> None:
        if fired or not statement.startswith("INSERT INTO roundrecord"):
            return
        fired.append(True)
        with engine.connect() as other:
            other.exec_driver_sql(
                "INSERT INTO roundrecord (game_id, seq, number, action, deleted, mode, scores, "
                f"created_at) VALUES ({game_id}, 1, 1, 'entered', false, 'numbers', '0,3,8,4', "
                "CURRENT_TIMESTAMP)")
            other.commit()

    event.listen(engine, "before_cursor_execute", rival_first)
    try:
        answer = client.post(f"{url}/round/1/numbers", data={
            "base": "", "leader": "", "confirm": "y", "key": "key-00000001",
            **{f"score_{s}": v for s, v in enumerate(["3", "2", "4", "1"])}})
    finally:
        event.remove(engine, "before_cursor_execute", rival_first)
    assert fired
    assert answer.status_code == 422, answer.text
    assert 'data-problem="round-already-saved"' in answer.text
    assert _records(app, url) == [(1, 1, "entered")]
    assert engine.pool.checkedout() == 0
