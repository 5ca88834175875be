"""``models.made``: a new object to store, as its table class's constructor makes one."""

from __future__ import annotations

from datetime import datetime

import pytest
from flask import Flask
from sqlmodel import Session, select

from companion.models import Game, RoundRecord, made


def _columns(record: RoundRecord) -> dict[str, object]:
    return {name: getattr(record, name) for name in RoundRecord.model_fields}


def test_made_holds_what_the_constructor_holds() -> None:
    """Every field given is set, every other one takes its default (a factory called)."""
    given = {"game_id": 3, "seq": 2, "number": 2, "action": "entered", "mode": "numbers",
             "scores": "3,4,4,4", "key": "k"}
    built, constructed = made(RoundRecord, **given), RoundRecord(**given)
    assert isinstance(built.created_at, datetime)
    assert _columns(built) | {"created_at": None} == _columns(constructed) | {"created_at": None}
    assert built.model_fields_set == constructed.model_fields_set == set(given)


@pytest.mark.parametrize(("values", "word"), [
    ({"game_id": 1, "seq": 1, "number": 1, "action": "entered", "score": "1"}, "no field"),
    ({"game_id": 1, "seq": 1, "number": 1}, "needs"),
])
def test_made_refuses_unknown_or_missing_fields(values: dict[str, object], word: str) -> None:
    """A field the table does not have, or a required one left out, is a TypeError."""
    with pytest.raises(TypeError, match=word):
        made(RoundRecord, **values)


def test_made_object_is_stored_through_a_session(app: Flask) -> None:
    """An object from ``made`` is stored by a session as a constructed one is."""
    from companion.db import get_session
    from companion.play import rebel_princess as play
    from companion.scoring.rebel_princess import Edition

    with app.app_context():
        session: Session = get_session()
        game = play.create_game(session=session, edition=Edition.DELUXE, names=["A", "B", "C"],
                                first_leader=0, round_cards="abcde")
        assert isinstance(game, Game) and game.id is not None
        session.add(made(RoundRecord, game_id=game.id, seq=1, number=1, action="entered",
                         mode="numbers", scores="5,5,5"))
        session.commit()
        stored = session.exec(select(RoundRecord).where(RoundRecord.game_id == game.id)).one()
        assert (stored.scores, stored.mode, stored.deleted, stored.seq) == ("5,5,5", "numbers",
                                                                           False, 1)
