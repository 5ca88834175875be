"""Replays never drop a correction, in every game: a form sent again with the same idempotency key
and the same content is answered like the first (a double tap, a retry), and stored once; the
same key with a changed value is refused with what is stored (409, or Rebel Princess's
« already saved » 422), never « saved » for something that was not. Entry pages are no-store."""

from __future__ import annotations

import re

import pytest
from sqlmodel import col, select

from companion.db import get_session
from companion.models import Entry, RoundRecord


def stored(app) -> list[tuple[int, str, str]]:
    with app.app_context():
        return [(e.seq, e.kind, e.data) for e in
                get_session().exec(select(Entry).order_by(col(Entry.id)))]


def version_of(client, url) -> int:
    return int(re.search(r'data-version="(\d+)"', client.get(url).text)[1])


# --- the Kanai duel (referee mode) ---------------------------------------------------------------

def test_duel_round_replayed_and_corrected(client, app):
    url = client.post("/kanai-duel/new", data={
        "first": "Ana", "second": "Ben", "mode": "referee", "wins": "4", "abilities": "all",
        "set_aside": "none"}).headers["Location"]
    form = {"first": "prince", "second": "clown", "version": "0", "key": "duel-key-1"}
    assert client.post(url + "/round", data=form).status_code == 303
    assert client.post(url + "/round", data=form).status_code == 303  # a double tap
    before = stored(app)
    assert [kind for _, kind, _ in before] == ["round"]
    changed = client.post(url + "/round", data={**form, "second": "spy"})
    assert changed.status_code == 409 and 'data-problem="form-already-saved-round"' in changed.text
    assert "already saved: Prince / Clown" in changed.text and "Not saved" in changed.text
    assert stored(app) == before
    undo = {"version": "1", "key": "duel-undo-1"}
    assert client.post(url + "/undo", data=undo).status_code == 303
    assert client.post(url + "/undo", data=undo).status_code == 303
    assert [kind for _, kind, _ in stored(app)] == ["round", "undo"]


# --- « Réveillez » -----------------------------------------------------------------------------

def reveillez_game(client) -> str:
    response = client.post("/reveillez/new", data={"names-0": "Ana", "names-1": "Ben",
                                                   "first": "0"})
    assert response.status_code == 303
    return response.headers["Location"]


def test_reveillez_action_replayed_and_corrected(client, app):
    url = reveillez_game(client)
    form = {"version": "0", "key": "rv-key-0001", "do": "wake", "slot": "0", "value": "20"}
    assert client.post(url + "/act", data=form).status_code == 303
    assert client.post(url + "/act", data=form).status_code == 303  # a double tap
    before = stored(app)
    assert len(before) == 1 and '"action"' in before[0][2]
    changed = client.post(url + "/act", data={**form, "value": "10"})
    assert changed.status_code == 409 and 'data-problem="form-already-saved"' in changed.text
    assert "already recorded as" in changed.text and "not recorded" in changed.text
    assert stored(app) == before
    undo = {"version": "1", "key": "rv-undo-0001"}
    assert client.post(url + "/undo", data=undo).status_code == 303
    assert client.post(url + "/undo", data=undo).status_code == 303
    assert [kind for _, kind, _ in stored(app)] == ["action", "undo"]


# --- Love Letter « Princesse Princesse » --------------------------------------------------------

def test_princesse_princesse_round_replayed_and_corrected(client, app):
    url = client.post("/princesse-princesse/new", data={
        "names-0": "Ana", "names-1": "Ben", "names-2": "Cléo", "first": "0"}).headers["Location"]
    form = {"version": "0", "key": "pp-key-0001", "step": "2", "round": "1", "in": ["0"]}
    first = client.post(url + "/round", data=form)
    again = client.post(url + "/round", data=form)  # the double tap: answered like the first
    assert (first.status_code, again.status_code) == (303, 303)
    assert first.headers["Location"] == again.headers["Location"]
    before = stored(app)
    assert [kind for _, kind, _ in before] == ["round"]
    changed = client.post(url + "/round", data={**form, "in": ["1"]})
    assert changed.status_code == 409
    assert 'data-problem="form-already-saved-round"' in changed.text
    assert "already saved as round 1" in changed.text
    assert stored(app) == before


# --- Rebel Princess -----------------------------------------------------------------------------

def test_rebel_princess_round_corrected_is_refused(client, app, make_game):
    code = make_game(edition="classic")
    data = {"score_0": "0", "score_1": "3", "score_2": "8", "score_3": "4", "last_trick": "2"}
    assert client.post(f"/rebel-princess/g/{code}/round/1/numbers", data=data).status_code == 302
    assert client.post(f"/rebel-princess/g/{code}/round/1/numbers", data=data).status_code == 302
    with app.app_context():
        before = [(r.seq, r.scores) for r in get_session().exec(select(RoundRecord))]
    changed = client.post(f"/rebel-princess/g/{code}/round/1/numbers", data={**data, "score_0": "1",
                                                              "score_1": "2"})
    assert changed.status_code == 422 and "round-already-saved" in changed.text
    with app.app_context():
        assert [(r.seq, r.scores) for r in get_session().exec(select(RoundRecord))] == before


# --- entry pages are not stored by the browser -------------------------------------------------

@pytest.mark.parametrize("path", ["/rebel-princess/new", "/princesse-princesse/new",
                                  "/reveillez/new", "/kanai-duel/new"])
def test_set_up_pages_are_no_store(client, path):
    assert client.get(path).headers["Cache-Control"] == "no-store"


def test_game_pages_are_no_store(client, make_game):
    pages = [f"/rebel-princess/g/{make_game()}/round/1/cards", reveillez_game(client)]
    pages.append(client.post("/kanai-duel/new", data={
        "first": "Ana", "second": "Ben", "mode": "phones", "wins": "4", "abilities": "all",
        "set_aside": "none"}).headers["Location"])
    pp = client.post("/princesse-princesse/new", data={
        "names-0": "Ana", "names-1": "Ben", "first": "0"}).headers["Location"]
    pages += [pp, pp + "/round", pp + "/log", pp + "/history"]
    for page in pages:
        response = client.get(page, follow_redirects=True)
        assert response.status_code == 200, page
        assert response.headers["Cache-Control"] == "no-store", page
