"""The export format: a versioned JSON document of games, their players and everything entered.

``docs/export.md`` documents it field by field. This module holds the schema (pydantic models,
strict, no unknown field) and the checks a file must pass before anything is stored; the glue
that reads and writes rows is :mod:`companion.play.export`.

A refused file is answered with :class:`TransferError` carrying every :class:`ImportProblem` (a
stable ``code`` and its parameters; the words are in the import page's template).
"""

from __future__ import annotations

import json
import zlib
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Annotated, Any, Literal, TypeVar

import ijson
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, JsonValue, ValidationError

from ..common.bounds import DB_INT_MAX
from ..common.person_names import name_problem
from ..scoring.problems import Catalogue

FORMAT = "princess-table-export"
VERSION = 1
# The caps of an import (docs/export.md): each far above any real backup, each checked as the
# file is read, so that a file breaking one is refused at the piece that breaks it.
MAX_BYTES = 20 * 1024 * 1024
"""The largest file an import takes, as sent (a plain JSON export, or one compressed by gzip)."""
MAX_UNPACKED = 128 * 1024 * 1024
"""The largest export a compressed file may unpack to: over twice the export of
:data:`MAX_GAMES` games, so the app can restore any export it made. The file is unpacked a
piece at a time as it is read, never whole: this bounds the time spent, not the memory."""
GZIP_MAGIC = b"\x1f\x8b"
MAX_GAMES = 20_000
"""Games in one file (a group playing every evening for 20 years stores about 15,000)."""
MAX_PLAYERS = 10_000
"""Players in one file."""
MAX_ROWS = 5_000  # entries, round records or trick logs of one game; items of any list in it
MAX_DEPTH = 12
"""Levels of nesting in one game (an export's deepest, a trick's powers, is 8 from the top)."""
MAX_VALUES = 100_000
"""Values (numbers, texts, lists, objects) in one game or player."""
MAX_SETTINGS = 4096
"""Characters of one game's set-up (``settings``) written as JSON (a real one: under 300)."""
MAX_GAME = 256 * 1024
"""The most one game may weigh in the file (its keys and values, counted as they are read, so
a game is refused before it is held whole): about a hundred times the largest game a table
makes (a long game of any kind is under 30 kB); memory is bounded per game, not per file."""
MAX_RUN = 256 * 1024
"""Bytes between two quotes (the longest text, number or white space the parser holds)."""
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


_M = TypeVar("_M", bound="_Strict")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


def _small_settings(value: dict[str, JsonValue] | None) -> dict[str, JsonValue] | None:
    if value is not None and len(json.dumps(value, ensure_ascii=False)) > MAX_SETTINGS:
        raise ValueError(f"a set-up over {MAX_SETTINGS} characters")
    return value


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


Code = Annotated[str, Field(min_length=1, max_length=8)]
"""A card's code in a trick log (``"Q3"``, ``"hp"`` …)."""


class PowerOut(_Strict):
    """A Princess power noted in a trick log (the fields of the trick screen's power note)."""

    at: int = Field(ge=0, le=200)
    seat: Seat
    power: str = Field(min_length=1, max_length=24)
    target: Seat | None = None
    suit: str | None = Field(default=None, max_length=8)
    cards: list[Code] = Field(default_factory=list, max_length=16)
    more: list[Code] = Field(default_factory=list, max_length=16)
    entered: int | None = Field(default=None, ge=0, le=200)


class TrickLogOut(_Strict):
    number: int = Field(ge=1, le=100)
    plays: str = Field(max_length=2000)
    powers: list[PowerOut] = Field(max_length=64)
    accepted: list[Annotated[str, Field(max_length=64)]] = Field(max_length=200)
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
    settings: Annotated[dict[str, JsonValue] | None, AfterValidator(_small_settings)] = None
    edition: str | None = Field(default=None, max_length=16)
    round_cards: str | None = Field(default=None, max_length=8)
    first_leader: Seat | None = None
    seats: list[SeatOut] = Field(min_length=1, max_length=16)
    entries: list[EntryOut] = Field(default_factory=list, max_length=MAX_ROWS)
    round_records: list[RoundRecordOut] = Field(default_factory=list, max_length=MAX_ROWS)
    trick_logs: list[TrickLogOut] = Field(default_factory=list, max_length=MAX_ROWS)
    result: ResultOut | None = None
    links: list[LinkOut] = Field(default_factory=list, max_length=2)  # the operator's copy


class _Inflated:
    """The file as a stream of bytes for the JSON parser: the file itself, or what it unpacks
    to if it is gzip-compressed, read a piece at a time and never whole. Two caps are checked on
    each piece before the parser sees it, so a file is refused at the piece that breaks one:
    at most :data:`MAX_UNPACKED` bytes unpacked, and no stretch of more than :data:`MAX_RUN`
    bytes between two quotes (the longest text or number the parser would hold at once; an
    export's longest is a trick's plays, 2,000 characters)."""

    def __init__(self, raw: bytes) -> None:
        self.raw = memoryview(raw)
        self.packed = bytes(self.raw[:2]) == GZIP_MAGIC
        self.inflate = zlib.decompressobj(wbits=31) if self.packed else None
        self.offset = 0  # into raw
        self.tail = b""  # compressed input the inflater has not taken yet
        self.size = 0  # bytes handed to the parser
        self.run = 0  # bytes since the last quote (text or not), carried from piece to piece
        self.escape = b""  # a backslash ending the last piece escapes this one's first byte

    def read(self, size: int = -1) -> bytes:
        size = PIECE if size is None or size < 0 else min(size, PIECE)
        if size == 0:  # (the parser asks for nothing first, to learn bytes from text)
            return b""
        if self.inflate is None:
            piece = bytes(self.raw[self.offset:self.offset + size])
            self.offset += len(piece)
        else:
            piece = b""
            while not piece and (self.tail or self.offset < len(self.raw)
                                 or not self.inflate.eof or self.inflate.unused_data):
                if self.inflate.eof:  # a member ended: what follows is the next member
                    self._next_member()
                    continue
                if not self.tail and self.offset >= len(self.raw):
                    raise TransferError([ImportProblem("bad-archive", detail="cut short")])
                if not self.tail:
                    self.tail = bytes(self.raw[self.offset:self.offset + PIECE])
                    self.offset += len(self.tail)
                try:
                    piece = self.inflate.decompress(self.tail, size)
                except zlib.error:
                    raise TransferError([ImportProblem("not-json")]) from None
                self.tail = self.inflate.unconsumed_tail
        self.size += len(piece)
        if self.size > MAX_UNPACKED:
            raise TransferError([ImportProblem("too-large",
                                               detail=f"{MAX_UNPACKED // 2**20} MB unpacked")])
        self._check_runs(piece)
        return piece

    def _next_member(self) -> None:
        """Go on to the member after the one that ended (``cat a.gz b.gz`` makes a file of
        two, which gzip reads as one stream, and so does this: under the same unpacked cap).
        Bytes after the last member that start no member refuse the file, never ignored."""
        assert self.inflate is not None
        rest = self.inflate.unused_data + self.tail
        more = bytes(self.raw[self.offset:self.offset + max(0, 2 - len(rest))])
        self.offset += len(more)
        rest += more
        if rest[:2] != GZIP_MAGIC:
            raise TransferError([ImportProblem("bad-archive", detail="bytes after its end")])
        self.inflate = zlib.decompressobj(wbits=31)
        self.tail = rest

    def _check_runs(self, piece: bytes) -> None:
        text = self.escape + piece
        trailing = len(text) - len(text.rstrip(b"\\"))
        self.escape, text = (text[-1:], text[:-1]) if trailing % 2 else (b"", text)
        # Escaped backslashes first, then escaped quotes (each kept as long as it is): what is
        # left of '"' ends a text.
        parts = text.replace(b"\\\\", b"__").replace(b'\\"', b"__").split(b'"')
        if len(parts) == 1:
            self.run += len(parts[0])
            longest = self.run
        else:
            longest = max(self.run + len(parts[0]), max(map(len, parts[1:])))
            self.run = len(parts[-1])
        if longest > MAX_RUN:
            raise TransferError([ImportProblem("bad-shape",
                                               detail=f"a value over {MAX_RUN // 1024} kB")])


PIECE = 64 * 1024
"""Bytes read (and unpacked) at a time."""


def unpack(raw: bytes) -> bytes:
    """The whole file as sent, or what it unpacks to if it is gzip-compressed; raises
    :class:`TransferError` ``too-large`` or ``not-json`` (a broken archive). For small files
    and tests only: an import reads the file as a stream (:func:`scan`, :func:`games_of`)."""
    if len(raw) > MAX_BYTES:
        raise TransferError([ImportProblem("too-large", detail=f"{MAX_BYTES // 2**20} MB")])
    stream = _Inflated(raw)
    return b"".join(iter(lambda: stream.read(PIECE), b""))


class _Events:
    """The parser's events for the file, with the caps of an export checked as they come:
    the file is an object of the four known keys; ``players`` and ``games`` are lists of at
    most :data:`MAX_PLAYERS` and :data:`MAX_GAMES` objects, each built on its own (never the
    whole list) with at most :data:`MAX_DEPTH` levels, :data:`MAX_ROWS` items in a list and
    :data:`MAX_VALUES` values in all. :meth:`items` yields ``(key, value)`` for ``format``,
    ``version`` and ``group``, and ``("players", player)``, ``("games", game)`` for each item
    of the lists."""

    def __init__(self, raw: bytes) -> None:
        if len(raw) > MAX_BYTES:
            raise TransferError([ImportProblem("too-large",
                                               detail=f"{MAX_BYTES // 2**20} MB")])
        self.events = ijson.basic_parse(_Inflated(raw), use_float=True, buf_size=PIECE)
        self.seen: set[str] = set()  # the file's keys read so far

    def _next(self) -> tuple[str, Any]:
        try:
            event: tuple[str, Any] = next(self.events)
            return event
        except StopIteration:
            raise TransferError([ImportProblem("not-json")]) from None
        except TransferError:
            raise
        except (ijson.JSONError, ValueError):  # (also an integer too long to read)
            raise TransferError([ImportProblem("not-json")]) from None

    def items(self) -> Iterator[tuple[str, Any]]:
        event, _ = self._next()
        if event != "start_map":
            raise TransferError([ImportProblem("not-an-export")])
        seen = self.seen
        while True:
            event, key = self._next()
            if event == "end_map":
                break
            if key not in TOP_KEYS or key in seen:
                raise TransferError([ImportProblem("bad-shape", detail=f"{str(key)[:40]}: "
                                                   "unknown or repeated field")])
            seen.add(key)
            if key in ("format", "version", "group"):
                yield key, self._value(key)
                continue
            event, _ = self._next()
            if event != "start_array":
                raise TransferError([ImportProblem("bad-shape", detail=f"{key}: not a list")])
            cap = MAX_PLAYERS if key == "players" else MAX_GAMES
            count = 0
            while True:
                event, value = self._next()
                if event == "end_array":
                    break
                count += 1
                if count > cap:
                    raise TransferError([ImportProblem("too-large",
                                                       detail=f"{cap:,} {key}")])
                yield key, self._build(event, value, f"{key}.{count - 1}",
                                       weight=MAX_GAME if key == "games" else None)
        try:  # nothing after the object but white space
            extra = next(self.events, None)
        except TransferError:
            raise
        except (ijson.JSONError, ValueError):
            extra = ("garbage", None)
        if extra is not None:
            raise TransferError([ImportProblem("not-json")])

    def _value(self, where: str) -> Any:
        event, value = self._next()
        return self._build(event, value, where)

    def _build(self, event: str, value: Any, where: str, weight: int | None = None) -> Any:
        """One value, whole, from its first event; at most :data:`MAX_DEPTH` levels,
        :data:`MAX_ROWS` items in a list and :data:`MAX_VALUES` values (and, with ``weight``,
        at most that many characters of keys and values, counted as they come)."""
        if event not in ("start_map", "start_array"):
            if event in ("end_map", "end_array", "map_key"):
                raise TransferError([ImportProblem("not-json")])
            return value
        root: Any = {} if event == "start_map" else []
        stack: list[Any] = [root]
        key: str | None = None
        values = size = 0
        while stack:
            event, value = self._next()
            if weight is not None:
                size += len(value) if isinstance(value, str) else 8
                if size > weight:
                    code = root.get("code") if isinstance(root, dict) else None
                    raise TransferError([ImportProblem(
                        "game-too-large", game=code if isinstance(code, str) else where,
                        detail=f"{weight // 1024} kB")])
            if event == "map_key":
                key = value
                continue
            if event in ("end_map", "end_array"):
                stack.pop()
                continue
            values += 1
            if values > MAX_VALUES:
                raise TransferError([ImportProblem("bad-shape",
                                                   detail=f"{where}: over {MAX_VALUES:,} values")])
            top = stack[-1]
            item: Any = {} if event == "start_map" else [] if event == "start_array" else value
            if isinstance(top, list):
                if len(top) >= MAX_ROWS:
                    raise TransferError([ImportProblem(
                        "bad-shape", detail=f"{where}: a list over {MAX_ROWS:,} items")])
                top.append(item)
            else:
                top[key] = item
            if event in ("start_map", "start_array"):
                if len(stack) >= MAX_DEPTH:
                    raise TransferError([ImportProblem(
                        "bad-shape", detail=f"{where}: over {MAX_DEPTH} levels deep")])
                stack.append(item)
        return root


TOP_KEYS = frozenset({"format", "version", "group", "players", "games"})


def _shape(model: type[_M], value: Any, where: str) -> _M:
    """``value`` checked by ``model`` as the JSON it came from (strict: times as text)."""
    try:
        return model.model_validate_json(json.dumps(value))
    except ValidationError as error:
        raise TransferError([
            ImportProblem("bad-shape", detail=".".join([where, *(str(p) for p in e["loc"])])
                          + ": " + e["msg"]) for e in error.errors()[:20]]) from None


@dataclass(frozen=True)
class Contents:
    """What :func:`scan` found in a file that may be imported: its players, and its games'
    codes with the players each one seats (the games themselves are read again, one at a
    time, by :func:`games_of`)."""

    players: tuple[PlayerOut, ...]
    seated: dict[str, frozenset[int]]  # game code -> the ids of the players at its seats
    group: GroupOut | None = None  # the group the games came from (its link: operator's copy)

    @property
    def total(self) -> int:
        return len(self.seated)


def scan(raw: bytes, known_kinds: frozenset[str],
         progress: Callable[[int], None] | None = None,
         check: Callable[[GameOut], list[ImportProblem]] | None = None) -> Contents:
    """Read and check an export file (plain, or gzip-compressed) as a stream, in bounded
    memory: one game at a time, never the whole file. Raises :class:`TransferError` at the
    first problem of shape or size (a cap: :data:`MAX_BYTES` sent, :data:`MAX_UNPACKED`
    unpacked, :data:`MAX_PLAYERS`, :data:`MAX_GAMES`, :data:`MAX_DEPTH`, :data:`MAX_ROWS`,
    :data:`MAX_VALUES`, :data:`MAX_SETTINGS`), or with every problem found across the file
    (codes, seats, players, numbering). ``progress`` is told the games read so far, now and
    then. ``check`` finds each game's problems that only its own kind knows (the shapes of
    its entries: :mod:`companion.play.entries`)."""
    players: list[PlayerOut] = []
    seated: dict[str, frozenset[int]] = {}
    problems: list[ImportProblem] = []
    twice: set[str] = set()
    group: GroupOut | None = None
    events = _Events(raw)
    for key, value in events.items():
        if key == "group" and value is not None:
            group = _shape(GroupOut, value, "group")
        if key == "format" and value != FORMAT:
            raise TransferError([ImportProblem("not-an-export")])
        if key == "version" and value != VERSION:
            newer = isinstance(value, int) and not isinstance(value, bool) and value > VERSION
            raise TransferError([ImportProblem("newer-version" if newer else "bad-version",
                                               detail=str(value)[:20])])
        if key == "players":
            players.append(_shape(PlayerOut, value, f"players.{len(players)}"))
        elif key == "games":
            game = _shape(GameOut, value, f"games.{len(seated) + len(twice)}")
            problems += check_game(game, known_kinds)
            if check is not None and game.kind in known_kinds:
                problems += check(game)
            if game.code in seated:
                twice.add(game.code)
            seated[game.code] = frozenset(s.player for s in game.seats)
            if progress is not None and len(seated) % 200 == 0:
                progress(len(seated))
            if len(problems) >= 20:
                break
    if "format" not in events.seen:
        raise TransferError([ImportProblem("not-an-export")])
    if "version" not in events.seen:
        raise TransferError([ImportProblem("bad-version", detail="-")])
    for key in ("players", "games"):
        if key not in events.seen:
            problems.append(ImportProblem("bad-shape", detail=f"{key}: Field required"))
    problems += [ImportProblem("duplicate-code", game=code) for code in sorted(twice)]
    problems += [ImportProblem("duplicate-player", detail=str(pid))
                 for pid in _duplicates([p.id for p in players])]
    known = {p.id for p in players}
    problems += [ImportProblem("unknown-player", game=code)
                 for code, ids in seated.items() if not ids <= known]
    if problems:
        raise TransferError(problems)
    return Contents(tuple(players), seated, group)


def games_of(raw: bytes) -> Iterator[GameOut]:
    """The games of a file that :func:`scan` accepted, one at a time, in the file's order."""
    for key, value in _Events(raw).items():
        if key == "games":
            yield _shape(GameOut, value, "games")


def parse(raw: bytes, known_kinds: frozenset[str]) -> Contents:
    """:func:`scan` (kept under the name the first imports used)."""
    return scan(raw, known_kinds)


def _duplicates(values: list[Any]) -> list[Any]:
    return [value for value, n in Counter(values).items() if n > 1]


def check_game(game: GameOut, known_kinds: frozenset[str]) -> list[ImportProblem]:
    """Every problem of a well-shaped game that the schema alone cannot see (its players are
    checked against the file's list by :func:`scan`)."""
    found: list[ImportProblem] = []
    if game.kind not in known_kinds:
        found.append(ImportProblem("unknown-game", detail=game.kind))
    if sorted(s.seat for s in game.seats) != list(range(len(game.seats))):
        found.append(ImportProblem("bad-seats"))
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
    return found
