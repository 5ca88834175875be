"""Judging a whole 6-player round against scoring it, through the JSON API, without a cookie.

Run ``python -m bench.check_round`` (``--runs N``, ``--profile``). In one process, with the app
as shipped, a client that keeps no cookie (an API caller: no session is read or written on either
side) posts, in turns, the same seeded legal 6-player round (Round card a, 8 tricks, 48 cards):

- ``POST /api/v1/rebel-princess/check-round``: the round trick by trick, judged (each trick's
  winner, every rule broken, cards taken, scores);
- ``POST /api/v1/rebel-princess/score-round``: the cards each player took, scored.

The time is this process's CPU time around the WSGI app (request in, JSON out; the test client's
own work left out), so other load on the machine matters little; the first ``--warm`` pairs are
dropped, then the median of ``--runs`` alternating pairs of each is reported, and their ratio.
The aim (issue 20) is check-round within 3x score-round.

Not a test: nothing asserts on a timing.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import random
import shutil
import statistics
import time
from typing import Any

from . import table
from .server_clock import ServerClock


def legal_round(seed: int = 1) -> list[str]:
    """The 48 cards of a seeded legal 6-player round of Round card a, in play order."""
    from companion.scoring.rebel_princess.engine import RoundState

    state = RoundState.deal(6, edition="deluxe", round_card="a", seed=seed)
    rng = random.Random(seed)
    order = []
    while not state.is_over():
        card = rng.choice(sorted(state.legal_plays(), key=str))
        state.play(card)
        order.append(str(card))
    return order


def bodies(seed: int = 1) -> tuple[dict[str, Any], dict[str, Any]]:
    """The check-round and score-round bodies of the same seeded legal 6-player round."""
    from companion.scoring.rebel_princess.engine import RoundState, parse_card

    order = legal_round(seed)
    state = RoundState.deal(6, edition="deluxe", round_card="a", seed=seed)
    tricks: list[dict[str, Any]] = []
    for index, card in enumerate(order):
        if index % 6 == 0:
            tricks.append({"plays": []})
        tricks[-1]["plays"].append({"seat": state.turn, "card": card})
        state.push_card(parse_card(card))
    outcome = state.outcome()
    assert outcome is not None
    check = {"edition": "deluxe", "round_card": "a", "players": 6, "leader": 0, "tricks": tricks}
    score = {"edition": "deluxe", "round_card": "a", "players": 6,
             "taken": [[str(c) for c in sorted(cards, key=str)] for cards in outcome.taken]}
    return check, score


def run(runs: int = 400, warm: int = 20, out: list[str] | None = None,
        profile: bool = False) -> dict[str, float]:
    """Measure; print a table (and append it to ``out``); return the medians and the ratio."""
    import tempfile
    from pathlib import Path

    from companion import create_app

    lines = out if out is not None else []

    def say(text: str = "") -> None:
        print(text, flush=True)
        lines.append(text)

    folder = Path(tempfile.mkdtemp(prefix="bench-check-"))
    app = create_app({"DATABASE": str(folder / "bench.sqlite"), "SECRET_KEY": "bench"})
    clock = ServerClock(app.wsgi_app)
    app.wsgi_app = clock  # type: ignore[method-assign]
    client = app.test_client(use_cookies=False)
    check_body, score_body = bodies()

    sent = [0]

    def post(path: str, body: dict[str, Any]) -> float:
        # A new address every 100 requests: the API's limit per address is never reached.
        phone = sent[0] // 100
        sent[0] += 1
        environ = {"REMOTE_ADDR": f"10.{phone >> 16 & 255}.{phone >> 8 & 255}.{phone & 255}"}
        response = client.post(f"/api/v1/rebel-princess/{path}", json=body, environ_base=environ)
        assert response.status_code == 200, response.get_json()
        assert "Set-Cookie" not in response.headers, response.headers
        return clock.last[1]

    if profile:
        profiler = cProfile.Profile()
        profiler.enable()
        for _ in range(runs):
            post("check-round", check_body)
        profiler.disable()
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(40)
        pstats.Stats(profiler).sort_stats("tottime").print_stats(25)
        return {}
    load = os.getloadavg()[0]
    check, score = [], []
    for index in range(warm + runs):
        c, s = post("check-round", check_body), post("score-round", score_body)
        if index >= warm:
            check.append(c)
            score.append(s)
    figures = {"check": statistics.median(check), "score": statistics.median(score)}
    figures["ratio"] = figures["check"] / figures["score"]
    say(f"check-round vs score-round: JSON API, no cookie on either side, test client, one "
        f"process, {runs} alternating pairs after {warm} warm-up pairs, CPU time around the WSGI "
        f"app; load average {load:.2f} (1 min) at start on {os.cpu_count()} cores.")
    say()
    say(table(("request", "median CPU ms", "fastest CPU ms"), [
        ("POST check-round, whole 6-player round (8 tricks)", f"{figures['check']:.2f}",
         f"{min(check):.2f}"),
        ("POST score-round, the same round", f"{figures['score']:.2f}", f"{min(score):.2f}")]))
    say()
    say(f"- check-round / score-round: **{figures['ratio']:.2f}x** (medians, same run; aim: 3x "
        "at most).")
    app.extensions["companion.engine"].dispose()
    shutil.rmtree(folder, ignore_errors=True)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.check_round", description=__doc__)
    parser.add_argument("--runs", type=int, default=400, help="pairs measured (default 400)")
    parser.add_argument("--warm", type=int, default=20, help="pairs dropped first (default 20)")
    parser.add_argument("--profile", action="store_true",
                        help="profile check-round instead (cProfile)")
    args = parser.parse_args()
    started = time.process_time()
    run(args.runs, args.warm, profile=args.profile)
    print(f"\n_(CPU {time.process_time() - started:.1f} s)_")


if __name__ == "__main__":
    main()
