"""Numbers from outside (a form, a query string, an address, a JSON file) made safe to use: a
whole number is ASCII digits within bounds, and an id is within what both databases store.

PostgreSQL's ``integer`` columns (the ids, seats, numbers) hold at most 2^31 - 1; SQLite's hold
2^63 - 1, and Python's own ``int("…")`` refuses more than 4,300 digits. A value outside its bounds
is refused here, before any query or rules core sees it, so it is a clear 4xx, never a 500.
These helpers raise :class:`ValueError` so they fit ``request.args.get(..., type=…)`` and WTForms'
``coerce``: both turn a ``ValueError`` into "no value" / a field error.
"""

from __future__ import annotations

DB_INT_MAX = 2**31 - 1
"""The largest value of a PostgreSQL ``integer`` (int4) column: every id and number we store."""

_MAX_DIGITS = 12


def whole(value: object, low: int = 0, high: int = DB_INT_MAX) -> int:
    """``value`` as a whole number from ``low`` to ``high``: an ``int`` (not a bool), or a string
    of at most 12 ASCII digits with an optional leading minus and surrounding spaces. Raises
    :class:`ValueError` for anything else (unicode digits such as "²", huge numbers, text)."""
    if isinstance(value, bool):
        raise ValueError("not a number")
    if isinstance(value, int):
        number = value
    elif isinstance(value, str):
        text = value.strip()
        digits = text[1:] if text.startswith("-") else text
        if not (digits.isascii() and digits.isdigit() and len(digits) <= _MAX_DIGITS):
            raise ValueError(f"not a whole number: {value[:20]!r}")
        number = int(text)
    else:
        raise ValueError("not a number")
    if not low <= number <= high:
        raise ValueError(f"out of range: {low}..{high}")
    return number


def whole_or_none(value: object, low: int = 0, high: int = DB_INT_MAX) -> int | None:
    """:func:`whole`, or None instead of a :class:`ValueError`."""
    try:
        return whole(value, low, high)
    except ValueError:
        return None


def db_id(value: object) -> int:
    """A row id as the databases store it: a whole number from 1 to 2^31 - 1, else
    :class:`ValueError` (no such row can exist)."""
    return whole(value, 1, DB_INT_MAX)


def page_number(value: object) -> int:
    """A page of a list (1, 2, 3 …): a whole number from 1 to 100,000, else
    :class:`ValueError`."""
    return whole(value, 1, 100_000)
