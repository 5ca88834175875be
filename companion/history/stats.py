"""Statistics over finished games of every kind: per player and game, per game, head to head.

The input is plain values — each finished game's kind, :class:`~.summary.GameSummary` and the
person who sat in each seat — so this module knows no game and no database. Definitions:

- **games**: finished games the player sat in; **wins**: those where their seat is among the
  winners (a shared win counts for each winner, a draw for nobody); **win rate**: wins / games.
- **average** and **best** score: over the player's finished games, in the game's own unit;
  "best" is the lowest when the game's lowest score wins.
- **facts**: each game's own counts, summed (``Aggregate.TOTAL``) or averaged over the games the
  player won (``Aggregate.MEAN_WHEN_WON``); for a whole game, over every seat (or every winner).
- **head to head**: the finished games both players sat in; who won (one, both on a shared win,
  or neither) and who finished ahead of the other (by place: winners first, then by score).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from .summary import Aggregate, GameSummary, ScoreUnit


@dataclass(frozen=True)
class Played:
    """One game as statistics read it: its kind (registry key), summary and people by seat."""

    kind: str
    summary: GameSummary
    people: tuple[int, ...]


@dataclass
class FactTotal:
    """One fact added up: ``value`` is the sum (``TOTAL``) or the mean (``MEAN_WHEN_WON``,
    None before any win)."""

    key: str
    label: str
    aggregate: Aggregate
    total: int = 0
    count: int = 0

    @property
    def value(self) -> float | None:
        if self.aggregate is Aggregate.TOTAL:
            return self.total
        return self.total / self.count if self.count else None


@dataclass
class Line:
    """One player's figures in one game (``kind``)."""

    person: int
    kind: str
    unit: ScoreUnit
    lower_wins: bool
    games: int = 0
    wins: int = 0
    score_sum: int = 0
    best: int | None = None
    best_count: int = 0  # how many of the games scored ``best`` (see :meth:`take_away`)
    facts: dict[str, FactTotal] = field(default_factory=dict)
    last: datetime | None = None  # when the newest of these games last changed, when known

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def average(self) -> float | None:
        return self.score_sum / self.games if self.games else None

    def fact_list(self) -> list[FactTotal]:
        return list(self.facts.values())

    def _better(self, score: int, than: int) -> bool:
        return score < than if self.lower_wins else score > than

    def add(self, summary: GameSummary, seat: int) -> None:
        """Count one finished game, in which the person sat in ``seat``."""
        self._count(summary, seat, 1)
        score = summary.scores[seat]
        if self.best is None or self._better(score, self.best):
            self.best, self.best_count = score, 1
        elif score == self.best:
            self.best_count += 1

    def take_away(self, summary: GameSummary, seat: int) -> None:
        """Undo :meth:`add` of that game (it changed, or is no longer finished). Taking away
        the only game that scored ``best`` leaves ``best`` unknown (None while ``games`` is
        not 0: :attr:`best_lost`): only the remaining games can tell the next best."""
        self._count(summary, seat, -1)
        if summary.scores[seat] == self.best:
            self.best_count -= 1
            if self.best_count <= 0:
                self.best, self.best_count = None, 0

    @property
    def best_lost(self) -> bool:
        """Games remain but their best score is not known (see :meth:`take_away`)."""
        return self.games > 0 and self.best is None

    def merge(self, other: Line) -> None:
        """Add another line of the same game (two people found to be one)."""
        self.games += other.games
        self.wins += other.wins
        self.score_sum += other.score_sum
        if other.last is not None and (self.last is None or other.last > self.last):
            self.last = other.last
        if other.best is not None:
            if self.best is None or self._better(other.best, self.best):
                self.best, self.best_count = other.best, other.best_count
            elif other.best == self.best:
                self.best_count += other.best_count
        for fact in other.facts.values():
            total = self.facts.get(fact.key)
            if total is None:
                total = self.facts[fact.key] = FactTotal(fact.key, fact.label, fact.aggregate)
            total.total += fact.total
            total.count += fact.count

    def _count(self, summary: GameSummary, seat: int, sign: int) -> None:
        won = seat in summary.winners
        self.games += sign
        self.wins += sign * won
        self.score_sum += sign * summary.scores[seat]
        for fact in summary.facts:
            total = self.facts.get(fact.key)
            if total is None:
                total = self.facts[fact.key] = FactTotal(fact.key, fact.label, fact.aggregate)
            if won or fact.aggregate is Aggregate.TOTAL:
                total.total += sign * fact.values[seat]
                total.count += sign


@dataclass
class KindStats:
    """One game's statistics: its finished games, one line per player (best win rate first)
    and the facts over every seat."""

    kind: str
    unit: ScoreUnit
    lower_wins: bool
    games: int = 0
    lines: list[Line] = field(default_factory=list)
    facts: dict[str, FactTotal] = field(default_factory=dict)

    def fact_list(self) -> list[FactTotal]:
        return list(self.facts.values())

    @property
    def fact_labels(self) -> list[tuple[str, str]]:
        return [(f.key, f.label) for f in self.facts.values()]


def _finished(games: Iterable[Played]) -> Iterable[Played]:
    return (g for g in games if g.summary.finished)


def lines(games: Iterable[Played], *, person: int | None = None) -> dict[tuple[int, str], Line]:
    """Every (person, kind) line over the finished games (of one person if given)."""
    found: dict[tuple[int, str], Line] = {}
    for game in _finished(games):
        for seat, who in enumerate(game.people):
            if person is not None and who != person or seat >= game.summary.players:
                continue
            line = found.get((who, game.kind))
            if line is None:
                line = found[(who, game.kind)] = Line(who, game.kind, game.summary.unit,
                                                      game.summary.lower_wins)
            line.add(game.summary, seat)
    return found


def _ordered(found: Iterable[Line]) -> list[Line]:
    return sorted(found, key=lambda line: (-line.win_rate, -line.games, line.person))


def by_kind(games: Iterable[Played], kinds: Sequence[str]) -> list[KindStats]:
    """Statistics of each game in ``kinds`` (in that order) that has a finished game; a game's
    facts add up its players' (one pass over the games)."""
    games = list(games)
    counted: dict[str, int] = {}
    for game in _finished(games):
        counted[game.kind] = counted.get(game.kind, 0) + 1
    return gathered(lines(games).values(), counted, kinds)


def gathered(found: Iterable[Line], games: dict[str, int], kinds: Sequence[str]
             ) -> list[KindStats]:
    """:func:`by_kind` from the lines already added up and each game's count of finished
    games (``games``, by kind): each game of ``kinds`` that has a finished game and a line."""
    counted: dict[str, KindStats] = {}
    for line in found:
        if games.get(line.kind):
            if line.kind not in counted:
                counted[line.kind] = KindStats(line.kind, line.unit, line.lower_wins,
                                               games[line.kind])
            counted[line.kind].lines.append(line)
    for stats in counted.values():
        stats.lines = _ordered(stats.lines)
        for line in stats.lines:
            for fact in line.facts.values():
                total = stats.facts.get(fact.key)
                if total is None:
                    total = stats.facts[fact.key] = FactTotal(fact.key, fact.label,
                                                              fact.aggregate)
                total.total += fact.total
                total.count += fact.count
    return [counted[kind] for kind in kinds if kind in counted]


def of_person(games: Iterable[Played], person: int, kinds: Sequence[str]) -> list[Line]:
    """One person's line in each game they finished, in the order of ``kinds``."""
    found = lines(games, person=person)
    return [found[(person, kind)] for kind in kinds if (person, kind) in found]


@dataclass
class Versus:
    """Two players' finished games together in one game (``kind``; ``None``: every game)."""

    kind: str | None
    games: int = 0
    wins: tuple[int, int] = (0, 0)  # games each won (both count on a shared win)
    ahead: tuple[int, int] = (0, 0)  # games each finished ahead of the other
    level: int = 0  # games they finished level (same place)


def head_to_head(games: Iterable[Played], first: int, second: int,
                 kinds: Sequence[str]) -> tuple[Versus, list[Versus]]:
    """The two players' record over every game, and per game (in the order of ``kinds``)."""
    overall = Versus(None)
    per: dict[str, Versus] = {}
    for game in _finished(games):
        if first not in game.people or second not in game.people:
            continue
        a, b = game.people.index(first), game.people.index(second)
        ranks = game.summary.ranks()
        won = (int(a in game.summary.winners), int(b in game.summary.winners))
        ahead = (int(ranks[a] < ranks[b]), int(ranks[b] < ranks[a]))
        for versus in (overall, per.setdefault(game.kind, Versus(game.kind))):
            versus.games += 1
            versus.wins = (versus.wins[0] + won[0], versus.wins[1] + won[1])
            versus.ahead = (versus.ahead[0] + ahead[0], versus.ahead[1] + ahead[1])
            versus.level += ranks[a] == ranks[b]
    return overall, [per[kind] for kind in kinds if kind in per]


PairCounts = tuple[int, int, int, int, int, int]
"""One pair's head-to-head counts, the lower person id first: games, wins (low, high), finished
ahead (low, high), level — what a kept pair total (``pairtotal``) holds."""


def pairs(summary: GameSummary, people: Sequence[int]) -> dict[tuple[int, int], PairCounts]:
    """Each pair of people of a finished game (``people`` by seat) and its head-to-head counts,
    as :func:`head_to_head` counts that game, the pair keyed lower id first (empty for a game
    not finished)."""
    if not summary.finished:
        return {}
    ranks = summary.ranks()
    seat_of: dict[int, int] = {}
    for seat, who in enumerate(people[:len(ranks)]):
        seat_of.setdefault(who, seat)
    found: dict[tuple[int, int], PairCounts] = {}
    persons = sorted(seat_of)
    for index, low in enumerate(persons):
        for high in persons[index + 1:]:
            a, b = seat_of[low], seat_of[high]
            found[(low, high)] = (1, int(a in summary.winners), int(b in summary.winners),
                                  int(ranks[a] < ranks[b]), int(ranks[b] < ranks[a]),
                                  int(ranks[a] == ranks[b]))
    return found


def versus_of(counts: Iterable[tuple[str, int, int, PairCounts]], first: int, second: int,
              kinds: Sequence[str]) -> tuple[Versus, list[Versus]]:
    """:func:`head_to_head` from kept pair counts (``(kind, low, high, counts)``, the pair of
    ``first`` and ``second`` in either order): the same record, read from one row per game."""
    overall = Versus(None)
    per: dict[str, Versus] = {}
    for kind, low, high, (games, win_low, win_high, ahead_low, ahead_high, level) in counts:
        if {low, high} != {first, second} or games <= 0:
            continue
        flip = low != first
        won = (win_high, win_low) if flip else (win_low, win_high)
        ahead = (ahead_high, ahead_low) if flip else (ahead_low, ahead_high)
        for versus in (overall, per.setdefault(kind, Versus(kind))):
            versus.games += games
            versus.wins = (versus.wins[0] + won[0], versus.wins[1] + won[1])
            versus.ahead = (versus.ahead[0] + ahead[0], versus.ahead[1] + ahead[1])
            versus.level += level
    return overall, [per[kind] for kind in kinds if kind in per]
