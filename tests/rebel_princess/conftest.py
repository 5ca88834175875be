"""Factories for Rebel Princess's tests: a game made through the set-up page, a trick tapped
through the trick screen (what a phone does; never the database)."""

from __future__ import annotations

import re

import pytest

NAMES = ["Ana", "Ben", "Cy", "Di", "Eve", "Fay"]
HX = {"HX-Request": "true"}


def attr(html: str, name: str) -> list[str]:
    """Every value of the data attribute ``name`` in the page, in order."""
    return re.findall(rf'{name}="([^"]*)"', html)


def trick_url(code: str, action: str | None = None) -> str:
    base = f"/rebel-princess/g/{code}/round/1/tricks"
    return base if action is None else f"{base}/{action}"


def version(client, code: str) -> int:
    return int(attr(client.get(trick_url(code)).text, "data-version")[0])


def act(client, code: str, action: str, **data):
    """One tap on the trick screen (as htmx sends it)."""
    data.setdefault("version", version(client, code))
    return client.post(trick_url(code, action), data=data, headers=HX)


@pytest.fixture
def make_table(client):
    """``make_table(edition, s1="rapunzel", ...)``: a 4-player game (Ana, Ben, Cy, Di; Ana
    leads the first trick) with the Princess ``slug`` at seat ``n`` for each ``sn=slug``."""

    def make(edition: str = "deluxe", cards: str | None = None, **princesses: str) -> str:
        cards = cards or {"deluxe": "abcde", "classic": "ACBDM"}[edition]
        data = {"edition": edition, "length": "5", "first_leader": "0", "create": "1"}
        data.update({f"names-{seat}": name for seat, name in enumerate(NAMES[:4])})
        data.update({f"cards-{i}": letter for i, letter in enumerate(cards)})
        data.update({f"princesses-{seat}": "" for seat in range(4)})
        data.update({f"princesses-{seat[1:]}": slug for seat, slug in princesses.items()})
        response = client.post("/rebel-princess/new", data=data)
        assert response.status_code == 302, response.status_code
        match = re.fullmatch(r"(?:https?://[^/]+)?/rebel-princess/g/(\w+)",
                             response.headers["Location"])
        assert match, response.headers["Location"]
        return match.group(1)

    return make
