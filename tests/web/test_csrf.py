"""With CSRF on: forms need their token, htmx sends it in a header, the JSON API needs none."""

from __future__ import annotations

import json
import re

import pytest

from companion import create_app
from companion.models import Game, RoundRecord

from .conftest import code_of, count, setup_form


@pytest.fixture
def csrf_app(tmp_path):
    return create_app({"TESTING": True, "SECRET_KEY": "csrf-test",
                       "DATABASE": str(tmp_path / "csrf.sqlite"), "WTF_CSRF_ENABLED": True})


@pytest.fixture
def csrf_client(csrf_app):
    return csrf_app.test_client()


def form_token(html):
    return re.search(r'name="csrf_token" type="hidden" value="([^"]+)"', html).group(1)


def header_token(html):
    return json.loads(re.search(r"<body hx-headers='([^']+)'", html).group(1))["X-CSRFToken"]


def new_game(client):
    token = form_token(client.get("/rebel-princess/new").text)
    return code_of(client.post("/rebel-princess/new", data={**setup_form(), "csrf_token": token}))


def test_new_game_without_token_is_400(csrf_app, csrf_client):
    csrf_client.get("/rebel-princess/new")
    assert csrf_client.post("/rebel-princess/new", data=setup_form()).status_code == 400
    assert count(csrf_app, Game) == 0


def test_new_game_with_wrong_token_is_400(csrf_app, csrf_client):
    csrf_client.get("/rebel-princess/new")
    data = {**setup_form(), "csrf_token": "forged"}
    assert csrf_client.post("/rebel-princess/new", data=data).status_code == 400
    assert count(csrf_app, Game) == 0


def test_new_game_with_token_from_the_form(csrf_app, csrf_client):
    token = form_token(csrf_client.get("/rebel-princess/new").text)
    response = csrf_client.post("/rebel-princess/new", data={**setup_form(), "csrf_token": token})
    assert response.status_code == 302
    assert count(csrf_app, Game) == 1


def test_token_from_another_session_is_400(csrf_app, csrf_client):
    token = form_token(csrf_app.test_client().get("/rebel-princess/new").text)
    csrf_client.get("/rebel-princess/new")
    data = {**setup_form(), "csrf_token": token}
    assert csrf_client.post("/rebel-princess/new", data=data).status_code == 400


def test_preview_with_header_token(csrf_client):
    code = new_game(csrf_client)
    html = csrf_client.get(f"/rebel-princess/g/{code}/round/1/cards").text
    response = csrf_client.post(f"/rebel-princess/g/{code}/round/1/preview", data={"A8": "2"},
                                headers={"X-CSRFToken": header_token(html),
                                         "HX-Request": "true"})
    assert response.status_code == 200
    assert 'data-missing="10"' in response.text


def test_preview_without_token_is_400(csrf_client):
    code = new_game(csrf_client)
    csrf_client.get(f"/rebel-princess/g/{code}/round/1/cards")
    response = csrf_client.post(f"/rebel-princess/g/{code}/round/1/preview", data={"A8": "2"},
                                headers={"HX-Request": "true"})
    assert response.status_code == 400


def test_round_entry_needs_token(csrf_app, csrf_client):
    code = new_game(csrf_client)
    html = csrf_client.get(f"/rebel-princess/g/{code}/round/1/numbers").text
    scores = {f"score_{s}": v for s, v in enumerate(["0", "3", "8", "4"])}
    assert csrf_client.post("/rebel-princess"
                            f"/g/{code}/round/1/numbers", data=scores).status_code == 400
    assert count(csrf_app, RoundRecord) == 0
    data = {**scores, "csrf_token": form_token(html)}
    assert csrf_client.post("/rebel-princess"
                            f"/g/{code}/round/1/numbers", data=data).status_code == 302


def test_undo_needs_token(csrf_app, csrf_client):
    code = new_game(csrf_client)
    html = csrf_client.get(f"/rebel-princess/g/{code}/round/1/numbers").text
    scores = {f"score_{s}": v for s, v in enumerate(["0", "3", "8", "4"])}
    csrf_client.post("/rebel-princess"
                     f"/g/{code}/round/1/numbers", data={**scores, "csrf_token": form_token(html)})
    assert csrf_client.post(f"/rebel-princess/g/{code}/undo").status_code == 400
    assert count(csrf_app, RoundRecord) == 1
    token = form_token(csrf_client.get(f"/rebel-princess/g/{code}").text)
    assert csrf_client.post("/rebel-princess"
                            f"/g/{code}/undo", data={"csrf_token": token}).status_code == 302
    assert count(csrf_app, RoundRecord) == 2


def test_json_api_needs_no_token(csrf_client):
    taken = [["P1", "P2", "P3"], ["P4", "P5", "A8"], ["P6", "P7", "P8"], ["P9", "P10"]]
    body = {"edition": "deluxe", "round_card": "a", "players": 4, "taken": taken}
    response = csrf_client.post("/api/v1/rebel-princess/score-round", json=body)
    assert response.status_code == 200


def test_error_pages_name_the_game_they_were_asked_for(csrf_app, csrf_client):
    """A refused form and a missing page are titled with the game whose page was asked (or the
    app's name away from any game), never another game's: they used to say Rebel Princess on
    every game."""
    def title(answer) -> str:
        return re.search(r"<title>(.*?)</title>", answer.text, re.S)[1]

    csrf_client.get("/reveillez/new")
    refused = csrf_client.post("/reveillez/new", data={})
    assert refused.status_code == 400
    assert "Réveillez" in title(refused) or "Wake" in title(refused), title(refused)
    assert "Rebel" not in title(refused)
    missing = csrf_client.get("/kanai-duel/g/" + "x" * 22)
    assert missing.status_code == 404
    assert "Rebel" not in title(missing) and "Princess Table" not in title(missing), title(missing)
    nowhere = csrf_client.get("/no/such-page")
    assert nowhere.status_code == 404 and title(nowhere).endswith("Princess Table")
