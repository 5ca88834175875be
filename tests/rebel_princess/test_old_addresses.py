"""Rebel Princess's pages live under its registry slug (``/rebel-princess/…``), mounted there by
the shell; before, a game's pages were at the root (``/g/<code>…``). Every old address, taken
from the URL map rather than from a list, redirects to its page under the slug: a GET for good
(301), a POST keeping its method and body (308), so that links, QR codes, pages left open and
saves waiting on a phone keep working."""

from __future__ import annotations

import re

import pytest

from companion.games import by_key

from .conftest import NAMES

PREFIX = "/rebel-princess"
VALUES = {"code": "a" * 32, "number": "2", "action": "play", "edition": "deluxe",
          "letter": "a", "slug": "frog"}


def page_rules(app):
    """Every page rule of Rebel Princess under ``/rebel-princess/g/``: the ones that moved."""
    return [rule for rule in app.url_map.iter_rules()
            if rule.endpoint.startswith("rebel_princess.")
            and rule.rule.startswith(f"{PREFIX}/g/")]


def fill(rule_text: str) -> str:
    return re.sub(r"<(?:[^:<>]+:)?(\w+)>", lambda m: VALUES[m.group(1)], rule_text)


def test_every_page_is_under_the_registry_slug(app):
    kind = by_key("rebel_princess")
    assert kind is not None and kind.slug == "rebel-princess"
    pages = [rule for rule in app.url_map.iter_rules()
             if rule.endpoint.startswith("rebel_princess.")]
    api = [rule for rule in app.url_map.iter_rules()
           if rule.endpoint.startswith("rebel_princess_api.")]
    assert len(pages) > 10 and len(api) == 4
    assert all(rule.rule.startswith(f"/{kind.slug}/") for rule in pages)
    assert all(rule.rule.startswith(f"/api/v1/{kind.slug}/") for rule in api)


def test_the_blueprints_name_no_prefix_of_their_own(app):
    """The shell mounts every game from the registry: no game hard-codes where it lives."""
    for name, blueprint in app.blueprints.items():
        if by_key(name) or by_key(name.removesuffix("_api")):
            assert blueprint.url_prefix is None, name


def test_every_old_address_is_a_page_that_moved(app):
    """The old addresses are exactly the moved pages, each with the same methods."""
    moved = {rule.rule.removeprefix(PREFIX): rule for rule in page_rules(app)}
    old = {rule.rule: rule for rule in app.url_map.iter_rules()
           if rule.endpoint.startswith("rebel_princess_moved.")}
    assert len(moved) >= 10
    assert set(old) == set(moved)
    for path, rule in old.items():
        assert rule.methods == moved[path].methods, path
        assert rule.endpoint.partition(".")[2] == moved[path].endpoint.partition(".")[2]


@pytest.mark.parametrize("query", ["", "?lang=fr&next=%2Fx&next=y"])
def test_every_old_address_redirects_to_its_page(app, client, query):
    checked = 0
    for rule in page_rules(app):
        new = fill(rule.rule)
        old = new.removeprefix(PREFIX)
        for method in sorted((rule.methods or set()) - {"HEAD", "OPTIONS"}):
            response = client.open(old + query, method=method, data={"x": "1"})
            assert response.status_code == (301 if method == "GET" else 308), (method, old)
            assert response.headers["Location"] == new + query, (method, old)
            checked += 1
    assert checked >= 14  # 11 pages today: 8 answer a GET, 6 a POST


def test_an_old_link_opens_the_game_and_an_old_form_saves(client, make_table):
    """A real game through its old addresses: the pad opens at its link, a round saved through
    the old form address is stored (the POST keeps its body through the redirect), the old
    trick screen opens."""
    code = make_table()
    pad = client.get(f"/g/{code}", follow_redirects=True)
    assert pad.status_code == 200 and pad.request.path == f"{PREFIX}/g/{code}"
    assert all(name in pad.text for name in NAMES[:4])
    saved = client.post(f"/g/{code}/round/1/numbers",
                        data={f"score_{seat}": str(points) for seat, points in
                              enumerate((3, 0, 5, 7))},
                        follow_redirects=True)
    assert saved.status_code == 200 and saved.request.path == f"{PREFIX}/g/{code}"
    totals = re.search(r'data-totals="([^"]*)"', saved.text)
    assert totals is not None and totals.group(1) == "3,0,5,7"
    tricks = client.get(f"/g/{code}/round/2/tricks", follow_redirects=True)
    assert tricks.status_code == 200
    assert tricks.request.path == f"{PREFIX}/g/{code}/round/2/tricks"


def test_an_unknown_game_at_an_old_address_is_still_a_404(client):
    assert client.get(f"/g/{'b' * 32}", follow_redirects=True).status_code == 404
    assert client.get("/g/nowhere/round/1/cards", follow_redirects=True).status_code == 404
