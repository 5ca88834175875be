"""What a save costs after its COMMIT, in process, with cookies as a phone sends them: the
app's session cookie against itsdangerous' as main 207cb1c used it, interleaved save by save.

Each table (``bench.tables``' games and entries) has its own client keeping its cookies, opens
its scorer page first (its session: a CSRF token, the game remembered) and posts each save with
its CSRF token (on, as shipped; rate limits off), as the phone's outbox does
(``Companion-Outbox: page``); then loads the page the redirect names (the GET that shows the
save's message and takes it out of the cookie again), unless the save answered with that page
(``--push``: the app publishes to a proxy answered in process, as ``bench.save_cycle``).
Every other save of a table (the order turned each round) runs under the **before** session
interface (:class:`Before`: Flask's itsdangerous serializer, made once per keys, and main
207cb1c's rules) and the others under the app's (:mod:`companion.web.session_cookie`): the
same process, the same moment, the same cookies (each reads the other's).

Thread CPU, median per game: the save **to** the end of its COMMIT and **after** it (to its
answer's last byte: what issue 36's entry waits for), the **GET** after it; and the session's
own share of each (opened, saved). Rebel Princess and Princesse Princesse say "saved" (a
flashed message: two cookies signed per save); Réveillez and the duel say nothing (no cookie).

Run: ``python -m bench.after_commit [--tables 12] [--database-url postgresql://…] [--push]
[--profile]`` (``--profile``: cProfile of the part after the COMMIT, the app's interface only).
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import re
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from flask import Flask, Response
from flask.sessions import SecureCookieSessionInterface, SessionMixin
from itsdangerous import BadSignature, URLSafeTimedSerializer
from werkzeug import Request

from companion.web import session_cookie

from . import table
from .tables import GAMES, SAVES, Table, _games

KINDS = {"rebel-princess": "Rebel Princess", "princesse-princesse": "Princesse Princesse",
         "reveillez": "Réveillez", "kanai-duel": "Kanai duel"}
COLUMNS = ("to", "after", "opened", "saved", "GET", "GET opened", "GET saved")
_CSRF = re.compile(r'"X-CSRFToken": *"([^"]+)"')


class Before(session_cookie.SessionInterface):
    """The session interface of main 207cb1c: the same rules (never opened for the polls and
    the API, sent when changed or once a day, verified cookies remembered), signed and read
    by itsdangerous with Flask's tagged JSON, sent whenever the session was modified."""

    def __init__(self) -> None:
        super().__init__()
        self._kept: tuple[tuple[Any, ...], URLSafeTimedSerializer | None,
                          dict[str, tuple[Any, int]]] | None = None

    def get_signing_serializer(self, app: Flask) -> URLSafeTimedSerializer | None:  # type: ignore[override]
        keys = (app.secret_key, *(app.config.get("SECRET_KEY_FALLBACKS") or ()))
        if self._kept is None or self._kept[0] != keys:
            self._kept = (keys, SecureCookieSessionInterface.get_signing_serializer(self, app),
                          {})
        return self._kept[1]

    def open_session(self, app: Flask, request: Request) -> session_cookie.Session | None:
        if request.path.startswith(session_cookie.NO_SESSION):
            return self.session_class()
        signer = self.get_signing_serializer(app)
        if signer is None or self._kept is None:
            return None
        opened = self._kept[2]
        value = request.cookies.get(self.get_cookie_name(app))
        if not value:
            return self.session_class()
        max_age = int(app.permanent_session_lifetime.total_seconds())
        known = opened.get(value)
        if known is not None and 0 <= int(time.time()) - known[1] <= max_age:
            found = self.session_class(session_cookie.copied(known[0]))
            found.signed_at = float(known[1])
            return found
        try:
            data, signed = signer.loads(value, max_age=max_age, return_timestamp=True)
        except BadSignature:
            return self.session_class()
        if len(opened) >= self.OPENED_KEPT:
            opened.clear()
        opened[value] = (session_cookie.copied(data), int(signed.timestamp()))
        found = self.session_class(data)
        found.signed_at = signed.timestamp()
        return found

    def save_session(self, app: Flask, session: SessionMixin, response: Response) -> None:
        from flask import request

        if request.endpoint == "static" or request.path.startswith(session_cookie.NO_SESSION):
            return
        if session.modified and session and not session.permanent:
            session.permanent = True
        if session and not session.modified and not self.should_set_cookie(app, session):
            if session.accessed:
                response.vary.add("Cookie")
            return
        SecureCookieSessionInterface.save_session(self, app, session, response)  # (Flask's)


def run(tables: int, database_url: str | None, push: bool, profile: bool) -> None:
    from companion import create_app

    from .save_cycle import _fake_calls

    listening: set[str] = set()
    if push:
        _fake_calls({}, listening)
    with tempfile.TemporaryDirectory() as folder:
        config: dict[str, object] = {
            "SECRET_KEY": "bench", "RATELIMIT_ENABLED": False,
            "DATABASE": str(Path(folder) / "after.sqlite"), "CACHE_DIR": str(Path(folder) / "p")}
        if push:
            config["LIVE_PUSH_PUBLISH_URL"] = "http://127.0.0.1:9/pub/"
        if database_url:
            from .tables import _empty_postgres
            config["DATABASE_URL"] = database_url
            _empty_postgres(config)
        games = _games(config, tables * len(GAMES), GAMES)
        app = create_app(config)
        clock = _Clock(app)
        interfaces = {"before": Before(), "after": app.session_interface}
        clients: dict[int, tuple[Any, str]] = {}
        for game in games:
            client = app.test_client()
            page = client.get(game.page(game.scorer))
            assert page.status_code == 200
            if push:  # (its viewers' page says which channel they listen on)
                found = re.search(r'data-push-url="[^"]*/([0-9a-f]+)"', app.test_client().get(
                    game.page(game.viewer)).get_data(as_text=True))
                assert found is not None
                listening.add(found[1])
            clients[game.number] = (client, _CSRF.findall(page.get_data(as_text=True))[0])
            for which in ("before", "after"):  # (its cookie verified by both: fair)
                app.session_interface = interfaces[which]
                assert client.get(game.page(game.scorer)).status_code == 200
        figures: dict[tuple[str, str], dict[str, list[float]]] = {}
        profiler = cProfile.Profile(time.thread_time) if profile else None
        for number in range(SAVES):
            for game in games:
                which = ("before", "after")[(game.number + number) % 2]
                app.session_interface = interfaces[which]
                client, token = clients[game.number]
                times = clock.cycle(client, game, token,
                                    profiler if which == "after" and number else None)
                game.saved += 1
                if number:  # (a game's first save in this process: its code warmed)
                    mine = figures.setdefault((game.kind, which), {})
                    for key, value in times.items():
                        mine.setdefault(key, []).append(value)
        app.session_interface = interfaces["after"]
        rows = []
        for kind in GAMES:
            for which in ("before", "after"):
                mine = figures[(kind, which)]
                rows.append([KINDS[kind], which, str(len(mine["to"]))]
                            + [f"{statistics.median(mine[k]) * 1000:.3f}" for k in COLUMNS])
        load = os.getloadavg()
        print(f"{'PostgreSQL' if database_url else 'SQLite'}{', push' if push else ''}: "
              f"median thread CPU ms per save, in process, {tables} tables per game, "
              f"load {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")
        print(table(["game", "session", "saves", "to COMMIT", "after COMMIT", "session opened",
                     "session saved", "GET after", "GET: opened", "GET: saved"], rows))
        if profiler is not None:
            stats = pstats.Stats(profiler)
            stats.sort_stats("tottime").print_stats(30)
            stats.sort_stats("cumulative").print_stats(50)
        app.extensions["companion.engine"].dispose()


class _Clock:
    """Thread CPU marks in one request: the end of its last COMMIT, the session's opening and
    saving, the end of its answer (the WSGI app returned and its body read)."""

    def __init__(self, app: Flask) -> None:
        self.marks: dict[str, float] = {}
        self.profiler: cProfile.Profile | None = None
        engine = app.extensions["companion.engine"]
        commit = engine.dialect.do_commit

        def committed(connection: Any) -> None:
            commit(connection)
            self.marks["commit"] = time.thread_time()
            if self.profiler is not None:
                self.profiler.enable()
        engine.dialect.do_commit = committed
        inner = app.wsgi_app

        def answered(environ: Any, start_response: Any) -> Any:
            body = inner(environ, start_response)
            try:
                data = b"".join(body)
            finally:
                getattr(body, "close", lambda: None)()
            self.marks["end"] = time.thread_time()
            if self.profiler is not None:
                self.profiler.disable()
            return [data]
        app.wsgi_app = answered  # type: ignore[method-assign]
        for name in ("open_session", "save_session"):
            for kind in (session_cookie.SessionInterface, Before):
                self._time(kind, name)

    def _time(self, kind: type[Any], name: str) -> None:
        method = kind.__dict__.get(name)
        if method is None:
            return
        marks = self.marks

        def timed(*args: Any) -> Any:
            start = time.thread_time()
            try:
                return method(*args)
            finally:
                marks[name] = marks.get(name, 0.0) + time.thread_time() - start
        setattr(kind, name, timed)

    def cycle(self, client: Any, game: Table, token: str,
              profiler: cProfile.Profile | None) -> dict[str, float]:
        path, body = game.save()
        marks = self.marks
        marks.clear()
        self.profiler = profiler
        start = time.thread_time()
        answer = client.post(path, data=dict(body, csrf_token=token),
                             headers={"Companion-Outbox": "page"})
        self.profiler = None
        answered = answer.status_code == 200 and "Companion-Page" in answer.headers
        assert answered or answer.status_code in (302, 303), (path, answer.status_code)
        times = {"to": marks["commit"] - start, "after": marks["end"] - marks["commit"],
                 "opened": marks.get("open_session", 0.0),
                 "saved": marks.get("save_session", 0.0)}
        marks.clear()
        if answered:
            shown = answer.get_data(as_text=True)
            times.update({"GET": 0.0, "GET opened": 0.0, "GET saved": 0.0})
        else:
            start = time.thread_time()
            page = client.get(answer.headers["Location"])
            assert page.status_code == 200
            shown = page.get_data(as_text=True)
            times.update({"GET": marks["end"] - start,
                          "GET opened": marks.get("open_session", 0.0),
                          "GET saved": marks.get("save_session", 0.0)})
        if game.kind in ("rebel-princess", "princesse-princesse"):
            assert 'class="flash"' in shown, "the save's message is shown"
        return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=12, help="tables per game (default 12)")
    parser.add_argument("--database-url", help="PostgreSQL (e.g. scripts/postgres.sh's URL)")
    parser.add_argument("--push", action="store_true",
                        help="the app publishes: a save answers with its page")
    parser.add_argument("--profile", action="store_true",
                        help="cProfile after the COMMIT (the app's session interface)")
    options = parser.parse_args()
    run(options.tables, options.database_url, options.push, options.profile)


if __name__ == "__main__":
    main()
