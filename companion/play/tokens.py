"""The shape of a link token or a game code, checked before any of them reaches the database."""

from __future__ import annotations

import re

_TOKEN = re.compile(r"[0-9A-Za-z_-]{1,64}")
"""The shape of every link token and game code (letters, digits, ``-`` and ``_``): anything else
— a NUL, a control character, a lone surrogate, a space — names nothing and is never sent to the
database (PostgreSQL refuses a NUL in text outright)."""


def is_token(text: str) -> bool:
    """Whether ``text`` has the shape of a link token or a game code (see :data:`_TOKEN`)."""
    return bool(text) and _TOKEN.fullmatch(text) is not None
