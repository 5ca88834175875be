"""The app factory: configuration, CSRF, the database and the blueprints."""

from __future__ import annotations

import hashlib
import os
import secrets
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from flask import (
    Blueprint,
    Flask,
    Response,
    render_template,
    request,
    url_for,
)
from flask_wtf.csrf import CSRFError
from jinja2 import Template
from jinja2.runtime import Context
from werkzeug.exceptions import HTTPException
from werkzeug.routing import IntegerConverter

from . import config
from .common.bounds import DB_INT_MAX
from .extensions import compress, csrf, page_store  # (created in extensions.py, bound here)
from .games import GameKind, plug_in, registry
from .web.requests import itself
from .web.session_cookie import SessionInterface
from .web.urls import RememberingMap


def _secret_key(instance: Path) -> str:
    """Read the secret key from the instance folder, creating it on first run (never committed)."""
    path = instance / "secret_key"
    if not path.exists():
        # Private from the first byte: written 0600 under a name of its own, then put in place
        # in one step, so a second worker starting at the same moment never reads it half
        # written (it reads the whole key, or finds none and puts its own, which loses).
        draft = instance / f".secret_key.{os.getpid()}.{secrets.token_hex(4)}"
        descriptor = os.open(draft, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "w", encoding="utf-8") as file:
            file.write(secrets.token_hex(32))
        try:
            os.link(draft, path)  # fails if another process put its key first: keep that one
        except FileExistsError:
            pass
        finally:
            draft.unlink()
    return path.read_text(encoding="utf-8").strip()


class _Template(Template):
    """Jinja's template, with a cheaper check when another template imports its macros
    (``{% from ... import ... %}``, done on every render of the importing template): Jinja
    builds a new module when the importer sees globals the imported template lacks, and finds
    out by a set difference against a ChainMap's keys, in Python, one key at a time (about a
    fifth of drawing the trick screen). When every global the importer sees is the app's own,
    which every template also sees, the answer is the same (the kept module), found in C."""

    def _get_default_module(self, ctx: Context | None = None) -> Any:
        if ctx is not None and ctx.globals_keys <= self.environment.globals.keys():
            ctx = None
        return super()._get_default_module(ctx)


def asset_url(app: Flask):  # type: ignore[no-untyped-def]
    """A template helper: the URL of a static file with a hash of its content, so a phone can
    cache it for a year and still gets the new file after an update."""
    hashes: dict[str, str] = {}

    def asset(filename: str) -> str:
        if filename not in hashes:
            data = (Path(app.static_folder or "") / filename).read_bytes()
            hashes[filename] = hashlib.sha256(data).hexdigest()[:10]
        return url_for("static", filename=filename, v=hashes[filename])

    return asset


def number(value: float) -> str:
    """A number as every page prints it (``{{ total | number }}``): a negative one with the
    minus sign (U+2212, as the rulebooks print it), not a hyphen. A filter rather than a
    macro: a score pad prints some forty."""
    return f"\u2212{-value}" if value < 0 else str(value)


class StoredIntConverter(IntegerConverter):
    """Werkzeug's ``int`` converter, bounded by what an integer column stores (2^31 - 1)."""

    def __init__(self, map: Any, fixed_digits: int = 0, min: int | None = None,
                 max: int | None = DB_INT_MAX, signed: bool = False) -> None:
        super().__init__(map, fixed_digits=fixed_digits, min=min, max=max, signed=signed)


PLAIN = "__companion_plain__"
"""The mark :meth:`_App.ensure_sync` leaves on a function it found plain (no coroutine)."""


class _App(Flask):
    """Flask, whose ``ensure_sync`` (every hook and view of a request goes through it: an
    ``inspect`` of each, some twenty a request) remembers the plain functions it has seen —
    marked on the function itself (:data:`PLAIN`; a method's on its function, whose verdict
    is the method's), a callable that takes no mark weakly (a function made for one request
    is not kept either way) — and whose URL map remembers the URLs it has built
    (:mod:`companion.web.urls`)."""

    url_map_class = RememberingMap

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.plain_functions: weakref.WeakKeyDictionary[Callable[..., Any], bool] = \
            weakref.WeakKeyDictionary()

    def ensure_sync(self, func: Callable[..., Any]) -> Callable[..., Any]:
        # (the mark read first: a tenth of the weak table's lookup, some 9 µs a request)
        if getattr(func, PLAIN, False) is True:
            return func
        try:
            if func in self.plain_functions:
                return func
        except TypeError:  # (a callable that takes no weak reference: asked each time)
            return super().ensure_sync(func)
        found = super().ensure_sync(func)
        if found is func:
            try:  # (a bound method is marked on its function: Flask asks the same of both)
                setattr(getattr(func, "__func__", func), PLAIN, True)
            except (AttributeError, TypeError):  # (a builtin: no attributes of its own)
                self.plain_functions[func] = True
        return found


def create_app(test_config: dict[str, Any] | None = None) -> Flask:
    """Build the app: its settings (:mod:`companion.config`), the extensions, the blueprints."""
    app = _App(__name__, instance_relative_config=True,
               instance_path=config.instance_path(test_config))
    # ``<int:…>`` in an address is a row id or a number we store: above what the databases hold
    # it names nothing (404), instead of overflowing a query (500).
    app.url_map.converters["int"] = StoredIntConverter
    app.session_interface = SessionInterface()
    plug_in_games()
    _configure(app, test_config)
    _init_extensions(app)
    _init_templates(app)
    _register_blueprints(app)
    _init_responses(app)

    from .ops import jobs, schema
    from .web import logs

    logs.redis_at_start(schema.redis_url(app.config))  # an outage at start is said, once
    # Nothing is written at start: summaries missing from an older database are stored by
    # `flask db upgrade` (or `flask summaries`), the step before a server starts. A database
    # down at start gets the start's sweep of dead processes' imports once it comes up.
    guard = app.extensions["companion.schema"]
    if not guard.is_ready():
        guard.when_ready.append(lambda: jobs.sweep(app))
    return app


def _configure(app: Flask, test_config: dict[str, Any] | None) -> None:
    """:class:`~companion.config.Config`, then ``instance/config.py`` if present, then the
    environment — or, for a test, its ``test_config`` instead of those two — then what follows
    from them (the database file, the secret key, the page store)."""
    config.load(app, test_config)
    instance = Path(app.instance_path)
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = os.environ.get("COMPANION_SECRET_KEY") or _secret_key(instance)
    _configure_page_store(app)


def _configure_page_store(app: Flask) -> None:
    """Where drawn pages are kept (see ``CACHE_REDIS_URL`` in :class:`~companion.config.Config`)."""
    if not app.config.get("CACHE_REDIS_URL") and str(
            app.config.get("RATELIMIT_STORAGE_URI") or "").startswith(("redis://", "rediss://")):
        app.config["CACHE_REDIS_URL"] = app.config["RATELIMIT_STORAGE_URI"]
    app.config.setdefault("CACHE_TYPE", "RedisCache" if app.config["CACHE_REDIS_URL"] else
                          "SimpleCache" if app.testing else "companion.web.page_files.PageFiles")
    if app.config["CACHE_TYPE"] == "RedisCache":
        # A Redis that stops answering costs a page drawn, never a page that hangs.
        app.config.setdefault("CACHE_OPTIONS", {"socket_timeout": 0.5,
                                                "socket_connect_timeout": 0.5})
    app.config.setdefault("CACHE_DIR", str(Path(app.config["DATABASE"]).parent / "pages"))
    if not app.config.get("EXPORT_DIR"):  # (a group's exports: companion.play.export_jobs)
        app.config["EXPORT_DIR"] = str(Path(app.config["DATABASE"]).parent / "exports")
    app.config.setdefault("CACHE_NO_NULL_WARNING", True)  # NullCache: every page drawn afresh


def _init_extensions(app: Flask) -> None:
    """The log and the counts, the page store, security, CSRF, compression, Babel, the
    database and the commands."""
    from . import db
    from .ops import cli, jobs, schema
    from .play import people, push, store, summaries
    from .routes import live
    from .web import i18n, logs, metrics, requests, security

    # Before anything else hooks requests: every request is timed, counted and logged, those
    # the rate limits or CSRF refuse included.
    logs.init_app(app)  # request ids, the access line (tokens masked), the error page
    metrics.init_app(app)  # /metrics' counts (companion.web.metrics)
    page_store.init_app(app)
    # First, so that its proxy fix and its counting of writes come before anything else.
    security.init_app(app)  # proxy fix, headers, rate limits
    csrf.init_app(app)
    compress.init_app(app)
    i18n.init_app(app)  # Flask-Babel: French or English per request; ``_`` in templates
    app.request_class = requests.AppRequest  # (i18n's request, a write's form read in one pass)
    # The engine, the session, and the schema check a server makes at start (it never migrates
    # a database that holds anything: `flask db upgrade` does).
    engine = db.attach(app)
    schema.init_app(app, engine)
    cli.init_app(app)  # flask groups …: for the person running the server
    jobs.init_app(app)  # imports outside the request; cleans up after those whose process died
    # Every session, whichever game stores through it, hooked here and nowhere else: the rows
    # and replays it read are forgotten when its transaction ends, a seat stored gets its
    # person, a game stored its summary (in the same transaction).
    store.install()
    people.install()
    summaries.install()
    # After each commit that changes a game: its version to the proxy (when the app has one).
    push.install()
    # A viewer's page in each language gets its live part drawn with the version.
    push.register(engine, push.Publisher(app.config, metrics.count_publish,
                                         draw=live.viewer_part(app), languages=i18n.LANGUAGES))


def _init_templates(app: Flask) -> None:
    """Jinja's extension and template class, and the helpers every template sees."""
    from .common import colours
    from .common.release import version
    from .routes import page_store

    app.jinja_env.add_extension("jinja2.ext.do")
    app.jinja_env.template_class = _Template
    app.add_template_global(asset_url(app), "asset")
    app.add_template_global(colours.seat_class)  # one colour and initial per player
    app.add_template_global(colours.initials)
    app.add_template_global(page_store.flash_area)  # in base.html: this request's messages
    app.add_template_filter(number)  # every score, total and figure a page prints
    app.jinja_env.globals["app_version"] = version()  # in base.html's footer


@dataclass(frozen=True)
class Mount:
    """A blueprint the app serves, under ``url_prefix`` (else its own). A ``stateless`` one is
    never checked for a CSRF token: the JSON API (no session, no cookie, nothing to forge) and
    the redirects of old addresses (they write nothing)."""

    blueprint: Blueprint
    url_prefix: str | None = None
    stateless: bool = False


def blueprints() -> list[Mount]:
    """Every blueprint of the app, in the order they are registered: the shell's, then each
    available game's from the registry (:mod:`companion.games`: its pages under ``/<slug>/``,
    its API under ``/api/v1/<slug>/`` with the API's shared refusals, the redirects of its old
    addresses after its pages), then the history's, the API's and the offline copy's. A
    blueprint's app-wide hooks (a link or group resolved before a view, the template helpers)
    are declared on it and installed with it."""
    from .routes import api, closed, exports, groups, health, history, links, live, pwa, qr, shell
    from .web import i18n

    mounts = [Mount(i18n.bp), Mount(closed.bp), Mount(shell.bp), Mount(links.bp), Mount(qr.bp),
              Mount(live.bp), Mount(groups.bp)]
    for kind in registry():
        if not kind.available:
            continue
        pages = kind.pages()
        mounts.append(Mount(pages.bp, f"/{kind.slug}"))
        if pages.api_bp is not None:
            api.install_error_handlers(pages.api_bp)
            mounts.append(Mount(pages.api_bp, f"/api/v1/{kind.slug}", stateless=True))
        if pages.old_addresses:
            mounts.append(Mount(shell.old_addresses(kind, tuple(pages.old_addresses)),
                                stateless=True))
    return [*mounts, Mount(history.bp), Mount(exports.bp), Mount(history.records_bp),
            Mount(history.restore_bp),
            Mount(api.bp, stateless=True), Mount(pwa.bp), Mount(health.bp, stateless=True)]


def plug_in_games() -> None:
    """Register every game's parts with the registry (:func:`companion.games.plug_in`): its
    summaries and entry shapes for history (``GLUE``, a :class:`~companion.games.GameGlue`,
    :func:`companion.ops.operator.plug_in_glue`, which the operator's app uses alone), then its
    pages (``PAGES``, a :class:`~companion.games.GamePages`), each checked by ``mypy --strict``
    here. The registry imports no game itself: the games' pages read the registry."""
    from .ops.operator import plug_in_glue
    from .routes import kanai_duel, princesse_princesse, rebel_princess, reveillez

    plug_in_glue()
    plug_in("rebel_princess", rebel_princess.PAGES)
    plug_in("princesse_princesse", princesse_princesse.PAGES)
    plug_in("reveillez", reveillez.PAGES)
    plug_in("kanai_duel", kanai_duel.PAGES)


def _register_blueprints(app: Flask) -> None:
    """The converter of ``/<game:…>/`` addresses, then :func:`blueprints`."""
    from .routes.shell import GameConverter

    app.url_map.converters["game"] = GameConverter
    # (a URL built with a game kind is remembered under its slug: all the converter reads)
    cast(RememberingMap, app.url_map).remember_values_of(GameKind, lambda kind: kind.slug)
    for mount in blueprints():
        if mount.blueprint.name in app.blueprints:
            continue  # one routes module for two registry lines: mounted once
        app.register_blueprint(mount.blueprint, url_prefix=mount.url_prefix)
        if mount.stateless:
            csrf.exempt(mount.blueprint)


def _init_responses(app: Flask) -> None:
    """What every answer goes through: static files buffered, the error pages."""
    from .routes import closed
    from .web.api_schema import http_error

    @app.after_request
    def _buffer_static(response: Response) -> Response:
        # Flask-Compress reads a file response without closing the file; read and close it here
        # first (this runs before Flask-Compress, which was registered earlier).
        if itself(request).endpoint == "static" and response.direct_passthrough:
            data = b"".join(response.response)  # type: ignore[arg-type]
            response.close()
            response.direct_passthrough = False
            response.set_data(data)
        return response

    @app.errorhandler(HTTPException)
    def _http_error(error: HTTPException) -> Any:
        # Under /api/ every refusal has the JSON shape; pages get a page for a missing game.
        answer = http_error(error)
        if answer is not None:
            return answer
        if error.code == 404:
            if closed.deleted_meanwhile():  # a game opened by its link, deleted since
                return closed.page(closed.GONE)
            return render_template("errors/404.html"), 404
        if error.code == 403:
            return render_template("errors/403.html"), 403
        return error

    @app.errorhandler(CSRFError)
    def _csrf_failed(_error: CSRFError) -> tuple[str, int]:
        return render_template("errors/csrf.html"), 400
