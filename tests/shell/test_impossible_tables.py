"""Impossible tables are refused at set-up, as the rulebooks make them impossible (the Princesses
and the Round cards are each drawn from a deck of distinct cards; each game's player counts), and
a game stored before these checks still answers every one of its pages without a 500.

Tokens: a NUL, another control character, a byte that is not UTF-8 or a space in any link — every
route of the URL map that takes one, and a set-up's ``group=`` — names nothing: a 404 on SQLite
and PostgreSQL alike, never a query the database refuses.
"""

from __future__ import annotations

import pytest
from flask import url_for
from sqlmodel import select

from companion.db import get_session
from companion.games import registry
from companion.models import Game, Player
from companion.scoring.rebel_princess import Edition, GameSetup, InvalidValueError, check_new_table
from companion.scoring.rebel_princess.engine.powers import power_slugs

from ..rebel_princess.conftest import setup_form


def _stored(app) -> int:
    with app.app_context():
        return len(get_session().exec(select(Game)).all())


# --- Rebel Princess: what the set-up refuses ------------------------------------------------

def test_the_same_princess_at_two_seats_is_refused(app, client):
    answer = client.post("/rebel-princess/new", data=setup_form(
        **{"princesses-0": "rapunzel", "princesses-2": "rapunzel"}))
    assert answer.status_code == 422 and 'data-errors="princesses"' in answer.text
    assert _stored(app) == 0


@pytest.mark.parametrize("edition", list(Edition))
def test_the_core_refuses_every_princess_twice_and_each_round_card_twice(edition):
    """Each Princess of the edition, at two seats: refused; each edition's Round card twice:
    refused; every Princess once, or none at some seats: accepted."""
    cards = {"deluxe": "abcde", "classic": "ACBDM"}[edition.value]
    setup = GameSetup(edition, 4, 0, tuple(cards))
    for slug in power_slugs(edition):
        with pytest.raises(InvalidValueError) as refused:
            check_new_table(setup, [slug, None, slug, None])
        assert refused.value.problem.code == "duplicate-princess"
        assert refused.value.problem.seat == 2
    twice = GameSetup(edition, 4, 0, (cards[0], *cards[1:4], cards[0]))
    with pytest.raises(InvalidValueError) as refused:
        check_new_table(twice)
    assert refused.value.problem.code == "duplicate-round-card"
    check_new_table(setup, list(power_slugs(edition)[:4]))
    check_new_table(setup, [None, power_slugs(edition)[0], None, None])


def test_a_princess_of_the_other_box_is_refused():
    deluxe_only = sorted(set(power_slugs(Edition.DELUXE)) - set(power_slugs(Edition.CLASSIC)))
    assert deluxe_only
    setup = GameSetup(Edition.CLASSIC, 4, 0, tuple("ACBDM"))
    with pytest.raises(InvalidValueError) as refused:
        check_new_table(setup, [deluxe_only[0]])
    assert refused.value.problem.code == "unknown-princess"


@pytest.mark.parametrize(("slug", "names"), [("reveillez", 1), ("reveillez", 6),
                                             ("princesse-princesse", 1),
                                             ("princesse-princesse", 7)])
def test_player_counts_the_rulebooks_do_not_allow_are_refused(app, client, slug, names):
    """Réveillez: 2 to 5 players; Love Letter « Princesse Princesse »: 2 to 6."""
    data = {f"names-{i}": f"P{i}" for i in range(names)} | {"first": "0"}
    assert client.post(f"/{slug}/new", data=data).status_code == 422
    assert _stored(app) == 0


# --- a game stored before the checks: every page answers ---------------------------------------

def test_a_stored_game_with_one_princess_twice_answers_every_page(app, client):
    answer = client.post("/rebel-princess/new", data=setup_form(
        **{"princesses-0": "rapunzel", "princesses-1": "mulan"}))
    token = answer.headers["Location"].rsplit("/", 1)[1]
    with app.app_context():
        db = get_session()
        for player in db.exec(select(Player)).all():
            player.princess = "rapunzel"  # as a release before the check could store it
            db.add(player)
        db.commit()
    asked = 0
    for rule in app.url_map.iter_rules():
        if rule.endpoint.partition(".")[0] != "rebel_princess" or "code" not in rule.arguments:
            continue
        with app.test_request_context():
            path = url_for(rule.endpoint, code=token, number=1, action="play")
        for method in sorted(rule.methods & {"GET", "POST"}):
            answer = client.open(path, method=method, data={"version": "0", "card": "Q3"})
            assert answer.status_code < 500, (method, path)
            asked += 1
    assert asked > 10
    page = client.get(f"/rebel-princess/g/{token}/round/1/tricks")
    assert page.status_code == 200 and 'data-problem="impossible-table"' in page.text


# --- tokens that are no token's shape ------------------------------------------------------------

BAD = ["\x00", "a\x00b", "%00", "\x07", "a b", "%FF%FE", "%ED%A0%80", "é" * 3, "0" * 65]


def _token_routes(app) -> list[tuple[str, str, list[str], list[str]]]:
    """Each route and token argument of it (a route taking two tokens — an import job's page
    under its group's — is asked once per token, the other of the right shape)."""
    routes = []
    for rule in app.url_map.iter_rules():
        names = sorted(rule.arguments & {"code", "token", "group_token"})
        for name in names:
            routes.append((rule.endpoint, name, [n for n in names if n != name],
                           sorted(rule.methods & {"GET", "POST"})))
    return routes


def test_every_route_that_takes_a_token_answers_404_to_bytes_no_token_holds(app, client):
    asked = 0
    for endpoint, name, others, methods in _token_routes(app):
        for bad in BAD:
            with app.test_request_context():
                path = url_for(endpoint, **{name: "TOKEN"}, **{n: "0" * 32 for n in others},
                               number=1, rid=1, person_id=1, action="play", role="viewer")
            path = path.replace("TOKEN", bad)
            for method in methods:
                answer = client.open(path, method=method, follow_redirects=True)
                assert answer.status_code in (404, 405), (method, endpoint, repr(bad))
                asked += 1
    assert asked > 500


@pytest.mark.parametrize("bad", ["\x00", "%00", "\x07abc", "a b"])
def test_a_set_up_naming_a_group_no_token_holds_is_a_404(app, client, bad):
    """A set-up form's ``group=`` that is no token's shape names no group: 404, nothing stored
    (a token of the right shape that opens nothing still gets a new group, see test_groups)."""
    for kind in registry():
        if not kind.new_endpoint:
            continue
        with app.test_request_context():
            path = url_for(kind.new_endpoint)
        body = (f"group={bad}&names-0=Ana&names-1=Ben&names-2=Cy&first=0&first_leader=0"
                "&edition=deluxe&length=5&create=1&cards-0=a&cards-1=b&cards-2=c&cards-3=d"
                "&cards-4=e&mode=referee&wins=4&abilities=all&set_aside=none&second=Ben")
        answer = client.post(path, data=body,
                             content_type="application/x-www-form-urlencoded")
        assert answer.status_code == 404, (kind.key, answer.status_code)
    assert _stored(app) == 0
