"""Installable and offline: the web app manifest, the service worker and what it precaches."""

from __future__ import annotations

import hashlib
from functools import cache
from importlib import resources
from pathlib import Path

from flask import Blueprint, Flask, current_app, jsonify, render_template, request, url_for
from werkzeug.wrappers import Response

from ..rulings import rebel_princess as rulings

bp = Blueprint("pwa", __name__)

STATIC_FILES = ("app.css", "app.js", "htmx-2.0.11.min.js", "icon.svg", "icon-192.png",
                "icon-512.png")


@cache
def _content_version(static_folder: str) -> str:
    """Changes whenever a static file or the rulings content changes, so phones refresh their
    offline copy after an update."""
    digest = hashlib.sha256()
    for path in sorted(Path(static_folder).rglob("*")):
        if path.is_file():
            digest.update(path.name.encode() + path.read_bytes())
    rulings_files = resources.files("companion.rulings.rebel_princess").iterdir()
    for item in sorted(rulings_files, key=lambda p: p.name):
        if item.name.endswith(".toml"):
            digest.update(item.read_bytes())
    return digest.hexdigest()[:12]


@bp.get("/sw.js")
def service_worker() -> Response:
    """The service worker, served from the root so it may look after every page."""
    folder = current_app.static_folder or ""
    script = (Path(folder) / "sw.js").read_text(encoding="utf-8")
    script = script.replace("__VERSION__", _content_version(folder))
    response = Response(script, mimetype="text/javascript")
    response.headers["Cache-Control"] = "no-cache"
    return response


@bp.get("/offline.json")
def offline_list() -> Response:
    """Every URL the service worker stores at install: the rulings and what pages need."""
    asset = current_app.jinja_env.globals["asset"]
    urls = [url_for("pwa.offline"), url_for("pwa.offline", action="save"),
            url_for("rebel_princess.rules_index"), url_for("pwa.manifest")]
    urls += [url_for("rebel_princess.rule", slug=e.slug) for e in rulings.entries()]
    urls += [asset(name) for name in STATIC_FILES]  # type: ignore[operator]
    response = jsonify(urls=urls)
    response.headers["Cache-Control"] = "no-cache"
    return response


@bp.get("/offline")
def offline() -> str:
    """What a page not stored on this phone shows with no network (or a save that failed)."""
    return render_template("offline.html", failed_save=request.args.get("action") == "save")


@bp.get("/manifest.webmanifest")
def manifest() -> Response:
    """Lets a phone install the app on its home screen."""
    asset = current_app.jinja_env.globals["asset"]
    data = {
        "name": "Rebel Princess companion",
        "short_name": "Rebel Princess",
        "start_url": url_for("shell.index"),
        "scope": "/",
        "display": "standalone",
        "background_color": "#f7f3ee",
        "theme_color": "#3b2a5c",
        "icons": [
            {"src": asset("icon-192.png"), "sizes": "192x192", "type": "image/png"},  # type: ignore[operator]
            {"src": asset("icon-512.png"), "sizes": "512x512", "type": "image/png"},  # type: ignore[operator]
            {"src": asset("icon.svg"), "sizes": "any", "type": "image/svg+xml"},  # type: ignore[operator]
        ],
    }
    response = jsonify(data)
    response.mimetype = "application/manifest+json"
    return response


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
