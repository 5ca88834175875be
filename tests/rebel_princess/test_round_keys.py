"""Rebel Princess's saves are known by their form's idempotency key, as every game's are: each
round form, the pad's Undo and the trick screen's Confirm carry a fresh key; the same form sent
again (a double tap, a retry, the outbox sending a save whose answer was lost) is answered like
the first sending and stored once; the same key with a changed value is refused with what is
stored; a form drawn on an older version is refused as before. Forms without a key (drawn by a
server of the release before keys) are still told by what they say (tests/web/test_replays.py
and the round entry tests)."""

from __future__ import annotations

import re

import pytest
from sqlmodel import col, select

from companion.db import get_session
from companion.models import RoundRecord
from companion.play import rebel_princess as play
from companion.play import store
from companion.scoring.rebel_princess import PlayedRound

from .conftest import count, rows_of
from .test_trick_entry import legal_round, tap, url, version

NUMBERS = {"score_0": "0", "score_1": "3", "score_2": "8", "score_3": "4", "last_trick": "2"}


def hidden(html: str, name: str) -> str:
    return re.search(rf'name="{name}" type="hidden" value="([^"]*)"', html)[1]


def records(app) -> list[tuple[int, str, int, str | None, str | None]]:
    with app.app_context():
        return [(r.seq, r.action, r.number, r.scores, r.key) for r in get_session().exec(
            select(RoundRecord).order_by(col(RoundRecord.seq)))]


def numbers_page(client, code: str, number: int = 1) -> str:
    return client.get(f"/rebel-princess/g/{code}/round/{number}/numbers").text


@pytest.mark.parametrize("way", ["cards", "counts", "numbers"])
def test_every_round_form_carries_a_fresh_key(client, make_game, way):
    code = make_game(edition="classic", cards="ABCDE")
    page = f"/rebel-princess/g/{code}/round/1/{way}"
    first, second = (hidden(client.get(page).text, "key") for _ in range(2))
    assert len(first) >= 20 and first != second  # one per drawn form, never guessed


def test_a_round_form_sent_twice_is_stored_once_and_answered_alike(client, make_game, app):
    code = make_game(edition="classic")
    data = {**NUMBERS, "key": hidden(numbers_page(client, code), "key")}
    first = client.post(f"/rebel-princess/g/{code}/round/1/numbers", data=data)
    assert "Round 1 saved." in client.get(first.headers["Location"]).text
    again = client.post(f"/rebel-princess/g/{code}/round/1/numbers", data=data)
    assert (first.status_code, again.status_code) == (302, 302)
    assert first.headers["Location"] == again.headers["Location"]
    assert "Round 1 saved." in client.get(again.headers["Location"]).text
    stored = records(app)
    assert [(seq, action, scores) for seq, action, _, scores, _ in stored] == [
        (1, "entered", "0,3,8,4")]
    key = stored[0][4]
    assert key is not None and key.startswith(data["key"] + store.KEY_MARK)


def test_the_same_key_with_a_changed_value_is_refused_with_what_is_stored(client, make_game,
                                                                         app):
    code = make_game(edition="classic")
    data = {**NUMBERS, "key": hidden(numbers_page(client, code), "key")}
    assert client.post(f"/rebel-princess/g/{code}/round/1/numbers", data=data).status_code == 302
    before = records(app)
    changed = client.post(f"/rebel-princess/g/{code}/round/1/numbers",
                          data={**data, "score_0": "1", "score_1": "2"})
    assert changed.status_code == 422
    assert 'data-problem="round-already-saved"' in changed.text
    assert "Round 1 is already saved" in changed.text
    assert records(app) == before


def test_a_changed_edit_sent_with_its_key_again_is_refused(client, make_game, app):
    code = make_game(edition="classic")
    client.post(f"/rebel-princess/g/{code}/round/1/numbers", data=NUMBERS)
    page = numbers_page(client, code)
    edit = {**NUMBERS, "score_0": "1", "score_1": "2", "base": hidden(page, "base"),
            "key": hidden(page, "key")}
    assert client.post(f"/rebel-princess/g/{code}/round/1/numbers", data=edit).status_code == 302
    again = client.post(f"/rebel-princess/g/{code}/round/1/numbers", data=edit)
    assert again.status_code == 302  # the edit sent again: answered like the first
    before = records(app)
    assert [action for _, action, *_ in before] == ["entered", "edited"]
    changed = client.post(f"/rebel-princess/g/{code}/round/1/numbers",
                          data={**edit, "score_0": "2", "score_1": "1"})
    assert changed.status_code == 422 and 'data-problem="round-already-saved"' in changed.text
    assert records(app) == before


def test_a_form_drawn_on_an_older_version_is_refused(client, make_game, app):
    """Two phones open round 1 for editing; the second saves after the first: refused (its
    key is its own, so it is not a replay), nothing stored. A new-round form drawn before the
    round was saved elsewhere is refused too, even with the very same scores."""
    code = make_game(edition="classic")
    fresh = hidden(numbers_page(client, code), "key")
    late = hidden(numbers_page(client, code), "key")
    assert client.post(f"/rebel-princess/g/{code}/round/1/numbers",
                       data={**NUMBERS, "key": fresh}).status_code == 302
    twin = client.post(f"/rebel-princess/g/{code}/round/1/numbers",
                       data={**NUMBERS, "key": late})
    assert twin.status_code == 422 and 'data-problem="round-already-saved"' in twin.text
    first, second = numbers_page(client, code), numbers_page(client, code)
    assert client.post(f"/rebel-princess/g/{code}/round/1/numbers", data={
        **NUMBERS, "score_0": "1", "score_1": "2", "base": hidden(first, "base"),
        "key": hidden(first, "key")}).status_code == 302
    before = records(app)
    stale = client.post(f"/rebel-princess/g/{code}/round/1/numbers", data={
        **NUMBERS, "score_0": "2", "score_1": "1", "base": hidden(second, "base"),
        "key": hidden(second, "key")})
    assert stale.status_code == 422 and 'data-problem="stale-edit"' in stale.text
    assert records(app) == before


def test_a_refused_form_sent_again_fixed_is_a_new_save(client, make_game, app):
    """Nothing was stored under the key of a refused save: the same form, fixed, saves."""
    code = make_game(edition="classic")
    key = hidden(numbers_page(client, code), "key")
    refused = client.post(f"/rebel-princess/g/{code}/round/1/numbers",
                          data={**NUMBERS, "score_0": "", "key": key})
    assert refused.status_code == 422 and hidden(refused.text, "key") == key
    assert client.post(f"/rebel-princess/g/{code}/round/1/numbers",
                       data={**NUMBERS, "key": key}).status_code == 302
    assert len(records(app)) == 1


def test_a_by_cards_form_sent_twice_is_stored_once(client, make_game, app):
    code = make_game()
    page = client.get(f"/rebel-princess/g/{code}/round/1/cards").text
    data = {row: "1" for row in rows_of(page)} | {"key": hidden(page, "key")}
    assert client.post(f"/rebel-princess/g/{code}/round/1/cards", data=data).status_code == 302
    assert client.post(f"/rebel-princess/g/{code}/round/1/cards", data=data).status_code == 302
    assert [action for _, action, *_ in records(app)] == ["entered"]


def test_undo_sent_twice_undoes_once(client, make_game, app):
    code = make_game(edition="classic")
    client.post(f"/rebel-princess/g/{code}/round/1/numbers", data=NUMBERS)
    client.post(f"/rebel-princess/g/{code}/round/2/numbers", data=NUMBERS)
    pad = client.get(f"/rebel-princess/g/{code}").text
    undo = {"version": "2", "key": hidden(pad, "key")}
    first = client.post(f"/rebel-princess/g/{code}/undo", data=undo, follow_redirects=True)
    again = client.post(f"/rebel-princess/g/{code}/undo", data=undo, follow_redirects=True)
    assert "Undone: round 2." in first.text and "Undone: round 2." in again.text
    stored = records(app)
    assert [(action, number) for _, action, number, *_ in stored] == [
        ("entered", 1), ("entered", 2), ("undone", 2)]
    assert stored[-1][4].startswith(undo["key"] + store.KEY_MARK)
    changed = client.post(f"/rebel-princess/g/{code}/undo", data={**undo, "version": "3"},
                          follow_redirects=True)
    assert "nothing was undone" in changed.text
    assert records(app) == stored


def test_the_pad_drawn_once_gives_each_phone_its_own_undo_key(client, make_game):
    code = make_game(edition="classic")
    client.post(f"/rebel-princess/g/{code}/round/1/numbers", data=NUMBERS)
    keys = {hidden(client.get(f"/rebel-princess/g/{code}").text, "key") for _ in range(3)}
    assert len(keys) == 3


def test_confirm_sent_twice_saves_the_round_once(client, make_game, app):
    code = make_game()
    order, _entry = legal_round()
    for card in order:
        assert tap(client, code, card).status_code == 200
    page = client.get(url(code)).text
    key = re.search(r'name="save_key" value="([^"]+)"', page)[1]
    data = {"version": version(client, code), "save_key": key}
    first = client.post(url(code, "confirm"), data=data)
    again = client.post(url(code, "confirm"), data=data)
    assert (first.status_code, again.status_code) == (302, 302)
    assert first.headers["Location"] == again.headers["Location"] == f"/rebel-princess/g/{code}"
    stored = records(app)
    assert len(stored) == 1 and stored[0][4].startswith(key + store.KEY_MARK)
    assert count(app) == 1


def test_two_saves_of_one_form_racing_store_one_round(app, client, make_game):
    """The second of two sendings that both read the game before either was stored: its record
    number is taken, the database refuses it, and read again the game holds its key."""
    code = make_game(edition="classic")
    played = PlayedRound(scores=(0, 3, 8, 4), last_trick_winner=2)
    key = store.keyed("racing-key", [("score_0", "0")])
    with app.app_context():
        session = get_session()
        game = store.game_by_token(session, code)
        seen = play.view_game(session, game)  # read by both sendings
        first = play.enter_round(session=session, game=game, number=1, played=played,
                                 mode="numbers", base_id=None, key=key)
        second = play.enter_round(session=session, game=game, number=1, played=played,
                                  mode="numbers", base_id=None, view=seen, key=key)
        assert second.id == first.id
        with pytest.raises(store.KeyConflict):
            play.enter_round(session=session, game=game, number=1, mode="numbers",
                             played=PlayedRound(scores=(1, 2, 8, 4), last_trick_winner=2),
                             base_id=None, view=seen,
                             key=store.keyed("racing-key", [("score_0", "1")]))
    assert len(records(app)) == 1


def test_a_key_is_refused_twice_in_one_game_by_the_database(app, client, make_game):
    code = make_game(edition="classic")
    with app.app_context():
        session = get_session()
        game = store.game_by_token(session, code)
        for seq in (1, 2):
            session.add(RoundRecord(game_id=game.id, seq=seq, number=seq, action="entered",
                                    mode="numbers", scores="0,3,8,4", key="same~0"))
        with pytest.raises(Exception, match="(?i)unique|duplicate"):
            session.commit()
        session.rollback()
