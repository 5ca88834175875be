"""Where a game stands in a list of a group's games, newest first: the key a history page's
Older, Newer and Oldest links carry instead of a page number, so that a deep page reads its own
games from the index (keyset pagination, never OFFSET). The key is the game's last change
(naive UTC) and its id, written ``<updated_at>~<id>`` in the link."""

from __future__ import annotations

from datetime import UTC, datetime

from ..common.bounds import db_id

PageKey = tuple[datetime, int]
"""Where a game stands in the list: its ``updated_at`` (naive UTC) and its id."""


def key_text(key: PageKey) -> str:
    """The key as a page link carries it."""
    when, game_id = key
    return f"{when.isoformat()}~{game_id}"


def parse_key(value: object) -> PageKey:
    """A page link's key (:func:`key_text`; a time with an offset is taken in UTC), else
    :class:`ValueError` (the first page is shown)."""
    text = str(value)
    if len(text) > 64 or text.count("~") != 1:
        raise ValueError("not a page key")
    when_text, id_text = text.split("~")
    when = datetime.fromisoformat(when_text)
    if when.tzinfo is not None:
        when = when.astimezone(UTC).replace(tzinfo=None)
    return when, db_id(id_text)
