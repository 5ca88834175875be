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
    facts: dict[str, FactTotal] = field(default_factory=dict)

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def average(self) -> float | None:
        return self.score_sum / self.games if self.games else None

    def fact_list(self) -> list[FactTotal]:
        return list(self.facts.values())

    def add(self, summary: GameSummary, seat: int) -> None:
        score = summary.scores[seat]
        won = seat in summary.winners
        self.games += 1
        self.wins += won
        self.score_sum += score
        if self.best is None or (score < self.best if self.lower_wins else score > self.best):
            self.best = score
        for fact in summary.facts:
            total = self.facts.get(fact.key)
            if total is None:
                total = self.facts[fact.key] = FactTotal(fact.key, fact.label, fact.aggregate)
            if won or fact.aggregate is Aggregate.TOTAL:
                total.total += fact.values[seat]
                total.count += 1


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
    counted: dict[str, KindStats] = {}
    for game in _finished(games):
        if game.kind not in counted:
            counted[game.kind] = KindStats(game.kind, game.summary.unit, game.summary.lower_wins)
        counted[game.kind].games += 1
    every = lines(games)
    for (_, kind), line in every.items():
        if kind in counted:
            counted[kind].lines.append(line)
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
