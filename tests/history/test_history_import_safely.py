"""Imports that never stall a table and never half-happen: games are stored a few at a time in
short transactions (another table's saves go on meanwhile), into a hidden group that joins the
real one only at the end; a refusal at any point leaves nothing; a compressed export restores
when the plain file would be over the size limit."""

from __future__ import annotations

import copy
import gzip
import io
import json
import re
import threading
import time

from sqlmodel import select

from companion.db import get_session
from companion.models import ImportJob
from companion.play import imports

from ..conftest import finished_import
from .conftest import counts


def upload(client, base, content: bytes, name="backup.json"):
    return finished_import(client, client.post(f"{base}/import", data={
        "file": (io.BytesIO(content), name)}, content_type="multipart/form-data"))


def new_group(client) -> str:
    """A group with one game of its own (made by starting a game); its history's address."""
    answer = client.post("/reveillez/new", data={"names-0": "Zoé", "names-1": "Yann",
                                                 "first": "0"})
    assert answer.status_code == 303
    home = client.get("/").text
    return "/group/" + re.search(r'href="/group/(\w+)/" data-action="group"', home)[1] + \
        "/history"


def many_games(document: dict, copies: int) -> bytes:
    """The export with each game repeated ``copies`` times under new codes."""
    games = []
    for n in range(copies):
        for game in document["games"]:
            twin = copy.deepcopy(game)
            twin["code"] = f"{game['code'][:10]}{n:03d}"
            games.append(twin)
    return json.dumps({**document, "games": games}).encode()


def test_a_compressed_export_restores_what_the_plain_file_cannot(app, client, known,
                                                                  monkeypatch):
    plain = client.get(f"{known.base}/export.json").data
    packed = client.get(f"{known.base}/export.json.gz")
    assert packed.mimetype == "application/gzip"
    assert gzip.decompress(packed.data) == plain and len(packed.data) < len(plain) / 3
    limit = (len(packed.data) + len(plain)) // 2  # the packed file fits, the plain one does not
    monkeypatch.setattr("companion.history.export_format.MAX_BYTES", limit)
    other = app.test_client()
    base = new_group(other)
    before = counts(app)
    assert upload(other, base, plain).status_code in (413, 422)
    assert counts(app) == before
    answer = upload(other, base, packed.data, "backup.json.gz")
    assert answer.status_code == 303
    assert "Imported 6 games" in other.get(answer.headers["Location"]).text
    assert other.get(f"{base}/export.json").data.count(b'"code"') == plain.count(b'"code"')


def test_a_broken_or_huge_archive_is_refused(app, client, known, monkeypatch):
    base = new_group(app.test_client())
    before = counts(app)
    for content, code in ((b"\x1f\x8b" + b"junk" * 10, "not-json"),
                          (gzip.compress(b" " * 5000), "too-large")):
        monkeypatch.setattr("companion.history.export_format.MAX_UNPACKED", 4000)
        answer = upload(client, base, content, "x.json.gz")
        assert answer.status_code == 422 and f'data-problem="{code}"' in answer.text
    assert counts(app) == before


def test_a_refusal_after_several_batches_leaves_nothing(app, client, known, monkeypatch):
    """Batches of two: the games before the bad one were stored and committed; the refusal
    deletes them with the hidden group, and the group's own games stay as they were."""
    monkeypatch.setattr(imports, "BATCH", 2)
    document = json.loads(many_games(json.loads(client.get(f"{known.base}/export.json").text),
                                     3))
    kanai = [g for g in document["games"] if g["kind"] == "kanai_duel"][-1]
    # The last duel does not replay (an undo first: of a duel entry's shape, found only
    # when the game is replayed, after the batches before it were stored).
    kanai["entries"][0] = {**kanai["entries"][0], "kind": "undo", "data": {}}
    other = app.test_client()
    base = new_group(other)
    before = counts(app)
    answer = upload(other, base, json.dumps(document).encode())
    assert answer.status_code == 422 and 'data-problem="does-not-replay"' in answer.text
    assert counts(app) == before


def test_another_table_saves_while_an_import_runs(app, client, known, monkeypatch):
    """An import of 30 games, two at a time, while another group's table records one action
    after another: every save is stored, and the import too."""
    monkeypatch.setattr(imports, "BATCH", 2)
    add_game = imports._add_game

    def slow_add_game(*args, **kwargs):  # a slower machine: the import lasts a few seconds
        time.sleep(0.01)
        return add_game(*args, **kwargs)

    monkeypatch.setattr(imports, "_add_game", slow_add_game)
    content = many_games(json.loads(client.get(f"{known.base}/export.json").text), 5)
    importer, table = app.test_client(), app.test_client()
    base = new_group(importer)
    table_game = table.post("/reveillez/new", data={"names-0": "Ana", "names-1": "Ben",
                                                    "first": "0"}).headers["Location"]
    done: list[int] = []

    def run_import() -> None:
        done.append(upload(importer, base, content).status_code)

    thread = threading.Thread(target=run_import)
    thread.start()
    saves: list[int] = []
    while thread.is_alive() or not saves:
        version = int(re.search(r'data-version="(\d+)"', table.get(table_game).text)[1])
        wake = {"do": "wake", "slot": "0", "value": "5"} if version % 2 == 0 else {}
        answer = table.post(f"{table_game}/act" if wake else f"{table_game}/undo",
                            data={**wake, "version": version, "key": f"key-{version:04d}"})
        saves.append(answer.status_code)
    thread.join()
    assert done == [303]
    assert len(saves) >= 2 and all(status == 303 for status in saves), saves
    assert "Imported 30 games" in importer.get(f"{base}/").text


def test_three_tables_save_while_an_import_runs_in_batches_and_pauses(app, client, known,
                                                                      monkeypatch):
    """The real batch settings (a batch ends after BATCH_SECONDS; on SQLite a pause follows),
    a slower machine (20 ms a game, so each batch holds the database its full time), and three
    tables saving one action after another meanwhile, each on a thread of its own: every save
    is stored. (The slowest save is measured by ``bench/imports.py``, not asserted here.)"""
    add_game = imports._add_game

    def slow_add_game(*args, **kwargs):
        time.sleep(0.02)
        return add_game(*args, **kwargs)

    monkeypatch.setattr(imports, "_add_game", slow_add_game)
    content = many_games(json.loads(client.get(f"{known.base}/export.json").text), 5)
    importer = app.test_client()
    base = new_group(importer)
    answer = importer.post(f"{base}/import", data={"file": (io.BytesIO(content), "b.json")},
                           content_type="multipart/form-data")
    assert answer.status_code == 303
    token = answer.headers["Location"].rsplit("/", 1)[1]

    def running() -> bool:
        with app.app_context():
            job = get_session().exec(select(ImportJob).where(ImportJob.token == token)).one()
            return job.state not in imports.FINISHED

    saves: list[int] = []

    def table(n: int) -> None:
        phone = app.test_client()
        game = phone.post("/reveillez/new", data={"names-0": f"A{n}", "names-1": f"B{n}",
                                                  "first": "0"}).headers["Location"]
        while running():
            version = int(re.search(r'data-version="(\d+)"', phone.get(game).text)[1])
            wake = {"do": "wake", "slot": "0", "value": "5"} if version % 2 == 0 else {}
            saves.append(phone.post(f"{game}/act" if wake else f"{game}/undo",
                                    data={**wake, "version": version,
                                          "key": f"key-{n}-{version:04d}"}).status_code)

    threads = [threading.Thread(target=table, args=(n,)) for n in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert finished_import(importer, answer).status_code == 303
    assert len(saves) >= 6 and set(saves) == {303}, saves
    assert "Imported 30 games" in importer.get(f"{base}/").text
