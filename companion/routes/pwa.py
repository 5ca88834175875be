"""Installable and offline: the web app manifest, the service worker and the pages it stores.

A first visit stays light. The page registers the service worker only once it is idle
(``app.js``); the worker then asks for the offline copy in **one** answer,
``/offline/pages-<lang>.json``: the offline pages and every rulings page of every game, in the
phone's language, as the app renders them. Most of a page is the same from page to page (head,
icons, header), so the answer sends each distinct *frame* once and, per page, only the parts that
change (its title, the links that come back to it, its ``<main>``); the worker fills the frames
back into the very same HTML and stores each page under its own address, with the page's own
headers (:func:`split_page`; ``fill`` in ``sw.js``).

The copy is the same for every phone: it is rendered without anyone's session (a stored page is
only ever shown with no network, when nothing can be sent anyway), so each server process builds
it once per language and keeps it compressed at the strongest level.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import brotli
from flask import (
    Blueprint,
    Flask,
    abort,
    current_app,
    jsonify,
    render_template,
    request,
    url_for,
)
from werkzeug.wrappers import Response

from ..games import PACKAGE_DIR, RulingsAddresses, SearchRow
from ..rulings import STOP_WORDS
from ..web.i18n import COOKIE, LANGUAGES
from .shell import rulings_addresses

bp = Blueprint("pwa", __name__)

SearchIndex = dict[str, tuple[SearchRow, ...]]
"""Search page address -> its entries (see :data:`companion.routes.shell.SearchRow`)."""

SLOT = "\0"
"""Marks a slot in a frame: ``frame.split(SLOT)`` alternates text and slot numbers."""

_TITLE = re.compile(r"<title>(.*?)</title>", re.S)
_MAIN = re.compile(r"<main>(.*)</main>", re.S)
_BACK_HERE = re.compile(r'href="([^"]*[?&;]next=[^"]*)"')  # e.g. the language switch

# What a stored copy of a page keeps of its headers: all but these (the Content-Security-Policy
# above all stays).
_DROPPED_HEADERS = {"content-length", "set-cookie", "vary", "date", "etag", "last-modified",
                    "cache-control", "content-encoding", "expires"}


@cache
def _content_version(static_folder: str) -> str:
    """Changes whenever a static file or what the stored pages are made of (rulings, templates,
    translations) changes, so phones refresh their offline copy after an update."""
    digest = hashlib.sha256()
    folders = [Path(static_folder), *(PACKAGE_DIR / name
                                      for name in ("rulings", "templates", "translations"))]
    for folder in folders:
        for path in sorted(folder.rglob("*")):
            if path.is_file() and path.suffix not in (".mo", ".pyc"):
                digest.update(path.name.encode() + path.read_bytes())
    return digest.hexdigest()[:12]


@bp.get("/sw.js")
def service_worker() -> Response:
    """The service worker, served from the root so it may look after every page."""
    folder = current_app.static_folder or ""
    script = (Path(folder) / "sw.js").read_text(encoding="utf-8")
    script = script.replace("__VERSION__", _content_version(folder))
    response = Response(script, mimetype="text/javascript")
    # no-cache: the phone asks each time, and an ETag lets the answer be a 304 while nothing
    # changed (the version is in the script, so its hash changes with every update). The same
    # script for every language and session: no Vary on either (companion.web.i18n, the factory).
    response.headers["Cache-Control"] = "no-cache"
    response.set_etag(hashlib.sha256(script.encode()).hexdigest()[:20])
    return response.make_conditional(request)


# --- the offline copy in one answer -------------------------------------------------------------

@dataclass(frozen=True)
class StoredPage:
    """One page of a bundle: its address, the number of its frame and its slot values."""

    path: str
    frame: int
    values: tuple[str, ...]


@dataclass(frozen=True)
class PageBundle:
    """Pages sent in one answer for the service worker to store (see the module docstring)."""

    lang: str
    headers: dict[str, str]
    frames: tuple[str, ...]
    pages: tuple[StoredPage, ...]
    redirects: dict[str, str]
    search: SearchIndex = field(default_factory=dict)
    """Each rulings search page's entries, searched by ``rulings_search.js`` with no network."""
    assets: tuple[str, ...] = ()
    """Static files the stored pages need besides their own (the offline search script)."""
    weigh_summary: tuple[str, ...] = ()
    """Search pages whose search counts a word's times in the summary (Rebel Princess's)."""

    def as_json(self) -> dict[str, Any]:
        return {"lang": self.lang, "headers": self.headers, "frames": self.frames,
                "pages": [[p.path, p.frame, p.values] for p in self.pages],
                "redirects": self.redirects, "assets": self.assets,
                "search": {"stop": " ".join(sorted(STOP_WORDS)), "index": self.search,
                           "weigh_summary": self.weigh_summary}}

    def page(self, path: str) -> str:
        """The HTML of the page stored at ``path`` (``KeyError`` if there is none)."""
        for stored in self.pages:
            if stored.path == path:
                return fill_frame(self.frames[stored.frame], stored.values)
        raise KeyError(path)


def split_page(html: str) -> tuple[str, tuple[str, ...]]:
    """A page as ``(frame, values)``: its title, the links that come back to it (they carry its
    address) and the content of its ``<main>`` cut out into numbered slots, so pages of one game
    share one frame. ``fill_frame(*split_page(html)) == html`` for every page; a page without a
    ``<main>`` is a frame of its own with no slot."""
    if SLOT in html:
        raise ValueError("a page holding the slot marker cannot be split")
    main = _MAIN.search(html)
    if main is None:
        return html, ()
    spans = [main.span(1)]
    title = _TITLE.search(html, 0, main.start())
    if title is not None:
        spans.append(title.span(1))
    for start, end in ((0, main.start()), (main.end(), len(html))):
        spans += [m.span(1) for m in _BACK_HERE.finditer(html, start, end)]
    frame: list[str] = []
    values: list[str] = []
    position = 0
    for start, end in sorted(spans):
        frame += [html[position:start], SLOT, str(len(values)), SLOT]
        values.append(html[start:end])
        position = end
    frame.append(html[position:])
    return "".join(frame), tuple(values)


def fill_frame(frame: str, values: tuple[str, ...] | list[str]) -> str:
    """The page back from its frame and slot values (what ``fill`` in ``sw.js`` does)."""
    return "".join(values[int(part)] if i % 2 else part
                   for i, part in enumerate(frame.split(SLOT)))


def offline_addresses(lang: str = "en") -> tuple[list[str], RulingsAddresses]:
    """What the offline copy holds: the two offline pages and every rulings page, and the rulings
    (with the addresses that redirect to them and each game's search index in ``lang``)."""
    rulings = rulings_addresses(lang)
    pages = [url_for("pwa.offline"), url_for("pwa.offline", action="save"), *rulings.pages]
    return pages, rulings


def build_bundle(app: Flask, lang: str) -> PageBundle:
    """The offline copy in ``lang``, rendered by the app's own views for a phone with no session.

    The pages share an application context of their own (one ``g``: database session, locale,
    CSRF token), apart from the request asking."""
    frames: dict[str, int] = {}
    pages: list[StoredPage] = []
    headers: dict[str, str] = {}
    with app.app_context():
        with app.test_request_context():
            addresses, rulings = offline_addresses(lang)
            assets = (str(app.jinja_env.globals["asset"]("rulings_search.js")),)  # type: ignore[operator]
        for path in addresses:
            with app.test_request_context(path, headers={"Cookie": f"{COOKIE}={lang}"}):
                response = app.full_dispatch_request()
            if response.status_code != 200:
                continue  # not a page after all: the worker keeps asking the network for it
            frame, values = split_page(response.get_data(as_text=True))
            pages.append(StoredPage(path, frames.setdefault(frame, len(frames)), values))
            headers = headers or {name: value for name, value in response.headers.items()
                                  if name.lower() not in _DROPPED_HEADERS}
    return PageBundle(lang, headers, tuple(frames), tuple(pages), dict(rulings.aliases),
                      dict(rulings.search), assets, rulings.weigh_summary)


@dataclass(frozen=True)
class _Encoded:
    """A bundle's JSON, compressed once at the strongest levels."""

    br: bytes
    gzip: bytes
    identity: bytes


def _encoded_bundle(lang: str) -> _Encoded:
    # (werkzeug documents _get_current_object as the way to unwrap the proxy: not our private)
    app = current_app._get_current_object()  # type: ignore[attr-defined]  # noqa: SLF001
    built: dict[str, _Encoded] = app.extensions.setdefault("companion.offline", {})
    if lang not in built or app.debug:  # debug: templates may change without a restart
        data = json.dumps(build_bundle(app, lang).as_json(), ensure_ascii=False,
                          separators=(",", ":")).encode()
        built[lang] = _Encoded(brotli.compress(data, quality=11),
                               gzip.compress(data, compresslevel=9, mtime=0), data)
    return built[lang]


@bp.get("/offline/pages-<lang>.json")
def offline_pages(lang: str) -> Response:
    """The offline copy in ``lang``, in one answer, for the service worker to store."""
    if lang not in LANGUAGES:
        abort(404)
    encoded = _encoded_bundle(lang)
    accepted = request.accept_encodings
    encoding = next((name for name in ("br", "gzip") if accepted[name]), "identity")
    response = Response(getattr(encoded, encoding), mimetype="application/json")
    if encoding != "identity":
        response.headers["Content-Encoding"] = encoding
    response.headers["Cache-Control"] = "no-cache"
    response.vary.add("Accept-Encoding")
    return response


# --- pages --------------------------------------------------------------------------------------

@bp.get("/offline")
def offline() -> str:
    """What a page not stored on this phone shows with no network (or a save that failed)."""
    return render_template("offline.html", failed_save=request.args.get("action") == "save")


@bp.get("/manifest.webmanifest")
def manifest() -> Response:
    """Lets a phone install the app on its home screen."""
    asset = current_app.jinja_env.globals["asset"]
    data = {
        "name": "Princess Table: princess card games at the table",
        "short_name": "Princess Table",
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
