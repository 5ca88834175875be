"""Links that can be taken back: replacing a group's link replaces every link of the group at
once — the group's and each game's scorer, viewer and seat links. The phone that did it keeps the
new ones (its games, its duel seat, its group) and is told to give the new group link to everyone
else; a second phone that held any link of the group before is shut out of every page any of
those links reached, and is told the group is closed to it (a 404 page of its own; ``/live``
answers 410, which makes an open page reload and say so), never shown
the group or a game again until it is given the new group link.

Every kind of link the second phone can hold is enumerated from the app's URL map: each route that
takes a game's link, a group's link or a link token is asked with every old link.
"""

from __future__ import annotations

import io
import re
from urllib.parse import urlsplit

import pytest
from sqlmodel import col, select

from companion.db import get_session
from companion.models import Game, GameLink, Group
from tests.kanai_duel.test_kanai_duel_web import join, join_path

from ..conftest import finished_import
from ..rebel_princess.conftest import setup_form
from .test_groups import finished_duel, new_game

ARGUMENTS = {"number": 1, "rid": 1, "person_id": 1, "action": "play", "role": "viewer"}
"""What the routes take besides a link: any value (the link is refused before the view runs)."""


def _path(client, response) -> str:
    return urlsplit(response.headers["Location"]).path


@pytest.fixture
def table(app, client):
    """Phone A starts a game of each kind in one group (a two-phone duel: A holds seat 1, and a
    finished duel with its record); phone B joins the group, takes the duel's seat 2, and opens
    every link of every game, its share page, its record, its live address and its QR code."""
    pad = _path(client, client.post("/rebel-princess/new", data=setup_form()))
    wake = "/reveillez/g/" + new_game(client, "Ana", "Ben")
    letter = _path(client, client.post("/princesse-princesse/new", data={
        "names-0": "Ana", "names-1": "Ben", "first": "0"}))
    duel = _path(client, client.post("/kanai-duel/new", data={
        "first": "Ana", "second": "Ben", "mode": "phones", "wins": "4", "abilities": "all",
        "set_aside": "none"}))
    done = "/kanai-duel/g/" + finished_duel(client, "Ana", "Ben")
    with app.app_context():
        db = get_session()
        group = db.exec(select(Group)).one()
        games = db.exec(select(Game)).all()
        assert {game.group_id for game in games} == {group.id} and len(games) == 5
        tokens = {link.token: (link.role, game.kind) for link, game in db.exec(
            select(GameLink, Game).join(Game, col(Game.id) == col(GameLink.game_id)))}
    other = app.test_client()
    assert other.get(f"/group/{group.token}/").status_code == 200
    seat2 = join(other, join_path(client, duel))
    held = {f"/group/{group.token}/", f"/group/{group.token}/history/", seat2}
    for path in (pad, wake, letter, done):
        share = client.get("/share/" + path.rsplit("/", 1)[1]).text
        for address in re.findall(r'data-address="\w+">([^<]+)<', share):
            held.add(urlsplit(address).path)
        held.update(re.findall(r'src="(/qr\.svg\?[^"]+)"', share))
    for token, (role, kind) in tokens.items():
        held.add(f"/live/{token}")
        if role == "scorer" and kind != "kanai_duel":
            held.add(f"/share/{token}")
    record = re.search(r'href="(/record/\w+)"', other.get(
        f"/group/{group.token}/history/").text)[1]
    held.add(record)
    # A restore of the group's own backup by phone A (into the group it knows: nothing added);
    # phone B holds the address of its job's page (a restore's page needs no link).
    backup = client.get(f"/group/{group.token}/history/export.json").data
    sent = client.post("/import", data={"file": (io.BytesIO(backup), "backup.json")},
                       content_type="multipart/form-data")
    assert finished_import(client, sent).status_code == 303
    job = urlsplit(sent.headers["Location"]).path
    held.update({job, f"{job}/progress"})
    opened = {path: other.get(path.replace("&amp;", "&")).status_code for path in held}
    assert set(opened.values()) == {200}, opened
    return {"group": group.token, "tokens": tokens, "held": held, "other": other,
            "job": job.rsplit("/", 1)[1],
            "mine": {"pad": pad, "wake": wake, "letter": letter, "duel": duel, "done": done}}


def _replace(client, table) -> str:
    answer = client.post(f"/group/{table['group']}/replace")
    assert answer.status_code == 303
    fresh = re.fullmatch(r"/group/(\w+)/", answer.headers["Location"])[1]
    assert fresh != table["group"]
    return fresh


def _closed(response, path: str) -> bool:
    """The page saying the group is closed to this phone: a 404, or 410 from ``/live``."""
    status = 410 if path.startswith("/live/") else 404
    return response.status_code == status and 'data-closed="group"' in response.text \
        and 'data-why="replaced"' in response.text


def test_every_link_a_second_phone_held_is_closed_to_it(app, client, table):
    _replace(client, table)
    other = table["other"]
    for path in table["held"]:
        if path.startswith("/qr.svg"):  # a drawing of an address: the address is closed
            text = re.search(r"text=([^&]+)", path)[1]
            from urllib.parse import unquote
            path = urlsplit(unquote(text)).path
        assert _closed(other.get(path), path), path
    home = other.get("/").text
    assert not any(token in home for token in table["tokens"]) and table["group"] not in home


def test_every_route_that_takes_a_link_refuses_every_old_link(app, client, table):
    """The URL map's every route with a game's link (``code``), a link token (``token``) or a
    group's link (``group_token``), asked with each old link, GET and POST: each says the group
    is closed to this phone."""
    _replace(client, table)
    other = table["other"]
    asked = 0
    for rule in app.url_map.iter_rules():
        names = rule.arguments & {"code", "token", "group_token"}
        if not names:
            continue
        # A route under a group's link that also names one of the group's own things (an
        # import job's page): the group's link is the one that opens it.
        (name,) = names if len(names) == 1 else names & {"group_token"}
        kind = rule.endpoint.partition(".")[0]
        if name == "group_token":
            olds = [table["group"]]
        elif kind == "restore":  # a restore's page: its job's own token
            olds = [table["job"]]
        else:
            olds = [token for token, (_, game_kind) in table["tokens"].items()
                    if name == "token" or game_kind == kind]
        for old in olds:
            with app.test_request_context():
                from flask import url_for
                path = url_for(rule.endpoint, **{name: old}, **{
                    arg: ARGUMENTS.get(arg, "0" * 32) for arg in rule.arguments - {name}})
            for method in sorted(rule.methods & {"GET", "POST"}):
                answer = other.open(path, method=method, follow_redirects=True)
                assert _closed(answer, path), (method, path, answer.status_code)
                asked += 1
    assert asked > 100


def test_the_second_phones_play_again_shows_nothing_of_the_group(app, client, table):
    fresh = _replace(client, table)
    other = table["other"]
    for token, (_role, kind) in table["tokens"].items():
        slug = kind.replace("_", "-")
        page = other.get(f"/{slug}/new?again={token}")
        assert page.status_code == 200
        assert fresh not in page.text and table["group"] not in page.text
        assert 'value="Ben"' not in page.text  # the names are not filled in


def test_the_phone_that_replaced_keeps_every_new_link(app, client, table):
    fresh = _replace(client, table)
    page = client.get(f"/group/{fresh}/")
    assert page.status_code == 200
    assert "give the new group link" in page.text  # everyone else must be given it
    home = client.get("/").text
    with app.app_context():
        live = {link.token for link in get_session().exec(
            select(GameLink).where(col(GameLink.revoked_at).is_(None)))}
    shown = set(re.findall(r'href="/[\w-]+/g/(\w+)"', home))
    assert shown and shown <= live and not shown & set(table["tokens"])
    for path in shown:
        assert client.get(next(p for p in re.findall(r'href="(/[\w-]+/g/\w+)"', home)
                               if p.endswith(path))).status_code == 200
    duel = next(p for p in re.findall(r'href="(/kanai-duel/g/\w+)"', home)
                if 'data-seat="0"' in client.get(p).text)
    assert duel  # A still plays its seat, under the new link


def test_the_second_phone_comes_back_with_the_new_group_link(app, client, table):
    fresh = _replace(client, table)
    other = table["other"]
    assert other.get(f"/group/{fresh}/").status_code == 200
    home = client.get("/").text
    with app.app_context():
        db = get_session()
        seat2 = db.exec(select(GameLink).where(GameLink.role == "seat2",
                                               col(GameLink.revoked_at).is_(None))).one()
    page = other.get(f"/kanai-duel/g/{seat2.token}/join")
    assert page.status_code == 200 and 'data-form="join"' in page.text  # the seat waits
    assert home
