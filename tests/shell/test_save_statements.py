"""The statements of a save, counted on the database the suite runs on (SQLite, or PostgreSQL
under ``make test-postgres``): a Kanai duel round (the save of ``bench/saves.py``) reads the
link with its game and the game's entries once (on SQLite in one statement; on PostgreSQL two,
sent in one round trip), then writes the entry, the game's stamp and its summary, and commits
once — pinned here, so a statement added to every save shows up as a failure, not as a slower
bench.

Counted with a ``before_cursor_execute`` listener (every statement sent) and a ``commit``
listener (every COMMIT) on the app's engine.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import event

from .test_lean_saves import statements, token_of, version_of

SAVE = [
    "SELECT gamelink",  # the link and its game, one query (the request's link lookup), with
    # (on SQLite) the game's entries: the key's replay check, the version, the replay
    "INSERT entry",
    "UPDATE game",  # its stamp
    "UPDATE gameresult",  # its summary (a game in progress: one UPDATE, nothing read first)
]
"""A referee's round of a duel in progress, statement by statement, on SQLite."""


def on_this_database(app, save: list[str]) -> list[str]:
    """``save`` (SQLite's statements) as the database the suite runs on sends it: on
    PostgreSQL the entries are a statement of their own after the link's (``SELECT entry``,
    sent with it in one round trip: companion.play.page_reads.save_reads)."""
    if app.extensions["companion.engine"].dialect.name != "postgresql":
        return save
    assert save[0] == "SELECT gamelink"
    return [save[0], "SELECT entry", *save[1:]]


def shape(statement: str) -> str:
    """``SELECT <first table after FROM>``, ``INSERT <table>``, ``UPDATE <table>`` … (a write
    in a ``WITH`` of its own, as a save's summary sent with its COMMIT on PostgreSQL: that
    write's, companion.play.save_pipeline.guarded)."""
    statement = unwrapped(statement)
    words = statement.split()
    verb = words[0].upper()
    if verb == "SELECT":
        found = re.search(r"\bFROM\s+\"?(\w+)", statement, re.I)
        return f"SELECT {found[1].lower() if found else '?'}"
    table = re.sub(r"\W", "", words[2] if verb in ("INSERT", "DELETE") else words[1])
    return f"{verb} {table.lower()}"


WRITE_IN_WITH = re.compile(r"^\s*WITH\s+\w+\s+AS\s+\(\s*(?=(INSERT|UPDATE|DELETE)\b)", re.I)


def unwrapped(statement: str) -> str:
    """A statement whose ``WITH`` holds a write (``WITH w AS (UPDATE t …) SELECT …``) as that
    write; any other as it is."""
    found = WRITE_IN_WITH.match(statement)
    return statement[found.end():] if found else statement


@contextmanager
def _commits(engine) -> Iterator[list[int]]:
    """The COMMITs ``engine`` sends meanwhile (one 1 each)."""
    commits: list[int] = []

    def committed(_connection) -> None:
        commits.append(1)

    event.listen(engine, "commit", committed)
    try:
        yield commits
    finally:
        event.remove(engine, "commit", committed)


def test_a_duel_round_is_four_statements_five_on_postgresql_and_one_commit(app, client):
    new = client.post("/kanai-duel/new", data={
        "first": "Ana", "second": "Ben", "mode": "referee", "wins": "4", "abilities": "all",
        "set_aside": "none"})
    assert new.status_code == 303
    url = f"/kanai-duel/g/{token_of(new.headers['Location'])}"
    engine = app.extensions["companion.engine"]
    for cards in (("general", "minister"), ("minister", "general")):
        version = version_of(client, url)
        with _commits(engine) as commits:
            with statements(app) as seen:
                answer = client.post(f"{url}/round", data={
                    "first": cards[0], "second": cards[1], "version": str(version),
                    "key": f"k{version}"})
        assert answer.status_code == 303, answer.text
        assert [shape(s) for s in seen] == on_this_database(app, SAVE), seen
        assert len(commits) == 1
    assert version_of(client, url) == 2


ENTRY_GAME_SAVE = [
    "SELECT gamelink",  # the link, its game, its players' names and live links (one statement)
    # and (on SQLite) the entries: the key's replay check, the version, the replay
    "INSERT entry",
    "UPDATE game",
    "UPDATE gameresult",
]
"""A Princesse Princesse round of a game in progress, or a Réveillez action: four statements on
SQLite, on the save's own connection (views marked ``links.appends``), the names and the
entries read with the link; five on PostgreSQL, the entries a statement of their own sent with
the link's in one round trip (companion.play.save_pipeline). Six on SQLite before the names
came with the link (issue 35: what the page drawn after the commit needs,
companion.play.saved_games), five before the entries did (issue 36)."""


def test_an_entry_games_round_is_four_statements_five_on_postgresql_and_one_commit(app, client):
    engine = app.extensions["companion.engine"]
    for kind, form in (("princesse-princesse", {"step": "2", "in": ["0", "1"], "card-0": "3",
                                                "card-1": "5"}),
                       ("reveillez", {"do": "wake", "slot": "3", "value": "15"})):
        new = client.post(f"/{kind}/new", data={
            "names-0": "Ana", "names-1": "Ben", "names-2": "Cléo", "first": "0"})
        assert new.status_code == 303
        url = f"/{kind}/g/{token_of(new.headers['Location'])}"
        path = "round" if kind == "princesse-princesse" else "act"
        version = version_of(client, url)
        with _commits(engine) as commits:
            with statements(app) as seen:
                answer = client.post(f"{url}/{path}", data={
                    **form, "version": str(version), "key": f"key-{version:08}"})
        assert answer.status_code == 303, answer.text
        assert [shape(s) for s in seen] == on_this_database(app, ENTRY_GAME_SAVE), (
            kind, [shape(s) for s in seen])
        assert len(commits) == 1, kind


REBEL_SAVE = [
    "SELECT gamelink",  # the link and its game
    "SELECT player",  # the seats
    "SELECT roundrecord",  # the rounds: the key's replay check, the version, the replay
    "INSERT roundrecord",
    "UPDATE game",
    "UPDATE gameresult",
]
"""A Rebel Princess round of a game in progress, by numbers: six statements on the save's own
connection (a view marked ``links.appends_records``: no entries read with the link, on either
database), the record written through Core."""


def test_a_rebel_princess_round_is_six_statements_and_one_commit(app, client):
    from .test_lean_saves import RP_NAMES

    new = client.post("/rebel-princess/new", data={
        "edition": "deluxe", "length": "5", "first_leader": "0", **RP_NAMES,
        **{f"cards-{i}": letter for i, letter in enumerate("abcde")}})
    assert new.status_code == 302
    url = f"/rebel-princess/g/{token_of(new.headers['Location'])}"
    engine = app.extensions["companion.engine"]
    for number in (1, 2):
        with _commits(engine) as commits:
            with statements(app) as seen:
                answer = client.post(f"{url}/round/{number}/numbers", data={
                    "base": "", "leader": "", "confirm": "y", "key": f"key-{number:08}",
                    **{f"score_{s}": v for s, v in enumerate(["3", "2", "4", "1"])}})
        assert answer.status_code == 302, answer.text
        assert [shape(s) for s in seen] == REBEL_SAVE, [shape(s) for s in seen]
        assert len(commits) == 1
