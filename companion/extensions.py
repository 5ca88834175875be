"""The Flask extensions every part of the app shares, created unbound and bound to the app in
the factory (:func:`companion.factory.create_app`), so that routes import them from here and
never import the factory."""

from __future__ import annotations

import hashlib
import hmac
import os
from collections.abc import Callable
from types import MethodType
from typing import Any, TypeVar, cast

from flask import current_app, g, request, session
from flask_caching import Cache
from flask_compress import Compress
from flask_wtf.csrf import CSRFProtect, same_origin, validate_csrf
from flask_wtf.csrf import generate_csrf as wtf_generate_csrf
from flask_wtf.csrf import logger as csrf_logger
from itsdangerous import (
    BadData,
    SignatureExpired,
    TimestampSigner,
    URLSafeTimedSerializer,
    base64_decode,
    base64_encode,
    want_bytes,
)
from itsdangerous.signer import HMACAlgorithm
from wtforms import ValidationError


def _protect(self: Any, apply_exemptions: bool = False) -> None:
    """:meth:`CSRFProtect.protect` (Flask-WTF's check before every request: ``csrf``'s own,
    below), checking what it checks in the same order with the same refusals — the exempt
    views and blueprints, the methods, the token from the form or the header, signed by the
    app's key and equal to the session's (as :func:`flask_wtf.csrf.validate_csrf` checks it,
    with its messages: a refusal reads the same in the log), the Referer over HTTPS — with the
    token's serializer and signer made once per key instead of for every write
    (:class:`CsrfTokens`), and the request, the app, ``g`` and the session read as themselves
    rather than through Flask's proxies: each attribute read through a proxy costs as much as
    some thirty plain ones (issue 36: every save pays this check)."""
    asked, app = _itself(request), _itself(current_app)
    if apply_exemptions and (not asked.endpoint or _exempt(self, asked, app)):
        return
    config = app.config
    if asked.method not in config["WTF_CSRF_METHODS"]:
        return
    try:
        _validate(_token(asked, config), app)
    except ValidationError as error:
        csrf_logger.info(error.args[0])
        self._error_response(error.args[0])
    if asked.is_secure and config["WTF_CSRF_SSL_STRICT"]:
        if not asked.referrer:
            self._error_response("The referrer header is missing.")
        if not same_origin(asked.referrer, f"https://{asked.host}/"):
            self._error_response("The referrer does not match the host.")
    _itself(g).csrf_valid = True


def _exempt(self: Any, asked: Any, app: Any) -> bool:
    """:meth:`CSRFProtect._is_exempt`."""
    if app.blueprints.get(asked.blueprint) in self._exempt_blueprints:
        return True
    view = app.view_functions.get(asked.endpoint)
    return view is not None and f"{view.__module__}.{view.__name__}" in self._exempt_views


def _token(asked: Any, config: Any) -> str | None:
    """:meth:`CSRFProtect._get_csrf_token`: the form's field, a prefixed form's, or the first
    header that carries one."""
    field_name = config["WTF_CSRF_FIELD_NAME"]
    form = asked.form
    token = form.get(field_name)
    if token:
        return str(token)
    for key in form:
        if key.endswith(field_name) and form[key]:
            return str(form[key])
    for header_name in config["WTF_CSRF_HEADERS"]:
        token = asked.headers.get(header_name)
        if token:
            return str(token)
    return None


def _validate(data: str | None, app: Any) -> None:
    """:func:`flask_wtf.csrf.validate_csrf` of ``data`` with the app's settings."""
    config = app.config
    secret_key = config.get("WTF_CSRF_SECRET_KEY", app.secret_key)
    field_name = config.get("WTF_CSRF_FIELD_NAME", "csrf_token")
    time_limit = config.get("WTF_CSRF_TIME_LIMIT", 3600)
    if secret_key is None or field_name is None:  # (validate_csrf's own refusal of them)
        validate_csrf(data)
        return
    if not data:
        raise ValidationError("The CSRF token is missing.")
    kept = _itself(session)
    if field_name not in kept:
        raise ValidationError("The CSRF session token is missing.")
    try:
        token = _tokens_for(secret_key).loads(data, time_limit)
    except SignatureExpired as error:
        raise ValidationError("The CSRF token has expired.") from error
    except BadData as error:
        raise ValidationError("The CSRF token is invalid.") from error
    if not hmac.compare_digest(kept[field_name], token):
        raise ValidationError("The CSRF tokens do not match.")


class CsrfTokens:
    """The CSRF tokens of one secret key: ``validate_csrf``'s serializer
    (``URLSafeTimedSerializer(secret_key, salt="wtf-csrf-token")``), made once, and its
    :meth:`loads`. A token it accepts is accepted by its signer, made once, with its key
    derived once (itsdangerous makes the signer, derives the key and walks its signers and its
    exceptions for every token: half of a save's CSRF check, issue 36): the same checks with
    itsdangerous's own pieces. Anything else — a signature not made with the newest key (an
    older key of a rotation), a malformed, expired or future token — is given to the
    serializer's own ``loads``, which accepts or refuses it as it always has. The names
    itsdangerous exports only: a release that moves its insides breaks nothing here."""

    def __init__(self, secret_key: Any) -> None:
        self.serializer = URLSafeTimedSerializer(secret_key, salt="wtf-csrf-token")
        self.signer = cast(TimestampSigner, self.serializer.make_signer())
        self.key = self.signer.derive_key()  # (the newest key: the one tokens are signed with)

    def loads(self, data: str, max_age: int | None) -> Any:
        """``serializer.loads(data, max_age=max_age)``."""
        try:
            signer = self.signer
            value, signature = want_bytes(data).rsplit(signer.sep, 1)
            if signer.algorithm.verify_signature(self.key, value, base64_decode(signature)):
                payload, stamp = value.rsplit(signer.sep, 1)
                stamp = base64_decode(stamp)  # (8 bytes at most, as itsdangerous reads it)
                age = signer.get_timestamp() - int.from_bytes(stamp, "big")
                if len(stamp) <= 8 and (max_age is None or 0 <= age <= max_age):
                    return self.serializer.load_payload(payload)
        except (ValueError, BadData):  # (malformed: the serializer says how)
            pass
        return self.serializer.loads(data, max_age=max_age)

    def dumps(self, raw: str) -> str:
        """``serializer.dumps(raw)``, with the signer and its key made once: the payload made by
        the serializer itself, stamped and signed as its signer does."""
        signer = self.signer
        if type(signer.algorithm) is not HMACAlgorithm:  # (itsdangerous' default: always)
            return str(self.serializer.dumps(raw))
        value = (want_bytes(self.serializer.dump_payload(raw)) + want_bytes(signer.sep)
                 + base64_encode(signer.get_timestamp().to_bytes(8, "big").lstrip(b"\0")))
        signature = base64_encode(signer.algorithm.get_signature(self.key, value))
        return (value + want_bytes(signer.sep) + signature).decode()


def generate_csrf() -> str:
    """:func:`flask_wtf.csrf.generate_csrf` with the app's settings: this request's CSRF token
    (made once per request and kept on ``g``, where Flask-WTF's forms read it), signed by the
    key's :class:`CsrfTokens` (made once) rather than by a serializer made for every page
    (issue 36: every page a phone loads signs one). The same token to the byte; any setting
    or session it does not expect goes to Flask-WTF's own."""
    app, kept = _itself(current_app), _itself(g)
    config = app.config
    secret_key = config.get("WTF_CSRF_SECRET_KEY", app.secret_key)
    field_name = config.get("WTF_CSRF_FIELD_NAME", "csrf_token")
    if type(field_name) is not str or not isinstance(secret_key, str | bytes):
        return str(wtf_generate_csrf())
    if field_name not in kept:
        data = _itself(session)
        if field_name not in data:
            data[field_name] = hashlib.sha1(os.urandom(64)).hexdigest()  # (as Flask-WTF makes it)
        raw = data[field_name]
        if type(raw) is not str:  # (Flask-WTF's own: a new one if it cannot be signed)
            return str(wtf_generate_csrf())
        setattr(kept, field_name, _tokens_for(secret_key).dumps(raw))
    return str(kept.get(field_name))


_TOKENS: dict[Any, CsrfTokens] = {}
"""The CSRF tokens of each secret key used (``validate_csrf`` makes a serializer for each
token it checks): one app's key, in a server."""


def _tokens_for(secret_key: Any) -> CsrfTokens:
    found = _TOKENS.get(secret_key)
    if found is None:
        if len(_TOKENS) >= 16:  # (keys come from the app's settings: a few at most)
            _TOKENS.clear()
        found = _TOKENS[secret_key] = CsrfTokens(secret_key)
    return found


def _itself(proxy: Any) -> Any:
    """What one of Flask's proxies (``request``, ``current_app``, ``g``, ``session``) stands for
    in this request, itself."""
    return proxy._get_current_object()  # noqa: SLF001  (werkzeug: documented, public)


csrf = CSRFProtect()
csrf.protect = MethodType(_protect, csrf)  # (its check before every request: see _protect)
compress = Compress()
page_store = Cache()
"""Where a game's page drawn once is kept for every phone and every server process
(:func:`companion.routes.page_store.cached_page`): Redis when ``CACHE_REDIS_URL`` (or a Redis
``RATELIMIT_STORAGE_URI``) names one, else files in the instance folder (see the factory)."""


View = TypeVar("View", bound=Callable[..., Any])


def csrf_exempt(view: View) -> View:
    """``@csrf.exempt`` with the view's type kept (Flask-WTF has no type information): for a
    view that checks its own form's CSRF token."""
    csrf.exempt(view)
    return view
