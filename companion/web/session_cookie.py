"""The session cookie: Flask's signed cookie (its format, its keys, its flags), opened and sent
only when it buys something, and signed and read in fewer steps than itsdangerous takes.

A scorer's save that says "Round 3 saved." puts the message in the cookie and the page its
redirect leads to takes it out again: two cookies signed and one or two read per save, some
0.3–0.5 ms of a save's CPU with itsdangerous and Flask's tagged JSON as they are (issue 36).
:class:`CookieSigner` makes and reads the same cookies in fewer steps (each reads the other's);
:class:`SessionInterface` sends none when a request leaves the session as it read it (a save
answered with its page shows its message at once).
"""

from __future__ import annotations

import base64
import copy
import hashlib
import hmac
import json
import time
import zlib
from datetime import timedelta
from typing import Any, cast

from flask import Flask, Response, has_request_context, request
from flask.json.provider import DefaultJSONProvider
from flask.json.tag import TaggedJSONSerializer, TagTuple
from flask.sessions import SecureCookieSession, SecureCookieSessionInterface, SessionMixin
from itsdangerous import URLSafeTimedSerializer
from werkzeug import Request

from .requests import itself

NO_SESSION = ("/live/", "/api/", "/qr.svg", "/sw.js")
"""Addresses that never open the session: the live poll every open page sends once a second
reads nothing of it, the JSON API is stateless, and a QR code is the same for everyone. Their
cookie is not even checked, and no cookie is sent back. The service worker is the same
script for everyone too."""

REFRESH_AFTER = timedelta(days=1)
"""An unchanged session cookie is signed and sent again at most once a day (to keep its month,
``PERMANENT_SESSION_LIFETIME``, counted from the last visit): every other answer sends it only
when the session changed."""


def copied(value: Any) -> Any:
    """A copy of a session's data as its cookie gives it (JSON, and the tagged values of Flask's
    serializer): every dict, list and tuple made anew, the values in them immutable and kept —
    what ``copy.deepcopy`` gives, in a few calls (a third of opening a known session)."""
    kind = type(value)
    if kind is dict:
        return {key: copied(item) for key, item in value.items()}
    if kind is list:
        return [copied(item) for item in value]
    if kind is tuple:
        return tuple(copied(item) for item in value)
    if kind in _IMMUTABLE or value is None:
        return value
    return copy.deepcopy(value)


_IMMUTABLE = frozenset({str, int, float, bool, bytes})
SQUEEZED = (12, 4)
"""zlib's window (4 kB: a cookie is at most that) and memory level for a cookie's payload: as
small as a payload (some 0.1–1.2 kB) and as well packed as with zlib's defaults (32 kB, level 8),
where making the defaults' tables costs 20–30 µs a cookie, more than packing it."""
_PLAIN = frozenset({str, int, float, bool, type(None)})
"""What Flask's tagged JSON writes as plain JSON (of these very types, not a subclass)."""


class CookieSigner(URLSafeTimedSerializer):
    """The serializer Flask signs its session cookie with (URL-safe, timed, HMAC-SHA1 with the
    key derived from the secret and the salt, Flask's tagged JSON, zlib when that is shorter),
    whose :meth:`dumps` makes such a cookie in fewer steps, and whose :meth:`open` reads one:

    - each key derived once and its HMAC started once, not on every cookie signed or read
      (itsdangerous derives the key each time, and its digest, a Python function, takes
      :mod:`hmac`'s Python path);
    - Flask's tags (a tuple, a dict whose one key looks like a tag, bytes, Markup, a UUID, a
      datetime) put in one walk of the session's dicts, lists and plain values, Flask's own
      tagger called only on any other value; the JSON made by one encoder kept with the app's
      settings; read by the C decoder, each object untagged as it is made;
    - zlib's tables made for a cookie's size (:data:`SQUEEZED`).

    The text is itsdangerous' to the byte for the same data at the same second, but for the
    zlib stream of a packed one (its window, its tables: zlib reads any), and each reads the
    other's. Anything else it is asked (another salt; :meth:`loads`) is itsdangerous' own."""

    def __init__(self, app: Flask, secret_keys: list[str | bytes], salt: str,
                 serializer: TaggedJSONSerializer, **kwargs: Any) -> None:
        keys = [key.encode() if isinstance(key, str) else key for key in secret_keys]
        super().__init__(keys, salt=salt, serializer=cast(Any, serializer), **kwargs)
        signer = self.make_signer()
        self._macs = [hmac.new(signer.derive_key(key), digestmod=hashlib.sha1)
                      for key in reversed(self.secret_keys)]
        """An HMAC started with each key a cookie may be signed with (derived from the secret
        and the salt), the newest (the one that signs) first."""
        if signer.get_signature(b"?") != _b64(self._mac(0, b"?")):
            raise ValueError("CookieSigner signs as Flask's session does (HMAC-SHA1) only")
        self._tagger = serializer
        self._decode = json.JSONDecoder(object_hook=serializer.untag).decode
        provider = app.json
        self._json = (json.JSONEncoder(separators=(",", ":"), sort_keys=provider.sort_keys,
                                       ensure_ascii=provider.ensure_ascii,
                                       default=provider.default).encode
                      if type(provider) is DefaultJSONProvider else
                      lambda value: provider.dumps(value, separators=(",", ":")))

    def payload(self, obj: Any) -> bytes:
        """The session's data as the cookie carries it before it is signed: Flask's tagged
        JSON, UTF-8."""
        return self._json(self._tag(obj)).encode()

    def _tag(self, value: Any) -> Any:
        kind = type(value)
        if kind in _PLAIN:
            return value
        if kind is dict:
            if len(value) == 1 and next(iter(value)) in self._tagger.tags:
                return self._tagger.tag(value)  # (TagDict's case: Flask's own)
            return {key: self._tag(item) for key, item in value.items()}
        if kind is list:
            return [self._tag(item) for item in value]
        if kind is tuple:
            return {TagTuple.key: [self._tag(item) for item in value]}
        return self._tagger.tag(value)

    def signed(self, payload: bytes) -> str:
        """The cookie for ``payload`` (:meth:`payload`), signed now."""
        squeezer = zlib.compressobj(6, zlib.DEFLATED, *SQUEEZED)
        packed = squeezer.compress(payload) + squeezer.flush()
        value = (b"." + _b64(packed) if len(packed) < len(payload) - 1 else _b64(payload)) \
            + b"." + _b64(int(time.time()).to_bytes(8, "big").lstrip(b"\0"))
        return (value + b"." + _b64(self._mac(0, value))).decode()

    def _mac(self, key: int, value: bytes) -> bytes:
        mac = self._macs[key].copy()
        mac.update(value)
        return mac.digest()

    def dumps(self, obj: Any, salt: str | bytes | None = None) -> str:
        if salt is not None:
            return super().dumps(obj, salt)
        return self.signed(self.payload(obj))

    def open(self, text: str, max_age: int) -> tuple[Any, int, bytes] | None:
        """The data of the cookie ``text``, when it holds a signature made with one of the keys
        and at most ``max_age`` seconds old, with when it was signed (Unix time) and its
        payload (:meth:`payload`); else None (a session that starts empty)."""
        if not text.isascii():
            return None
        value, _, signature = text.encode().rpartition(b".")
        head, _, stamp = value.rpartition(b".")
        if not head or not stamp:
            return None
        if not any(hmac.compare_digest(signature, _b64(self._mac(key, value)))
                   for key in range(len(self._macs))):
            return None
        try:
            signed = int.from_bytes(_unb64(stamp), "big")
            if not 0 <= int(time.time()) - signed <= max_age:
                return None
            packed = head[:1] == b"."
            payload = _unb64(head[1:] if packed else head)
            if packed:
                payload = zlib.decompress(payload)
            data = self._decode(payload.decode())
        except (ValueError, TypeError, zlib.error):  # (signed with our key: none is made)
            return None
        return data, signed, payload


def _b64(data: bytes) -> bytes:
    return base64.urlsafe_b64encode(data).rstrip(b"=")


def _unb64(data: bytes) -> bytes:
    return base64.urlsafe_b64decode(data + b"=" * (-len(data) % 4))


class Session(SecureCookieSession):
    signed_at: float | None = None  # when the cookie it was read from was signed (Unix time)
    read_as: bytes | None = None  # that cookie's payload (CookieSigner.payload)


class SessionInterface(SecureCookieSessionInterface):
    """Flask's signed-cookie session, opened and sent only when it buys something.

    - Never opened for :data:`NO_SESSION`: an empty session that is never saved.
    - Never sent with a static file: a cookie changing with every answer (and the ``Vary:
      Cookie`` that comes with it) would make a phone ask for files it keeps for a year again.
    - Elsewhere sent when it changed (and made permanent then: a month), or once a day to keep
      that month going (:data:`REFRESH_AFTER`), never re-signed unchanged on every page. A
      session changed and changed back within the request (a message flashed and shown by
      the same answer) is unchanged.
    - Signed and read by :class:`CookieSigner`: Flask's cookie, in fewer steps.

    The cookie is Secure when ``SESSION_COOKIE_SECURE`` says so, and also whenever the request
    came over HTTPS — as the trusted proxy reports it (``TRUSTED_PROXIES``, see
    :mod:`companion.web.security`) — so a server behind an HTTPS proxy never sends it in the clear,
    and the same server over plain HTTP on a home network still keeps its session."""

    session_class = Session

    OPENED_KEPT = 4096
    """How many cookies :meth:`open_session` remembers having verified (then it starts again)."""

    def __init__(self) -> None:
        self._signer: tuple[tuple[Any, ...], CookieSigner | None,
                            dict[str, tuple[Any, int, bytes]]] | None = None

    def get_signing_serializer(self, app: Flask) -> CookieSigner | None:
        """The app's :class:`CookieSigner` for its keys, made once (Flask makes its serializer
        afresh for each request: a tenth of opening the session), and again only when the
        keys change."""
        keys = (app.secret_key, *(app.config.get("SECRET_KEY_FALLBACKS") or ()))
        if self._signer is None or self._signer[0] != keys:
            signer = None
            if app.secret_key:  # (Flask's order: the fallbacks, then the key that signs)
                signer = CookieSigner(app, [*keys[1:], keys[0]], salt=self.salt,
                                      serializer=self.serializer,
                                      signer_kwargs={"key_derivation": self.key_derivation,
                                                     "digest_method": self.digest_method})
            self._signer = (keys, signer, {})
        return self._signer[1]

    def _opened(self, signer: CookieSigner) -> dict[str, tuple[Any, int, bytes]]:
        """The cookies ``signer`` verified (their data, when signed, payload), by their text."""
        kept = self._signer
        return kept[2] if kept is not None and kept[1] is signer else {}

    def get_cookie_secure(self, app: Flask) -> bool:
        return bool(super().get_cookie_secure(app)) or (
            has_request_context() and request.is_secure)

    def open_session(self, app: Flask, request: Request) -> Session | None:
        if request.path.startswith(NO_SESSION):
            return self.session_class()
        signer = self.get_signing_serializer(app)
        if signer is None:
            return None
        opened = self._opened(signer)
        value = request.cookies.get(self.get_cookie_name(app))
        if not value:
            return self.session_class()
        max_age = int(app.permanent_session_lifetime.total_seconds())
        # A cookie verified before under these keys (a phone sends the same one with every
        # request until its session changes) is not verified again: the same text carries the
        # same signature, and its age is checked as the serializer checks it.
        known = opened.get(value)
        if known is None or not 0 <= int(time.time()) - known[1] <= max_age:
            read = signer.open(value, max_age)
            if read is None:
                return self.session_class()
            if len(opened) >= self.OPENED_KEPT:
                opened.clear()
            known = opened[value] = (copied(read[0]), read[1], read[2])
            found = self.session_class(read[0])
        else:
            found = self.session_class(copied(known[0]))
        found.signed_at, found.read_as = float(known[1]), known[2]
        return found

    def should_set_cookie(self, app: Flask, session: SessionMixin) -> bool:
        return session.modified or self._refresh_due(app, session)

    def _refresh_due(self, app: Flask, session: SessionMixin) -> bool:
        """Whether a session kept as it was is sent again all the same: once a day."""
        signed = getattr(session, "signed_at", None)
        return bool(session.permanent and app.config["SESSION_REFRESH_EACH_REQUEST"]) and (
            signed is None or time.time() - signed > REFRESH_AFTER.total_seconds())

    def save_session(self, app: Flask, session: SessionMixin, response: Response) -> None:
        asked = itself(request)  # (read once: see companion.web.requests.itself)
        if asked.endpoint == "static" or asked.path.startswith(NO_SESSION):
            return
        if not session:
            if session.modified and asked.cookies.get(self.get_cookie_name(app)):
                super().save_session(app, session, response)  # (emptied: the cookie deleted)
            elif session.accessed:
                response.vary.add("Cookie")
            return
        if session.modified and not session.permanent:
            session.permanent = True  # kept a month, not until the browser closes
        signer = self.get_signing_serializer(app)
        assert signer is not None  # (a session was opened: the app has a key)
        payload = None
        if session.modified:
            payload = signer.payload(dict(session))
            if payload == getattr(session, "read_as", None):
                payload = None  # changed and changed back: as kept
        if payload is None and not self._refresh_due(app, session):
            # Most answers: what Flask's save_session does for a session kept as it was (its
            # Vary when it was read, no cookie), without first working out the cookie's
            # name, domain, path and flags for a cookie it does not send.
            if session.accessed:
                response.vary.add("Cookie")
            return
        response.set_cookie(
            self.get_cookie_name(app),
            signer.signed(payload if payload is not None else signer.payload(dict(session))),
            expires=self.get_expiration_time(app, session),
            httponly=self.get_cookie_httponly(app), domain=self.get_cookie_domain(app),
            path=self.get_cookie_path(app), secure=self.get_cookie_secure(app),
            partitioned=self.get_cookie_partitioned(app),
            samesite=self.get_cookie_samesite(app))
        response.vary.add("Cookie")

