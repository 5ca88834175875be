"""The app's request class: the words of :class:`companion.web.i18n.WordedRequest`, a form
sent as ``application/x-www-form-urlencoded`` (every write form a page sends) read in one pass
(:meth:`AppRequest._load_form_data`), and the cookies read from the one header that holds them
(:attr:`AppRequest.cookies`); and :func:`itself`, what the code every request runs reads the
request, the app and ``g`` through."""

from __future__ import annotations

from typing import Any, TypeVar, cast
from urllib.parse import parse_qsl

from flask import current_app, has_app_context
from werkzeug.datastructures import ImmutableMultiDict
from werkzeug.sansio.http import parse_cookie
from werkzeug.utils import cached_property

from .i18n import WordedRequest

URLENCODED = "application/x-www-form-urlencoded"

Proxied = TypeVar("Proxied")


def itself(proxy: Proxied) -> Proxied:
    """What one of Flask's proxies (``request``, ``current_app``, ``g``, ``session``) stands for
    in this request, itself: an attribute read through a proxy costs as much as some thirty
    plain ones (the proxy's class has no such attribute, so Python raises and catches an
    ``AttributeError`` before the proxy is asked; issue 36: a save read some hundred of them in
    the hooks every request runs). Read it once, then its attributes."""
    return cast(Proxied, cast(Any, proxy)._get_current_object())  # noqa: SLF001  (public)


class AppRequest(WordedRequest):
    """Flask's request, with WTForms' messages in the request's language (its base), whose
    URL-encoded form is read without werkzeug's form parser: the same stream (limited to the
    request's length and ``MAX_CONTENT_LENGTH``: a body too long is refused, 413, as before),
    the same decoding (UTF-8; a body that is not leaves the form empty, as werkzeug's parser
    does) and the same fields, in order. Werkzeug's parser works out the content type's
    parameters, the body's length and three limits of a multipart body before it reads a
    URL-encoded one the same way (issue 36: half of reading a save's form). Anything else — a
    multipart body, a content type with parameters, a body read before, Flask's debug mode —
    goes to werkzeug's parser."""

    def _load_form_data(self) -> None:
        if ("form" in self.__dict__ or "stream" in self.__dict__
                or self.environ.get("CONTENT_TYPE") != URLENCODED
                or getattr(self, "_cached_data", None) is not None
                or (has_app_context() and itself(current_app).debug)):
            super()._load_form_data()
            return
        stream = self.stream  # (werkzeug's limited stream: its 413, its guards)
        try:  # (werkzeug's own reading of such a body)
            items = parse_qsl(stream.read().decode(), keep_blank_values=True,
                              errors="werkzeug.url_quote")
        except ValueError:
            items = []
        found = self.__dict__
        found["form"] = self.parameter_storage_class(items)
        found["files"] = self.parameter_storage_class()

    @cached_property
    def cookies(self) -> ImmutableMultiDict[str, str]:
        """werkzeug's :attr:`~werkzeug.sansio.request.Request.cookies`: the ``Cookie`` header
        parsed, read where WSGI puts it (``HTTP_COOKIE``, the only key that names it) rather
        than by going through every header of the request to find it (werkzeug joins the
        headers of that name: WSGI gives one)."""
        return cast(ImmutableMultiDict[str, str], parse_cookie(
            self.environ.get("HTTP_COOKIE", ""), cls=self.dict_storage_class))
