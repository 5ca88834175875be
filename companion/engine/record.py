"""The text record of a round, in the manner of a chess PGN.

A record is a block of headers, one per line as ``[Name "value"]``, then one line per trick::

    [Edition "deluxe"]
    [Players "6"]
    [RoundCard "a"]
    [Leader "0"]
    [Princesses "alice - snow-white - - mulan"]
    [Hands "Q3F1/Q7A10/P12F2/F9A3/A8P1/Q4Q5"]

    1. 0: Q3 Q7 P12 F9 A8 Q4 > 1
    2. 1: A10 F2 A3 P1 Q5 F1 > 1

Headers: ``Edition`` (``deluxe`` or ``classic``), ``Players`` (3-6), ``RoundCard`` (the letter),
``Leader`` (the seat leading the first trick) are required. ``Princesses`` gives each seat's
Princess slug, ``-`` for none (default: none). ``Hands`` is optional: the dealt hands, in the state
notation's form, when every hand is known. A trick line is its number, the leader, the cards in
play order and optionally ``> winner``. Blank lines and lines starting with ``#`` are ignored.

``parse_record(format_record(r)) == r`` for every record.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from companion.scoring.cards import Card, Edition

from .cards import card_id, cards_of, format_mask, mask_of, parse_cards
from .errors import InvalidEntryError
from .modifiers import round_card_class
from .powers import power_slugs
from .state import RoundState, Trick, parse_edition

__all__ = ["RoundRecord", "format_record", "parse_record"]

_HEADER = re.compile(r'^\[(\w+) "([^"]*)"\]$')
_TRICK = re.compile(r"^(\d+)\.\s*(\d+)\s*:\s*([^>]*?)\s*(?:>\s*(\d+))?$")
_ORDER = ("Edition", "Players", "RoundCard", "Leader", "Princesses", "Hands")


@dataclass(frozen=True)
class RoundRecord:
    """One round as recorded: setup headers and the tricks in order."""

    edition: Edition
    players: int
    round_card: str
    leader: int
    princesses: tuple[str | None, ...] = ()
    hands: tuple[frozenset[Card], ...] | None = None
    tricks: tuple[Trick, ...] = field(default=())

    def start(self) -> RoundState:
        """The state before the first trick; needs the ``Hands`` header (full information)."""
        if self.hands is None:
            raise InvalidEntryError("this record has no Hands header: the hands are not known")
        return RoundState(list(self.hands), edition=self.edition, round_card=self.round_card,
                          leader=self.leader)

    def replay(self, *, check: bool = True) -> RoundState:
        """Play every trick from :meth:`start`: with ``check``, through ``play_trick`` (raising
        :class:`~companion.engine.errors.IllegalTrickError` on the first illegal trick, a wrong
        stated winner included), otherwise through the trusted ``push``."""
        state = self.start()
        for trick in self.tricks:
            if check:
                state.play_trick(trick)
            else:
                state.push(trick)
        return state

    @classmethod
    def from_state(cls, state: RoundState, princesses: Sequence[str | None] = (),
                   with_hands: bool = True) -> RoundRecord:
        """The record of the tricks played so far in ``state`` (built from dealt hands, no trick
        in progress); with ``with_hands`` the hands are rebuilt from the cards still held plus
        the cards each seat played."""
        hands = None
        tricks = tuple(state.tricks)
        if with_hands:
            masks = list(state.hands)
            for trick in tricks:
                for index, card in enumerate(trick.cards):
                    masks[trick.seat_of(index, state.players)] |= 1 << card_id(card)
            hands = tuple(cards_of(mask) for mask in masks)
        return cls(state.edition, state.players, state.round_card, state.first_leader,
                   tuple(princesses), hands, tricks)


def format_record(record: RoundRecord) -> str:
    """The record as text (see the module docstring)."""
    lines = [
        f'[Edition "{record.edition.value}"]',
        f'[Players "{record.players}"]',
        f'[RoundCard "{record.round_card}"]',
        f'[Leader "{record.leader}"]',
    ]
    if record.princesses:
        lines.append(f'[Princesses "{" ".join(p or "-" for p in record.princesses)}"]')
    if record.hands is not None:
        lines.append(f'[Hands "{"/".join(format_mask(mask_of(h)) for h in record.hands)}"]')
    lines.append("")
    for number, trick in enumerate(record.tricks, start=1):
        lines.append(f"{number}. {trick}")
    return "\n".join(lines) + "\n"


def parse_record(text: str) -> RoundRecord:
    """Read a record written by :func:`format_record` (or by hand).

    Raises :class:`InvalidEntryError` for an unknown or repeated header, a missing required header,
    a bad value, an unknown Princess, a trick number out of sequence or a malformed trick line.
    """
    headers: dict[str, str] = {}
    tricks: list[Trick] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        header = _HEADER.match(line)
        if header:
            name, value = header.groups()
            if name not in _ORDER or name in headers:
                raise InvalidEntryError(f"line {number}: unknown or repeated header {name!r}")
            if tricks:
                raise InvalidEntryError(f"line {number}: header after the tricks")
            headers[name] = value
            continue
        trick = _TRICK.match(line)
        if not trick:
            raise InvalidEntryError(f"line {number}: not a header or a trick: {line!r}")
        index, leader, cards, winner = trick.groups()
        if int(index) != len(tricks) + 1:
            raise InvalidEntryError(f"line {number}: trick {index} out of sequence")
        stated = None if winner is None else int(winner)
        tricks.append(Trick(int(leader), parse_cards(cards), stated))
    missing = [name for name in _ORDER[:4] if name not in headers]
    if missing:
        raise InvalidEntryError(f"record lacks the header(s) {', '.join(missing)}")
    edition = parse_edition(headers["Edition"])
    if not headers["Players"].isdigit() or not 3 <= int(headers["Players"]) <= 6:
        raise InvalidEntryError(f"bad Players header {headers['Players']!r}")
    players = int(headers["Players"])
    letter = round_card_class(edition, headers["RoundCard"]).letters[edition]
    if not headers["Leader"].isdigit() or int(headers["Leader"]) >= players:
        raise InvalidEntryError(f"bad Leader header {headers['Leader']!r}")
    princesses: tuple[str | None, ...] = ()
    if "Princesses" in headers:
        names = headers["Princesses"].split()
        known = power_slugs(edition)
        if len(names) != players or any(n != "-" and n not in known for n in names):
            raise InvalidEntryError(f"bad Princesses header {headers['Princesses']!r}")
        princesses = tuple(None if n == "-" else n for n in names)
    hands = None
    if "Hands" in headers:
        parts = headers["Hands"].split("/")
        if len(parts) != players:
            raise InvalidEntryError(f"Hands header needs {players} hands")
        hands = tuple(frozenset() if p == "-" else frozenset(parse_cards(p)) for p in parts)
    for trick in tricks:
        if trick.leader >= players or (trick.winner is not None and trick.winner >= players):
            raise InvalidEntryError(f"trick {trick} names a seat outside {players} players")
    return RoundRecord(edition, players, letter, int(headers["Leader"]), princesses, hands,
                       tuple(tricks))
