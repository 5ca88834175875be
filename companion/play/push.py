"""Live updates pushed through the proxy (nginx with Nchan, deploy/nginx/companion-push.conf).

When ``LIVE_PUSH_PUBLISH_URL`` is set (e.g. ``http://127.0.0.1:8090/pub/``), every commit that
changes a game (an entry stored or undone, the game changed or deleted, its links replaced) is
followed by one short ``POST`` of the game's new version to its channel on the proxy's publisher
location; the pages that follow the game hold an EventSource on the proxy's subscriber location
(``LIVE_PUSH_SUBSCRIBE_PATH``) and reload on a new version as a poll would make them (app.js).
Unset (``make run``, Caddy): nothing is published and pages poll ``/live`` as before.

A channel's name is ``HMAC(SECRET_KEY, game id + its live links' ids)``: never guessable, never a
link token, and it moves when a link is replaced — the old channel is told ``closed`` (a deleted
game's: ``gone``) and deleted. Only the version is published, never a pick or a score: the duel's
secret picks stay where they are until both are in, as with polling (a viewer's drawn part
is what that viewer would load: the duel's board never shows a pick before both are in).

A publish never fails a save: a short timeout, every error swallowed and counted
(``companion_push_publishes_total{result}``).

No Flask here (``play/``): the factory gives each app's engine its :class:`Publisher` (the
settings, the secret and the counting function, from ``web/metrics``) with :func:`register`;
the session hooks find it through the session's engine, so a session of an app without a
publisher (``make run``, a test, a command line) publishes nothing.
"""

from __future__ import annotations

import hashlib
import hmac
import http.client
import json
import socket
import threading
import time
import urllib.parse
import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC
from typing import Any, TypeVar, cast

from sqlalchemy import and_, bindparam, event
from sqlalchemy import select as select_columns
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session as OrmSession
from sqlmodel import Session, col, select

from ..db import once_more_if_dropped, reader
from ..models import Entry, Game, GameLink
from . import saved_games

_T = TypeVar("_T")
TIMEOUT = 0.5
"""Seconds a publish may take before it is given up (and counted as failed)."""
PART_MAX_BYTES = 64 * 1024
"""The largest message published (a viewers' part with its version); a larger part is not
sent (the version alone: the viewers reload). The publisher location keeps a body up to this
size in memory (deploy/nginx/companion-push.conf: ``client_body_buffer_size``): Nchan frames a
body nginx wrote to a temporary file wrongly for EventSource."""
_TOUCHED = "companion.play.push.touched"
_LIVE_IDS = (select(GameLink.id).where(GameLink.game_id == bindparam("game"),
                                       col(GameLink.revoked_at).is_(None)).order_by("id"))
_NOW = (select_columns(col(Game.updated_at), col(Game.kind), col(GameLink.id), col(GameLink.role),
                       col(GameLink.token))
        .select_from(Game)
        .outerjoin(GameLink, and_(col(GameLink.game_id) == col(Game.id),
                                  col(GameLink.revoked_at).is_(None)))
        .where(col(Game.id) == bindparam("game")).order_by(col(GameLink.id)))
"""A changed game as it is after the commit, in one statement: its stamp (the version), its kind,
and its live links (their ids name its channels; the viewer link's token opens the page whose
part the viewers get): one row per live link, none when the game is gone."""


@dataclass(frozen=True)
class Publisher:
    """An app's way to publish: its settings (read at each use, so a changed setting counts:
    ``LIVE_PUSH_PUBLISH_URL``, ``LIVE_PUSH_SUBSCRIBE_PATH``, ``SECRET_KEY``) and what counts
    each publish (called with ``ok``: the proxy took it)."""

    settings: Mapping[str, Any]
    count: Callable[..., None]
    draw: Callable[[int, str], str | None] | None = None
    """The viewers' live part of game ``id`` in language ``lang`` (None: not drawn)."""
    languages: Sequence[str] = ()
    """The languages a viewer's page may be in: one viewers' channel each."""

    @property
    def url(self) -> str:
        """The publisher location channels are appended to; empty: nothing is published."""
        return str(self.settings.get("LIVE_PUSH_PUBLISH_URL") or "")

    @property
    def subscribe_path(self) -> str:
        return str(self.settings.get("LIVE_PUSH_SUBSCRIBE_PATH") or "/live-push/")

    @property
    def secret(self) -> str | bytes:
        secret: str | bytes = self.settings["SECRET_KEY"]
        return secret


_PUBLISHERS: weakref.WeakKeyDictionary[Engine, Publisher] = weakref.WeakKeyDictionary()


def register(engine: Engine, publisher: Publisher) -> None:
    """Sessions on ``engine`` publish through ``publisher`` (when its URL is set)."""
    _PUBLISHERS[engine] = publisher


def _active(engine: Any) -> Publisher | None:
    publisher = _PUBLISHERS.get(engine) if isinstance(engine, Engine) else None
    return publisher if publisher is not None and publisher.url else None


def publisher_of(session: OrmSession) -> Publisher | None:
    """The publisher of the app whose engine ``session`` uses, if it publishes."""
    try:
        engine = session.get_bind().engine
    except Exception:  # an unbound session: no app, nothing to publish
        return None
    return _active(engine)


def channel(secret: str | bytes, game_id: int, live_ids: list[int] | tuple[int, ...],
            part: str = "") -> str:
    """The channel of a game whose live links are ``live_ids``: 32 hex digits. ``part`` names
    one of its other channels (``viewer-en``: the viewers' pages in English)."""
    key = secret if isinstance(secret, bytes) else secret.encode()
    message = f"{game_id}:{','.join(str(i) for i in sorted(live_ids))}"
    if part:
        message += f":{part}"
    return hmac.new(key, message.encode(), hashlib.sha256).hexdigest()[:32]


def viewers_part(lang: str) -> str:
    """The ``part`` of the channel the viewers' pages in ``lang`` listen on."""
    return f"viewer-{lang}"


def _channels(publisher: Publisher, game_id: int, ids: list[int]) -> list[str]:
    """Every channel of a game with live links ``ids``: its own, then its viewers' per language."""
    secret = publisher.secret
    return [channel(secret, game_id, ids)] + [
        channel(secret, game_id, ids, viewers_part(lang)) for lang in publisher.languages]


def live_ids(connection: Any, game_id: int) -> list[int]:
    return [int(row[0]) for row in connection.execute(_LIVE_IDS, {"game": game_id})]


def _read(engine: Engine, read: Callable[[Any], _T]) -> _T:
    """``read(connection)`` on the polls' reader (:func:`companion.db.reader`: on PostgreSQL one
    round trip, no ping, no rollback); a connection the database dropped, which the reader does
    not ping for, is tried once more on a new one."""
    def run() -> _T:
        with reader(engine).connect() as connection:
            return read(connection)

    return once_more_if_dropped(run)


def subscribe_url(engine: Engine, game_id: int | None, viewer_lang: str | None = None,
                  ids: Sequence[int] | None = None) -> str | None:
    """The address a page of game ``game_id`` listens on, or None when nothing is pushed; a
    viewer's page in ``viewer_lang`` listens on that language's viewers' channel. ``ids``: the
    game's live links' ids when the page has read them already (else they are read here)."""
    publisher = _active(engine)
    if game_id is None or publisher is None:
        return None
    if ids is None:
        ids = _read(engine, lambda connection: live_ids(connection, game_id))
    else:
        ids = list(ids)
    part = viewers_part(viewer_lang) if viewer_lang and viewer_lang in publisher.languages else ""
    return f"{publisher.subscribe_path}{channel(publisher.secret, game_id, ids, part)}"


class _Kept:
    """A kept-alive connection to the publisher location: its socket and what it read past the
    last answer. HTTP/1.1 written and read here in a few lines: ``http.client`` parses each
    answer's headers with the email package, about 90 µs of CPU a call against 8 µs here, and a
    change makes three to five calls."""

    def __init__(self, address: tuple[str, int]) -> None:
        self.socket = socket.create_connection(address, timeout=TIMEOUT)
        self.socket.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.host = (address[0] if address[1] == 80 else f"{address[0]}:{address[1]}").encode()
        self.buffer = b""

    def close(self) -> None:
        self.socket.close()

    def _more(self, started: bool = True) -> None:
        data = self.socket.recv(65536)
        if not data:  # the proxy closed it (before its answer began: a kept one it dropped)
            raise (http.client.IncompleteRead(self.buffer) if started or self.buffer
                   else http.client.RemoteDisconnected("the proxy closed the connection"))
        self.buffer += data

    def _line(self) -> bytes:
        while (end := self.buffer.find(b"\r\n")) < 0:
            if len(self.buffer) > _HEAD_MAX:
                raise http.client.LineTooLong("an answer's line")
            self._more()
        line, self.buffer = self.buffer[:end], self.buffer[end + 2:]
        return line

    def _exactly(self, size: int) -> bytes:
        while len(self.buffer) < size:
            self._more()
        data, self.buffer = self.buffer[:size], self.buffer[size:]
        return data

    def call(self, method: str, path: str, body: bytes | None) -> tuple[int, bytes, bool]:
        """One request and its answer: the status, the body, and whether the connection may be
        used again (the proxy did not say ``Connection: close``)."""
        head = (b"%s %s HTTP/1.1\r\nHost: %s\r\nContent-Type: text/plain\r\n"
                b"Accept: text/json\r\n" % (method.encode(), path.encode(), self.host))
        if body is not None:
            head += b"Content-Length: %d\r\n" % len(body)
        self.socket.sendall(head + b"\r\n" + (body or b""))
        if not self.buffer:
            self._more(started=False)
        status_line = self._line()
        version, _, rest = status_line.partition(b" ")
        code = rest[:3]
        if not version.startswith(b"HTTP/1.") or len(code) != 3 or not code.isdigit():
            raise http.client.BadStatusLine(repr(status_line))
        status = int(code)
        fields: dict[bytes, bytes] = {}
        while line := self._line():
            if len(fields) >= _HEADERS_MAX:
                raise http.client.HTTPException("too many headers")
            name, colon, value = line.partition(b":")
            if not colon:
                raise http.client.HTTPException(f"a malformed header: {line!r}")
            fields[name.strip().lower()] = value.strip()
        kept = fields.get(b"connection", b"").lower() != b"close" and version != b"HTTP/1.0"
        if method == "HEAD" or status in (204, 304) or 100 <= status < 200:
            return status, b"", kept
        if fields.get(b"transfer-encoding", b"").lower() == b"chunked":
            data = b""
            while size := int(self._line().split(b";")[0], 16):
                if not 0 < size <= _BODY_MAX - len(data):
                    raise http.client.HTTPException("an answer too long")
                data += self._exactly(size)
                self._line()
            while self._line():  # (trailers)
                pass
            return status, data, kept
        if b"content-length" in fields:
            size = int(fields[b"content-length"])
            if not 0 <= size <= _BODY_MAX:
                raise http.client.HTTPException("an answer too long")
            return status, self._exactly(size), kept
        while True:  # (no length: the body ends with the connection)
            try:
                self._more()
            except http.client.IncompleteRead:
                data, self.buffer = self.buffer, b""
                return status, data, False
            if len(self.buffer) > _BODY_MAX:
                raise http.client.HTTPException("an answer too long")


_HEAD_MAX = 65536
_HEADERS_MAX = 100
_BODY_MAX = 1 << 20
"""The longest line, the most headers and the longest body of an answer read from the publisher
location (as ``http.client``'s limits; Nchan's channel info is under 100 bytes)."""


class _Calls(threading.local):
    """One kept-alive connection to the publisher location per thread (a change makes three to
    five calls — three when both languages' viewers listen — a new connection for each would
    cost more than the calls)."""

    connection: _Kept | None = None
    address: tuple[str, int] | None = None


_CALLS = _Calls()
_CLOSED = (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError)
"""What a kept connection the proxy closed meanwhile raises."""


def _call(base: str, method: str, name: str, body: str | None = None) -> tuple[int, bytes]:
    """One request to the publisher location ``base`` on this thread's kept connection (made
    again once if the proxy had closed it): its status and body. Raises ``OSError``,
    ``ValueError`` and ``http.client.HTTPException`` as the proxy fails."""
    parts = urllib.parse.urlsplit(base)
    address = (parts.hostname or "127.0.0.1", parts.port or 80)
    data = body.encode() if body is not None else None
    for attempt in (1, 2):
        if _CALLS.connection is not None and _CALLS.address != address:
            _CALLS.connection.close()
            _CALLS.connection = None
        try:
            if _CALLS.connection is None:
                _CALLS.connection, _CALLS.address = _Kept(address), address
            status, answer, kept = _CALLS.connection.call(method, parts.path + name, data)
        except (OSError, ValueError, http.client.HTTPException) as error:
            if _CALLS.connection is not None:
                _CALLS.connection.close()
                _CALLS.connection = None
            # Once more only when the proxy had closed the kept connection; a proxy that is
            # slow or down is not waited for twice (a save never waits on it for long).
            if attempt == 2 or not isinstance(error, _CLOSED):
                raise
            continue
        if not kept:
            _CALLS.connection.close()
            _CALLS.connection = None
        return status, answer
    raise AssertionError("unreachable")


def publish(publisher: Publisher, name: str, message: str, *, delete: bool = False) -> bool:
    """POST ``message`` to channel ``name`` (then DELETE it when ``delete``): True when the proxy
    took it. Never raises. The proxy's answer to the POST says how many streams the channel
    holds (Nchan's channel info): kept for :func:`_is_listened`."""
    ok = True
    for method in ("POST", "DELETE") if delete else ("POST",):
        try:
            status, body = _call(publisher.url, method, name,
                                 message if method == "POST" else None)
            ok = ok and (status < 400 or (method == "DELETE" and status == 404))
            if method == "POST" and status < 400 and not delete:
                _keep(publisher, name, _subscribers(body))
        except Exception:  # the proxy is down or slow: the pages' polling catches up
            ok = False
    publisher.count(ok=ok)
    return ok


def listeners(publisher: Publisher, name: str) -> int:
    """How many streams channel ``name`` holds now (0 when the proxy does not say)."""
    try:
        status, body = _call(publisher.url, "GET", name)
        found = _subscribers(body) if status == 200 else None
    except Exception:  # no answer: publish the version alone, as to nobody
        return 0
    _keep(publisher, name, found)
    return found or 0


def _subscribers(body: bytes) -> int | None:
    """The streams a channel holds, from the proxy's channel info (None: it did not say)."""
    try:
        return int(json.loads(body)["subscribers"])
    except (ValueError, TypeError, KeyError):
        return None


LISTENERS_KEPT = 30.0
"""Seconds a channel's streams, as the proxy counted them in its answer to this process's last
publish to it (or a ``GET``), are taken as still there: a save 4 s after the last one asks
nothing before it draws its viewers' part. A channel nobody listened to is asked again before
each change (a phone may have begun to listen since: it gets its part); one whose phones left
meanwhile is drawn a part once for nobody, then the publish's answer says so (nginx counts a
stream until a message finds it gone, so a ``GET`` would have said the same)."""
_KEPT_MAX = 4096
"""Channels whose counts a process keeps (the oldest forgotten first)."""
_LISTENING: dict[tuple[str, str], tuple[int, float]] = {}
_LISTENING_LOCK = threading.Lock()


def _keep(publisher: Publisher, name: str, streams: int | None) -> None:
    """Channel ``name`` of ``publisher``'s proxy holds ``streams`` now (None: not said)."""
    key = (publisher.url, name)
    with _LISTENING_LOCK:
        _LISTENING.pop(key, None)  # (newest last: the first is the one forgotten)
        if streams is not None:
            _LISTENING[key] = (streams, time.monotonic())
        while len(_LISTENING) > _KEPT_MAX:
            del _LISTENING[next(iter(_LISTENING))]


def _is_listened(publisher: Publisher, name: str) -> bool:
    """Whether channel ``name`` holds a stream: yes if the proxy said so within
    :data:`LISTENERS_KEPT`, else asked (a ``GET``)."""
    found = _LISTENING.get((publisher.url, name))
    if found is not None and found[0] > 0 and time.monotonic() - found[1] < LISTENERS_KEPT:
        return True
    return listeners(publisher, name) > 0


def _publish_version(publisher: Publisher, game_id: int, ids: list[int], version: str,
                     viewer: tuple[str, str] | None = None,
                     tokens: tuple[tuple[str, str], ...] | None = None,
                     saved: saved_games.SavedGame | None = None) -> None:
    """The new version to the game's channel, and to each language's viewers' channel the
    version with the viewers' part drawn in that language when someone listens there
    (``viewer``: the game's kind and viewer link, ``tokens``: the role and token of each of its
    live links, as read after the commit)."""
    own, *viewers = _channels(publisher, game_id, ids)
    publish(publisher, own, version)
    for lang, name in zip(publisher.languages, viewers, strict=True):
        part = None
        if publisher.draw is not None and _is_listened(publisher, name):
            part = _drawn(publisher, game_id, lang, viewer, tokens, saved)
        message = version if part is None else f"{version}\n{part}"
        if len(message.encode()) > PART_MAX_BYTES:  # more than the proxy takes whole
            message = version
        publish(publisher, name, message)


_DRAWING = threading.local()


def _drawn(publisher: Publisher, game_id: int, lang: str,
           viewer: tuple[str, str] | None = None,
           tokens: tuple[tuple[str, str], ...] | None = None,
           saved: saved_games.SavedGame | None = None) -> str | None:
    """The viewers' part, or None when drawing fails (the viewers then reload as before). A
    drawing never publishes itself (a page that wrote would come back here)."""
    assert publisher.draw is not None
    if getattr(_DRAWING, "on", False):
        return None
    _DRAWING.on = True
    _DRAWING.viewer = (game_id, viewer) if viewer is not None else None
    _DRAWING.tokens = (game_id, tokens) if tokens is not None else None
    _DRAWING.saved = saved
    try:
        return publisher.draw(game_id, lang)
    except Exception:  # never fail a save for a drawing
        return None
    finally:
        _DRAWING.on = False
        _DRAWING.viewer = _DRAWING.tokens = _DRAWING.saved = None


def saved_being_drawn(game_id: int) -> saved_games.SavedGame | None:
    """While the viewers' part of game ``game_id`` is drawn after the commit of a save that
    noted its game (:mod:`.saved_games`): what it noted; else None."""
    found: saved_games.SavedGame | None = getattr(_DRAWING, "saved", None)
    return found if found is not None and found.game.id == game_id else None


def viewer_being_drawn(game_id: int) -> tuple[str, str] | None:
    """While the viewers' part of game ``game_id`` is drawn after a commit: the game's kind and
    its viewer link's token as read with its version (the drawing need not read them again);
    else None."""
    found = getattr(_DRAWING, "viewer", None)
    return found[1] if found is not None and found[0] == game_id else None


def tokens_being_drawn(game_id: int) -> tuple[tuple[str, str], ...] | None:
    """While the viewers' part of game ``game_id`` is drawn after a commit: the role and token
    of each of its live links as read with its version; else None."""
    found = getattr(_DRAWING, "tokens", None)
    return found[1] if found is not None and found[0] == game_id else None


def _before_flush(session: OrmSession, _context: object, _instances: object) -> None:
    """Note the games this flush changes, with their channel as it was before."""
    publisher = publisher_of(session)
    if publisher is None:
        return
    touched: dict[int, list[int] | None] = session.info.setdefault(_TOUCHED, {})
    moving: set[int] = set()
    for row in (*session.new, *session.dirty, *session.deleted):
        if isinstance(row, Entry) and row.game_id is not None:
            touched.setdefault(row.game_id, None)
        elif isinstance(row, Game) and row.id is not None:
            touched.setdefault(row.id, None)
            if row in session.deleted:
                moving.add(row.id)
        elif isinstance(row, GameLink) and row.game_id is not None:
            touched.setdefault(row.game_id, None)
            moving.add(row.game_id)
    for game_id in moving:
        if touched.get(game_id) is None:
            touched[game_id] = live_ids(session.connection(), game_id)


def changed(session: OrmSession, game_id: int) -> None:
    """A game that a write through Core changed (:func:`companion.play.store.append`: no ORM row
    for :func:`_before_flush` to see): its new version is published after the commit, as any
    other write's."""
    if publisher_of(session) is not None:
        session.info.setdefault(_TOUCHED, {}).setdefault(game_id, None)


def leaving(session: OrmSession, game_ids: Sequence[int | None]) -> None:
    """Games about to be deleted in bulk (a group deleted): their phones are told ``gone`` after
    the commit (row events do not see a bulk ``DELETE``)."""
    publisher = publisher_of(session)
    if publisher is None:
        return
    touched: dict[int, list[int] | None] = session.info.setdefault(_TOUCHED, {})
    for game_id in game_ids:
        if game_id is not None and touched.get(game_id) is None:
            touched[game_id] = live_ids(session.connection(), game_id)


def _after_commit(session: OrmSession) -> None:
    """Publish each changed game's version (and close the channels that moved). A save that
    changed one game and noted it (:mod:`.saved_games`) is published as it noted it: its
    stamp, its live links, nothing read again (and its viewers' part drawn from it)."""
    touched: dict[int, list[int] | None] | None = session.info.pop(_TOUCHED, None)
    saved = saved_games.taken(cast(Session, session))
    if not touched:
        return
    publisher = publisher_of(session)
    if publisher is None:
        return
    if saved is not None and saved.game.id is not None and touched == {saved.game.id: None}:
        game_id, stamp = saved.game.id, saved.game.updated_at
        stamp = stamp if stamp.tzinfo else stamp.replace(tzinfo=UTC)
        viewer = next(((saved.game.kind, token) for _, role, token in saved.links
                       if role == "viewer"), None)
        _publish_version(publisher, game_id, [link_id for link_id, _, _ in saved.links],
                         f"{game_id}-{stamp.timestamp():.6f}", viewer, saved.tokens(), saved)
        return
    engine = session.get_bind().engine
    now = _read(engine, lambda connection: {
        game_id: connection.execute(_NOW, {"game": game_id}).all() for game_id in touched})
    for game_id, old in touched.items():
        rows = now[game_id]
        if not rows:  # the game is deleted: its phones say so
            for name in _channels(publisher, game_id, old) if old is not None else ():
                publish(publisher, name, "gone", delete=True)
            continue
        ids = [int(row.id) for row in rows if row.id is not None]
        viewer = next(((str(row.kind), str(row.token)) for row in rows if row.role == "viewer"),
                      None)
        tokens = tuple((str(row.role), str(row.token)) for row in rows if row.token is not None)
        if old and sorted(old) != sorted(ids):  # (a new game's links: nothing to close)
            for name in _channels(publisher, game_id, old):
                publish(publisher, name, "closed", delete=True)
        # companion.play.versions.version_string's text (written out as it writes it);
        # tests/web/test_push.py checks it is the page's live version.
        _publish_version(publisher, game_id, ids, f"{game_id}-{rows[0][0].timestamp():.6f}",
                         viewer, tokens)


def _after_rollback(session: OrmSession, *_args: object) -> None:
    session.info.pop(_TOUCHED, None)
    saved_games.drop(cast(Session, session))


def install() -> None:
    """Hook every session (once)."""
    for name, hook in (("before_flush", _before_flush), ("after_commit", _after_commit),
                       ("after_rollback", _after_rollback)):
        if not event.contains(OrmSession, name, hook):
            event.listen(OrmSession, name, hook)
