"""Links that opened a group or a game once and open nothing now, and why.

A group's links are taken back together (:func:`companion.play.groups.replace_links`) and a
deleted group takes its links with it; each link closed so is written down here by its SHA-256
digest (the token itself is never kept), with what it opened and why it closed. A phone that
comes back with one is then told the group is closed to it, or that the game is gone, rather
than shown a bare "not found". A game link replaced on its own keeps its row, marked revoked:
it is found there.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from sqlmodel import Session, col, select

from ..models import ClosedLink, GameLink
from .tokens import is_token

What = Literal["group", "game"]
Why = Literal["replaced", "deleted"]


@dataclass(frozen=True)
class Closed:
    """Why a link opens nothing: what it opened (a group, a game) and how it closed."""

    what: What
    why: Why


def digest(token: str) -> str:
    """What is kept of a closed link: its SHA-256, in hex."""
    return hashlib.sha256(token.encode()).hexdigest()


def close(session: Session, tokens: Iterable[str], *, what: What, why: Why) -> None:
    """Write down ``tokens`` as closed (not committed: the caller commits with the change that
    closed them). A link written down already keeps its first reason."""
    wanted = {digest(token): token for token in tokens if is_token(token)}
    if not wanted:
        return
    known = set(session.exec(select(ClosedLink.digest)
                             .where(col(ClosedLink.digest).in_(list(wanted)))))
    for key in wanted.keys() - known:
        session.add(ClosedLink(digest=key, what=what, why=why))


def why_closed(session: Session, token: str) -> Closed | None:
    """Why ``token`` opens nothing, if it ever opened something here; None for a token never
    given (or not a token's shape)."""
    if not is_token(token):
        return None
    row = session.get(ClosedLink, digest(token))
    if row is not None:
        return Closed(row.what, row.why)  # type: ignore[arg-type]
    revoked = session.exec(select(GameLink.id).where(GameLink.token == token,
                                                     col(GameLink.revoked_at).is_not(None))).first()
    return Closed("game", "replaced") if revoked is not None else None
