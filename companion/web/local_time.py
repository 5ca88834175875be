"""Times on the pages, in the phone's own time zone (issue 22).

Times are stored in UTC. A page shows one as ``<time datetime="…Z" data-local="<style>">`` whose
text is the time in UTC, said so ("24 Nov, 09:03 UTC"); app.js rewrites that text in the phone's
time zone and the page's language with ``Intl.DateTimeFormat``, using the same ``style``. The
server never guesses the phone's zone: without JavaScript the page still tells the truth.

What leaves the app as text without a page around it (the play sent to BG Stats) needs the zone
on the server: app.js keeps the phone's IANA zone in the "tz" cookie (:func:`zone_named` reads it;
anything else is UTC).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, tzinfo
from zoneinfo import ZoneInfo

from babel.dates import format_datetime
from markupsafe import Markup, escape

STYLES = {  # style: the Babel pattern of the UTC text (app.js has the Intl options of each)
    "day-time": "d MMM, HH:mm",
    "date": "d MMM y",
    "date-time": "d MMM y, HH:mm",
    "time": "HH:mm:ss",
}
WITH_TIME = {"day-time", "date-time", "time"}


def as_utc(value: datetime) -> datetime:
    """A stored time as an aware UTC datetime (databases may hand back naive UTC)."""
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def utc_text(value: datetime, style: str, locale: str) -> str:
    """The time as written in UTC for ``locale``, "UTC" after it when the style shows the hour."""
    text = format_datetime(as_utc(value), STYLES[style], tzinfo=UTC, locale=locale)
    return f"{text} UTC" if style in WITH_TIME else text


def time_element(value: datetime | None, style: str, locale: str) -> Markup:
    """``<time>`` for ``value`` in ``style`` (one of :data:`STYLES`); empty for no time."""
    if value is None:
        return Markup("")
    if style not in STYLES:
        raise ValueError(f"unknown time style {style!r}")
    # To the second only where the style shows seconds: a page says no more than it shows.
    stamp = as_utc(value).strftime("%Y-%m-%dT%H:%M:%SZ" if style == "time" else "%Y-%m-%dT%H:%MZ")
    return Markup('<time datetime="{}" data-local="{}">{}</time>').format(
        stamp, style, escape(utc_text(value, style, locale)))


_ZONE_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_+-]*(/[A-Za-z0-9_+-]+){0,2}")


def zone_named(name: str | None) -> tzinfo:
    """The IANA time zone ``name`` ("Europe/Paris"); UTC for none, an unknown or a malformed one."""
    if not name or len(name) > 64 or not _ZONE_NAME.fullmatch(name):
        return UTC
    try:
        return ZoneInfo(name)
    except (KeyError, ValueError, OSError):  # not a zone (ZoneInfoNotFoundError is a KeyError)
        return UTC
