"""Make the upgrade fixture: a database written by release c3c3148, and what that release showed.

Run against that release's code, never against today's::

    git worktree add /tmp/c3c3148 c3c3148
    PYTHONPATH=/tmp/c3c3148 .venv/bin/python tests/data/make_db_c3c3148.py

It writes ``tests/data/db_c3c3148.sqlite`` (three games: a finished Deluxe game with edits, an
undo and a play-off-free finish; a classic game in progress; a Deluxe game with a trick log under
way) and ``tests/data/db_c3c3148.json``: the ``<main>`` of every page of each game as that release
rendered it, which ``tests/shell/test_upgrade.py`` compares with today's rendering of the upgraded
database.
"""

from __future__ import annotations

import json
import random
import re
import sqlite3
import tempfile
from pathlib import Path

from companion import create_app

HERE = Path(__file__).parent
NAMES = ["Ana", "Ben", "Cy", "Di"]


def main_of(html: str) -> str:
    return re.search(r"<main>(.*)</main>", html, re.S).group(1)


def new_game(client, edition, cards, names, first_leader=0):
    data = {"edition": edition, "length": str(len(cards)), "first_leader": str(first_leader),
            "create": "1"}
    data.update({f"names-{s}": n for s, n in enumerate(names)})
    data.update({f"cards-{i}": c for i, c in enumerate(cards)})
    response = client.post("/new", data=data)
    assert response.status_code == 302, response.text
    return response.headers["Location"].rsplit("/", 1)[1]


def rows(client, code, number):
    return re.findall(r'data-row="(\w+)"', client.get(f"/g/{code}/round/{number}/cards").text)


def by_cards(client, code, number, rest, given=(), **extra):
    data = {row: str(rest) for row in rows(client, code, number)}
    data.update({card: str(seat) for card, seat in given})
    data.update({k: str(v) for k, v in extra.items()})
    response = client.post(f"/g/{code}/round/{number}/cards", data=data)
    assert response.status_code == 302, response.text


def by_numbers(client, code, number, scores, **extra):
    data = {f"score_{s}": str(v) for s, v in enumerate(scores)} | {"confirm": "y"}
    data.update({k: str(v) for k, v in extra.items()})
    response = client.post(f"/g/{code}/round/{number}/numbers", data=data)
    assert response.status_code == 302, response.text


def tap_tricks(client, code, number, taps):
    from companion.engine import RoundState

    html = client.get(f"/g/{code}/round/{number}/tricks").text
    leader = int(re.search(r'data-turn="(\d+)"', html).group(1))
    state = RoundState.deal(4, edition="deluxe", round_card="a", seed=3, leader=leader)
    rng = random.Random(3)
    for _ in range(taps):
        card = rng.choice(sorted(state.legal_plays(), key=str))
        state.play(card)
        version = re.search(r'data-version="(\d+)"', html).group(1)
        response = client.post(f"/g/{code}/round/{number}/tricks/play",
                               data={"card": str(card), "version": version})
        assert response.status_code in (200, 303), response.status_code
        html = client.get(f"/g/{code}/round/{number}/tricks").text


def main() -> None:
    folder = Path(tempfile.mkdtemp())
    app = create_app({"TESTING": True, "WTF_CSRF_ENABLED": False, "SECRET_KEY": "fixture",
                      "DATABASE": str(folder / "companion.sqlite")})
    client = app.test_client()

    finished = new_game(client, "deluxe", "abcde", NAMES)
    by_cards(client, finished, 1, rest=0, given=[("P1", 1), ("P2", 2), ("P3", 3)])
    by_numbers(client, finished, 2, [3, 5, 2, 3])
    by_cards(client, finished, 3, rest=2, given=[("P4", 1), ("A8", 3)])
    by_numbers(client, finished, 1, [4, 4, 4, 3], base=_record_id(app, finished, 1))  # edit
    by_numbers(client, finished, 4, [1, 1, 1, 1])
    assert client.post(f"/g/{finished}/undo").status_code == 302  # takes back round 4
    by_numbers(client, finished, 4, [2, 6, 3, 4])
    by_cards(client, finished, 5, rest=3, given=[("P9", 0), ("P10", 1)])

    classic = new_game(client, "classic", "ACBDM", ["Zoé", "Léa", "Noé"], first_leader=1)
    by_numbers(client, classic, 1, [3, 4, 3], last_trick=2)
    by_cards(client, classic, 2, rest=1, given=[("P1", 0)], last_trick=0)

    tricks = new_game(client, "deluxe", "abcde", NAMES, first_leader=0)
    tap_tricks(client, tricks, 1, taps=9)

    pages = {}
    for code in (finished, classic, tricks):
        for path in (f"/g/{code}", f"/g/{code}/history", f"/g/{code}/rules"):
            pages[path] = main_of(client.get(path).text)
    pages[f"/g/{tricks}/round/1/tricks"] = main_of(
        client.get(f"/g/{tricks}/round/1/tricks").text)
    leaders = {code: re.findall(r'data-leader="(\d+)"', client.get(f"/g/{code}").text)
               for code in (finished, classic, tricks)}

    app.extensions["companion.engine"].dispose()
    target = HERE / "db_c3c3148.sqlite"
    target.unlink(missing_ok=True)
    with sqlite3.connect(folder / "companion.sqlite") as source, sqlite3.connect(target) as copy:
        source.backup(copy)  # the rows still in the write-ahead log included
        copy.execute("PRAGMA journal_mode=DELETE")
    (HERE / "db_c3c3148.json").write_text(json.dumps(
        {"games": {"finished": finished, "classic": classic, "tricks": tricks},
         "pages": pages, "leaders": leaders}, ensure_ascii=False, indent=1) + "\n",
        encoding="utf-8")


def _record_id(app, code, number):
    from sqlmodel import Session, select

    from companion.models import Game, RoundRecord

    with Session(app.extensions["companion.engine"]) as session:
        game = session.exec(select(Game).where(Game.code == code)).one()
        records = session.exec(select(RoundRecord).where(
            RoundRecord.game_id == game.id, RoundRecord.number == number)
            .order_by(RoundRecord.id)).all()
        return records[-1].id


if __name__ == "__main__":
    main()
