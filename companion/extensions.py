"""The Flask extensions every part of the app shares, created unbound and bound to the app in
the factory (:func:`companion.factory.create_app`), so that routes import them from here and
never import the factory."""

from __future__ import annotations

from flask_compress import Compress
from flask_wtf.csrf import CSRFProtect

csrf = CSRFProtect()
compress = Compress()
