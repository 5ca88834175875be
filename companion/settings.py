"""The configuration every app of companion reads — the server's (:mod:`companion.factory`)
and the operator's commands' (:mod:`companion.operator`): the defaults, the environment's
settings, then ``instance/config.py`` if present, then a test's own config."""

from __future__ import annotations

import os
from datetime import timedelta
from pathlib import Path
from typing import Any

from flask import Flask


def configure(app: Flask, test_config: dict[str, Any] | None = None) -> None:
    """Fill ``app.config``: defaults, then ``instance/config.py`` (or ``test_config``)."""
    instance = Path(app.instance_path)
    instance.mkdir(mode=0o700, parents=True, exist_ok=True)  # games and the key: owner only
    app.config.from_mapping(
        DATABASE=str(instance / "companion.sqlite"),
        # PostgreSQL instead of the embedded SQLite when one machine is not enough (tests say
        # which database they use in their own config, never through the environment).
        DATABASE_URL=(os.environ.get("DATABASE_URL") or None) if test_config is None else None,
        # Groups idle for more than this many days are deleted by `flask groups purge`
        # (off when unset).
        GROUP_PURGE_DAYS=(int(os.environ["GROUP_PURGE_DAYS"]) if os.environ.get(
            "GROUP_PURGE_DAYS", "").isdigit() else None) if test_config is None else None,
        # The address other phones open (QR codes); else this machine's network address.
        PUBLIC_URL=(os.environ.get("PUBLIC_URL") or None) if test_config is None else None,
        # How many proxies in front (their X-Forwarded-For/-Proto are believed), and a store
        # the rate limits share across processes and servers (see companion.security).
        TRUSTED_PROXIES=os.environ.get("TRUSTED_PROXIES") or 0 if test_config is None else 0,
        RATELIMIT_STORAGE_URI=(os.environ.get("RATELIMIT_STORAGE_URI") or None)
        if test_config is None else None,
        # Where a game's page drawn once is kept for every phone (companion.routes.links
        # .cached_page): a Redis every server shares when one is named (CACHE_REDIS_URL, else a
        # Redis RATELIMIT_STORAGE_URI: one Redis for both), else files beside the SQLite database
        # (instance/pages) that this machine's server processes share; tests keep theirs in the
        # app (SimpleCache).
        CACHE_REDIS_URL=(os.environ.get("CACHE_REDIS_URL") or None) if test_config is None
        else None,
        CACHE_THRESHOLD=1000,  # drawings kept (files), at most 32 kB each (links.PAGE_MAX_BYTES)
        CACHE_DEFAULT_TIMEOUT=2 * 3600,  # an old version is never asked for again: let it go
        CACHE_KEY_PREFIX="companion-page:",
        # Who may read /metrics (addresses or networks, comma-separated): this machine only.
        METRICS_ALLOW=os.environ.get("METRICS_ALLOW") if test_config is None else None,
        # Game nights outlast Flask-WTF's one-hour default: tie the token to the session instead.
        WTF_CSRF_TIME_LIMIT=None,
        MAX_CONTENT_LENGTH=64 * 1024,
        SESSION_COOKIE_SAMESITE="Lax",
        # The CSRF token lives in the session: keep it for a month so closing the browser tab
        # between two rounds does not turn the next save into an error.
        PERMANENT_SESSION_LIFETIME=timedelta(days=31),
        # Static files are linked with a content hash (see ``asset``), so phones may keep them.
        SEND_FILE_MAX_AGE_DEFAULT=timedelta(days=365),
    )
    if test_config is None:
        app.config.from_pyfile("config.py", silent=True)
    else:
        app.config.from_mapping(test_config)
