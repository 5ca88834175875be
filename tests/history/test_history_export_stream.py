"""A small group's export sent as it is made (issue 36, item 4): a few games at a time
(:data:`export.CHUNK`), on a session of its own, so that a request holds one chunk of games,
not the group — the same bytes as the export made in one piece, and exports counted per link
(the link hashed in the counter's key), whoever asks."""

from __future__ import annotations

import csv
import gzip
import io
import json

import pytest
from sqlmodel import Session, col, select

from companion import create_app
from companion.db import get_session
from companion.models import Game, Group
from companion.play import export, people, store, summaries
from companion.play.groups import new_group
from companion.routes import exports
from companion.web import security
from companion.web.security import EXPORT_LIMIT, limit_figures

from ..conftest import database_config, empty_tables
from .conftest import store_known_games
from .test_history_page_cost import copy_games


def in_one_piece(app, group_id: int) -> str:
    """The export as it was made before: every finished game at once, in id order."""
    with app.app_context():
        session = get_session()
        _, found = summaries.records(session, group_id=group_id)
        games = sorted((r.game for r in found), key=lambda game: game.id or 0)
        return export.dumps(export.export(session, games))


@pytest.fixture
def many(app, known, monkeypatch):
    """The known group with 5 more copies of its games (36 finished), streamed 4 at a time,
    sent at once (a group this size is a job: test_history_export_jobs.py; the stream is the
    answer of a small group, made the same way)."""
    copy_games(app, known.group_id, 5)
    monkeypatch.setattr(export, "CHUNK", 4)
    monkeypatch.setattr(exports, "IMMEDIATE", 100)
    return known


def test_the_streamed_export_is_the_export_made_in_one_piece(app, client, many):
    response = client.get(f"{many.base}/export.json")
    assert response.status_code == 200 and response.is_streamed
    assert response.headers["Content-Disposition"].startswith("attachment;")
    text = response.get_data(as_text=True)
    assert text == in_one_piece(app, many.group_id)
    document = json.loads(text)
    assert len(document["games"]) == 36 and len(document["players"]) >= 5


def test_the_packed_export_unpacks_to_the_same_text(app, client, many):
    response = client.get(f"{many.base}/export.json.gz")
    assert response.status_code == 200 and response.mimetype == "application/gzip"
    assert gzip.decompress(response.data).decode() == in_one_piece(app, many.group_id)


def test_the_streamed_csv_is_the_csv_made_in_one_piece(app, client, many):
    response = client.get(f"{many.base}/export.csv")
    assert response.status_code == 200
    with app.app_context():
        session = get_session()
        _, found = summaries.records(session, group_id=many.group_id)
        whole = export.export_csv(found, people.names_by_id(session, many.group_id))
    assert response.get_data(as_text=True) == whole
    rows = list(csv.reader(io.StringIO(whole)))
    assert rows[0] == list(export.CSV_COLUMNS) and len({r[0] for r in rows[1:]}) == 36


def test_an_empty_group_exports_an_empty_document(app, client):
    with app.app_context():
        session = get_session()
        group = new_group(session, name="Nobody yet")
        session.commit()
        token = group.token
    text = client.get(f"/group/{token}/history/export.json").get_data(as_text=True)
    assert json.loads(text) == {**json.loads(text), "players": [], "games": []}
    assert text == in_one_piece(app, group.id)


def test_each_chunk_reads_only_its_own_games(app, many, monkeypatch):
    """The stream reads CHUNK games at a time and lets them go: no chunk asks for more games
    than CHUNK, and the session holds none between chunks."""
    asked: list[int] = []
    real = summaries.finished_ids

    def counted(session, **kw):
        found = real(session, **kw)
        asked.append(len(found))
        assert len(session.identity_map) == 0  # (the last chunk's games let go)
        return found

    monkeypatch.setattr(summaries, "finished_ids", counted)
    with app.app_context():
        with Session(app.extensions["companion.engine"]) as reader:
            text = "".join(export.stream(reader, many.group_id))
    assert asked == [4] * 9 + [0] and len(json.loads(text)["games"]) == 36


def test_the_answer_starts_before_the_export_is_made(app, client, many, monkeypatch):
    """No hook makes the streamed answer whole before it is sent (the access log asked for its
    length once, which read every chunk into memory): when the response starts, one chunk at
    most has been read; the rest are read as the body is."""
    asked: list[int] = []
    real = summaries.finished_ids

    def counted(session, **kw):
        found = real(session, **kw)
        asked.append(len(found))
        return found

    monkeypatch.setattr(summaries, "finished_ids", counted)
    response = client.get(f"{many.base}/export.json")
    assert response.status_code == 200 and len(asked) <= 1
    assert json.loads(response.get_data(as_text=True))["games"] and asked == [4] * 9 + [0]


# --- the limit per link ---------------------------------------------------------------------

@pytest.fixture
def limited(tmp_path):
    """An app with its rate limits on, the known games stored: it, the group's token and a
    finished game's viewer token."""
    app = create_app({"TESTING": True, "SECRET_KEY": "t", "WTF_CSRF_ENABLED": False,
                      "RATELIMIT_ENABLED": True, **database_config(tmp_path)})
    empty_tables(app)
    with app.app_context():
        session = get_session()
        codes = store_known_games(session)
        game = session.exec(select(Game).where(col(Game.code) == codes["rp1"])).one()
        group = session.get(Group, game.group_id).token
        viewer = store.links_of(session, game)["viewer"].token
    yield app, group, viewer
    app.extensions["companion.engine"].dispose()


def test_exports_are_counted_per_link_whatever_the_address(limited):
    app, group, viewer = limited
    per_minute = limit_figures(EXPORT_LIMIT)[0][0]
    client = app.test_client()
    paths = [f"/group/{group}/history/export.json", f"/group/{group}/history/export.csv",
             f"/group/{group}/history/export.json.gz"]
    for n in range(per_minute):  # every export of the group's link counts once, from anywhere
        answer = client.get(paths[n % 3], environ_base={"REMOTE_ADDR": f"10.0.0.{n + 1}"})
        assert answer.status_code == 200 and answer.data  # (read, as a phone does)
    refused = client.get(paths[0], environ_base={"REMOTE_ADDR": "10.9.9.9"})
    assert refused.status_code == 429 and "Retry-After" in refused.headers
    # other pages of the same link, and another link's exports, are not counted with them
    assert client.get(f"/group/{group}/history/").status_code == 200
    for path in (f"/record/{viewer}/export.json", f"/record/{viewer}/export.csv"):
        answer = client.get(path)
        assert answer.status_code == 200 and answer.data  # (read, as a phone does)


def test_the_limits_key_holds_no_token(limited):
    app, group, _ = limited
    client = app.test_client()
    assert client.get(f"/group/{group}/history/export.json").data
    storage = app.extensions["limiter"]
    keys = []
    for limiter in (storage if isinstance(storage, set) else {storage}):
        keys += list(getattr(limiter.storage, "storage", {}).keys())
    export_keys = [key for key in keys if "export" in key]
    assert export_keys, keys
    assert all(group not in key for key in keys)


@pytest.fixture
def one_a_minute(monkeypatch):
    monkeypatch.setattr(security, "EXPORT_LIMIT", "1 per minute")


def test_a_refused_export_says_to_wait(one_a_minute, limited):
    app, group, _ = limited
    client = app.test_client()
    assert client.get(f"/group/{group}/history/export.json").data
    refused = client.get(f"/group/{group}/history/export.csv")
    assert refused.status_code == 429 and int(refused.headers["Retry-After"]) > 0
