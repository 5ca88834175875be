"""Points, princess counts and the win check.

Rulebook (seed 003), « But du jeu » and « Fin du jeu »; REVEILLEZ.md « Winning »:

- A player's points are the sum of the values printed on the princesses awake in front of them.
- The first player with 5 princesses or 50 points (2–3 players), 4 princesses or 40 points (4–5
  players; see :data:`~.cards.TARGETS`) wins at once, also outside their own turn. Going over is
  fine (« Doit-on avoir le montant exact de points pour gagner ? Non »).
- When no princess is left asleep in the centre, the player with the most points wins; equal
  points share the win. The thresholds are checked **first**: a player who reaches one with the
  last princess wins by it.

:func:`evaluate` is the check on trusted values, shared by the table screen
(:meth:`~.state.ReveillezGameState.standings`) and the ``standings`` endpoint
(:func:`standings`, which validates raw input first). Winners are listed in ascending seat order;
the reason is ``princesses`` when a winner reached the princess count, else ``points``, or
``all_awake``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from companion.scoring.problems import EntryError, Problem

from .cards import PRINCESSES, TARGETS, Target, check_players, check_value
from .problems import CATALOGUE


class Reason(StrEnum):
    """Why the game is over (the JSON API's ``reason``)."""

    PRINCESSES = "princesses"
    POINTS = "points"
    ALL_AWAKE = "all_awake"


@dataclass(frozen=True, slots=True)
class Remaining:
    """What one player still lacks: this many more princesses **or** this many more points
    ("2 more princesses or 15 more points to win"); both 0 once a threshold is reached."""

    princesses: int
    points: int


@dataclass(frozen=True, slots=True)
class ReveillezStandings:
    """Every seat's points and princesses, the target, and the winners once the game is over."""

    target: Target
    points: tuple[int, ...]
    princesses: tuple[int, ...]
    sleeping: int
    winners: tuple[int, ...] = ()
    reason: Reason | None = None

    @property
    def players(self) -> int:
        return len(self.points)

    @property
    def is_over(self) -> bool:
        return bool(self.winners)

    def remaining(self, seat: int) -> Remaining:
        """How far ``seat`` is from each threshold."""
        return Remaining(max(0, self.target.princesses - self.princesses[seat]),
                         max(0, self.target.points - self.points[seat]))

    def as_dict(self) -> dict[str, object]:
        """The JSON API's answer: ``points``, ``princesses``, ``to_win``, ``game_over``,
        ``winners`` (ascending) and ``reason``."""
        return {
            "points": list(self.points),
            "princesses": list(self.princesses),
            "to_win": self.target.as_dict(),
            "game_over": self.is_over,
            "winners": list(self.winners),
            "reason": None if self.reason is None else str(self.reason),
        }


def evaluate(awake: Sequence[Sequence[int]], sleeping: int) -> ReveillezStandings:
    """The standings of a table where seat ``i`` has princesses worth ``awake[i]`` and
    ``sleeping`` princesses are left in the centre. Trusted input (see :func:`standings`)."""
    goal = TARGETS[len(awake)]
    points = tuple(sum(values) for values in awake)
    counts = tuple(len(values) for values in awake)
    by_count = [seat for seat, count in enumerate(counts) if count >= goal.princesses]
    by_points = [seat for seat, total in enumerate(points) if total >= goal.points]
    # Thresholds first: they win at once, and also with the last princess of the centre.
    if by_count or by_points:
        reason = Reason.PRINCESSES if by_count else Reason.POINTS
        winners = tuple(sorted(set(by_count) | set(by_points)))
        return ReveillezStandings(goal, points, counts, sleeping, winners, reason)
    if sleeping == 0:
        # Nobody left asleep: most points wins, equal points share the win.
        best = max(points)
        winners = tuple(seat for seat, total in enumerate(points) if total == best)
        return ReveillezStandings(goal, points, counts, sleeping, winners, Reason.ALL_AWAKE)
    return ReveillezStandings(goal, points, counts, sleeping)


def check_standings_entry(players: object, awake: object, sleeping: object) -> list[Problem]:
    """Every problem with a ``standings`` entry: players outside 2–5, not one list of values per
    seat (``seats-mismatch``), a value that is not a whole number 1–50 (``princess-value``, with
    its seat), a sleeping count outside 0–12 (``sleeping-range``), or awake and asleep princesses
    not adding up to 12 (``princess-count``)."""
    problems = check_players(players)
    lists: list[Sequence[object]] = []
    if isinstance(awake, Sequence) and not isinstance(awake, (str, bytes)) and all(
            isinstance(values, Sequence) and not isinstance(values, (str, bytes))
            for values in awake):
        lists = list(awake)
        if not problems and len(lists) != players:
            problems.append(CATALOGUE.problem("seats-mismatch", players=players,
                                              given=len(lists)))
    else:
        problems.append(CATALOGUE.problem("seats-mismatch", players=players, given="?"))
    for seat, values in enumerate(lists):
        for value in values:
            for problem in check_value(value):
                problems.append(CATALOGUE.problem(problem.code, seat=seat, **problem.params))
    if (not isinstance(sleeping, int) or isinstance(sleeping, bool)
            or not 0 <= sleeping <= PRINCESSES):
        problems.append(CATALOGUE.problem("sleeping-range", given=sleeping, high=PRINCESSES))
    elif lists:
        total = sum(len(values) for values in lists) + sleeping
        if total != PRINCESSES:
            problems.append(CATALOGUE.problem("princess-count", total=total,
                                              expected=PRINCESSES))
    return problems


def standings(players: object, awake: object, sleeping: object) -> ReveillezStandings:
    """The ``standings`` endpoint: points, princesses, target and winners of the table described
    by ``awake`` (per seat, the printed values in front of it) and ``sleeping``. Raises EntryError
    with every problem of :func:`check_standings_entry`."""
    problems = check_standings_entry(players, awake, sleeping)
    if problems:
        raise EntryError(problems)
    assert isinstance(awake, Sequence) and isinstance(sleeping, int)
    return evaluate([list(values) for values in awake], sleeping)
