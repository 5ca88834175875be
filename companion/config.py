"""The app's settings: :class:`Config` holds the defaults, :func:`environment` the ones a server
is given in its environment.

:func:`companion.factory.create_app` loads them in this order, each overriding the one before:
:class:`Config`, then ``instance/config.py`` if present, then :func:`environment`, then the
tests' ``test_config`` (a test never reads the environment nor the instance folder). Settings
that depend on the instance folder or on another setting (``DATABASE``, the page store's
``CACHE_TYPE``…) are filled in by the factory afterwards, only where nothing above set them.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from datetime import timedelta
from pathlib import Path
from typing import Any

from flask import Flask


class Config:
    """The defaults: what a server started with nothing else set runs with."""

    # PostgreSQL instead of the embedded SQLite (instance/companion.sqlite) when one machine is
    # not enough.
    DATABASE_URL: str | None = None
    # Groups idle for more than this many days are deleted by `flask groups purge` (off: None).
    GROUP_PURGE_DAYS: int | None = None
    # The address other phones open (QR codes); else this machine's network address.
    PUBLIC_URL: str | None = None
    # How many proxies in front (their X-Forwarded-For/-Proto are believed), and a store the
    # rate limits share across processes and servers (see companion.web.security).
    TRUSTED_PROXIES: int | str = 0
    PROXY_ADDRESSES = "127.0.0.0/8, ::1"
    """Where the trusted proxies reach the app from: forwarded headers from anywhere else are
    not believed (:class:`companion.web.security.TrustedProxyFix`)."""
    RATELIMIT_STORAGE_URI: str | None = None
    # Where a game's page drawn once is kept for every phone (companion.routes.page_store
    # .cached_page): a Redis every server shares when one is named (CACHE_REDIS_URL, else a
    # Redis RATELIMIT_STORAGE_URI: one Redis for both), else files beside the SQLite database
    # (instance/pages) that this machine's server processes share; tests keep theirs in the
    # app (SimpleCache).
    CACHE_REDIS_URL: str | None = None
    CACHE_THRESHOLD = 1000  # drawings kept (files), at most 128 kB each (page_store.RAW_FACTOR)
    CACHE_DEFAULT_TIMEOUT = 2 * 3600  # an old version is never asked for again: let it go
    CACHE_KEY_PREFIX = "companion-page:"
    # Game nights outlast Flask-WTF's one-hour default: tie the token to the session instead.
    WTF_CSRF_TIME_LIMIT = None
    MAX_CONTENT_LENGTH = 64 * 1024
    SESSION_COOKIE_SAMESITE = "Lax"
    # The CSRF token lives in the session: keep it for a month so closing the browser tab
    # between two rounds does not turn the next save into an error.
    PERMANENT_SESSION_LIFETIME = timedelta(days=31)
    # Static files are linked with a content hash (see ``asset``), so phones may keep them.
    SEND_FILE_MAX_AGE_DEFAULT = timedelta(days=365)
    # Who may read /metrics (addresses or networks, comma-separated; companion.web.metrics).
    METRICS_ALLOW = "127.0.0.0/8, ::1"
    # Live updates pushed by the proxy (companion.play.push, nginx with Nchan): its publisher
    # location (e.g. http://127.0.0.1:8090/pub/) and the subscriber path pages listen on. Unset:
    # polling.
    LIVE_PUSH_PUBLISH_URL: str | None = None
    LIVE_PUSH_SUBSCRIBE_PATH = "/live-push/"
    # One JSON object per access line instead of the plain line (companion.web.logs).
    ACCESS_LOG_JSON = False
    # A group's export is written by a job into this folder (default: exports/ beside the
    # SQLite database, in the instance folder), kept an hour (companion.play.export_jobs);
    # new exports wait while the folder holds more than EXPORT_DIR_MAX_BYTES.
    EXPORT_DIR: str | None = None
    EXPORT_DIR_MAX_BYTES = 2 * 2**30
    JOB_SWEEP_SECONDS: float | None = 30.0
    """How often each server process (and each worker) looks for imports whose process died
    (:func:`companion.ops.jobs.init_app`); None: only at start and when a job's page is opened
    (tests)."""


ENVIRONMENT = ("DATABASE_URL", "GROUP_PURGE_DAYS", "PUBLIC_URL", "TRUSTED_PROXIES",
               "PROXY_ADDRESSES",
               "RATELIMIT_STORAGE_URI", "CACHE_REDIS_URL", "METRICS_ALLOW", "ACCESS_LOG_JSON",
               "LIVE_PUSH_PUBLISH_URL", "LIVE_PUSH_SUBSCRIBE_PATH", "EXPORT_DIR")
"""The settings a server may be given in its environment, under the same names."""


def environment(environ: Mapping[str, str] = os.environ) -> dict[str, Any]:
    """The settings of :data:`ENVIRONMENT` that ``environ`` gives a value (an empty one counts
    as unset; ``GROUP_PURGE_DAYS`` only when it is a number of days)."""
    found: dict[str, Any] = {name: environ[name] for name in ENVIRONMENT if environ.get(name)}
    if "ACCESS_LOG_JSON" in found:
        found["ACCESS_LOG_JSON"] = found["ACCESS_LOG_JSON"] not in ("0", "false", "no")
    if "GROUP_PURGE_DAYS" in found:
        days = found.pop("GROUP_PURGE_DAYS")
        if days.isdigit():
            found["GROUP_PURGE_DAYS"] = int(days)
    return found


def instance_path(test_config: Mapping[str, Any] | None = None) -> str | None:
    """The instance folder a server is told (``COMPANION_INSTANCE``, an absolute path: a hosted
    server's /srv/companion/instance), else None: ``instance/`` beside the code. Never for a
    test."""
    return (os.environ.get("COMPANION_INSTANCE") or None) if test_config is None else None


def load(app: Flask, test_config: Mapping[str, Any] | None = None) -> None:
    """:class:`Config`, then ``instance/config.py`` if present, then the environment — or, for a
    test, its ``test_config`` instead of those two — then the database file in the instance
    folder unless one was named. (The server's app and the operator's commands' read the same.)"""
    instance = Path(app.instance_path)
    instance.mkdir(mode=0o700, parents=True, exist_ok=True)  # games and the key: owner only
    app.config.from_object(Config)
    if test_config is None:
        app.config.from_pyfile("config.py", silent=True)
        app.config.from_mapping(environment())
    else:
        app.config.from_mapping(test_config)
    app.config.setdefault("DATABASE", str(instance / "companion.sqlite"))
