"""The companion app for the HTTP bench, on the database named by ``COMPANION_BENCH_DB``.

CSRF protection is switched off here, and only here, so that the load generator can post the
round-entry form without first fetching a token per request. The bench creates the database (and
switches it to WAL) in its own process before gunicorn starts, so the workers never race to do it.
"""

from __future__ import annotations

import os

from companion import create_app

app = create_app({"DATABASE": os.environ["COMPANION_BENCH_DB"], "SECRET_KEY": "bench",
                  "WTF_CSRF_ENABLED": False})
