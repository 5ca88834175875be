"""The text record of a round, in the manner of a chess PGN.

A record is a block of headers, one per line as ``[Name "value"]``, then one line per trick or
Round-card step, in the order they happened::

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
notation's form, when every hand is known (before any pass). A trick line is its number, the
leader, the cards in play order and optionally ``> winner``. A step line starts with the step's
word (``pass``, ``aside``, ``reveal``, ``gift``, ``chairs``, ``haggle``; see :mod:`.steps`), for
example ``pass left=Q3/A2/F4 right=-/-/-`` or ``haggle 1 F4 Q3``. Blank lines and lines starting
with ``#`` are ignored.

``parse_record(format_record(r)) == r`` for every record.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from companion.scoring.rebel_princess.cards import Edition, RebelCard

from .cards import format_mask, mask_of, parse_cards
from .errors import InvalidEntryError
from .modifiers import round_card_class
from .powers import power_slugs
from .state import RoundState, edition_of
from .steps import Step, StepKind, parse_step
from .values import Trick

__all__ = ["RoundTranscript", "format_record", "parse_record"]

_HEADER = re.compile(r'^\[(\w+) "([^"]*)"\]$')
_TRICK = re.compile(r"^(\d+)\.\s*(\d+)\s*:\s*([^>]*?)\s*(?:>\s*(\d+))?$")
_ORDER = ("Edition", "Players", "RoundCard", "Leader", "Princesses", "Hands")
_STEP_WORDS = frozenset(kind.value for kind in StepKind)


@dataclass(frozen=True)
class RoundTranscript:
    """One round as recorded: setup headers, then the tricks and steps in order."""

    edition: Edition
    players: int
    round_card: str
    leader: int
    princesses: tuple[str | None, ...] = ()
    hands: tuple[frozenset[RebelCard], ...] | None = None
    events: tuple[Trick | Step, ...] = field(default=())

    @property
    def tricks(self) -> tuple[Trick, ...]:
        """The tricks alone, in order."""
        return tuple(event for event in self.events if isinstance(event, Trick))

    def start(self) -> RoundState:
        """The state before the first step; needs the ``Hands`` header (full information)."""
        if self.hands is None:
            raise InvalidEntryError("this record has no Hands header: the hands are not known")
        return RoundState(list(self.hands), edition=self.edition, round_card=self.round_card,
                          leader=self.leader, princesses=self.princesses or None)

    def replay(self, *, check: bool = True) -> RoundState:
        """Play every trick and step from :meth:`start`: with ``check``, through ``play_trick`` and
        ``play_step`` (raising :class:`~.errors.IllegalTrickError` on the first
        illegal one, a wrong stated winner included), otherwise through the trusted ``push`` and
        ``push_step``."""
        state = self.start()
        for event in self.events:
            if isinstance(event, Trick):
                if check:
                    state.play_trick(event)
                else:
                    state.push(event)
            elif check:
                state.play_step(event)
            else:
                state.push_step(event)
        return state

    @classmethod
    def from_state(cls, state: RoundState, princesses: Sequence[str | None] = (),
                   with_hands: bool = True) -> RoundTranscript:
        """The record of what was played so far in ``state`` (no trick in progress); with
        ``with_hands`` the hands it started from are included."""
        hands = state.dealt_hands if with_hands else None
        names = tuple(princesses) or (state.princesses if any(state.princesses) else ())
        return cls(state.edition, state.players, state.round_card, state.first_leader,
                   names, hands, tuple(state.events()))


def format_record(record: RoundTranscript) -> str:
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
    number = 0
    for event in record.events:
        if isinstance(event, Trick):
            number += 1
            lines.append(f"{number}. {event}")
        else:
            lines.append(str(event))
    return "\n".join(lines) + "\n"


def parse_record(text: str) -> RoundTranscript:
    """Read a record written by :func:`format_record` (or by hand).

    Raises :class:`InvalidEntryError` for an unknown or repeated header, a missing required header,
    a bad value, an unknown Princess, a trick number out of sequence or a malformed line.
    """
    headers: dict[str, str] = {}
    events: list[Trick | Step] = []
    tricks = 0
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        header = _HEADER.match(line)
        if header:
            name, value = header.groups()
            if name not in _ORDER or name in headers:
                raise InvalidEntryError(f"line {number}: unknown or repeated header {name!r}")
            if events:
                raise InvalidEntryError(f"line {number}: header after the tricks")
            headers[name] = value
            continue
        if line.split()[0] in _STEP_WORDS:
            events.append(parse_step(line))
            continue
        trick = _TRICK.match(line)
        if not trick:
            raise InvalidEntryError(f"line {number}: not a header, trick or step: {line!r}")
        index, leader, cards, winner = trick.groups()
        if int(index) != tricks + 1:
            raise InvalidEntryError(f"line {number}: trick {index} out of sequence")
        tricks += 1
        stated = None if winner is None else int(winner)
        events.append(Trick(int(leader), parse_cards(cards), stated))
    missing = [name for name in _ORDER[:4] if name not in headers]
    if missing:
        raise InvalidEntryError(f"record lacks the header(s) {', '.join(missing)}")
    edition = edition_of(headers["Edition"])
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
    for event in events:
        seats = [event.leader, event.winner] if isinstance(event, Trick) else [
            getattr(event, "seat", None)]
        if any(seat is not None and seat >= players for seat in seats):
            raise InvalidEntryError(f"{event} names a seat outside {players} players")
    return RoundTranscript(edition, players, letter, int(headers["Leader"]), princesses, hands,
                       tuple(events))
