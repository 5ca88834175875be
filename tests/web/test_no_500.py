"""Every 500 issue 19 listed, one by one: each is now a clear 4xx (or the page it meant) and
stores nothing. (The fuzzers in test_fuzz_forms.py and test_fuzz_api.py keep the whole app so.)"""

from __future__ import annotations

import re

import pytest
from sqlmodel import col, select

from companion.common.bounds import DB_INT_MAX, db_id, whole
from companion.common.person_names import KEY_MAX, name_key, name_problem
from companion.db import get_session
from companion.models import Entry, Game, Person, Player, RoundRecord

from .conftest import setup_form


def stored(app) -> list:
    with app.app_context():
        db = get_session()
        return [tuple(db.exec(select(model).order_by(col(model.id))).all())
                for model in (Game, Player, Person, Entry, RoundRecord)]


def test_bounds_refuse_what_the_databases_cannot_store():
    assert whole("42") == 42 and whole(" 7 ") == 7 and db_id(DB_INT_MAX) == DB_INT_MAX
    for bad in ("²", "１２", "9" * 5000, str(2**31), "-1", "", " ", "1.5", None, True, 2**63):
        with pytest.raises(ValueError):
            db_id(bad)


def test_names_are_measured_on_their_folded_key():
    assert len(name_key("ﷺ" * 5)) > KEY_MAX and name_problem("ﷺ" * 5) == "name-too-long"
    assert name_problem("A\x00B") == name_problem("A\x07") == "name-control"
    assert name_problem("Zoé") is None


def test_rebel_princess_round_with_a_blank_base(client, app, make_game):
    code = make_game()
    before = stored(app)
    response = client.post(f"/rebel-princess/g/{code}/round/1/numbers", data={
        "score_0": "0", "score_1": "3", "score_2": "8", "score_3": "4", "base": " 9 9"})
    assert response.status_code == 400 and stored(app) == before
    blank = client.post(f"/rebel-princess/g/{code}/round/1/numbers", data={
        "score_0": "0", "score_1": "3", "score_2": "8", "score_3": "4", "base": " "})
    assert blank.status_code in (302, 422)  # blank: a new round, as if no base were sent


@pytest.mark.parametrize("version", ["5", "9" * 5000, "²"])
def test_undo_with_a_version_on_a_game_without_rounds(client, app, make_game, version):
    code = make_game()
    before = stored(app)
    response = client.post(f"/rebel-princess/g/{code}/undo", data={"version": version})
    assert response.status_code == 302 and stored(app) == before


@pytest.mark.parametrize("field", [{"companion_value": "-99"}, {"value": "²"}])
def test_reveillez_action_with_odd_values(client, app, field):
    url = client.post("/reveillez/new", data={"names-0": "Ana", "names-1": "Ben",
                                              "first": "0"}).headers["Location"]
    response = client.post(f"{url}/act", data={"version": "0", "key": "odd-values-1",
                                               "do": "wake", "slot": "0", "value": "20",
                                               **field})
    assert response.status_code < 500


def test_duel_set_up_with_a_blank_card_set_aside(client, app):
    response = client.post("/kanai-duel/new", data={
        "first": "Ana", "second": "Ben", "mode": "referee", "wins": "4", "abilities": "all",
        "set_aside": "chosen", "out_first": "spy", "out_second": " "})
    assert response.status_code == 422 and stored(app)[0] == ()


@pytest.mark.parametrize("big", [2**31, 2**63, 10**30])
def test_ids_beyond_the_database(client, app, big):
    client.post("/reveillez/new", data={"names-0": "Ana", "names-1": "Ben", "first": "0"})
    base = re.search(r'href="(/group/\w+)/" data-action="group"', client.get("/").text)[1] + \
        "/history"
    before = stored(app)
    assert client.get(f"{base}/players/{big}").status_code == 404
    assert client.post(f"{base}/players/{big}/rename", data={"name": "x"}).status_code == 404
    assert client.get(f"{base}/?player={big}").status_code == 200
    assert client.get(f"{base}/versus?a={big}&b=1").status_code == 404
    assert client.post(f"{base}/players/merge", data={"source": str(big),
                                                      "target": "1"}).status_code == 422
    assert stored(app) == before


@pytest.mark.parametrize("path, body", [
    ("/api/v1/rebel-princess/standings",
     '{"edition": "deluxe", "players": 4, "rounds": [[%s, 1, 1, 1]]}'),
    ("/api/v1/princesse-princesse/round-end",
     '{"players": 2, "tokens_before": [%s, 0], "round": {"still_in": [0]}}'),
])
def test_api_numbers_of_4300_digits(client, path, body):
    response = client.post(path, data=body % ("9" * 4300), content_type="application/json")
    assert response.status_code == 422
    assert response.json["problems"][0]["code"] == "number-too-large"


@pytest.mark.parametrize("name", ["A\x00B", "Ana\x07", "ﷺ" * 5])
def test_names_with_control_characters_or_a_long_folded_key(client, app, name):
    for path, data in (
            ("/reveillez/new", {"names-0": name, "names-1": "Ben", "first": "0"}),
            ("/princesse-princesse/new", {"names-0": name, "names-1": "Ben", "first": "0"}),
            ("/kanai-duel/new", {"first": name, "second": "Ben", "mode": "referee",
                                 "wins": "4", "abilities": "all", "set_aside": "none"}),
            ("/rebel-princess/new", setup_form(names=[name, "Ben", "Cy", "Di"]))):
        assert client.post(path, data=data).status_code == 422, path
    assert stored(app)[0] == ()
