"""Every stored game bounded by what a table can make (issue 40 items 1 and 3): each game is
weighed as it is read (at most ``MAX_GAME``), each entry is held to the shape its kind of game
stores (the same shapes every save is held to), and a gzip file is read whole — every member —
or refused with its reason, never a tail ignored."""

from __future__ import annotations

import gzip
import io
import json
import tracemalloc

import pytest
from sqlmodel import func, select

from companion.db import get_session
from companion.history import export_format as transfer
from companion.history.export_format import MAX_GAME, TransferError, scan, unpack
from companion.models import Entry, Game, Group, Person
from companion.play import imports, store
from companion.play.entries import entry_problem

from ..conftest import finished_import

MB = 2**20
TIME = "2026-01-01T00:00:00Z"


def export(games: list[dict]) -> dict:
    return {"format": transfer.FORMAT, "version": transfer.VERSION, "group": None,
            "players": [{"id": n, "name": f"P{n}", "created_at": TIME} for n in (1, 2)],
            "games": games}


def game(kind: str, entries: list[dict], code: str = "abcdefghij") -> dict:
    return {"code": code, "kind": kind, "created_at": TIME, "updated_at": TIME,
            "settings": {"first": 0},
            "seats": [{"seat": 0, "name": "P1", "player": 1}, {"seat": 1, "name": "P2",
                                                                "player": 2}],
            "entries": [{"seq": n, "kind": e["kind"], "data": e["data"], "created_at": TIME}
                        for n, e in enumerate(entries, start=1)]}


def codes(raw: bytes, check=imports.entry_problems) -> list[str]:
    kinds = frozenset({"reveillez", "kanai_duel", "princesse_princesse", "rebel_princess"})
    with pytest.raises(TransferError) as error:
        scan(raw, kinds, check=check)
    return [p.code for p in error.value.problems]


def test_an_entry_of_100_mb_of_strings_is_refused_through_the_restore_storing_nothing(app):
    """The 123 MB field of the issue, made larger: one entry holding 400 strings of 250 kB
    (each under the longest text a file may hold), packed small. The link-less restore refuses
    it once the game outweighs ``MAX_GAME``, holding a few of those strings at most."""
    strings = ["x" * (250 * 1024)] * 400
    bomb = gzip.compress(json.dumps(export([game("reveillez", [
        {"kind": "action", "data": {"action": "wake 0 5", "pad": strings}}])])).encode())
    assert len(bomb) < MB
    phone = app.test_client()
    tracemalloc.start()
    try:
        answer = finished_import(phone, phone.post("/import", data={
            "file": (io.BytesIO(bomb), "backup.json.gz")}, content_type="multipart/form-data"))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert answer.status_code == 422 and 'data-problem="game-too-large"' in answer.text
    assert peak < 100 * MB, peak
    with app.app_context():
        session = get_session()
        assert [session.exec(select(func.count()).select_from(model)).one()
                for model in (Group, Game, Person, Entry)] == [0, 0, 0, 0]


def test_a_game_is_weighed_as_it_is_read():
    """A game just over the cap is refused, wherever its weight lies (many small values
    here); garbage after that point is never reached."""
    many = [{"kind": "action", "data": {"action": "w" * 150}}] * (MAX_GAME // 150)
    raw = json.dumps(export([game("reveillez", many)])).encode()
    assert codes(raw[:-3] + b"\x00\x00\x00") == ["game-too-large"]


@pytest.mark.parametrize("kind, entry", [
    ("reveillez", {"kind": "action", "data": {"action": "wake 0 5", "pad": "x"}}),
    ("reveillez", {"kind": "action", "data": {"action": 5}}),
    ("reveillez", {"kind": "wake", "data": {}}),
    ("reveillez", {"kind": "undo", "data": {"rid": 1}}),
    ("kanai_duel", {"kind": "round", "data": {"cards": ["prince"]}}),
    ("kanai_duel", {"kind": "round", "data": {"cards": ["prince", "dragon"]}}),
    ("kanai_duel", {"kind": "join", "data": {"seat": True, "link": "a", "browser": "b"}}),
    ("kanai_duel", {"kind": "join", "data": {"seat": 1, "link": "a" * 100}}),
    ("kanai_duel", {"kind": "pick", "data": {"seat": 20, "card": "prince"}}),
    ("princesse_princesse", {"kind": "round", "data": {"first": 0, "still_in": [0],
                                                       "cards": [9, None], "extra": 1}}),
    ("princesse_princesse", {"kind": "turn", "data": {"turn": ["x"] * 1000}}),
    ("princesse_princesse", {"kind": "undo", "data": {"rid": 0}}),
    ("rebel_princess", {"kind": "action", "data": {}}),
])
def test_an_entry_no_table_could_have_made_is_refused(kind, entry):
    assert codes(json.dumps(export([game(kind, [entry])])).encode()) == ["bad-entry"]


@pytest.mark.parametrize("kind, entry", [
    ("reveillez", {"kind": "action", "data": {"action": "wake 0 5"}}),
    ("reveillez", {"kind": "undo", "data": {}}),
    ("kanai_duel", {"kind": "round", "data": {"cards": ["prince", "wizard"]}}),
    ("kanai_duel", {"kind": "join", "data": {"link": "0a1b", "browser": "c2d3"}}),
    ("kanai_duel", {"kind": "aside", "data": {"seat": 1, "card": "spy", "round": 0}}),
    ("princesse_princesse", {"kind": "round", "data": {
        "first": 0, "still_in": [0, 1], "cards": [3, 5], "spies": [], "princesses": [1],
        "next_first": 1, "drawn": False, "log": [], "face_up": []}}),
    ("princesse_princesse", {"kind": "log-start", "data": {"first": 1, "face_up": [2]}}),
])
def test_each_kind_of_entry_a_table_makes_has_its_shape(kind, entry):
    assert entry_problem(kind, entry["kind"], entry["data"]) is None


def test_a_save_is_held_to_the_same_shapes(app, client):
    """The shapes are the saves' own: a save of a shape its game does not store is refused
    before anything is written (every form and API call of the suite saves through here)."""
    client.post("/reveillez/new", data={"names-0": "Ana", "names-1": "Ben", "first": "0"})
    with app.app_context():
        session = get_session()
        stored = session.exec(select(Game)).one()
        with pytest.raises(ValueError, match="no table could have made"):
            store.append(session=session, game=stored, kind="action",
                         data={"action": "wake 0 5", "pad": "x" * 10}, based_on=0)
        assert session.exec(select(func.count()).select_from(Entry)).one() == 0


def test_a_trick_logs_powers_have_their_shape():
    log = {"number": 1, "plays": "", "accepted": [], "checks": True, "version": 0,
           "updated_at": TIME, "powers": [{"at": 4, "seat": 0, "power": "mulan",
                                           "pad": ["x"] * 100}]}
    rebel = {**game("rebel_princess", []), "trick_logs": [log], "edition": "deluxe"}
    assert codes(json.dumps(export([rebel])).encode()) == ["bad-shape"]


def test_a_file_in_two_gzip_members_is_read_as_one():
    """``cat a.gz b.gz``: gzip reads the members as one stream, and so does an import."""
    raw = json.dumps(export([game("reveillez", [
        {"kind": "action", "data": {"action": "wake 0 5"}}])])).encode()
    two = gzip.compress(raw[:100]) + gzip.compress(raw[100:])
    assert unpack(two) == raw
    assert scan(two, frozenset({"reveillez"}), check=imports.entry_problems).total == 1


def test_a_second_member_is_never_ignored():
    """A valid export followed by a member of anything else is read: its tail refuses the
    file (nothing may follow the export), as bytes that start no member do."""
    raw = json.dumps(export([])).encode()
    assert codes(gzip.compress(raw) + gzip.compress(b"x" * MB)) == ["not-json"]
    assert codes(gzip.compress(raw) + b"PK\x03\x04 a zip") == ["bad-archive"]
    assert codes(gzip.compress(raw)[:-6]) == ["bad-archive"]
    spaced = gzip.compress(raw) + gzip.compress(b" " * 1000)  # (white space may follow)
    assert scan(spaced, frozenset()).total == 0


def test_members_count_against_the_same_unpacked_cap(monkeypatch):
    """Each member under the cap, all of them over it: refused at the cap."""
    monkeypatch.setattr(transfer, "MAX_UNPACKED", MB // 8)
    games = [game("reveillez", [], code=f"g{n:07d}") for n in range(1000)]
    raw = json.dumps(export(games)).encode()
    assert len(raw) > MB // 8
    step = MB // 32
    members = b"".join(gzip.compress(raw[n:n + step]) for n in range(0, len(raw), step))
    assert codes(members) == ["too-large"]
