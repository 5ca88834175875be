"""Two phones: each seat is a capability. Every cheat of issue 19 is refused and stores nothing:
a seat entering a whole round through the referee's route, undoing a revealed round, replacing
or revoking links, a second browser on a join link, a pick for the other seat, a pick made for
an earlier round, a burst of different picks, a join that writes on GET or from a viewer link."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import pytest
from sqlalchemy.exc import IntegrityError
from sqlmodel import col, select

from companion.db import get_session
from companion.models import Entry, GameLink
from companion.play import kanai_duel as duel_play
from companion.play import store
from tests.kanai_duel.test_kanai_duel_web import (
    join,
    join_path,
    new_game,
    pick,
    version_of,
    viewer_url,
)


@pytest.fixture
def phones(app):
    first, second = app.test_client(), app.test_client()
    url = new_game(first, mode="phones")
    url2 = join(second, join_path(first, url))
    return url, first, second, url2


def rows(app) -> list[tuple[int, str, str, str | None]]:
    """Every entry of every game, and every link: what a refusal must leave as it was."""
    with app.app_context():
        db = get_session()
        entries = [(e.seq, e.kind, e.data, e.key)
                   for e in db.exec(select(Entry).order_by(col(Entry.id)))]
        links = [(link.role, link.token, link.revoked_at)
                 for link in db.exec(select(GameLink).order_by(col(GameLink.id)))]
        return entries + links


def token(url: str) -> str:
    return url.rsplit("/", 1)[-1]


def test_a_seat_cannot_enter_a_round_through_the_referee_route(phones, app):
    """The referee's route (both cards at once) is refused to a seat's link, and a two-phone game
    refuses it even from its scorer link: nobody wins with one request."""
    url, first, second, url2 = phones
    before = rows(app)
    for client, its_url in ((first, url), (second, url2)):
        response = client.post(its_url + "/round", data={
            "first": "prince", "second": "clown", "version": version_of(client, its_url)})
        assert response.status_code == 403
    with app.app_context():
        db = get_session()
        game = store.game_by_token(db, token(url))
        scorer = store.links_of(db, game)["scorer"].token
    response = app.test_client().post(f"/kanai-duel/g/{scorer}/round", data={
        "first": "prince", "second": "clown", "version": version_of(first, url)})
    assert response.status_code == 422 and 'data-problem="two-phones-only"' in response.text
    assert rows(app) == before


def test_a_revealed_round_is_never_undone_or_picked_again(phones, app):
    """Undo is refused on two phones (a seat's link: 403; the scorer link: 422); the revealed
    round stays, and its picks are never reopened."""
    url, first, second, url2 = phones
    pick(first, url, "spy")
    pick(second, url2, "general")
    before = rows(app)
    for client, its_url in ((first, url), (second, url2)):
        assert client.post(its_url + "/undo", data={
            "version": version_of(client, its_url)}).status_code == 403
    with app.app_context():
        db = get_session()
        scorer = store.links_of(db, store.game_by_token(db, token(url)))["scorer"].token
    response = app.test_client().post(f"/kanai-duel/g/{scorer}/undo",
                                      data={"version": version_of(first, url)})
    assert response.status_code == 422 and 'data-problem="two-phones-only"' in response.text
    assert rows(app) == before
    # A pick for round 1 again (the revealed round) is refused too.
    response = pick(first, url, "prince", round="1")
    assert response.status_code == 409 and rows(app) == before
    assert 'data-last-round="1"' in first.get(url).text


@pytest.mark.parametrize("role", ["scorer", "viewer", "seat1", "seat2"])
def test_no_seat_can_replace_or_revoke_a_link(phones, app, role):
    """A seat's link opens no links page and replaces no link (its own, the other seat's, the
    scorer's or the viewer's); a seat's page offers the viewer link only."""
    url, first, second, url2 = phones
    before = rows(app)
    for client, its_url in ((first, url), (second, url2)):
        response = client.post(f"/share/{token(its_url)}/replace/{role}")
        assert response.status_code == 403
        assert client.get(f"/share/{token(its_url)}").status_code == 403
        page = client.get(its_url).text
        assert 'data-address="viewer"' in page and "/share/" not in page
    assert rows(app) == before


def test_the_join_link_opens_nothing_in_a_second_browser(phones, app):
    """Once seat 2 is taken, its link in another browser shows no game and no pick, cannot join,
    cannot pick: the opponent's committed pick is never read there, nor a pick made for them."""
    url, first, second, url2 = phones
    pick(second, url2, "princess")
    before = rows(app)
    intruder = app.test_client()
    for path in (url2, url2 + "/board", url2 + "/join"):
        response = intruder.get(path)
        assert response.status_code == 403 and 'data-error="seat-taken"' in response.text
        assert "princess" not in response.text.lower().split("</header>")[1]
    assert intruder.post(url2 + "/join").status_code == 403
    assert intruder.post(url2 + "/pick", data={"card": "prince", "version": 3,
                                               "round": 1}).status_code == 403
    assert intruder.post(url2 + "/reinvite", data={"version": 3}).status_code == 403
    assert rows(app) == before


def test_joining_is_a_button_not_a_get(app):
    """Opening the join link stores nothing; the seat is taken by the POST of its button, once."""
    first, second = app.test_client(), app.test_client()
    url = new_game(first, mode="phones")
    path = join_path(first, url)
    before = rows(app)
    assert second.get(path).status_code == 200 and app.test_client().get(path).status_code == 200
    assert rows(app) == before
    assert 'data-join="waiting"' in first.get(url).text
    assert second.post(path).status_code == 303
    assert second.post(path).status_code == 303  # a double tap: the same browser, taken once
    joins = [e for e in rows(app) if len(e) == 4 and e[1] == "join"]
    assert len(joins) == 2  # seat 1 (the creator) and seat 2, once
    assert app.test_client().post(path).status_code == 403


def test_a_viewer_link_watches_only(phones, app):
    """The viewer link cannot join, pick or re-invite: it watches."""
    url, first, second, url2 = phones
    watch = viewer_url(first, url)
    viewer = app.test_client()
    before = rows(app)
    assert viewer.get(watch + "/join").status_code == 404
    for action, data in (("join", {}), ("pick", {"card": "spy", "version": 2, "round": 1}),
                         ("reinvite", {"version": 2}), ("round", {"first": "spy"})):
        assert viewer.post(f"{watch}/{action}", data=data).status_code == 403
    assert 'data-watching="1"' in viewer.get(watch).text
    assert rows(app) == before


def test_a_seat_picks_for_itself_only(phones, app):
    """A seat's link picks for its own seat whatever the form says."""
    url, first, second, url2 = phones
    response = second.post(url2 + "/pick", data={"card": "spy", "seat": "0",
                                                  "version": version_of(second, url2),
                                                  "round": 1})
    assert response.status_code == 303
    picks = [e for e in rows(app) if len(e) == 4 and e[1] == "pick"]
    assert [p[2] for p in picks] == ['{"card": "spy", "round": 1, "seat": 1}']


def test_a_pick_made_for_round_1_never_becomes_the_round_2_pick(phones, app):
    """A round-1 form sent again after the reveal is refused (409), nothing stored."""
    url, first, second, url2 = phones
    round1 = {"card": "wizard", "version": version_of(first, url), "round": "1"}
    assert first.post(url + "/pick", data=round1).status_code == 303
    pick(second, url2, "general")
    before = rows(app)
    resent = first.post(url + "/pick", data={**round1, "card": "clown"})
    assert resent.status_code == 409 and rows(app) == before
    # The same stale form with a current version but the old round, or with an old version and
    # the current round, is refused too.
    assert pick(first, url, "clown", round="1").status_code == 409
    assert pick(first, url, "clown", version="1").status_code == 409
    assert pick(first, url, "clown", round="99999999999999999999").status_code == 409
    assert rows(app) == before
    assert pick(first, url, "clown").status_code == 303


def test_a_burst_of_different_picks_stores_one(phones, app):
    """Different picks sent at once for one round: one is stored, every other is refused with
    the stored card; the database itself refuses a second pick of a seat for a round."""
    url, first, second, url2 = phones
    version = version_of(first, url)
    answers = [first.post(url + "/pick", data={"card": card, "version": version, "round": "1"})
               for card in ("spy", "clown", "wizard", "spy")]
    assert [a.status_code for a in answers] == [303, 409, 409, 303]
    assert "already in: Spy" in answers[1].text
    picks = [e for e in rows(app) if len(e) == 4 and e[1] == "pick"]
    assert len(picks) == 1
    with app.app_context():
        db = get_session()
        game = store.game_by_token(db, token(url))
        db.add(Entry(game_id=game.id, seq=99, kind="pick", key=picks[0][3],
                     data='{"card": "clown", "round": 1, "seat": 0}'))
        with pytest.raises(IntegrityError):
            db.commit()
        db.rollback()
        with pytest.raises(store.KeyConflict):
            duel_play.pick(session=db, game=game, seat=0, card="clown", for_stage=1,
                           based_on=version)


def test_the_join_code_uses_the_public_address(app):
    """The join code carries the address of « Other phones » (``PUBLIC_URL``), not the host the
    creator's browser used."""
    app.config["PUBLIC_URL"] = "http://192.168.7.7:5000"
    first = app.test_client()
    url = new_game(first, mode="phones")
    page = first.get(url, base_url="http://localhost").text
    shown = re.search(r'data-join="waiting".*?or open ([^<]+)<', page, re.S)[1]
    assert shown.startswith("http://192.168.7.7:5000/kanai-duel/g/")
    assert urlsplit(shown).path == join_path(first, url)


def test_a_lost_phone_is_recovered_by_the_creators_visible_re_invite(phones, app):
    """Only the creator's phone re-invites; the old link then opens nothing; both phones are told;
    the new phone joins with the new link; refused while the lost seat's pick is pending."""
    url, first, second, url2 = phones
    pick(first, url, "spy")
    pick(second, url2, "general")
    assert second.post(url2 + "/reinvite", data={
        "version": version_of(second, url2)}).status_code == 403
    pick(second, url2, "wizard")  # seat 2's pick pending: a re-invite would show it
    before = rows(app)
    response = first.post(url + "/reinvite", data={"version": version_of(first, url)})
    assert response.status_code == 422 and "reinvite-pick-pending" in response.text
    assert rows(app) == before
    pick(first, url, "clown")
    assert first.post(url + "/reinvite", data={"version": version_of(first, url)}
                      ).status_code == 303
    assert second.get(url2).status_code == 404  # the lost phone's link opens nothing
    page = first.get(url).text
    assert 'data-reinvited="1"' in page and 'data-join="waiting"' in page
    phone = app.test_client()
    url3 = join(phone, join_path(first, url))
    assert url3 != url2 and 'data-seat="1"' in phone.get(url3).text
    assert 'data-reinvited="1"' in phone.get(url3).text
    assert pick(phone, url3, "prince").status_code == 303


def test_a_two_phone_game_stored_before_seat_links_goes_on(app):
    """A game stored the old way (a secret key per seat in its settings, both phones on the
    scorer link), with the seat links migration 0010 gave it: each browser that kept its seat's
    key is sent to its seat's join page (the GET writes nothing), takes the seat with the
    button, and picks there; any other browser with the scorer link only watches."""
    with app.app_context():
        db = get_session()
        game = store.create_game(session=db, kind="kanai_duel", names=["Ana", "Ben"], settings={
            "mode": "phones", "variants": [], "out": [None, None], "seat_keys": ["key-a", "key-b"]},
            seats=True)
        store.append(session=db, game=game, kind="join", based_on=0, key="join-1",
                     data={"seat": 1})
        code, scorer = game.code, store.links_of(db, game)["scorer"].token
    phones = []
    for key in ("key-a", "key-b"):
        phone = app.test_client()
        with phone.session_transaction() as cookie:
            cookie["kanai_duel_seats"] = {code: key}
        before = rows(app)
        response = phone.get(f"/kanai-duel/g/{scorer}")
        assert response.status_code == 303 and response.headers["Location"].endswith("/join")
        assert rows(app) == before  # no claim on a GET
        phones.append((phone, join(phone, response.headers["Location"])))
    (ana, ana_url), (ben, ben_url) = phones
    assert ana_url != ben_url and scorer not in ana_url + ben_url
    assert ana.get(f"/kanai-duel/g/{scorer}").headers["Location"] == ana_url  # its seat, now
    assert 'data-seat="0"' in ana.get(ana_url).text and 'data-seat="1"' in ben.get(ben_url).text
    assert pick(ana, ana_url, "spy").status_code == 303
    assert pick(ben, ben_url, "general").status_code == 303
    assert 'data-last-round="1"' in ana.get(ana_url).text
    onlooker = app.test_client()
    assert 'data-watching="1"' in onlooker.get(f"/kanai-duel/g/{scorer}").text
    assert onlooker.get(ben_url).status_code == 403
