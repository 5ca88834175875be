"""Factories for Rebel Princess's tests, each through the app's own pages (what a phone does),
never the database: a game made through the set-up page (``make_game``, ``make_table``), rounds
entered through the forms (``enter_round_by_cards``, ``by_numbers``), a trick tapped through the
trick screen (``act``). ``count`` reads the database only to prove that nothing was stored.
"""

from __future__ import annotations

import re

import pytest
from sqlmodel import select

from companion.db import get_session
from companion.models import RoundRecord
from companion.play import store

NAMES = ["Ana", "Ben", "Cy", "Di", "Eve", "Fay"]
HX = {"HX-Request": "true"}
PAD_ADDRESS = r"(?:https?://[^/]+)?/rebel-princess/g/(\w+)"
"""Where a new game's set-up sends the phone: its score pad, at its scorer link."""


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
        match = re.fullmatch(PAD_ADDRESS, response.headers["Location"])
        assert match, response.headers["Location"]
        return match.group(1)

    return make


# --- games and rounds through the set-up page and the round entry forms ----------------------

DEFAULT_CARDS = {"deluxe": "abcde", "classic": "ACBDM"}


def setup_form(players=4, edition="deluxe", cards=None, length=5, first_leader=0, names=None,
               **extra):
    """The fields the new-game page posts when "Start the game" is tapped."""
    names = NAMES[:players] if names is None else names
    cards = DEFAULT_CARDS.get(edition, "abcde") if cards is None else cards
    data = {"edition": edition, "length": str(length), "first_leader": str(first_leader),
            "create": "1"}
    data.update({f"names-{seat}": name for seat, name in enumerate(names)})
    data.update({f"cards-{i}": letter for i, letter in enumerate(cards)})
    if any(key.startswith("princesses-") for key in extra):  # the page posts every seat's
        data.update({f"princesses-{seat}": "" for seat in range(len(names))})
    data.update(extra)
    return data


def code_of(response):
    """The game code from the redirect to its pad."""
    assert response.status_code == 302, response.status_code
    match = re.fullmatch(PAD_ADDRESS, response.headers["Location"])
    assert match, response.headers["Location"]
    return match.group(1)


def rows_of(html):
    """The card codes of the rows of a by-cards form, in page order."""
    return re.findall(r'data-row="(\w+)"', html)



def totals(client, code):
    """The running totals shown on the pad, one int per seat."""
    html = client.get(f"/rebel-princess/g/{code}").text
    return [int(t) for t in attr(html, "data-totals")[0].split(",")]


def pad_leader(client, code):
    """The seat the pad says leads the next round."""
    html = client.get(f"/rebel-princess/g/{code}").text
    found = re.search(r'id="this-round".*?data-leader="(\d+)"', html, re.S)
    return int(found.group(1)) if found else None


def count(app, model=RoundRecord):
    """How many rows of ``model`` are stored."""
    with app.app_context():
        return len(get_session().exec(select(model)).all())


@pytest.fixture
def make_game(client):
    """``make_game(players=4, edition="deluxe", cards="azycd", length=5)`` -> the game code."""

    def make(players=4, edition="deluxe", cards=None, length=5, **extra):
        return code_of(client.post("/rebel-princess/new", data=setup_form(
            players, edition, cards, length,
                                                             **extra)))

    return make


def cards_data(client, code, number, given=None, rest=None, **extra):
    """Form data for a by-cards entry: ``given`` maps card codes to seats; every other row of the
    form goes to seat ``rest`` (left out when ``rest`` is None)."""
    given = dict(given or {})
    data = {}
    if rest is not None:
        rows = rows_of(client.get(f"/rebel-princess/g/{code}/round/{number}/cards").text)
        data.update({row: str(rest) for row in rows})
    data.update({card: str(seat) for card, seat in given.items()})
    data.update({key: str(value) for key, value in extra.items()})
    return data


@pytest.fixture
def enter_round_by_cards(client):
    """POST a by-cards entry; see :func:`cards_data`. Returns the response."""

    def enter(code, number, given=None, rest=None, **extra):
        data = cards_data(client, code, number, given, rest, **extra)
        return client.post(f"/rebel-princess/g/{code}/round/{number}/cards", data=data)

    return enter


def numbers_data(scores, **extra):
    data = {f"score_{seat}": str(value) for seat, value in enumerate(scores)}
    data.update({key: str(value) for key, value in extra.items()})
    return data


@pytest.fixture
def by_numbers(client):
    """POST a by-numbers entry: ``by_numbers(code, 1, [0, 3, 8, 4], last_trick=2)``."""

    def enter(code, number, scores, **extra):
        return client.post("/rebel-princess"
                           f"/g/{code}/round/{number}/numbers", data=numbers_data(scores, **extra))

    return enter


@pytest.fixture
def history(client):
    """The ``data-action`` of every record on the history page, oldest first."""

    def read(code):
        html = client.get(f"/rebel-princess/g/{code}/history").text
        return re.findall(r'data-record="\d+" data-action="(\w+)"', html)

    return read


@pytest.fixture
def record_ids(app):
    """The ids of the stored records of round ``number``, oldest first."""

    def read(code, number):
        with app.app_context():
            session = get_session()
            game = store.game_by_token(session, code)
            return [r.id for r in session.exec(
                select(RoundRecord).where(RoundRecord.game_id == game.id,
                                          RoundRecord.number == number)
                .order_by(RoundRecord.id))]

    return read
