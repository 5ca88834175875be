"""``RebelGameView.trial``: a proposed round replayed on a view, once for the same entry."""

from __future__ import annotations

from flask import Flask

from companion.db import get_session
from companion.play import rebel_princess as play
from companion.scoring.rebel_princess import Edition, PlayedRound


def test_trial_is_the_replay_of_each_entry_proposed(app: Flask) -> None:
    """Each entry tried on a view is the game replayed with it, a new round or an edit; the
    same entry tried again is that same game, another entry its own."""
    with app.app_context():
        session = get_session()
        game = play.create_game(session=session, edition=Edition.DELUXE,
                                names=["Ann", "Ben", "Cy", "Dee"], first_leader=0,
                                round_cards="abcde")
        play.save_round(session=session, game=game, number=1,
                        played=PlayedRound(scores=(3, 4, 4, 4)), mode="numbers", base_id=None)
        view = play.view_game(session, game)
        first, second = PlayedRound(scores=(4, 3, 4, 4)), PlayedRound(scores=(1, 2, 3, 50))
        new = view.trial(2, first)
        assert new == play.replay(view, extra=first) and view.trial(2, first) is new
        assert view.trial(2, second) == play.replay(view, extra=second) != new
        edit = view.trial(1, second)
        assert edit == play.replay(view, replace=(1, second))
        assert edit.rounds[0].scores == (1, 2, 3, 50) and len(edit.rounds) == 1
        assert [w.code for w in edit.rounds[0].warnings] == ["impossible-round-total"]


def test_a_new_round_is_played_on_from_the_game_as_read(app: Flask, monkeypatch) -> None:
    """A new round tried on a view is the game replayed in full with it, but its stored rounds
    are not replayed again: a save replays the stored game once, when it reads it."""
    with app.app_context():
        session = get_session()
        game = play.create_game(session=session, edition=Edition.DELUXE,
                                names=["Ann", "Ben", "Cy", "Dee"], first_leader=0,
                                round_cards="yabcd")
        for number, scores in enumerate([(3, 4, 4, 4), (5, 0, 5, 5)], start=1):
            play.save_round(session=session, game=game, number=number,
                            played=PlayedRound(scores=scores), mode="numbers", base_id=None)
        view = play.view_game(session, game)
        for played in (PlayedRound(scores=(4, 3, 4, 4)), PlayedRound(scores=(1, 2, 3, 50)),
                       PlayedRound(scores=(1, 2)), PlayedRound(scores=(0, 0, 0, 15), leader=7)):
            assert view.trial(3, played) == play.replay_records(view.game, view.players,
                                                                view.records, extra=played)
        replays: list[int] = []
        real = play.play_through

        def counted(setup, rounds):
            replays.append(len(rounds))
            return real(setup, rounds)

        monkeypatch.setattr(play, "play_through", counted)
        play.save_round(session=session, game=game, number=3,
                        played=PlayedRound(scores=(4, 3, 4, 4)), mode="numbers", base_id=None)
        assert replays == [2]
        assert [r.scores for r in play.view_game(session, game).state.rounds] == [
            (3, 4, 4, 4), (5, 0, 5, 5), (4, 3, 4, 4)]
