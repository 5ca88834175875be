"""Server time of one trick-entry tap, and check-round against score-round.

Run ``python -m bench.trick_tap`` (``--games N``). In one process, on a database in a temporary
folder, with the app as shipped but CSRF off (the bench posts the form without a token):

- **A tap** (request in, HTML out): a seeded legal 6-player round (Round card a, 48 cards) is
  entered card by card, as a phone does, through ``POST /g/<code>/round/1/tricks/play`` with
  ``HX-Request`` (the htmx partial the phone gets), in ``--games`` games, each opened first as a
  phone does; the taps of the first, the middle (25th) and the last card are timed. The time is
  the app's whole answer, measured around the WSGI app (request in, HTML out; the test client's
  own work left out): routing, the form, reading the round, judging, writing the row (SQLite,
  WAL), drawing the partial. Medians
  (and the fastest), wall clock and this process's CPU time. A second set of rows ("cold") drops
  the kept judges, game views and drawings of rounds before every tap: what a server process
  that never saw the round pays.
- **check-round vs score-round**: :mod:`bench.check_round` (``python -m bench.check_round``), the
  whole 6-player round judged by ``POST /api/v1/rebel-princess/check-round`` against the same
  round scored by ``POST /api/v1/rebel-princess/score-round``, without a cookie, alternating,
  median CPU time of each and their ratio.

Not a test: nothing asserts on a timing.
"""

from __future__ import annotations

import argparse
import re
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from . import NAMES6, table
from .check_round import legal_round
from .server_clock import ServerClock

POSITIONS = (("first card", 0), ("middle card", 24), ("last card", 47))


class Game:
    """A game whose round 1 is entered trick by trick through the test client, from a phone of
    its own (its own address: the app's write limits count per address, as for real phones)."""

    def __init__(self, client: Any, code: str, phone: int) -> None:
        self.client, self.code, self.version = client, code, 0
        self.environ = {"REMOTE_ADDR": f"10.{phone >> 16 & 255}.{phone >> 8 & 255}.{phone & 255}"}

    def open(self) -> None:
        response = self.client.get("/rebel-princess"
                                   f"/g/{self.code}/round/1/tricks", environ_base=self.environ)
        assert response.status_code == 200, response.status_code

    def post(self, action: str, **data: Any) -> None:
        data["version"] = self.version
        response = self.client.post("/rebel-princess"
                                    f"/g/{self.code}/round/1/tricks/{action}", data=data,
                                    headers={"HX-Request": "true"},
                                    environ_base=self.environ)
        assert response.status_code == 200, (response.status_code, action, data)
        found = re.search(r'data-version="(\d+)"', response.text)
        assert found is not None
        self.version = int(found.group(1))


def timed(work: Callable[[], object]) -> tuple[float, float]:
    """(wall ms, CPU ms) of ``work()``."""
    wall, cpu = time.perf_counter(), time.process_time()
    work()
    return (time.perf_counter() - wall) * 1000, (time.process_time() - cpu) * 1000


def run(games: int = 25, out: list[str] | None = None) -> dict[str, Any]:
    """Measure; print a table (and append it to ``out``); return the figures."""
    from sqlmodel import Session

    from companion import create_app
    from companion.db import get_engine
    from companion.play import rebel_princess as play
    from companion.play import rebel_princess_tricks as glue
    from companion.play import store
    from companion.routes.rebel_princess import trick_pages
    from companion.scoring.rebel_princess import Edition

    lines = out if out is not None else []

    def say(text: str = "") -> None:
        print(text, flush=True)
        lines.append(text)

    folder = Path(tempfile.mkdtemp(prefix="bench-taps-"))
    app = create_app({"DATABASE": str(folder / "bench.sqlite"), "SECRET_KEY": "bench",
                      "WTF_CSRF_ENABLED": False})
    order = legal_round()
    clock = ServerClock(app.wsgi_app)
    app.wsgi_app = clock  # type: ignore[method-assign]
    client = app.test_client()
    phones = [0]

    def enter_rounds(games: int, cold: bool) -> dict[str, list[tuple[float, float]]]:
        """Enter whole rounds, tap after tap, timing the taps at the three positions; with
        ``cold``, every kept judge and drawing is dropped before each tap."""
        with app.app_context(), Session(get_engine(), expire_on_commit=False) as session:
            made = [play.create_game(session=session, edition=Edition.DELUXE, names=NAMES6,
                                     first_leader=0, round_cards=list("abcde"))
                    for _ in range(games)]
            # A game is opened through its scorer link (the phone that enters the rounds).
            codes = [store.links_of(session, game)["scorer"].token for game in made]
            session.commit()
        found: dict[str, list[tuple[float, float]]] = {name: [] for name, _ in POSITIONS}
        wanted = {position: name for name, position in POSITIONS}
        for code in codes:
            phones[0] += 1
            game = Game(client, code, phones[0])
            game.open()
            for position, card in enumerate(order):
                if cold:
                    glue.JUDGES.clear()
                    glue.VIEWS.forget()
                    trick_pages.forget_drawings()
                game.post("play", card=card)
                if position in wanted:
                    found[wanted[position]].append(clock.last)
        return found

    say(f"Tap: 6 players, Round card a, {games} rounds entered card by card (48 taps each) "
        "per row, one process, the HTML partial (htmx), SQLite (WAL) in a temporary folder; "
        "server time around the WSGI app.")
    say()
    rows, figures = [], {}
    for label, cold in (("", False), (" (cold)", True)):
        samples = enter_rounds(games, cold)
        for name, _ in POSITIONS:
            wall = [w for w, _ in samples[name]]
            cpu = [c for _, c in samples[name]]
            figures[name + label] = statistics.median(wall)
            rows.append((name + label, f"{statistics.median(wall):.2f}", f"{min(wall):.2f}",
                         f"{statistics.median(cpu):.2f}"))
    say(table(("tap at", "median ms", "fastest ms", "median CPU ms"), rows))
    say()
    cold = figures["last card (cold)"] / figures["first card (cold)"]
    say(f"- Last card / first card: {figures['last card'] / figures['first card']:.2f}x "
        f"(medians, same run); cold: {cold:.2f}x.")
    say("- Cold: the round's judge, the game's view and the kept drawings of rounds dropped "
        "before each tap, as in a server process that never saw this round (another gunicorn "
        "worker): the game is loaded and replayed, the judge built from the stored log and the "
        "whole screen drawn (only the cards' faces, the same for every round, stay).")

    # check-round of the whole round against score-round of the same round, without a cookie
    from . import check_round

    say()
    found = check_round.run(out=lines)
    figures["check/score"] = found["ratio"]
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.trick_tap", description=__doc__)
    parser.add_argument("--games", type=int, default=25,
                        help="rounds entered per row (default 25)")
    run(parser.parse_args().games)


if __name__ == "__main__":
    main()
