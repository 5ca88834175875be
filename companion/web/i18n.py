"""The web app's languages: English and French, picked per request with Flask-Babel.

A ``lang`` cookie, set by the FR | EN switch in the header, wins; otherwise the browser's
``Accept-Language`` decides; English is the default. The JSON API never translates: it is for
programs, and its problem messages stay English.

Templates get ``_``/``gettext``/``ngettext`` (Jinja's i18n extension, installed by Flask-Babel),
``current_lang`` (``"en"`` or ``"fr"``) and ``get_locale``.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence
from functools import cache, lru_cache
from pathlib import Path
from typing import Any, Protocol, cast
from urllib.parse import urlsplit

from babel import support
from flask import (
    Blueprint,
    Flask,
    Request,
    abort,
    g,
    has_request_context,
    redirect,
    request,
    url_for,
)
from flask_babel import Babel, Domain, get_locale, get_translations
from jinja2 import pass_context
from jinja2.runtime import Context
from markupsafe import Markup
from werkzeug.wrappers import Response
from wtforms.i18n import messages_path

from .french import format_sentence
from .local_time import time_element

LANGUAGES = ("en", "fr")
DEFAULT = "en"
COOKIE = "lang"
COOKIE_AGE = 60 * 60 * 24 * 365
SAME_IN_EVERY_LANGUAGE = frozenset({"static", "pwa.service_worker"})
"""Answers that never depend on the language or the session: no ``Vary`` on either."""

babel = Babel()
bp = Blueprint("i18n", __name__)


def select_locale() -> str:
    """The switch's cookie, else the browser's best match, else English."""
    if not has_request_context():
        return DEFAULT
    if request.path.startswith("/api/"):
        return DEFAULT
    chosen = request.cookies.get(COOKIE)
    if chosen in LANGUAGES:
        return chosen
    return request.accept_languages.best_match(LANGUAGES) or DEFAULT


def current_lang() -> str:
    """``"en"`` or ``"fr"``: the language of this request (English outside a request)."""
    if not has_request_context():
        return DEFAULT
    locale = _request_locale(g._get_current_object())  # noqa: SLF001  (werkzeug: public)
    return locale.language if locale is not None and locale.language in LANGUAGES else DEFAULT


def _request_locale(kept_here: Any) -> Any:
    """The locale of this request: where Flask-Babel keeps it for the request
    (``g._flask_babel.babel_locale``, which ``force_locale`` sets too), read with one lookup of
    ``g`` (``kept_here``, the context's own object) where ``get_locale()`` makes three (a page
    asks for its language some fifty times: each card's name, each step of the duel's
    reasoning); not kept there yet, or kept elsewhere by another Flask-Babel: ``get_locale()``,
    which keeps it."""
    locale = getattr(getattr(kept_here, "_flask_babel", None), "babel_locale", None)
    return locale if locale is not None else get_locale()


def _safe_next(target: str | None) -> str:
    """Only a path on this site, never another host (an open redirect).

    Checked on the decoded value: a browser drops tabs and newlines from a URL and reads a
    backslash as a slash, so ``/\t/evil.example`` would become ``//evil.example``; anything with
    white space or a control character is refused, as is anything a browser reads as a host."""
    if not target or any(c.isspace() or ord(c) < 32 or ord(c) == 127 for c in target):
        return "/"
    parts = urlsplit(target)
    if (not target.startswith("/") or target.startswith(("//", "/\\")) or "\\" in target
            or parts.scheme or parts.netloc):
        return "/"
    return target


@bp.get("/lang/<lang>")
def switch(lang: str) -> Response:
    """Remember the chosen language in a cookie and go back to the page the switch was on."""
    if lang not in LANGUAGES:
        abort(404)
    response = redirect(_safe_next(request.args.get("next")))
    # A preference, not an action: nothing to forge, so a plain link (no form, no CSRF, no JS).
    response.set_cookie(COOKIE, lang, max_age=COOKIE_AGE, samesite="Lax", httponly=True,
                        secure=request.is_secure)
    return response


def switch_url(lang: str) -> str:
    """The switch link for ``lang``, coming back to the current page."""
    here = "/"
    if has_request_context():
        # After a rejected POST, come back to the page (a GET), not to the POST.
        # (a page drawn to be shared by a game's links: its path with the links' mark,
        # companion.routes.page_store)
        here = g.get("drawn_path") or (request.full_path.rstrip("?") if request.method == "GET"
                                       else request.path)
    return url_for("i18n.switch", lang=lang, next=here)


# The app's own words in a rulings source line. The sections of the English rulebook stay as they
# are printed there (they are what a reader looks up in that booklet).
_SOURCE_FR = (
    ("app's reading", "lecture de l'appli"),
    ("Deluxe rulebook", "règle Deluxe (en anglais)"),
    ("Bezier FAQ", "FAQ Bezier"),
    ("Zombi Paella FAQ", "FAQ Zombi Paella"),
    ("Round cards", "cartes de Manche"),
    ("Round Cards", "cartes de Manche"),
    ("Round card", "carte de Manche"),
    ("Princess Cards", "cartes Princesse"),
    ("(classic ", "(classique "),
    (" and ", " et "),
)


def localize_source(text: str, lang: str) -> str:
    """A rulings entry's source line, with the app's own words in ``lang``."""
    if lang != "fr":
        return text
    for english, french in _SOURCE_FR:
        text = text.replace(english, french)
    return text


class ElidingDomain(Domain):
    """Flask-Babel's domain, its messages' fields filled by :func:`french.format_sentence`."""

    def gettext(self, string: str, **variables: Any) -> str:
        text = self.get_translations().ugettext(string)
        return format_sentence(text, variables) if variables else text

    def ngettext(self, singular: str, plural: str, num: int, **variables: Any) -> str:
        variables.setdefault("num", num)
        return format_sentence(self.get_translations().ungettext(singular, plural, num), variables)


def _translations() -> Any:
    """Flask-Babel's catalogue for this request's locale, kept for the request (its own lookup
    also finds the domain and formats the locale at every ``_()``: a tenth of drawing the trick
    screen): :func:`_words`."""
    return _words()[0]


_WORDS: weakref.WeakKeyDictionary[Any, dict[str, Markup]] = weakref.WeakKeyDictionary()
"""Each catalogue's messages as templates start from them (translated and marked safe), kept for
as long as Flask-Babel keeps the catalogue: the words of a page are the same on every drawing of
it, in each language (a message's fields are filled by :func:`_sentence`)."""


def _words() -> tuple[Any, dict[str, Markup]]:
    """This request's catalogue (Flask-Babel's, for its locale) and its words as templates
    print them (:data:`_WORDS`), kept for the request. Keyed by the locale, so a locale forced
    for a while still gets its own. The locale is read where Flask-Babel keeps it for the
    request (``g._flask_babel.babel_locale``, which ``force_locale`` sets too) before asking
    Flask-Babel (three lookups through ``g`` a call, at every ``_()`` of a page):
    :func:`_request_locale`."""
    try:
        kept_here = g._get_current_object()  # noqa: SLF001  (werkzeug: documented, public)
    except RuntimeError:  # no app context: Flask-Babel's answer (no translation), unkept
        return get_translations(), {}
    locale = _request_locale(kept_here)
    kept = getattr(kept_here, "template_words", None)
    if kept is not None and kept[0] is locale:
        return kept[1], kept[2]
    translations = get_translations()
    try:
        words = _WORDS.setdefault(translations, {})
    except TypeError:  # (a catalogue that takes no weak reference: its words kept per request)
        words = {}
    kept_here.template_words = (locale, translations, words)
    return translations, words


FILLED = 4096
"""How many filled messages (:func:`_filled`) a process keeps: a page's few dozen, per game and
language, with its players' names; past it the least recently used is dropped."""

_PLAIN_FIELDS = frozenset({str, Markup, int, bool, float, type(None)})


@lru_cache(maxsize=FILLED, typed=True)
def _filled(text: str, fields: tuple[tuple[str, type, Any], ...]) -> str:
    """``format_sentence(text, fields)``, kept: a message filled with the same values (of the
    same types: a Markup value is not escaped, a str is) is the same sentence."""
    return format_sentence(text, {name: value for name, _, value in fields})


def _sentence(text: str, variables: dict[str, Any]) -> str:
    """``text`` with its fields filled (:func:`format_sentence`), kept when every value is plain
    (:func:`_filled`)."""
    fields = []
    for name, value in variables.items():
        kind = type(value)
        if kind not in _PLAIN_FIELDS:
            return format_sentence(text, variables)
        fields.append((name, kind, value))
    fields.sort(key=lambda field: field[0])
    return _filled(text, tuple(fields))


@pass_context
def _template_gettext(context: Context, string: str, /, **variables: Any) -> str:
    if context.eval_ctx.autoescape:
        translations, words = _words()
        try:
            text: str = words[string]
        except KeyError:
            text = words[string] = Markup(translations.ugettext(string))
    else:
        text = _translations().ugettext(string)
    if not variables and "%" not in text:
        return text  # what ``text % {}`` gives (most of a page's words: no field to fill)
    return _sentence(text, variables)


@pass_context
def _template_ngettext(context: Context, singular: str, plural: str, num: int, /,
                       **variables: Any) -> str:
    variables.setdefault("num", num)
    text = _translations().ungettext(singular, plural, num)
    return _sentence(Markup(text) if context.eval_ctx.autoescape else text, variables)


@cache
def _wtforms_catalogue(locale: str) -> Any:
    """WTForms' own messages (a field's "This field is required." …) in ``locale``, read once per
    process (Flask-WTF reads the catalogue file again for every request that builds a form)."""
    return support.Translations.load(messages_path(), [locale], domain="wtforms")


class _WtformsWords:
    """WTForms' messages in the language of the request that asks (a locale forced for a while
    included), each language's catalogue read once (:func:`_wtforms_catalogue`)."""

    def ugettext(self, string: str) -> str:
        return str(_wtforms_catalogue(str(get_locale())).ugettext(string))

    def ungettext(self, singular: str, plural: str, n: int) -> str:
        return str(_wtforms_catalogue(str(get_locale())).ungettext(singular, plural, n))


class WordedRequest(Request):
    """The app's request: Flask-WTF takes WTForms' messages from ``wtforms_translations`` when
    the request has them (else it reads the catalogue file for this request)."""

    wtforms_translations = _WtformsWords()


class Worded(Protocol):
    """Anything a page says is wrong (a rules core's :class:`~companion.scoring.problems.Problem`,
    an import's refusal): it words itself, in a language, naming the players by seat."""

    def text(self, lang: str = "en", names: Sequence[str] | None = None) -> str: ...


def problem_text(problem: Worded, names: Sequence[str] | None = None) -> str:
    """The template filter every game's pages word a problem with (``p | problem_text(names)``):
    its own sentence in the page's language, naming the players instead of their seats."""
    return problem.text(current_lang(), names)


def init_app(app: Flask) -> None:
    """Babel with our locale selector and the template helpers (the switch route's blueprint,
    :data:`bp`, is registered with the others by the factory)."""
    from ..games import registry

    # The shell's catalogue, then each game's own (companion/translations/<key>/): Flask-Babel
    # merges them, so a game brings its French without touching the shell's catalogue.
    folders = ["translations", *(str(kind.translations) for kind in registry()
                                 if kind.translations is not None)]
    from .catalogues import compile_missing

    compile_missing([Path(app.root_path) / folder for folder in folders])
    babel.init_app(app, locale_selector=select_locale,
                   default_translation_directories=";".join(folders))
    if app.request_class is Request:  # (a request class of another kind is left as it is)
        app.request_class = WordedRequest
    # Every message's fields filled with French elision (companion.web.french): in Python…
    babel.domain_instance = ElidingDomain()  # the "messages" domain, as Babel's own
    # …and in the templates (Jinja's newstyle _() and ngettext(), with the same escaping).
    app.jinja_env.globals.update(gettext=_template_gettext, _=_template_gettext,
                                 ngettext=_template_ngettext)
    app.add_template_filter(lambda text: localize_source(text, current_lang()), "source")
    app.add_template_filter(problem_text, "problem_text")
    # A stored (UTC) time, shown in the phone's own time zone by app.js (companion.web.local_time).
    app.add_template_filter(lambda value, style: time_element(value, style, current_lang()),
                            "local_time")

    @app.context_processor
    def _i18n_context() -> dict[str, Any]:
        return {"current_lang": current_lang(), "get_locale": get_locale,
                "lang_switch_url": switch_url, "languages": LANGUAGES}

    @app.after_request
    def _vary_on_language(response: Response) -> Response:
        # The same URL answers in two languages: caches must key on what picks the language.
        # (the request itself, read once: see companion.web.requests.itself)
        asked = cast(Any, request)._get_current_object()  # noqa: SLF001  (werkzeug: public)
        if asked.endpoint not in SAME_IN_EVERY_LANGUAGE and not asked.path.startswith("/api/"):
            if "Vary" in response.headers:
                response.vary.update(("Accept-Language", "Cookie"))  # (one header rewrite)
            else:
                response.headers["Vary"] = "Accept-Language, Cookie"
        return response
