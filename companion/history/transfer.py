"""The export format: a versioned JSON document of games, their players and everything entered.

``docs/export.md`` documents it field by field. This module holds the schema (pydantic models,
strict, no unknown field) and the checks a file must pass before anything is stored; the glue
that reads and writes rows is :mod:`companion.play.transfer`.

A refused file is answered with :class:`TransferError` carrying every :class:`ImportProblem` (a
stable ``code`` and its parameters; the words are in the import page's template).
"""

from __future__ import annotations

import json
import zlib
from collections import Counter
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, JsonValue, ValidationError

from ..bounds import DB_INT_MAX
from ..play.players import name_problem
from ..scoring.problems import Catalogue

FORMAT = "princess-table-export"
VERSION = 1
MAX_BYTES = 20 * 1024 * 1024
"""The largest file an import takes, as sent (a plain JSON export, or one compressed by gzip)."""
MAX_UNPACKED = 256 * 1024 * 1024
"""The largest export a compressed file may unpack to: far above the export of
:data:`MAX_GAMES` games (about 50 MB), so the app can restore any export it made."""
GZIP_MAGIC = b"\x1f\x8b"
MAX_GAMES = 20_000
MAX_ROWS = 5_000  # entries, round records or trick logs of one game
CODE_PATTERN = r"^[a-z0-9]{4,16}$"


IMPORT_MESSAGES = Catalogue(__package__ or "companion.history")
"""The sentences of the import problem codes, in English and French (``messages.toml``)."""


class ImportProblem:
    """One reason a file is refused: ``code`` (``"not-json"``, ``"duplicate-code"`` …) and
    what it is about (``game``: a game code; ``detail``: a short technical hint)."""

    __slots__ = ("code", "game", "detail")

    def __init__(self, code: str, game: str | None = None, detail: str | None = None) -> None:
        self.code, self.game, self.detail = code, game, detail

    def text(self, lang: str = "en", names: Sequence[str] | None = None) -> str:
        """The sentence a player reads, in ``lang``, from :data:`IMPORT_MESSAGES` (``names``:
        as every problem's, unused: a file's problems name no player)."""
        return IMPORT_MESSAGES.text(self.code, lang, game=self.game, detail=self.detail)

    def __repr__(self) -> str:
        return f"ImportProblem({self.code!r}, game={self.game!r}, detail={self.detail!r})"


class TransferError(ValueError):
    """A file that cannot be imported: nothing was stored. ``problems`` says why (at most 20)."""

    def __init__(self, problems: list[ImportProblem]) -> None:
        super().__init__("; ".join(p.code for p in problems))
        self.problems = problems[:20]


def _in_utc(value: datetime) -> datetime:
    """Times are stored in UTC: an offset in the file is honoured, a time without one is UTC."""
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


Time = Annotated[datetime, AfterValidator(_in_utc)]
def _storable(name: str) -> str:
    problem = name_problem(name)
    if problem is not None:
        raise ValueError(problem)
    return name


Name = Annotated[str, Field(min_length=1, max_length=40), AfterValidator(_storable)]
Number = Annotated[int, Field(ge=1, le=DB_INT_MAX)]  # a row's number: what the databases store
Seat = Annotated[int, Field(ge=0, le=15)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class PlayerOut(_Strict):
    """One of the group's players. ``id`` numbers them within this file only."""

    id: Number
    name: Name
    created_at: Time


class SeatOut(_Strict):
    seat: int = Field(ge=0, le=15)
    name: Name
    princess: str | None = Field(default=None, max_length=40)
    player: Number


class EntryOut(_Strict):
    seq: Number
    kind: str = Field(min_length=1, max_length=24)
    data: dict[str, JsonValue]
    key: str | None = Field(default=None, max_length=64)
    created_at: Time


class RoundRecordOut(_Strict):
    seq: Number
    number: int = Field(ge=1, le=100)
    action: Literal["entered", "edited", "undone"]
    deleted: bool
    undoes: Number | None = None  # the seq of the record it reverts
    mode: str = Field(max_length=8)
    round_card: str | None = Field(default=None, max_length=2)
    taken: str | None = Field(default=None, max_length=1000)
    no_tricks: str | None = Field(default=None, max_length=100)
    scores: str | None = Field(default=None, max_length=200)
    counts: str | None = Field(default=None, max_length=64)  # entry by counts (absent before)
    leader: Seat | None = None
    last_trick_winner: Seat | None = None
    created_at: Time


class TrickLogOut(_Strict):
    number: int = Field(ge=1, le=100)
    plays: str = Field(max_length=2000)
    powers: list[dict[str, JsonValue]]
    accepted: list[str]
    checks: bool
    version: int = Field(ge=0, le=DB_INT_MAX)
    updated_at: Time


class ResultOut(_Strict):
    """What the game came to (written for readers of the file; ignored on import)."""

    finished: bool
    winners: list[int]
    scores: list[int]
    unit: str
    lower_wins: bool


LINK_TOKEN = r"^[0-9a-f]{32}$"
"""A scorer's, viewer's or group's link token as stored (128 random bits, hex)."""


class LinkOut(_Strict):
    """A game's live link, in the operator's copy only (``flask groups export --with-links``):
    imported on another server, the phones holding it open the game there."""

    role: Literal["scorer", "viewer"]
    token: str = Field(pattern=LINK_TOKEN)


class GroupOut(_Strict):
    """The group the games came from: its name, and its link in the operator's copy only."""

    name: str = Field(min_length=1, max_length=40, pattern=r"^[^\x00-\x1f\x7f]+$")
    token: str | None = Field(default=None, pattern=LINK_TOKEN)


class GameOut(_Strict):
    code: str = Field(pattern=CODE_PATTERN)
    kind: str = Field(min_length=1, max_length=32)
    created_at: Time
    updated_at: Time
    settings: dict[str, JsonValue] | None = None
    edition: str | None = Field(default=None, max_length=16)
    round_cards: str | None = Field(default=None, max_length=8)
    first_leader: Seat | None = None
    seats: list[SeatOut] = Field(min_length=1, max_length=16)
    entries: list[EntryOut] = Field(default_factory=list, max_length=MAX_ROWS)
    round_records: list[RoundRecordOut] = Field(default_factory=list, max_length=MAX_ROWS)
    trick_logs: list[TrickLogOut] = Field(default_factory=list, max_length=MAX_ROWS)
    result: ResultOut | None = None
    links: list[LinkOut] = Field(default_factory=list, max_length=2)  # the operator's copy


class Export(_Strict):
    """The whole file."""

    format: Literal["princess-table-export"]
    version: int
    group: GroupOut | None = None
    players: list[PlayerOut]
    games: list[GameOut] = Field(max_length=MAX_GAMES)


def _head(raw: bytes) -> Any:
    """The file read leniently, to tell a newer export or another JSON file apart from a broken
    one before the strict check; raises ValueError when it is not JSON at all."""
    try:
        return json.loads(raw)
    except RecursionError:
        return {"format": FORMAT, "version": VERSION}  # JSON, deep: the strict check refuses it


def unpack(raw: bytes) -> bytes:
    """A file as sent, or what it unpacks to if it is gzip-compressed (``.json.gz``, as the
    compressed export is), at most :data:`MAX_UNPACKED` bytes; raises :class:`TransferError`
    ``too-large`` or ``not-json`` (a broken archive)."""
    if len(raw) > MAX_BYTES:
        raise TransferError([ImportProblem("too-large", detail=f"{MAX_BYTES // 2**20} MB")])
    if not raw.startswith(GZIP_MAGIC):
        return raw
    inflate = zlib.decompressobj(wbits=31)
    try:
        data = inflate.decompress(raw, MAX_UNPACKED + 1)
    except zlib.error:
        raise TransferError([ImportProblem("not-json")]) from None
    if len(data) > MAX_UNPACKED or inflate.unconsumed_tail:
        raise TransferError([ImportProblem("too-large",
                                           detail=f"{MAX_UNPACKED // 2**20} MB unpacked")])
    return data


def parse(raw: bytes, known_kinds: frozenset[str]) -> Export:
    """Read and check an export file (plain, or gzip-compressed: see :func:`unpack`); raises
    :class:`TransferError` with every problem found (shape first; then codes, seats, players
    and numbering across the file)."""
    raw = unpack(raw)
    try:
        head = _head(raw)
    except ValueError:
        raise TransferError([ImportProblem("not-json")]) from None
    if not isinstance(head, dict) or head.get("format") != FORMAT:
        raise TransferError([ImportProblem("not-an-export")])
    if head.get("version") != VERSION:
        newer = isinstance(head.get("version"), int) and head["version"] > VERSION
        raise TransferError([ImportProblem("newer-version" if newer else "bad-version",
                                           detail=str(head.get("version")))])
    try:
        export = Export.model_validate_json(raw)
    except ValidationError as error:
        raise TransferError([
            ImportProblem("bad-shape", detail=".".join(str(p) for p in e["loc"]) + ": "
                          + e["msg"]) for e in error.errors()[:20]]) from None
    problems = check(export, known_kinds)
    if problems:
        raise TransferError(problems)
    return export


def _duplicates(values: list[Any]) -> list[Any]:
    return [value for value, n in Counter(values).items() if n > 1]


def check(export: Export, known_kinds: frozenset[str]) -> list[ImportProblem]:
    """Every problem of a well-shaped file that the schema alone cannot see."""
    problems = [ImportProblem("duplicate-player", detail=str(pid))
                for pid in _duplicates([p.id for p in export.players])]
    players = {p.id for p in export.players}
    problems += [ImportProblem("duplicate-code", game=code)
                 for code in _duplicates([g.code for g in export.games])]
    for game in export.games:
        found: list[ImportProblem] = []
        if game.kind not in known_kinds:
            found.append(ImportProblem("unknown-game", detail=game.kind))
        if sorted(s.seat for s in game.seats) != list(range(len(game.seats))):
            found.append(ImportProblem("bad-seats"))
        if any(s.player not in players for s in game.seats):
            found.append(ImportProblem("unknown-player"))
        if _duplicates([s.player for s in game.seats]):
            found.append(ImportProblem("player-twice"))
        for rows, label in ((game.entries, "entries"), (game.round_records, "round_records")):
            if _duplicates([row.seq for row in rows]):
                found.append(ImportProblem("duplicate-seq", detail=label))
        seqs = {r.seq for r in game.round_records}
        if any(r.undoes is not None and (r.undoes not in seqs or r.undoes >= r.seq)
               for r in game.round_records):
            found.append(ImportProblem("bad-undo"))
        if _duplicates([log.number for log in game.trick_logs]):
            found.append(ImportProblem("duplicate-seq", detail="trick_logs"))
        if _duplicates([e.key for e in game.entries if e.key is not None]):
            found.append(ImportProblem("duplicate-key"))
        for problem in found:
            problem.game = game.code
        problems += found
    return problems
