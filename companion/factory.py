"""The app factory: configuration, CSRF, the database and the blueprints."""

from __future__ import annotations

import os
import secrets
from datetime import timedelta
from pathlib import Path
from typing import Any

from flask import Flask, render_template, request, session
from flask_wtf.csrf import CSRFError, CSRFProtect

csrf = CSRFProtect()


def _secret_key(instance: Path) -> str:
    """Read the secret key from the instance folder, creating it on first run (never committed)."""
    path = instance / "secret_key"
    if not path.exists():
        path.write_text(secrets.token_hex(32), encoding="utf-8")
        path.chmod(0o600)
    return path.read_text(encoding="utf-8").strip()


def create_app(test_config: dict[str, Any] | None = None) -> Flask:
    """Build the app: defaults, then ``instance/config.py`` if present, then ``test_config``."""
    app = Flask(__name__, instance_relative_config=True)
    instance = Path(app.instance_path)
    instance.mkdir(parents=True, exist_ok=True)
    app.config.from_mapping(
        DATABASE=str(instance / "companion.sqlite"),
        # Game nights outlast Flask-WTF's one-hour default: tie the token to the session instead.
        WTF_CSRF_TIME_LIMIT=None,
        MAX_CONTENT_LENGTH=64 * 1024,
        SESSION_COOKIE_SAMESITE="Lax",
        # The CSRF token lives in the session: keep it for a month so closing the browser tab
        # between two rounds does not turn the next save into an error.
        PERMANENT_SESSION_LIFETIME=timedelta(days=31),
    )
    if test_config is None:
        app.config.from_pyfile("config.py", silent=True)
    else:
        app.config.from_mapping(test_config)
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = os.environ.get("COMPANION_SECRET_KEY") or _secret_key(instance)

    app.jinja_env.add_extension("jinja2.ext.do")
    csrf.init_app(app)

    from . import db

    db.init_app(app)

    from .routes import api, games

    app.register_blueprint(games.bp)
    app.register_blueprint(api.bp)
    csrf.exempt(api.bp)  # the JSON API is stateless: no session, no cookie, nothing to forge

    @app.before_request
    def _keep_session() -> None:
        if not request.path.startswith("/api/"):
            session.permanent = True

    @app.errorhandler(404)
    def _not_found(_error: Exception) -> tuple[str, int]:
        return render_template("errors/404.html"), 404

    @app.errorhandler(CSRFError)
    def _csrf_failed(_error: CSRFError) -> tuple[str, int]:
        return render_template("errors/csrf.html"), 400

    return app
