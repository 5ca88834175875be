"""Hostile files (issue 28): each one refused at the cap it breaks, reading no further, with
little memory, and through the link-less restore leaving nothing stored.

The file is read as a stream (:func:`companion.history.export_format.scan`): no test here waits for
a clock; each shows that the reading stopped where the cap was broken (garbage placed after
that point is never reached) and measures the memory it took with ``tracemalloc``.
"""

from __future__ import annotations

import io
import json
import struct
import tracemalloc
import zlib

import pytest
from sqlmodel import func, select

from companion.db import get_session
from companion.history import export_format
from companion.history.export_format import TransferError, scan
from companion.models import Game, Group, ImportJob, Person

from ..conftest import finished_import

KINDS = frozenset({"reveillez"})
HEAD = b'{"format": "princess-table-export", "version": 1, '
PLAYER = b'{"id": %d, "name": "P%d", "created_at": "2026-01-01T00:00:00Z"}'
GARBAGE = b"\x00 this is never read \x00"


def reveillez_game(code: str, players=(1, 2)) -> dict:
    """A small game of the right shape (scan checks shape and numbering, not the rules)."""
    return {"code": code, "kind": "reveillez", "created_at": "2026-01-01T00:00:00Z",
            "updated_at": "2026-01-01T00:00:00Z", "settings": {"first": 0},
            "seats": [{"seat": n, "name": f"P{p}", "player": p} for n, p in enumerate(players)],
            "entries": []}


def packed(parts) -> bytes:
    """``parts`` (byte strings) as one gzip file, each part compressed once however often it
    comes (a full flush after each makes its compressed bytes the same every time)."""
    out, done, crc, size = [b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"], {}, 0, 0
    for part in parts:
        if part not in done:
            deflate = zlib.compressobj(9, zlib.DEFLATED, -15)
            done[part] = (deflate.compress(part) + deflate.flush(zlib.Z_FULL_FLUSH),
                          zlib.crc32(part))
        out.append(done[part][0])
        crc, size = zlib.crc32(part, crc), size + len(part)
    out.append(zlib.compressobj(9, zlib.DEFLATED, -15).flush())  # the last, empty block
    return b"".join(out) + struct.pack("<II", crc, size & 0xFFFFFFFF)


def refused(raw: bytes) -> tuple[list[str], int]:
    """The problem codes ``scan`` refuses ``raw`` with, and the memory it took at its peak."""
    tracemalloc.start()
    try:
        with pytest.raises(TransferError) as error:
            scan(raw, KINDS)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return [p.code for p in error.value.problems], peak


MB = 2**20


def test_a_gzip_bomb_of_white_space_is_refused_at_its_first_pieces():
    """0.25 MB sent, 250 MB of spaces unpacked: no value is that long (``MAX_RUN``)."""
    bomb = packed([HEAD, b'"players": ', *([b" " * MB] * 250), b"[]}"])
    assert len(bomb) < 0.3 * MB
    codes, peak = refused(bomb)
    assert codes == ["bad-shape"] and peak < 5 * MB


def test_a_gzip_bomb_of_one_long_text_is_refused():
    bomb = packed([HEAD, b'"players": [{"id": 1, "name": "', *([b"A" * MB] * 250), b'"}]}'])
    codes, peak = refused(bomb)
    assert codes == ["bad-shape"] and peak < 5 * MB


def test_a_gzip_bomb_of_escaped_quotes_is_one_long_text_too():
    """``\\"`` inside a text does not end it: 250 MB of them are one text, refused."""
    bomb = packed([HEAD, b'"players": [{"id": 1, "name": "', *([b'\\"' * (MB // 2)] * 250),
                   b'"}]}'])
    codes, peak = refused(bomb)
    assert codes == ["bad-shape"] and peak < 5 * MB


def test_a_gzip_bomb_of_many_small_values_stops_at_the_unpacked_cap(monkeypatch):
    """Short values, so no single one is too long: the unpacked size is the cap (lowered here
    to keep the test short; the real cap is the same code)."""
    monkeypatch.setattr(export_format, "MAX_UNPACKED", MB // 4)
    game = json.dumps(reveillez_game("aaaa0000")).encode()
    games = (b", ".join(game.replace(b"aaaa0000", b"g%07d" % (n * 1000 + k))
                        for k in range(1000)) for n in range(10))
    codes, peak = refused(packed([HEAD, b'"players": [', PLAYER % (1, 1), b", ",
                                  PLAYER % (2, 2), b'], "games": [',
                                  *(part + b", " for part in games), b"]}"]))
    assert codes == ["too-large"] and peak < 20 * MB


def test_a_million_players_stop_at_the_players_cap():
    thousand = b", ".join(PLAYER % (n, n) for n in range(1, 1001)) + b", "
    raw = packed([HEAD, b'"players": [', *([thousand] * 1000), GARBAGE])
    assert len(raw) < export_format.MAX_BYTES
    codes, peak = refused(raw)
    assert codes == ["too-large"] and peak < 20 * MB


def test_too_many_games_stop_at_the_games_cap(monkeypatch):
    monkeypatch.setattr(export_format, "MAX_GAMES", 50)
    games = b", ".join(json.dumps(reveillez_game(f"game{n:04d}")).encode() for n in range(51))
    raw = HEAD + b'"players": [' + PLAYER % (1, 1) + b", " + PLAYER % (2, 2) + \
        b'], "games": [' + games + b", " + GARBAGE
    assert refused(raw)[0] == ["too-large"]


@pytest.mark.parametrize("nested", [
    b'"players": [], "games": [{"settings": ' + b'{"a": ' * 100_000,  # objects: depth cap
    b'"players": [], "games": [{"settings": ' + b"[" * 100_000,  # lists: no quote in 100 kB
    b'"players": [{"x": ' + b'[{"a": ' * 100_000,
])
def test_deep_nesting_is_refused_before_it_is_built(nested):
    codes, peak = refused(packed([HEAD, nested, GARBAGE]))
    assert codes == ["bad-shape"] and peak < 5 * MB


def test_a_game_with_too_many_rows_stops_at_the_list_cap():
    """(Rows of one value each: a list of whole entries outweighs the game's cap first, see
    test_history_import_bounded.py.)"""
    entry = b'1, '
    raw = packed([HEAD, b'"players": [], "games": [{"entries": [',
                  *([entry * 1000] * 1000), GARBAGE])
    codes, peak = refused(raw)
    assert codes == ["bad-shape"] and peak < 20 * MB


def test_a_long_set_up_is_refused():
    game = reveillez_game("game0001")
    game["settings"] = {f"k{n}": n for n in range(2000)}
    raw = json.dumps({"format": export_format.FORMAT, "version": 1, "games": [game],
                      "players": [{"id": n, "name": f"P{n}", "created_at": "2026-01-01T00:00:00Z"}
                                  for n in (1, 2)]}).encode()
    codes, _ = refused(raw)
    assert codes == ["bad-shape"]


@pytest.mark.parametrize("raw, code", [
    (b'{"games": [], "evil": ' + GARBAGE, "bad-shape"),  # an unknown field: refused at once
    (b'{"format": "something-else", ' + GARBAGE, "not-an-export"),
    (b'{"version": 9, ' + GARBAGE, "newer-version"),
    (b'[' + GARBAGE, "not-an-export"),
    (b'{"format": "princess-table-export", "version": 1, "players": [], "games": []} x',
     "not-json"),
    (b'{"players": [], "games": []}', "not-an-export"),
    (b'{"format": "princess-table-export", "players": [], "games": []}', "bad-version"),
    (b'{"players": [], "players": [], ' + GARBAGE, "bad-shape"),
    (b'{"format": "princess-table-export", "version": 1, "players": [], "games": [' +
     b"9" * 5000 + b"]}", "not-json"),
])
def test_a_file_is_refused_at_the_first_byte_that_breaks_it(raw, code):
    assert refused(raw)[0] == [code]


def test_reading_a_large_file_holds_one_game_at_a_time():
    """2,000 games read take a small part of what the file's games take as objects (measured
    in the same run: the file read whole by ``json.loads``); what is kept is each game's code
    and players."""
    games = [reveillez_game(f"g{n:07d}") for n in range(2000)]
    for game in games:
        game["entries"] = [{"seq": s, "kind": "wake", "data": {"slot": s % 4, "value": 5},
                            "created_at": "2026-01-01T00:00:00Z"} for s in range(1, 6)]
    raw = json.dumps({"format": export_format.FORMAT, "version": 1, "games": games,
                      "players": [{"id": n, "name": f"P{n}", "created_at": "2026-01-01T00:00:00Z"}
                                  for n in (1, 2)]}).encode()
    del games
    tracemalloc.start()
    try:
        whole = json.loads(raw)
        anchor = tracemalloc.get_traced_memory()[1]
        del whole
        tracemalloc.reset_peak()
        contents = scan(raw, KINDS)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert contents.total == 2000
    assert peak < anchor / 4, (peak, anchor)


def test_a_bomb_sent_to_the_restore_that_needs_no_link_stores_nothing(app):
    """Through the web: the restore is taken (a job), refused, and leaves no group, no game,
    no person, and not the file."""
    bomb = packed([HEAD, b'"players": ', *([b" " * MB] * 250), b"[]}"])
    phone = app.test_client()
    answer = finished_import(phone, phone.post("/import", data={
        "file": (io.BytesIO(bomb), "backup.json.gz")}, content_type="multipart/form-data"))
    assert answer.status_code == 422 and 'data-problem="bad-shape"' in answer.text
    with app.app_context():
        session = get_session()
        for model in (Group, Game, Person):
            assert session.exec(select(func.count()).select_from(model)).one() == 0
        job = session.exec(select(ImportJob)).one()
        assert job.state == "refused" and job.file is None
