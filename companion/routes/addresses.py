"""The addresses another phone at the table can open: ``PUBLIC_URL`` when it is set, else this
machine's own network address (never ``localhost``, which no other phone reaches)."""

from __future__ import annotations

import ipaddress
from functools import cache
from urllib.parse import urlsplit

from flask import (
    current_app,
    request,
    url_for,
)

from ..games import by_key
from ..models import Game, GameLink


def public_base() -> str:
    """The address other phones use: ``PUBLIC_URL`` if configured, else this request's host —
    unless that is loopback, which no other phone can reach; then this machine's LAN address."""
    configured = current_app.config.get("PUBLIC_URL")
    if configured:
        return str(configured).rstrip("/")
    parts = urlsplit(request.host_url)
    host = parts.hostname or ""
    try:
        loopback = host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = False
    if loopback:
        addresses = _lan_addresses()
        if addresses:
            port = f":{parts.port}" if parts.port else ""
            return f"{parts.scheme}://{addresses[0]}{port}"
    return request.host_url.rstrip("/")


@cache
def _lan_addresses() -> tuple[str, ...]:
    """This machine's network addresses, looked up once per process (it runs a command)."""
    from ..ops.serve import lan_addresses

    return tuple(lan_addresses())


def game_address(game: Game, link: GameLink) -> str:
    """The full address of a game's page opened through ``link``."""
    kind = by_key(game.kind)
    path = url_for(kind.show_endpoint, code=link.token) if kind and kind.show_endpoint else "/"
    return public_base() + path
