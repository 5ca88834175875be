"""The colour scheme a phone chose: the "theme" cookie, set by app.js's switch at the foot of every
page. Without a choice a page follows the phone's own setting (``prefers-color-scheme``)."""

from __future__ import annotations

from flask import request

THEMES = ("light", "dark")


def theme_choice() -> str | None:
    """This phone's chosen colour scheme (written on ``<html data-theme>``), or None."""
    theme = request.cookies.get("theme")
    return theme if theme in THEMES else None
