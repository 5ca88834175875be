"""On PostgreSQL a save through a link takes its pooled connection without the pool's ping (a
round trip every save paid: issue 36); its first statement, the link lookup, is tried once more
on a new connection when the database had dropped the one it took. Every other connection the
pool hands out is still pinged first, and replaced when the database dropped it; a page's
link lookup on the polls' reader (never pinged) is tried once more too.

PostgreSQL only (``make test-postgres``: TEST_DATABASE_URL); on SQLite there is no ping.
"""

from __future__ import annotations

import pytest
from sqlalchemy import text

from .test_lean_saves import token_of, version_of


@pytest.fixture
def pings(postgres_engine, monkeypatch) -> list[int]:
    """Every ping of the app's pool, counted."""
    seen: list[int] = []
    ping = postgres_engine.dialect.do_ping

    def counted(dbapi_connection):  # type: ignore[no-untyped-def]
        seen.append(1)
        return ping(dbapi_connection)

    monkeypatch.setattr(postgres_engine.dialect, "do_ping", counted)
    return seen


def new_duel(client) -> str:
    new = client.post("/kanai-duel/new", data={
        "first": "Ana", "second": "Ben", "mode": "referee", "wins": "4", "abilities": "all",
        "set_aside": "none"})
    assert new.status_code == 303
    return f"/kanai-duel/g/{token_of(new.headers['Location'])}"


def play(client, url: str, cards: tuple[str, str], before=lambda: None) -> int:
    """A round saved at the page's version (``before()`` run between the page and the save);
    returns that version."""
    version = version_of(client, url)
    before()
    answer = client.post(f"{url}/round", data={"first": cards[0], "second": cards[1],
                                               "version": str(version), "key": f"k{version}"})
    assert answer.status_code == 303, answer.status_code
    return version


def drop_every_connection(postgres_engine) -> None:
    """Every connection the app's pools hold dropped by the database (as a restart does), from
    a connection of no pool."""
    from sqlalchemy import create_engine
    from sqlalchemy.pool import NullPool

    outside = create_engine(postgres_engine.url, poolclass=NullPool)
    with outside.connect() as connection:
        dropped = connection.execute(text(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()")).scalar()
    outside.dispose()
    assert dropped and dropped >= 1


def test_a_save_takes_its_connection_without_a_ping(app, client, postgres_engine, pings):
    url = new_duel(client)
    play(client, url, ("general", "minister"))  # (the pool holds a used connection now)
    before = play(client, url, ("minister", "general"), pings.clear)
    assert pings == []
    assert version_of(client, url) == before + 1
    pings.clear()
    with postgres_engine.connect() as connection:  # any other connection taken: pinged first
        connection.execute(text("SELECT 1"))
    assert pings == [1]


def test_a_save_meeting_a_dropped_connection_is_stored_on_a_new_one(app, client, postgres_engine,
                                                                     pings):
    url = new_duel(client)
    play(client, url, ("general", "minister"))
    version = version_of(client, url)
    drop_every_connection(postgres_engine)
    pings.clear()
    answer = client.post(f"{url}/round", data={"first": "minister", "second": "general",
                                               "version": str(version), "key": "k"})
    assert answer.status_code == 303  # tried once more: stored
    assert pings == []
    assert version_of(client, url) == version + 1


def test_any_other_connection_the_database_dropped_is_replaced_after_its_ping(
        app, client, postgres_engine, pings):
    url = new_duel(client)
    play(client, url, ("general", "minister"))
    drop_every_connection(postgres_engine)
    pings.clear()
    with postgres_engine.connect() as connection:
        assert connection.execute(text("SELECT 1")).scalar() == 1
    assert pings  # the dropped connection was pinged, found dead and replaced
    assert client.get(url).status_code == 200
