"""On SQLite a save and the game pages run on a connection kept from one request to the next
(companion.db.KEPT_CONNECTIONS, issue 36): no check-out of the engine's pool, one connection for
the save and the page after it. Pinned here: the pragmas every connection gets are the kept
one's; a save and its page lend nothing of the engine's pool and give their connection back
clean; a save that raises between its writes and its COMMIT stores nothing and leaves the
connection usable; a disposed engine closes what it kept; two requests at once never share one.
"""

from __future__ import annotations

import pytest
from sqlalchemy import event

from companion.db import kept_now, release_kept, take_kept
from companion.play import store

from .test_core_saves import _entries
from .test_lean_saves import version_of
from .test_save_round_trips import new_duel


@pytest.fixture
def engine(app):
    engine = app.extensions["companion.engine"]
    if engine.dialect.name != "sqlite":
        pytest.skip("SQLite only: PostgreSQL keeps no connection (companion.db.KEPT_CONNECTIONS)")
    return engine


def _round(client, url: str, cards: tuple[str, str]):
    version = version_of(client, url)
    return client.post(f"{url}/round", data={"first": cards[0], "second": cards[1],
                                             "version": str(version), "key": f"k{version}"})


def test_the_kept_connection_has_every_connections_pragmas(app, client, engine):
    url = new_duel(client)
    assert _round(client, url, ("general", "minister")).status_code == 303
    [kept], _ = kept_now(engine)
    pragmas = {name: kept.exec_driver_sql(f"PRAGMA {name}").scalar()
               for name in ("busy_timeout", "journal_mode", "synchronous", "foreign_keys")}
    assert pragmas == {"busy_timeout": 5000, "journal_mode": "wal", "synchronous": 1,
                       "foreign_keys": 1}


def test_a_save_and_its_page_read_on_one_kept_connection_and_give_it_back(app, client, engine):
    url = new_duel(client)
    client.get(url)
    lent: list[object] = []

    def checkout(*_args) -> None:
        lent.append(1)

    event.listen(engine, "checkout", checkout)
    try:
        for cards in (("general", "minister"), ("minister", "general")):
            assert _round(client, url, cards).status_code == 303  # (a page, then the save)
            assert client.get(url).status_code == 200
    finally:
        event.remove(engine, "checkout", checkout)
    assert lent == []  # the engine's pool lent nothing
    assert engine.pool.checkedout() == 0
    assert kept_now(engine)[1] == 0
    [kept], _ = kept_now(engine)  # one connection for them all
    assert not kept.in_transaction()
    assert not kept.connection.driver_connection.in_transaction
    assert [seq for seq, _, _ in _entries(app, url)] == [1, 2]


def test_a_save_raising_before_its_commit_stores_nothing_and_the_next_one_is_stored(
        app, client, engine, monkeypatch):
    url = new_duel(client)
    assert _round(client, url, ("general", "minister")).status_code == 303

    def broken(_session) -> None:
        raise RuntimeError("between the writes and the COMMIT")

    monkeypatch.setattr(store, "commit_save", broken)
    with pytest.raises(RuntimeError, match="between the writes"):
        _round(client, url, ("minister", "general"))
    monkeypatch.undo()
    assert [seq for seq, _, _ in _entries(app, url)] == [1]  # nothing of it stored
    assert kept_now(engine)[1] == 0
    [kept], _ = kept_now(engine)
    assert not kept.in_transaction()
    assert not kept.connection.driver_connection.in_transaction  # (rolled back)
    assert _round(client, url, ("minister", "general")).status_code == 303
    assert [seq for seq, _, _ in _entries(app, url)] == [1, 2]


def test_after_a_dispose_what_was_kept_is_closed_and_connections_kept_anew(app, client,
                                                                          engine):
    url = new_duel(client)
    assert _round(client, url, ("general", "minister")).status_code == 303
    taken = take_kept(engine)  # (held across the dispose)
    kept = take_kept(engine)
    release_kept(kept)  # (kept, not taken, across the dispose)
    assert kept_now(engine)[0] == [kept]
    engine.dispose()
    assert _round(client, url, ("minister", "general")).status_code == 303
    assert kept.closed  # (closed by the next one taken)
    [anew], _ = kept_now(engine)
    assert anew is not kept and anew is not taken and not anew.closed
    release_kept(taken)
    assert taken.closed  # (of the pool before: closed, not kept)
    assert kept_now(engine)[0] == [anew]
    assert [seq for seq, _, _ in _entries(app, url)] == [1, 2]


def test_two_requests_at_once_never_share_a_kept_connection(app, engine):
    first = take_kept(engine)
    second = take_kept(engine)
    assert first is not None and second is not None and first is not second
    assert first.connection.driver_connection is not second.connection.driver_connection
    first.begin()
    first.exec_driver_sql("CREATE TEMP TABLE left_open (x INTEGER)")
    release_kept(first)  # (its transaction rolled back)
    release_kept(second)
    assert kept_now(engine)[1] == 0
    assert {id(c) for c in kept_now(engine)[0]} == {id(first), id(second)}
    assert not first.in_transaction()
    assert take_kept(engine) is second  # (the last given back, taken first)
    release_kept(second)
