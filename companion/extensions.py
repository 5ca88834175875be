"""The Flask extensions every part of the app shares, created unbound and bound to the app in
the factory (:func:`companion.factory.create_app`), so that routes import them from here and
never import the factory."""

from __future__ import annotations

from flask_caching import Cache
from flask_compress import Compress
from flask_wtf.csrf import CSRFProtect

csrf = CSRFProtect()
compress = Compress()
page_store = Cache()
"""Where a game's page drawn once is kept for every phone and every server process
(:func:`companion.routes.page_store.cached_page`): Redis when ``CACHE_REDIS_URL`` (or a Redis
``RATELIMIT_STORAGE_URI``) names one, else files in the instance folder (see the factory)."""
