"""The judgement of a whole turn log at once (the turn-log JSON endpoint): :func:`judge_turn_log`
replays the turns through :class:`~.turns.PublicRound` and answers a :class:`TurnLogVerdict`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from companion.scoring.problems import EntryError, Problem

from .round_end import RoundReveal
from .table import VALUES, RoundEnding, Turn
from .turns import PublicRound


@dataclass(frozen=True)
class TurnLogVerdict:
    """The judgement of a whole turn log (the second JSON endpoint).

    ``accepted`` turns were replayed; if one was refused, ``refused_turn`` is its 0-based index and
    ``problems`` says why (later turns are not judged). The rest describes the table after the
    accepted turns.
    """

    accepted: int
    refused_turn: int | None
    problems: tuple[Problem, ...]
    current_seat: int | None
    still_in: tuple[int, ...]
    protected: tuple[int, ...]
    deck_count: int
    unseen: tuple[int, ...]  # by value 0–9
    round_over: bool
    ending: RoundEnding | None
    faults: tuple[Problem, ...]
    reveal: RoundReveal | None
    discards: tuple[tuple[int, ...], ...] = ()

    @property
    def is_valid(self) -> bool:
        return self.refused_turn is None and not self.problems

    def as_dict(self) -> dict[str, Any]:
        """The JSON answer of the turn-log endpoint (seat lists ascending)."""
        ending = self.ending
        return {
            "valid": self.is_valid,
            "accepted": self.accepted,
            "refused_turn": self.refused_turn,
            "problems": [p.as_dict() for p in self.problems],
            "current_seat": self.current_seat,
            "still_in": list(self.still_in),
            "protected": list(self.protected),
            "deck_count": self.deck_count,
            "unseen": list(self.unseen),
            "round_over": self.round_over,
            "ending": None if ending is None else {
                "reason": str(ending.reason), "still_in": list(ending.still_in),
                "spies": sorted(ending.spies), "princesses": sorted(ending.princesses)},
            "faults": [{**p.as_dict(), "turn": p.params["turn"]} for p in self.faults],
            # Ready for the round-end endpoint: every card in front of each seat, and the cards
            # shown at the end (null for a player out) once the final cards were given.
            "discards": [list(pile) for pile in self.discards],
            "held": self._held(),
        }

    def _held(self) -> list[int | None] | None:
        reveal = self.reveal
        if reveal is None or any(reveal.cards[seat] is None for seat in reveal.still_in):
            return None  # a last player in who showed no card: the round-end call needs it
        return list(reveal.cards)


def judge_turn_log(players: int, first: int, turns: Sequence[Turn], face_up: Sequence[int] = (),
                   final: Mapping[int, int] | None = None) -> TurnLogVerdict:
    """Replay a whole turn log and judge it.

    Set-up problems (players, first player, face-up cards) raise :class:`EntryError`; a turn the
    rules refuse is reported in the verdict (``refused_turn`` and its problems), as are problems of
    the ``final`` cards (shown at the end, by seat) once the round is over. Faults proven by later
    reveals are listed in ``faults``.
    """
    round_ = PublicRound(players, first, tuple(face_up))
    refused: int | None = None
    problems: list[Problem] = []
    for index, turn in enumerate(turns):
        problems = round_.check_turn(turn)
        if problems:
            refused = index
            break
        round_.push(turn)
    reveal: RoundReveal | None = None
    if refused is None and round_.is_over() and final is not None:
        try:
            reveal = round_.reveal(final)
        except EntryError as error:
            problems = error.problems
    return TurnLogVerdict(
        accepted=len(round_.turns), refused_turn=refused, problems=tuple(problems),
        current_seat=round_.current_seat, still_in=round_.seats_in(),
        protected=tuple(round_.protected_since()), deck_count=round_.deck_count,
        unseen=tuple(round_.unseen()[value] for value in VALUES),
        round_over=round_.is_over(), ending=round_.ending(),
        faults=round_.faults(final if reveal is not None else None), reveal=reveal,
        discards=tuple(round_.discards(seat) for seat in range(players)))
