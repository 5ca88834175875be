"""Make the people's lists upgrade fixture: a database written by release 1.1.0 (commit 59c609a,
schema 0014, the last before ``playedby``), and the lists that release showed, as JSON.

Run against that release's code, never against today's::

    mkdir /tmp/59c609a && git archive 59c609a | tar -x -C /tmp/59c609a
    PYTHONPATH=/tmp/59c609a .venv/bin/python tests/data/make_db_59c609a.py

It writes ``tests/data/db_59c609a.sqlite``: one group with finished games of every kind, a
finished game corrected afterwards, one reopened by an undo, one finished again after its undo,
games in progress, two people merged (a typo), a second group deleted with its games; and that
group's finished games restored from their backup into a third group. ``tests/data/
db_59c609a.json`` holds, for each group left, every person's last five games (their page),
every person's finished games (history filtered by them) and every ordered pair's last ten
games together (head to head), as that release listed them (game codes, newest first), which
``tests/history/test_history_played_by_upgrade.py`` compares with today's lists after
migration 0015.
"""

from __future__ import annotations

import json
import sqlite3
import tempfile
from itertools import permutations
from pathlib import Path

from sqlmodel import col, select

from companion import create_app
from companion.db import get_session
from companion.models import Game, Person, RoundRecord
from companion.play import (
    export,
    groups,
    kanai_duel,
    people,
    princesse_princesse,
    rebel_princess,
    reveillez,
    summaries,
)
from companion.scoring.princesse_princesse import RoundReveal
from companion.scoring.rebel_princess import Edition, PlayedRound, RebelCard
from companion.scoring.reveillez import PrincessCard, Wake

HERE = Path(__file__).parent


def by_cards(*seats: str) -> PlayedRound:
    return PlayedRound(taken=tuple(frozenset(RebelCard.from_code(c) for c in text.split())
                                   for text in seats))


def by_numbers(*scores: int) -> PlayedRound:
    return PlayedRound(scores=scores)


def rebel(session, names, rounds, group):
    game = rebel_princess.create_game(session=session, edition=Edition.DELUXE, names=names,
                                      first_leader=0, round_cards=list("ady"), group_id=group)
    for number, (mode, played) in enumerate(rounds, start=1):
        rebel_princess.save_round(session=session, game=game, number=number, played=played,
                                  mode=mode, base_id=None)
    return game


def wakes(session, names, values, group):
    game = reveillez.create_game(session=session, names=names, first=0, variant=False,
                                 show_values=False, group_id=group)
    for index, value in enumerate(values):
        reveillez.record(session=session, game=game, action=Wake(index, PrincessCard(value)),
                         based_on=index, key=f"wake-{index}")
    return game


def duel(session, names, rounds, group):
    game, _ = kanai_duel.create(session=session, names=names, mode=kanai_duel.REFEREE,
                                variants=[], group_id=group)
    for number, pair in enumerate(rounds):
        kanai_duel.play_round(session=session, game=game, cards=pair.split("/"),
                              based_on=number, key=None)
    return game


ALL_PRINCES = " ".join(f"P{n}" for n in range(1, 11)) + " A8"
AGAIN = [("cards", by_cards(ALL_PRINCES, "", "", "")), ("numbers", by_numbers(3, 0, 5, 7)),
         ("numbers", by_numbers(2, 4, 0, 9))]
ROUNDS = [("cards", by_cards("P1 P2 P3 A8", "P4 P5", "P6 P7 P8 P9 P10", "")),
          ("cards", by_cards("P1", "P2 P3 Q3", "P4 P5 P6 P7 F3 A3", "P8 P9 P10 A8")),
          ("cards", by_cards("P1 P2 P3", "P4", "A8", "P5 P6 P7 P8 P9 P10"))]


def store_games(session, group: int) -> list[Game]:
    """The group's games, in the order of the module docstring; the finished ones returned."""
    finished = [rebel(session, ["Ana", "Ben", "Cy", "Di"], ROUNDS, group)]
    finished.append(rebel(session, ["Ben", "Ana", "Di", "Cy"], AGAIN, group))
    again = rebel(session, ["Di", "Cy", "Ben", "Ana"], AGAIN, group)
    pp = princesse_princesse.create_game(session=session, names=["Ana", "Ben", "Cy", "Di", "Eve"],
                                         first=0, group_id=group)
    for reveal in [RoundReveal.of([None] * 5, still_in={0}, spies={0}),
                   RoundReveal.of([None, 8, 5, None, None], princesses={1, 2}),
                   RoundReveal.of([5, None, None, 5, None])]:
        view = princesse_princesse.view_game(session, pp)
        princesse_princesse.save_round(session=session, view=view, based_on=view.version,
                                       key=None, reveal=reveal)
    finished.append(pp)
    finished.append(wakes(session, ["Ana", "Ben"], [20, 10, 20, 5, 15], group))
    finished.append(wakes(session, ["Evee", "Cy"], [20, 10, 20, 5, 15], group))
    finished.append(duel(session, ["Ana", "Ben"], ["princess/prince"], group))
    finished.append(duel(session, ["Cy", "Ana"], ["prince/princess"], group))
    finished.append(duel(session, ["Di", "Eve"], ["princess/prince"], group))
    rebel(session, ["Ana", "Ben", "Cy"], [("numbers", by_numbers(1, 2, 3))], group)  # open
    duel(session, ["Ben", "Di"], [], group)  # open, nothing played
    # The first game corrected once finished: its first round's cards to other seats.
    first = finished[0]
    base = session.exec(select(RoundRecord).where(RoundRecord.game_id == first.id,
                                                  RoundRecord.number == 1)
                        .order_by(col(RoundRecord.seq).desc())).first()
    rebel_princess.save_round(session=session, game=first, number=1, mode="cards",
                              played=by_cards("P4 P5", "P1 P2 P3 A8", "", "P6 P7 P8 P9 P10"),
                              base_id=base.id)
    # The second reopened by an undo (in no list); another reopened, then finished again.
    rebel_princess.undo_last(session=session, game=finished[1])
    finished.remove(finished[1])
    rebel_princess.undo_last(session=session, game=again)
    rebel_princess.save_round(session=session, game=again, number=3,
                              played=by_numbers(9, 0, 0, 0), mode="numbers", base_id=None)
    return [*finished, again]


def lists(session, group: int) -> dict[str, dict[str, list[str]]]:
    """What the release listed: each person's page (5), history by person (all), and each
    ordered pair's games together (10); game codes, newest first."""
    ids = [p.id for p in session.exec(select(Person).where(Person.group_id == group))]

    def codes(**query) -> list[str]:
        return [r.game.code for r in summaries.records(session, group_id=group, count=False,
                                                       **query)[1]]

    return {"page": {str(p): codes(person=p, limit=5) for p in ids},
            "history": {str(p): codes(person=p) for p in ids},
            "versus": {f"{a}-{b}": codes(person=a, with_person=b, limit=10)
                       for a, b in permutations(ids, 2)}}


def main() -> None:
    target = HERE / "db_59c609a.sqlite"
    target.unlink(missing_ok=True)
    with tempfile.TemporaryDirectory() as instance:
        app = create_app({"TESTING": True, "SECRET_KEY": "test", "WTF_CSRF_ENABLED": False,
                          "DATABASE": str(target), "DATABASE_URL": None})
        app.instance_path = instance
        with app.app_context():
            session = get_session()
            group = groups.new_group(session, name="The table").id
            gone = groups.new_group(session, name="Gone").id
            session.commit()
            store_games(session, gone)
            finished = store_games(session, group)
            evee = session.exec(select(Person).where(Person.group_id == group,
                                                     Person.key == "evee")).one().id
            eve = session.exec(select(Person).where(Person.group_id == group,
                                                    Person.key == "eve")).one().id
            people.merge(session=session, group_id=group, source=evee, target=eve)
            assert groups.delete_group(session=session, group_id=gone)
            backup = export.dumps(export.export(session, finished)).encode()
            restored = export.import_file(session=session, raw=backup, group_id=None,
                                          new_group_name="Restored")
            shown = {str(g): lists(session, g) for g in (group, restored.group_id)}
        app.extensions["companion.engine"].dispose()
    with sqlite3.connect(target) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        db.execute("PRAGMA journal_mode=DELETE")
    (HERE / "db_59c609a.json").write_text(json.dumps(shown, indent=1) + "\n")


if __name__ == "__main__":
    main()
