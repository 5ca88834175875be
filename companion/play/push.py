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
secret picks stay where they are until both are in, as with polling.

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
import urllib.request
import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import bindparam, event
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session as OrmSession
from sqlmodel import col, select

from ..models import Entry, Game, GameLink

TIMEOUT = 0.5
"""Seconds a publish may take before it is given up (and counted as failed)."""
_TOUCHED = "companion.play.push.touched"
_LIVE_IDS = (select(GameLink.id).where(GameLink.game_id == bindparam("game"),
                                       col(GameLink.revoked_at).is_(None)).order_by("id"))
_UPDATED = select(Game.updated_at).where(Game.id == bindparam("game"))


@dataclass(frozen=True)
class Publisher:
    """An app's way to publish: its settings (read at each use, so a changed setting counts:
    ``LIVE_PUSH_PUBLISH_URL``, ``LIVE_PUSH_SUBSCRIBE_PATH``, ``SECRET_KEY``) and what counts
    each publish (called with ``ok``: the proxy took it)."""

    settings: Mapping[str, Any]
    count: Callable[..., None]

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


def channel(secret: str | bytes, game_id: int, live_ids: list[int] | tuple[int, ...]) -> str:
    """The channel of a game whose live links are ``live_ids``: 32 hex digits."""
    key = secret if isinstance(secret, bytes) else secret.encode()
    message = f"{game_id}:{','.join(str(i) for i in sorted(live_ids))}".encode()
    return hmac.new(key, message, hashlib.sha256).hexdigest()[:32]


def live_ids(connection: Any, game_id: int) -> list[int]:
    return [int(row[0]) for row in connection.execute(_LIVE_IDS, {"game": game_id})]


def subscribe_url(engine: Engine, game_id: int | None) -> str | None:
    """The address a page of game ``game_id`` listens on, or None when nothing is pushed."""
    publisher = _active(engine)
    if game_id is None or publisher is None:
        return None
    with engine.connect() as connection:
        ids = live_ids(connection, game_id)
    return f"{publisher.subscribe_path}{channel(publisher.secret, game_id, ids)}"


def publish(publisher: Publisher, name: str, message: str, *, delete: bool = False) -> bool:
    """POST ``message`` to channel ``name`` (then DELETE it when ``delete``): True when the proxy
    took it. Never raises."""
    base = publisher.url
    ok = True
    for method in ("POST", "DELETE") if delete else ("POST",):
        request = urllib.request.Request(
            base + name, data=message.encode() if method == "POST" else None, method=method,
            headers={"Content-Type": "text/plain"})
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT) as answer:
                answer.read()
        except Exception:  # the proxy is down or slow: the pages' polling catches up
            ok = False
    publisher.count(ok=ok)
    return ok


def _before_flush(session: OrmSession, _context: object, _instances: object) -> None:
    """Note the games this flush changes, with their channel as it was before."""
    publisher = publisher_of(session)
    if publisher is None:
        return
    touched: dict[int, str | None] = session.info.setdefault(_TOUCHED, {})
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
    secret = publisher.secret
    for game_id in moving:
        if touched.get(game_id) is None:
            touched[game_id] = channel(secret, game_id, live_ids(session.connection(), game_id))


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
    touched: dict[int, str | None] = session.info.setdefault(_TOUCHED, {})
    secret = publisher.secret
    for game_id in game_ids:
        if game_id is not None and touched.get(game_id) is None:
            touched[game_id] = channel(secret, game_id, live_ids(session.connection(), game_id))


def _after_commit(session: OrmSession) -> None:
    """Publish each changed game's version (and close the channels that moved)."""
    touched: dict[int, str | None] | None = session.info.pop(_TOUCHED, None)
    if not touched:
        return
    publisher = publisher_of(session)
    if publisher is None:
        return
    secret = publisher.secret
    engine = session.get_bind().engine
    with engine.connect() as connection:
        now = {game_id: (connection.execute(_UPDATED, {"game": game_id}).first(),
                         live_ids(connection, game_id)) for game_id in touched}
    for game_id, old in touched.items():
        row, ids = now[game_id]
        if row is None:  # the game is deleted: its phones say so
            if old is not None:
                publish(publisher, old, "gone", delete=True)
            continue
        new = channel(secret, game_id, ids)
        if old is not None and old != new:
            publish(publisher, old, "closed", delete=True)
        # companion.play.store.version_string's text (not imported: store imports groups, which
        # imports this module); tests/web/test_push.py checks it is the page's live version.
        publish(publisher, new, f"{game_id}-{row[0].timestamp():.6f}")


def _after_rollback(session: OrmSession, *_args: object) -> None:
    session.info.pop(_TOUCHED, None)


def install() -> None:
    """Hook every session (once)."""
    for name, hook in (("before_flush", _before_flush), ("after_commit", _after_commit),
                       ("after_rollback", _after_rollback)):
        if not event.contains(OrmSession, name, hook):
            event.listen(OrmSession, name, hook)
