"""The companion app for the HTTP benches, on the database named by ``COMPANION_BENCH_DB`` (or
PostgreSQL at ``COMPANION_BENCH_DATABASE_URL``).

CSRF protection and the rate limits are switched off here, and only here, so that the load
generator (one address, thousands of requests) can post the round-entry form without first
fetching a token per request; each bench served by it says so in its output
(:data:`bench.wsgi_note.NOT_AS_SHIPPED`). The bench creates the database in its own process
before gunicorn starts, so the workers never race to migrate it.
"""

from __future__ import annotations

import os

from companion import create_app

app = create_app({"DATABASE": os.environ["COMPANION_BENCH_DB"], "SECRET_KEY": "bench",
                  "DATABASE_URL": os.environ.get("COMPANION_BENCH_DATABASE_URL") or None,
                  "WTF_CSRF_ENABLED": False, "RATELIMIT_ENABLED": False,
                  # bench.tables: a page store of the row's own (empty, or filled to its bound)
                  **({"CACHE_DIR": os.environ["COMPANION_BENCH_CACHE_DIR"]}
                     if os.environ.get("COMPANION_BENCH_CACHE_DIR") else {}),
                  # bench.tables' push rows: nginx's publisher (companion.play.push)
                  **({"LIVE_PUSH_PUBLISH_URL": os.environ["COMPANION_BENCH_PUSH_URL"]}
                     if os.environ.get("COMPANION_BENCH_PUSH_URL") else {})})

if os.environ.get("COMPANION_BENCH_FLASK_LIVE"):  # bench.polls: /live through Flask, as before
    app.wsgi_app = app.extensions["companion.polls"].app  # type: ignore[method-assign]

if os.environ.get("COMPANION_BENCH_COSTS"):  # bench.push_costs: each request's CPU, by kind
    from bench.cost_probe import install

    install(app, os.environ["COMPANION_BENCH_COSTS"])

if os.environ.get("COMPANION_BENCH_TAIL"):  # bench.entry_tail: each request's phases, in a file
    from bench.tail_probe import install as install_tail

    install_tail(app, os.environ["COMPANION_BENCH_TAIL"])
