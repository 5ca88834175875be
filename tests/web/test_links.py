"""Scorer and viewer links: the only way into a game, for every game of the registry."""

from __future__ import annotations

import re

import pytest
from sqlmodel import func, select

from companion.db import get_session
from companion.games import registry
from companion.models import Entry, Game, GameLink, RoundRecord
from companion.play import store

KINDS = [kind for kind in registry() if kind.available]


def _game(app, kind) -> tuple[Game, dict[str, GameLink]]:
    with app.app_context():
        session = get_session()
        game = store.create_game(session=session, kind=kind.key, names=["Ana", "Ben"])
        return game, store.links_of(session, game)


def _write_rules(app, kind):
    """Every URL rule of a game's pages that accepts a POST, with its arguments filled in."""
    for rule in app.url_map.iter_rules():
        if rule.endpoint.partition(".")[0] == kind.key and "POST" in (rule.methods or ()):
            yield rule


def _fill(rule, token: str) -> str:
    values = {arg: (token if arg == "code" else "1") for arg in rule.arguments}
    path = rule.rule
    for arg, value in values.items():
        path = re.sub(rf"<(?:\w+(?:\([^)]*\))?:)?{arg}>", value, path)
    return path


def _stored(app) -> int:
    with app.app_context():
        session = get_session()
        return sum(session.exec(select(func.count()).select_from(model)).one()
                   for model in (Entry, RoundRecord))


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.key)
def test_a_viewer_link_can_never_write(app, client, kind):
    """Every write route of every game answers 403 to a viewer link and stores nothing."""
    _, links = _game(app, kind)
    rules = list(_write_rules(app, kind))
    assert rules, kind.key
    for rule in rules:
        if "code" not in rule.arguments:
            continue  # the set-up page: no game yet
        response = client.post(_fill(rule, links["viewer"].token), data={"version": "0"})
        assert response.status_code == 403, rule.rule
        assert 'data-error="403"' in response.text
    assert _stored(app) == 0


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.key)
def test_a_game_opens_only_through_a_live_link(app, client, kind):
    """A guessed token, a game's code alone and a replaced link are 404; the live links open."""
    game, links = _game(app, kind)
    show = kind.show_endpoint
    with app.test_request_context():
        from flask import url_for

        def address(code: str) -> str:
            return url_for(show, code=code)

        paths = {role: address(link.token) for role, link in links.items()}
        guessed = address("0" * 32)
        by_code = address(game.code)
    assert client.get(guessed).status_code == 404
    assert client.get(by_code).status_code == 404
    with app.app_context():
        store.replace_link(get_session(), game, "viewer")
    assert client.get(paths["viewer"]).status_code == 404


def test_links_are_unguessable_and_one_per_role(app):
    game, links = _game(app, KINDS[0])
    assert set(links) == {"scorer", "viewer"}
    assert all(re.fullmatch(r"[0-9a-f]{32}", link.token) for link in links.values())
    assert links["scorer"].token != links["viewer"].token


def test_the_scorer_shares_both_links_and_can_replace_them(app, client, make_game):
    code = make_game()  # a Rebel Princess game, opened through its scorer link
    page = client.get(f"/share/{code}")
    assert page.status_code == 200
    viewer = re.search(r'data-address="viewer">[^<]*/g/(\w+)<', page.text)[1]
    assert viewer != code and 'data-role="viewer"' in client.get(f"/rebel-princess/g/{viewer}").text
    assert "localhost" not in page.text  # other phones cannot open localhost
    replaced = client.post(f"/share/{code}/replace/viewer")
    assert replaced.status_code == 303
    assert client.get(f"/rebel-princess/g/{viewer}").status_code == 404
    new_scorer = client.post(f"/share/{code}/replace/scorer")
    assert client.get(f"/rebel-princess/g/{code}").status_code == 404
    token = re.search(r"/share/(\w+)", new_scorer.headers["Location"])[1]
    assert client.get(f"/rebel-princess/g/{token}").status_code == 200


def test_a_viewer_cannot_open_the_share_page(app, client, make_game):
    code = make_game()
    with app.app_context():
        session = get_session()
        game = store.game_by_token(session, code)
        viewer = store.links_of(session, game)["viewer"].token
    assert client.get(f"/share/{viewer}").status_code == 403
    assert client.post(f"/share/{viewer}/replace/scorer").status_code == 403


def test_a_viewer_page_shows_no_control_that_writes(client, make_game):
    code = make_game()
    share = client.get(f"/share/{code}").text
    viewer = re.search(r'data-address="viewer">[^<]*/g/(\w+)<', share)[1]
    html = client.get(f"/rebel-princess/g/{viewer}").text
    assert 'data-role="viewer"' in html and 'data-role-note="viewer"' in html
    assert f"/rebel-princess/g/{code}" not in html  # the scorer's token never reaches a viewer


def test_the_live_version_is_answered_304_until_the_game_changes(client, make_game, by_numbers):
    code = make_game()
    first = client.get(f"/live/{code}")
    etag = first.headers["ETag"]
    assert client.get(f"/live/{code}", headers={"If-None-Match": etag}).status_code == 304
    assert by_numbers(code, 1, [3, 4, 4, 4], confirm="y").status_code == 302
    changed = client.get(f"/live/{code}", headers={"If-None-Match": etag})
    assert changed.status_code == 200 and changed.headers["ETag"] != etag
    assert client.get("/live/" + "0" * 32).status_code == 404


def test_every_game_page_carries_the_csp(client, make_game):
    code = make_game()
    for path in (f"/rebel-princess/g/{code}", f"/rebel-princess/g/{code}/history", "/rebel-princess"
                                                                                   f"/g/{code}/round/1/cards",
                 f"/share/{code}", f"/rebel-princess/g/{code}/round/1/tricks"):
        assert "script-src 'self'" in client.get(path).headers["Content-Security-Policy"], path


def test_a_configured_public_address_is_the_one_shared(app, client, make_game):
    app.config["PUBLIC_URL"] = "https://table.example/"
    code = make_game()
    page = client.get(f"/share/{code}").text
    assert re.search(r'data-address="viewer">https://table\.example/rebel-princess/g/\w{32}<', page)
