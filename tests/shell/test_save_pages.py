"""What a save writes on SQLite, page by page: the pages its COMMIT appends to the write-ahead
log, each named by the table or index it belongs to (SQLite's ``dbstat``). A Kanai duel's round
of a game in progress writes seven: the entry's table and its two unique constraints' indexes
(the number, the form's key), the game's row and its two indexes on its time (the group's
history, across kinds and by kind), and the summary's row — not the index on the summary's
``finished`` (the summary's UPDATE leaves that column alone while the game goes on), nor an
index of the entries' game alone (migration 0017). The round that ends the game names
``finished``: that index is written then, and the summary says it is finished.

Pinned here so that a page added to every save shows up as a failure, not as a slower bench."""

from __future__ import annotations

import sqlite3
import struct
from pathlib import Path

from .test_entry_index import _constraints_indexes
from .test_lean_saves import token_of, version_of


def _frames(path: Path) -> tuple[bytes, list[int]]:
    """The write-ahead log's salt and the pages of its valid frames, in order (a frame whose
    salt is not the header's is left from before the log restarted)."""
    data = Path(f"{path}-wal").read_bytes() if Path(f"{path}-wal").exists() else b""
    if len(data) < 32:
        return b"", []
    size, salt = struct.unpack(">I", data[8:12])[0], data[16:24]
    pages, at = [], 32
    while at + 24 + size <= len(data) and data[at + 8:at + 16] == salt:
        pages.append(struct.unpack(">I", data[at:at + 4])[0])
        at += 24 + size
    return salt, pages


def _written(app, path: Path, post) -> list[str]:
    """The tables and indexes whose pages ``post()`` appended to the log (one name a page)."""
    salt, before = _frames(path)
    answer = post()
    assert answer.status_code == 303, answer.text
    now, after = _frames(path)
    pages = after[len(before):] if now == salt else after
    with sqlite3.connect(path) as db:
        names = dict(db.execute("SELECT pageno, name FROM dbstat"))
    return sorted(names[page] for page in pages)


def test_a_duel_round_writes_seven_pages_and_the_last_round_the_finished_index(app, client):
    engine = app.extensions["companion.engine"]
    if engine.dialect.name != "sqlite":
        return  # (PostgreSQL's pages are its own; its statements: test_save_statements)
    path = Path(app.config["DATABASE"])
    with engine.connect() as connection:
        indexes = _constraints_indexes(connection)
    new = client.post("/kanai-duel/new", data={
        "first": "Ana", "second": "Ben", "mode": "referee", "wins": "4", "abilities": "all",
        "set_aside": "none"})
    assert new.status_code == 303
    url = f"/kanai-duel/g/{token_of(new.headers['Location'])}"

    def play(first: str, second: str):
        version = version_of(client, url)
        return lambda: client.post(f"{url}/round", data={
            "first": first, "second": second, "version": str(version), "key": f"k{version}"})

    expected = sorted(["entry", indexes["seq"], indexes["key"], "game", "ix_game_group_updated",
                       "ix_game_group_kind_updated", "gameresult"])
    for cards in (("general", "minister"), ("minister", "general")):
        assert _written(app, path, play(*cards)) == expected
    last = _written(app, path, play("prince", "princess"))  # (the Princess ends it at once)
    assert "ix_gameresult_group_finished" in last and "ix_entry_game_id" not in last
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT finished FROM gameresult").fetchall() == [(1,)]
