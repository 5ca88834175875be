"""A save judged on the game as its request read it: when another phone stored something in
between, the database refuses the record number and the save is judged again on the game as it
now is (never stored twice, never over the other phone's entry)."""

from __future__ import annotations

import pytest
from sqlmodel import select

from companion.db import get_session
from companion.models import RoundRecord
from companion.play import rebel_princess as play
from companion.play import store
from companion.scoring.rebel_princess import PlayedRound


def _records(app, code):
    with app.app_context():
        session = get_session()
        game = store.game_by_token(session, code)
        return [(r.seq, r.number, r.action, r.scores) for r in session.exec(
            select(RoundRecord).where(RoundRecord.game_id == game.id).order_by(RoundRecord.seq))]


def test_a_new_round_on_a_stale_view_is_refused(app, make_game, by_numbers):
    code = make_game()
    with app.app_context():
        session = get_session()
        game = store.game_by_token(session, code)
        stale = play.view_game(session, game)
        assert by_numbers(code, 1, [0, 3, 8, 4]).status_code == 302  # another phone, meanwhile
        with pytest.raises(play.EntryRejected) as refused:
            play.save_round(session=session, game=game, number=1, mode="numbers", base_id=None,
                            played=PlayedRound(scores=(8, 3, 0, 4)), view=stale)
        assert refused.value.problems[0].code == "round-already-saved"
    assert _records(app, code) == [(1, 1, "entered", "0,3,8,4")]


def test_an_edit_on_a_stale_view_is_refused(app, make_game, by_numbers, record_ids):
    code = make_game()
    assert by_numbers(code, 1, [0, 3, 8, 4]).status_code == 302
    first = record_ids(code, 1)[0]
    with app.app_context():
        session = get_session()
        game = store.game_by_token(session, code)
        stale = play.view_game(session, game)
        assert by_numbers(code, 1, [8, 3, 0, 4], base=first).status_code == 302
        with pytest.raises(play.EntryRejected) as refused:
            play.save_round(session=session, game=game, number=1, mode="numbers", base_id=first,
                            played=PlayedRound(scores=(4, 3, 8, 0)), view=stale)
        assert refused.value.problems[0].code == "stale-edit"
    assert _records(app, code) == [(1, 1, "entered", "0,3,8,4"), (2, 1, "edited", "8,3,0,4")]


def test_the_next_round_on_a_stale_view_is_judged_again(app, make_game, by_numbers):
    """Round 2 saved on a view read before round 1 was stored: refused on that view, judged
    again on the game as it now is, where round 2 is the next round: stored after round 1."""
    code = make_game()
    with app.app_context():
        session = get_session()
        game = store.game_by_token(session, code)
        stale = play.view_game(session, game)
        assert by_numbers(code, 1, [0, 3, 8, 4]).status_code == 302
        record = play.save_round(session=session, game=game, number=2, mode="numbers",
                                 base_id=None, played=PlayedRound(scores=(8, 3, 0, 4)),
                                 view=stale)
        assert (record.seq, record.number) == (2, 2)
    assert [r[:2] for r in _records(app, code)] == [(1, 1), (2, 2)]


def test_a_double_tap_on_the_same_view_stores_once(app, make_game):
    code = make_game()
    with app.app_context():
        session = get_session()
        game = store.game_by_token(session, code)
        view = play.view_game(session, game)
        played = PlayedRound(scores=(0, 3, 8, 4))
        play.save_round(session=session, game=game, number=1, mode="numbers", base_id=None,
                        played=played, view=view)
        with pytest.raises(play.EntryRejected) as refused:
            play.save_round(session=session, game=game, number=1, mode="numbers",
                            base_id=None, played=played, view=view)
        assert refused.value.problems[0].code == "round-already-saved"
    assert _records(app, code) == [(1, 1, "entered", "0,3,8,4")]
