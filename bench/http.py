"""Requests per second and latency under gunicorn, measured with wrk on 127.0.0.1.

Four rows, each for about 10 s with 16 connections, against ``gunicorn -w 2 (sync)
--no-control-socket`` on a free loopback port:

* ``hello``: a plain Flask view (:mod:`bench.hello`), the ceiling of this stack on this machine;
* ``score-round API``: ``POST /api/v1/rebel-princess/score-round`` with a 6-player Dancing Queens
  body (all 12 Princes, all 12 Queens and the Frog given out);
* ``save round (form)``: ``POST /g/<code>/round/1/cards`` of the web form, a different game each
  request so every request stores a new round. The games are created beforehand, in this
  process, through :func:`companion.play.create_game`. Only 302 answers count as saved;
* ``score pad``: ``GET /g/<code>`` of a game with one round saved, the page every save
  redirects to (an extra row, not a target).

CSRF is switched off for the load test only (see :mod:`bench.wsgi`); the real app keeps it on.
If ``wrk`` is missing, a bounded Python client (threads + keep-alive ``http.client``) is used
instead and the table says so.

Run: ``python -m bench.http [--duration 10] [--games N]``.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import shutil
import statistics
import subprocess
import tempfile
import threading
import time
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import NAMES4, Server, gunicorn, table

CONNECTIONS = 16
# Fresh games for the form-save row, per second of the run: ~2 ms each to create, and enough for
# 600 saves/s (a save costs ~4.5 ms of server CPU, so 2 cores top out near 450/s). If the load
# generator runs out anyway, its threads stop and the report says so.
GAMES_PER_SECOND = 600
WRK_THREADS = 1  # one wrk thread keeps up easily and leaves the 2 cores to the server

# A 6-player Dancing Queens round (Deluxe z): every Prince, every Queen and the Frog given out,
# unevenly, as a real round would.
SCORE_ROUND_BODY = {
    "edition": "deluxe", "round_card": "z", "players": 6,
    "taken": [["P1", "P7", "Q1", "Q7", "Q12"],
              ["P2", "P3", "P11", "Q2", "Q3"],
              ["P4", "Q4", "Q9", "A8"],
              ["P5", "P9", "P12", "Q5", "Q10", "Q11"],
              ["P6", "Q6"],
              ["P8", "P10", "Q8"]],
}

# Round 1 of a 4-player Deluxe game whose first Round card is "a": Princes 1-10 and the Frog.
SAVE_FIELDS = {"base": "", "leader": "",
               "P1": "0", "P2": "1", "P3": "2", "P4": "0", "P5": "3", "P6": "1", "P7": "0",
               "P8": "2", "P9": "3", "P10": "0", "A8": "2"}

# wrk scripts. Each thread counts the HTTP statuses it saw; done() prints one JSON line.
LUA_COMMON = r"""
local threads = {}
local nthreads = 0
function setup(thread)
  thread:set("tid", nthreads)
  nthreads = nthreads + 1
  table.insert(threads, thread)
end
statuses = {}
function response(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
end
function done(summary, latency, requests)
  local counts = {}
  for _, t in ipairs(threads) do
    for status, n in pairs(t:get("statuses")) do counts[status] = (counts[status] or 0) + n end
  end
  local parts = {}
  for status, n in pairs(counts) do table.insert(parts, string.format('"%d": %d', status, n)) end
  local exhausted = 0
  for _, t in ipairs(threads) do exhausted = exhausted + (t:get("exhausted") or 0) end
  local e = summary.errors
  io.write(string.format(
    'BENCH_JSON {"requests": %d, "duration_us": %d, "p50_us": %d, "p99_us": %d, '
    .. '"mean_us": %.1f, "socket_errors": %d, "timeouts": %d, "exhausted": %d, '
    .. '"statuses": {%s}}\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    latency.mean, e.connect + e.read + e.write, e.timeout, exhausted,
    table.concat(parts, ", ")))
end
"""

LUA_GET = LUA_COMMON  # wrk's default request (GET of the URL's path)

LUA_POST_JSON = LUA_COMMON + r"""
function init(args)
  local f = assert(io.open(args[1], "rb")); local body = f:read("*a"); f:close()
  req = wrk.format("POST", args[2], {["Content-Type"] = "application/json"}, body)
end
function request() return req end
"""

LUA_SAVE_ROUNDS = LUA_COMMON + r"""
-- args: codes file (one game code per line), number of threads, form body file.
-- Thread k takes codes k, k+T, k+2T, ...: every request saves round 1 of a game nobody used.
function init(args)
  local n = tonumber(args[2])
  local f = assert(io.open(args[3], "rb")); body = f:read("*a"); f:close()
  codes = {}
  local i = 0
  for line in io.lines(args[1]) do
    if i % n == tid then table.insert(codes, line) end
    i = i + 1
  end
  nexti = 1
  exhausted = 0
  headers = {["Content-Type"] = "application/x-www-form-urlencoded"}
end
function request()
  local code = codes[nexti]
  if code == nil then
    -- Out of fresh games: stop this thread rather than post a round twice.
    exhausted = exhausted + 1
    wrk.thread:stop()
    code = "exhausted"
  end
  nexti = nexti + 1
  return wrk.format("POST", "/rebel-princess/g/" .. code .. "/round/1/cards", headers, body)
end
"""


@dataclass
class Result:
    name: str
    ok_status: int
    requests: int = 0
    duration_s: float = 0.0
    p50_ms: float = 0.0
    p99_ms: float = 0.0
    statuses: dict[int, int] = field(default_factory=dict)
    socket_errors: int = 0
    timeouts: int = 0
    exhausted: int = 0
    server_cpu_s: float = 0.0  # CPU time of the gunicorn master and workers during the run

    @property
    def cpu_ms_per_request(self) -> float:
        return 1000 * self.server_cpu_s / self.requests if self.requests else 0.0

    @property
    def ok(self) -> int:
        return self.statuses.get(self.ok_status, 0)

    @property
    def rate(self) -> float:
        """Successful answers per second (non-successes are reported as errors, not counted)."""
        return self.ok / self.duration_s if self.duration_s else 0.0

    @property
    def errors(self) -> str:
        bad = {s: n for s, n in sorted(self.statuses.items()) if s != self.ok_status}
        parts = [f"{n} × {s}" for s, n in bad.items()]
        if self.socket_errors:
            parts.append(f"{self.socket_errors} socket")
        if self.timeouts:
            parts.append(f"{self.timeouts} timeout")
        return ", ".join(parts) if parts else "0"


# --- preparing the data ---------------------------------------------------------------------------

def prepare_database(path: Path, games: int) -> list[str]:
    """Create the database (WAL on) and ``games`` 4-player Deluxe games, round 1 card "a",
    through the app's own :func:`companion.play.rebel_princess.create_game`; returns the token of
    each game's scorer link (a game opens only through a link)."""
    from sqlmodel import Session

    from companion import create_app
    from companion.db import get_engine
    from companion.play import rebel_princess as play
    from companion.play import store
    from companion.scoring.rebel_princess import Edition

    app = create_app({"DATABASE": str(path), "SECRET_KEY": "bench", "WTF_CSRF_ENABLED": False})
    with app.app_context():
        engine = get_engine()
        with Session(engine, expire_on_commit=False) as session:
            made = [play.create_game(session=session, edition=Edition.DELUXE, names=NAMES4,
                                     first_leader=0, round_cards=list("abcde"))
                    for _ in range(games)]
            codes = [store.links_of(session, game)["scorer"].token for game in made]
        engine.dispose()
    return codes


def post_status(base: str, path: str, body: bytes) -> int:
    """The status of one form POST, redirects not followed."""
    url = urllib.parse.urlsplit(base)
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=10)
    try:
        conn.request("POST", path, body=body,
                     headers={"Content-Type": "application/x-www-form-urlencoded"})
        response = conn.getresponse()
        response.read()
        return response.status
    finally:
        conn.close()


def saved_rounds(path: Path) -> int:
    """Round records actually stored (cross-check of the 302 count)."""
    import sqlite3

    with sqlite3.connect(path) as conn:
        return int(conn.execute("SELECT count(*) FROM roundrecord").fetchone()[0])


# --- load generators ------------------------------------------------------------------------------

def run_wrk(base: str, path: str, script: Path, args: list[str], duration: float,
            result: Result) -> Result:
    cmd = ["wrk", f"-t{WRK_THREADS}", f"-c{CONNECTIONS}", f"-d{max(1, round(duration))}s",
           "--latency", "-s", str(script), base + path, "--", *args]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=duration + 60)
    line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("BENCH_JSON ")), None)
    if proc.returncode != 0 or line is None:
        raise RuntimeError(f"wrk failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    data = json.loads(line.removeprefix("BENCH_JSON "))
    result.requests = data["requests"]
    result.duration_s = data["duration_us"] / 1e6
    result.p50_ms = data["p50_us"] / 1000
    result.p99_ms = data["p99_us"] / 1000
    result.statuses = {int(k): v for k, v in data["statuses"].items()}
    result.socket_errors = data["socket_errors"]
    result.timeouts = data["timeouts"]
    result.exhausted = data["exhausted"]
    return result


def run_python_client(base: str, make_request: Any, duration: float, result: Result) -> Result:
    """The fallback when wrk is missing: CONNECTIONS threads, one keep-alive connection each,
    for ``duration`` seconds at most. ``make_request(i)`` gives (method, path, body, headers)
    for the i-th request, or None when there is nothing left to send."""
    url = urllib.parse.urlsplit(base)
    latencies: list[float] = []
    statuses: dict[int, int] = {}
    errors = [0]
    lock = threading.Lock()
    counter = iter(range(10**9))
    stop_at = time.monotonic() + duration

    def worker() -> None:
        conn = http.client.HTTPConnection(url.hostname, url.port, timeout=5)
        while time.monotonic() < stop_at:
            with lock:
                spec = make_request(next(counter))
            if spec is None:
                return
            method, path, body, headers = spec
            start = time.perf_counter()
            try:
                conn.request(method, path, body=body, headers=headers)
                response = conn.getresponse()
                response.read()
                if response.getheader("Connection", "").lower() == "close":
                    conn.close()
            except OSError:
                conn.close()
                with lock:
                    errors[0] += 1
                continue
            elapsed = time.perf_counter() - start
            with lock:
                latencies.append(elapsed)
                statuses[response.status] = statuses.get(response.status, 0) + 1
        conn.close()

    started = time.monotonic()
    threads = [threading.Thread(target=worker) for _ in range(CONNECTIONS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=duration + 30)
    result.duration_s = time.monotonic() - started
    result.requests = len(latencies)
    if latencies:
        q = statistics.quantiles(latencies, n=100, method="inclusive")
        result.p50_ms, result.p99_ms = q[49] * 1000, q[98] * 1000
    result.statuses = statuses
    result.socket_errors = errors[0]
    return result


# --- the bench ------------------------------------------------------------------------------------

def measured(server: Server, result: Result, run_load: Any) -> Result:
    """Run the load (``run_load()``) and record the server's CPU time over it."""
    cpu_before = server.cpu_seconds()
    run_load()
    result.server_cpu_s = server.cpu_seconds() - cpu_before
    return result


def run(duration: float = 10.0, games: int | None = None, out: list[str] | None = None,
        python_client: bool = False) -> tuple[list[Result], str]:
    """Run the measurements; returns the results and the printable report."""
    use_wrk = shutil.which("wrk") is not None and not python_client
    games = games or max(2_000, int(GAMES_PER_SECOND * duration))
    lines: list[str] = []

    def say(text: str = "") -> None:
        print(text, flush=True)
        lines.append(text)

    with tempfile.TemporaryDirectory(prefix="companion-bench-http-") as tmp_name:
        tmp = Path(tmp_name)
        db = tmp / "bench.sqlite"
        started = time.monotonic()
        codes = prepare_database(db, games)
        print(f"[http] created {len(codes)} games in {time.monotonic() - started:.1f} s",
              flush=True)
        pad_code, codes = codes[-1], codes[:-1]  # one game for the pre-flight save and the pad
        (tmp / "codes.txt").write_text("\n".join(codes) + "\n", encoding="ascii")
        score_body = json.dumps(SCORE_ROUND_BODY).encode()
        (tmp / "score.json").write_bytes(score_body)
        form_body = urllib.parse.urlencode(SAVE_FIELDS).encode()
        (tmp / "form.txt").write_bytes(form_body)
        for name, text in (("get.lua", LUA_GET), ("post_json.lua", LUA_POST_JSON),
                           ("save.lua", LUA_SAVE_ROUNDS)):
            (tmp / name).write_text(text, encoding="utf-8")

        results: list[Result] = []
        load_before = os.getloadavg()
        json_headers = {"Content-Type": "application/json"}
        form_headers = {"Content-Type": "application/x-www-form-urlencoded"}

        def load(server: Server, res: Result, path: str, script: str, args: list[str],
                 make_request: Any) -> None:
            print(f"[http] {res.name} at {server.base} for {duration:.0f} s", flush=True)
            if use_wrk:
                measured(server, res, lambda: run_wrk(server.base, path, tmp / script, args,
                                                       duration, res))
            else:
                measured(server, res, lambda: run_python_client(server.base, make_request,
                                                                duration, res))
            results.append(res)

        # (a) the ceiling: a plain Flask view under the same gunicorn settings.
        with gunicorn("bench.hello:app") as server:
            load(server, Result("hello (plain Flask, ceiling)", 200), "/", "get.lua", [],
                 lambda i: ("GET", "/", b"", {}))

        env = {"COMPANION_BENCH_DB": str(db)}
        with gunicorn("bench.wsgi:app", env=env, probe="/api/v1/openapi.json") as server:
            # (b) the stateless JSON API.
            api = "/api/v1/rebel-princess/score-round"
            load(server, Result("POST score-round API (6p, Dancing Queens)", 200), api,
                 "post_json.lua", [str(tmp / "score.json"), api],
                 lambda i: ("POST", api, score_body, json_headers))

            # Pre-flight: one save must answer 302 (this also warms the worker that takes it).
            preflight = post_status(server.base, "/rebel-princess"
                                                 f"/g/{pad_code}/round/1/cards", form_body)
            if preflight != 302:
                raise RuntimeError(f"pre-flight save answered {preflight}, not 302")

            # (c) saving a new round through the web form, a fresh game per request.
            before = saved_rounds(db)
            load(server, Result("POST round 1 by cards (form, new round each)", 302), "/",
                 "save.lua", [str(tmp / "codes.txt"), str(WRK_THREADS), str(tmp / "form.txt")],
                 lambda i: ("POST", "/rebel-princess"
                                    f"/g/{codes[i]}/round/1/cards", form_body, form_headers)
                 if i < len(codes) else None)
            stored = saved_rounds(db) - before

            # (d) the score pad every save redirects to (one round played).
            load(server, Result("GET score pad /g/<code> (extra)", 200), "/rebel-princess"
                                                                         f"/g/{pad_code}",
                 "get.lua", [], lambda i: ("GET", f"/rebel-princess/g/{pad_code}", b"", {}))

    load_after = os.getloadavg()
    client = (f"wrk -t{WRK_THREADS} --latency" if use_wrk else
              "the Python client (" + ("asked for" if python_client else "wrk missing") + ")")
    say(f"HTTP: gunicorn {WORKERS_TEXT}, {CONNECTIONS} connections, ~{duration:.0f} s per row, "
        f"load from {client} on the same machine, 127.0.0.1 only.")
    say()
    say(table(["endpoint", "req/s", "p50 ms", "p99 ms", "errors", "server CPU ms/req"],
              [[r.name, f"{r.rate:,.0f}", f"{r.p50_ms:.1f}", f"{r.p99_ms:.1f}", r.errors,
                f"{r.cpu_ms_per_request:.1f}"] for r in results]))
    say()
    save = results[2]
    say(f"- req/s counts only successful answers (200; 302 for the form save). The form save "
        f"stored {stored:,} new rounds for {save.ok:,} answers 302, in {save.duration_s:.1f} s; "
        f"{len(codes):,} fresh games were prepared"
        + (f" and the load generator RAN OUT of them ({save.exhausted} stops): its req/s is a "
           "lower bound, rerun with more --games" if save.exhausted else "")
        + ". A few more rounds than answers may be stored: requests still in flight when wrk "
        "stops are saved but not counted.")
    say(f"- Load average (1 min) before/after: {load_before[0]:.2f} / {load_after[0]:.2f} on "
        f"{os.cpu_count()} cores. Anything else running on the machine (tests, browsers) takes "
        "CPU from the server and shows up here: compare rows of the same run, not runs.")
    say("- Server CPU ms/req: user + system CPU of the gunicorn master and workers during the "
        "row, divided by the answers; it depends much less on other load than req/s does. "
        f"{os.cpu_count()} cores / CPU ms per request is what this machine could serve if the "
        "server had it to itself.")
    say("- CSRF is off for this load test only (bench/wsgi.py); the app keeps it on. "
        "Sync workers close the connection after each answer, so every request includes a "
        "TCP connect, as it would for a phone without keep-alive.")
    if out is not None:
        out.extend(lines)
    return results, "\n".join(lines)


WORKERS_TEXT = "-w 2 (sync) --no-control-socket"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=float, default=10.0, help="seconds per endpoint")
    parser.add_argument("--games", type=int, default=None,
                        help="fresh games to prepare for the form-save run "
                             f"(default {GAMES_PER_SECOND} per second of --duration)")
    parser.add_argument("--python-client", action="store_true",
                        help="use the fallback Python client even if wrk is installed")
    args = parser.parse_args()
    run(args.duration, args.games, python_client=args.python_client)


if __name__ == "__main__":
    main()
