"""Make the links upgrade fixture: a database written by release 584e0b5 (the last release, with
groups, before every game had its links stored with it), and its facts as JSON.

Run against that release's code, never against today's::

    git worktree add /tmp/584e0b5 584e0b5
    PYTHONPATH=/tmp/584e0b5 .venv/bin/python tests/data/make_db_584e0b5.py

It writes ``tests/data/db_584e0b5.sqlite``: finished games of every kind and a Rebel Princess
game in progress, in one group, and a copy of that group restored from its backup into a second
group — the restored games have no links yet (that release made them on the first page that
asked, a write on a GET). ``tests/data/db_584e0b5.json`` holds the codes,
the links and the group links, which ``tests/shell/test_links_upgrade.py`` checks after
migration 0008.
"""

from __future__ import annotations

import json
import sqlite3
import tempfile
from pathlib import Path

from sqlalchemy import text
from sqlmodel import select

from companion import create_app
from companion.db import get_session
from companion.models import Game
from companion.play import (
    export,
    kanai_duel,
    princesse_princesse,
    rebel_princess,
    reveillez,
    store,
)
from companion.scoring.princesse_princesse import RoundReveal
from companion.scoring.rebel_princess import Card, Edition, PlayedRound
from companion.scoring.reveillez import PrincessCard, Wake

HERE = Path(__file__).parent


def by_cards(*seats: str) -> PlayedRound:
    return PlayedRound(taken=tuple(frozenset(Card.from_code(c) for c in text.split())
                                   for text in seats))


def main() -> None:
    target = HERE / "db_584e0b5.sqlite"
    target.unlink(missing_ok=True)
    with tempfile.TemporaryDirectory() as instance:
        app = create_app({"TESTING": True, "SECRET_KEY": "test", "WTF_CSRF_ENABLED": False,
                          "DATABASE": str(target), "DATABASE_URL": None})
        app.instance_path = instance
        with app.app_context():
            session = get_session()
            rp = rebel_princess.create_game(session=session, edition=Edition.DELUXE,
                                            names=["Ana", "Ben", "Cy", "Di"], first_leader=0,
                                            round_cards=list("ady"))
            group = rp.group_id
            for number, played in enumerate([
                    by_cards("P1 P2 P3 A8", "P4 P5", "P6 P7 P8 P9 P10", ""),
                    by_cards("P1", "P2 P3 Q3", "P4 P5 P6 P7 F3 A3", "P8 P9 P10 A8"),
                    by_cards("P1 P2 P3", "P4", "A8", "P5 P6 P7 P8 P9 P10")], start=1):
                rebel_princess.save_round(session=session, game=rp, number=number,
                                          played=played, mode="cards", base_id=None)
            pp = princesse_princesse.create_game(session=session,
                                                 names=["Ana", "Ben", "Cy", "Di", "Eve"],
                                                 first=0, group_id=group)
            for reveal in [RoundReveal.of([None] * 5, still_in={0}, spies={0}),
                           RoundReveal.of([None, 8, 5, None, None], princesses={1, 2}),
                           RoundReveal.of([5, None, None, 5, None])]:
                view = princesse_princesse.view_game(session, pp)
                princesse_princesse.save_round(session=session, view=view,
                                               based_on=view.version, key=None, reveal=reveal)
            rv = reveillez.create_game(session=session, names=["Ana", "Ben"], first=0,
                                       variant=False, show_values=False, group_id=group)
            for index, value in enumerate([20, 10, 20, 5, 15]):
                reveillez.record(session=session, game=rv,
                                 action=Wake(index, PrincessCard(value)), based_on=index,
                                 key=f"wake-{index}")
            kd, _ = kanai_duel.create(session=session, names=["Ana", "Ben"],
                                      mode=kanai_duel.REFEREE, variants=[],
                                      group_id=group)
            kanai_duel.play_round(session=session, game=kd, cards=["princess", "prince"],
                                  based_on=0, key=None)
            opened = rebel_princess.create_game(session=session, edition=Edition.DELUXE,
                                                names=["Ana", "Ben", "Zoé"], first_leader=0,
                                                round_cards=list("ady"), group_id=group)
            games = {"rp": rp, "pp": pp, "rv": rv, "kd": kd, "open": opened}
            scorer = {name: store.links_of(session, game)["scorer"].token
                      for name, game in games.items()}
            viewer = {name: store.links_of(session, game)["viewer"].token
                      for name, game in games.items()}
            codes = {name: game.code for name, game in games.items()}
            finished = [rp, pp, rv, kd]
            backup = export.dumps(export.export(session, finished)).encode()
            restored = export.import_file(session=session, raw=backup, group_id=None,
                                            new_group_name="Restored")
            restored_codes = sorted(g.code for g in session.exec(
                select(Game).where(Game.group_id == restored.group_id)))
            group_links = dict(session.execute(text("SELECT name, token FROM playgroup")).all())
            links = sorted(tuple(row) for row in session.execute(text(
                "SELECT game_id, role, token FROM gamelink ORDER BY id")).all())
        app.extensions["companion.engine"].dispose()
    with sqlite3.connect(target) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        db.execute("PRAGMA journal_mode=DELETE")
    (HERE / "db_584e0b5.json").write_text(json.dumps({
        "codes": codes, "scorer": scorer, "viewer": viewer, "restored": restored_codes,
        "groups": group_links, "links": links}, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
