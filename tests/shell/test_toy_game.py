"""Adding a game is a registry line and the game's own package: the shell needs no change.

The toy game lives in the test tree only (``tests/shell/toy_game/``: a core with one rule, a page
blueprint and an API blueprint). Registered, it appears on the home page, in the new-game chooser
and in the OpenAPI document, and its pages and API answer.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from companion import create_app, games
from companion.games import GameKind

TOY = GameKind(
    key="toy_game", slug="toy-game", names={"en": "Toy game", "fr": "Jeu jouet"},
    pitch={"en": "Higher card wins.", "fr": "La plus forte carte gagne."}, players=(2, 2),
    new_endpoint="toy_game.new_game", show_endpoint="toy_game.show",
    emblem="T")


@pytest.fixture
def toy_client(monkeypatch, tmp_path):
    monkeypatch.syspath_prepend(str(Path(__file__).parent))
    monkeypatch.setattr(games, "GAMES", [*games.GAMES, TOY])
    from toy_game.routes import PAGES  # the test tree, on sys.path now

    monkeypatch.setattr(games, "_PLUGGED", dict(games._PLUGGED))  # (undone after the test)
    games.plug_in(TOY.key, PAGES)  # how a game registers its parts
    app = create_app({"TESTING": True, "WTF_CSRF_ENABLED": False, "SECRET_KEY": "t",
                      "DATABASE": str(tmp_path / "toy.sqlite")})
    return app.test_client()


def test_the_toy_game_is_on_the_home_page(toy_client):
    html = toy_client.get("/").text
    assert 'data-kind="toy_game"' in html and "Toy game" in html
    assert 'href="/toy-game/new"' in html


def test_the_toy_game_is_in_the_new_game_chooser_in_both_languages(toy_client):
    assert 'data-action="new-toy-game"' in toy_client.get("/new").text
    french = toy_client.get("/new", headers={"Accept-Language": "fr"}).text
    assert "Jeu jouet" in french


def test_the_toy_game_has_its_landing_page(toy_client):
    html = toy_client.get("/toy-game/").text
    assert "Higher card wins." in html and 'data-nav="game"' in html


def test_the_toy_game_api_is_in_the_openapi_document_and_answers(toy_client):
    document = toy_client.get("/api/v1/openapi.json").get_json()
    assert document["paths"]["/api/v1/toy-game/compare"]["post"]["operationId"] == "toyCompare"
    assert "/api/v1/rebel-princess/score-round" in document["paths"]
    answer = toy_client.post("/api/v1/toy-game/compare", json={"cards": [3, 5]})
    assert answer.get_json() == {"winner": 1}


def test_the_toy_game_api_refuses_in_the_shared_shape(toy_client):
    answer = toy_client.post("/api/v1/toy-game/compare", json={"cards": [3, "x"]})
    assert answer.status_code == 422
    assert answer.get_json()["problems"][0]["code"] == "wrong-type"
    assert toy_client.post("/api/v1/toy-game/compare", data="[").status_code == 400


def test_a_toy_game_page_needs_one_of_its_links(toy_client):
    """The shell guards every game's pages: a code that is no link of a game opens nothing."""
    assert toy_client.get("/toy-game/g/abc234").status_code == 404


def test_the_toy_game_rule(monkeypatch):
    monkeypatch.syspath_prepend(str(Path(__file__).parent))  # (not left by another test)
    from toy_game.core import winner

    assert (winner(5, 3), winner(3, 5), winner(4, 4)) == (0, 1, None)


def test_a_registry_line_says_it_is_playable_before_any_app(monkeypatch):
    """Playable is the registry line's own fact: a game whose parts were never plugged in is not
    shown as "nothing" (no pages, no API operations) but fails loudly where its parts are read,
    and parts cannot be plugged in under a key the registry has no playable line for."""
    monkeypatch.setattr(games, "GAMES", [*games.GAMES, TOY])
    monkeypatch.setattr(games, "_PLUGGED", dict(games._PLUGGED))
    assert TOY.available and TOY.key not in games._PLUGGED
    with pytest.raises(LookupError, match="not plugged in"):
        TOY.pages()
    with pytest.raises(LookupError, match="not plugged in"):
        TOY.api_operations()
    soon = GameKind(key="soon", slug="soon", names=TOY.names, pitch=TOY.pitch, players=(2, 2),
                    coming_soon=True)
    monkeypatch.setattr(games, "GAMES", [*games.GAMES, soon])
    assert not soon.available and soon.api_operations() == () and soon.glue() is None
    with pytest.raises(LookupError, match="no playable registry line"):
        games.plug_in("soon", games.by_key("rebel_princess").pages())
    with pytest.raises(LookupError, match="no playable registry line"):
        games.plug_in("nobody", games.by_key("rebel_princess").pages())


def test_every_playable_game_is_plugged_in_by_the_assembly():
    """The registry's four games each have their pages and glue after ``plug_in_games``."""
    from companion.factory import plug_in_games

    plug_in_games()
    playable = [kind for kind in games.registry() if kind.available]
    assert [kind.key for kind in playable] == ["rebel_princess", "princesse_princesse",
                                               "reveillez", "kanai_duel"]
    assert all(kind.pages().bp.name == kind.key and kind.glue() is not None for kind in playable)
