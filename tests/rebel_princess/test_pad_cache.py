"""The score pad is rendered once per version, link and language for every phone that follows a
game (``page_store.cached_page``): whatever changes the game, its names or its links shows on the
next load, in either language, and what belongs to one browser never reaches another."""

from __future__ import annotations

import re

import pytest
from sqlmodel import select

from companion import create_app
from companion.db import get_session
from companion.models import Player
from companion.play import people as people
from companion.play import store

from ..web.test_csrf import form_token, header_token
from .conftest import attr, code_of, setup_form


def form_keys(html):
    """The idempotency keys of the page's forms (the pad's Undo): new on every request."""
    return re.findall(r'name="key" type="hidden" value="([^"]+)"', html)


def without_token(html):
    """The page with its CSRF token (signed with the time: new on every request) and its
    forms' idempotency keys (drawn for each request) left out."""
    html = html.replace(header_token(html), "")
    for key in form_keys(html):
        html = html.replace(key, "")
    return html


def totals_of(html):
    return attr(html, "data-totals")[0]


def viewer_of(app, code):
    with app.app_context():
        session = get_session()
        return store.links_of(session, store.game_by_token(session, code))["viewer"].token


@pytest.fixture
def table(app, client, make_game):
    """A game (its scorer's browser is ``client``) and a viewer on another phone."""
    code = make_game()
    return code, viewer_of(app, code), app.test_client()


def test_a_viewer_sees_each_save_edit_and_undo(client, by_numbers, record_ids, table):
    code, viewer, phone = table
    pad = phone.get(f"/rebel-princess/g/{viewer}").text
    assert totals_of(pad) == "0,0,0,0"
    again = phone.get(f"/rebel-princess/g/{viewer}").text
    assert without_token(again) == without_token(pad)  # the same version: the same page
    assert by_numbers(code, 1, [0, 3, 8, 4]).status_code == 302
    assert totals_of(phone.get(f"/rebel-princess/g/{viewer}").text) == "0,3,8,4"
    assert by_numbers(code, 1, [8, 3, 0, 4], base=record_ids(code, 1)[-1]).status_code == 302
    assert totals_of(phone.get(f"/rebel-princess/g/{viewer}").text) == "8,3,0,4"
    assert client.post(f"/rebel-princess/g/{code}/undo").status_code == 302
    assert totals_of(phone.get(f"/rebel-princess/g/{viewer}").text) == "0,3,8,4"
    assert client.post(f"/rebel-princess/g/{code}/undo").status_code == 302
    assert totals_of(phone.get(f"/rebel-princess/g/{viewer}").text) == "0,0,0,0"


def test_each_language_gets_its_own_page(by_numbers, table):
    code, viewer, phone = table
    english = phone.get(f"/rebel-princess/g/{viewer}").text
    assert '<html lang="en">' in english and "Score pad" in english
    phone.get(f"/lang/fr?next=/rebel-princess/g/{viewer}")
    french = phone.get(f"/rebel-princess/g/{viewer}").text
    assert '<html lang="fr">' in french and "Score pad" not in french
    assert by_numbers(code, 1, [0, 3, 8, 4]).status_code == 302
    french = phone.get(f"/rebel-princess/g/{viewer}").text
    assert '<html lang="fr">' in french and totals_of(french) == "0,3,8,4"
    phone.get(f"/lang/en?next=/rebel-princess/g/{viewer}")
    english = phone.get(f"/rebel-princess/g/{viewer}").text
    assert '<html lang="en">' in english and totals_of(english) == "0,3,8,4"


def test_the_scorer_and_a_viewer_each_get_their_own_links(client, table):
    code, viewer, phone = table
    scorer_pad = client.get(f"/rebel-princess/g/{code}").text
    viewer_pad = phone.get(f"/rebel-princess/g/{viewer}").text
    assert 'data-role="scorer"' in scorer_pad and 'data-role="viewer"' in viewer_pad
    assert f"/rebel-princess/g/{code}/round/1" in scorer_pad
    assert f"/rebel-princess/g/{code}" not in viewer_pad
    assert f"/rebel-princess/g/{viewer}/round/1" in viewer_pad


def test_a_renamed_player_shows_on_the_next_load(app, table):
    """Renaming a person changes no game's version: the names are part of the page's key."""
    code, viewer, phone = table
    assert "Ben" in phone.get(f"/rebel-princess/g/{viewer}").text
    with app.app_context():
        session = get_session()
        game = store.game_by_token(session, code)
        ben = session.exec(select(Player).where(Player.game_id == game.id,
                                                Player.name == "Ben")).one()
        people.rename(session=session, group_id=game.group_id, person_id=ben.person_id,
                      name="Benoît")
    pad = phone.get(f"/rebel-princess/g/{viewer}").text
    assert "Benoît" in pad and 'title="Ben"' not in pad


def test_a_replaced_viewer_link_shows_on_the_scorer_pad(client, table):
    """Replacing a link changes no game's version: the pad's QR code shows the new one."""
    code, viewer, phone = table
    assert viewer in client.get(f"/rebel-princess/g/{code}").text
    assert client.post(f"/share/{code}/replace/viewer").status_code == 303
    pad = client.get(f"/rebel-princess/g/{code}").text
    assert viewer not in pad
    fresh = re.search(r"/rebel-princess/g/([0-9a-f]{32})</b>", pad).group(1)
    assert fresh != viewer
    assert phone.get(f"/rebel-princess/g/{viewer}").status_code == 404
    assert totals_of(phone.get(f"/rebel-princess/g/{fresh}").text) == "0,0,0,0"


def test_a_flashed_message_is_shown_once_and_to_its_browser_only(client, by_numbers, record_ids,
                                                                table):
    """An edit that changes nothing keeps the version and flashes "unchanged": the scorer still
    sees it (never a page from the cache), another browser on the same link never does."""
    code, viewer, phone = table
    assert by_numbers(code, 1, [0, 3, 8, 4]).status_code == 302
    client.get(f"/rebel-princess/g/{code}")  # "Round 1 saved." read
    other = client.application.test_client()  # the scorer link on a second phone
    before = other.get(f"/rebel-princess/g/{code}").text
    assert 'class="flash"' not in before
    assert by_numbers(code, 1, [0, 3, 8, 4], base=record_ids(code, 1)[-1]).status_code == 302
    pad = client.get(f"/rebel-princess/g/{code}").text
    assert "Round 1 unchanged" in pad
    assert "Round 1 unchanged" not in client.get(f"/rebel-princess/g/{code}").text
    assert without_token(other.get(f"/rebel-princess/g/{code}").text) == without_token(before)


@pytest.fixture
def csrf_app(tmp_path):
    return create_app({"TESTING": True, "SECRET_KEY": "csrf-test",
                       "DATABASE": str(tmp_path / "csrf.sqlite"), "WTF_CSRF_ENABLED": True})


def test_each_browser_gets_its_own_csrf_token(csrf_app):
    """Two phones on the scorer link get the same page with their own token, and each token
    works for its own phone only."""
    first, second = csrf_app.test_client(), csrf_app.test_client()
    token = form_token(first.get("/rebel-princess/new").text)
    code = code_of(first.post("/rebel-princess/new", data={**setup_form(), "csrf_token": token}))
    scores = {f"score_{s}": v for s, v in enumerate(["0", "3", "8", "4"])}
    entry = first.get(f"/rebel-princess/g/{code}/round/1/numbers").text
    first.post("/rebel-princess"
               f"/g/{code}/round/1/numbers", data={**scores, "csrf_token": form_token(entry)})
    assert "Round 1 saved." in first.get(f"/rebel-princess/g/{code}").text
    theirs = second.get(f"/rebel-princess/g/{code}").text
    mine = first.get(f"/rebel-princess/g/{code}").text
    assert form_token(mine) != form_token(theirs)
    assert form_keys(mine) and set(form_keys(mine)).isdisjoint(form_keys(theirs))
    assert header_token(theirs) == form_token(theirs) != header_token(mine)
    assert "\x00" not in theirs
    assert without_token(mine) == without_token(theirs)
    refused = second.post(f"/rebel-princess/g/{code}/undo", data={"csrf_token": form_token(mine)})
    assert refused.status_code == 400
    version = attr(theirs, 'name="version" value')[0]
    undone = second.post(f"/rebel-princess/g/{code}/undo", data={"csrf_token": form_token(theirs),
                                                  "version": version})
    assert undone.status_code == 302


# The store's bound: tests/shell/test_page_drawings.py (test_the_store_is_bounded).
