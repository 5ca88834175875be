"""A Rebel Princess game's history as the players would say it: each stored record (an entry,
an edit, an undo) with how it was entered and the scores it changed, for the game's history page.

The game is replayed before and after each record described (:func:`describe_history`); this
touches no database. The rows and the replay are :mod:`companion.play.rebel_princess`'s."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..models import Game, Player, RoundRecord
from ..scoring.rebel_princess import ScoringError, required_cards
from .rebel_princess import current_records, edition_of, replay_records
from .rebel_princess_rows import decode_taken


@dataclass(frozen=True)
class HistoryLine:
    """One record of the history as the players would say it: "Round 2 edited by cards: Ben
    3 → 5, Dev 2 → 0".

    ``way`` is how the version was entered (``cards``, ``counts``, ``numbers`` or ``tricks``);
    ``changes`` holds (seat, score before, score after) for the seats whose score of that round
    changed (``None`` where the round was not there); ``scores`` is the round's scores after the
    record (``None`` when it removed the round or the game could not be replayed)."""

    record: RoundRecord
    way: str
    playoff: bool
    scores: tuple[int, ...] | None
    changes: tuple[tuple[int, int | None, int | None], ...]


def way_entered(record: RoundRecord, game: Game, players: int) -> str:
    """How a stored version was entered: ``numbers``, ``cards``, ``counts`` or ``tricks``.

    Trick entry saves the cards each seat won, all of them; the by-cards form only ever sends
    the cards its Round card scores. So a by-cards version holding any other card was confirmed
    from the trick screen (our reading: no column says so in rows stored before this).
    """
    if record.mode in ("numbers", "tricks", "counts") or not record.taken:
        return record.mode
    edition = edition_of(game)
    number = record.number
    planned = game.round_cards or ""
    letter = planned[number - 1] if number <= len(planned) else record.round_card
    if not letter:
        return record.mode
    try:
        scoring = set(required_cards(edition, letter, players))
    except ScoringError:
        return record.mode
    taken = set().union(*decode_taken(record.taken))
    return "tricks" if taken - scoring else record.mode


def describe_history(history: Sequence[RoundRecord], *, game: Game, players: Sequence[Player],
                     first: int = 0) -> list[HistoryLine]:
    """Each record of ``history`` (oldest first) from index ``first`` on, with how it was
    entered and what it changed: the game is replayed before and after every record described,
    so a card entry or an edit shows the scores it gave (a page of the history replays its own
    records, and the game once before them). Touches no database."""
    lines: list[HistoryLine] = []
    latest: dict[int, RoundRecord] = {}
    for record in history[:first]:
        latest[record.number] = record
    before: dict[int, tuple[int, ...]] = {
        r.number: r.scores for r in replay_records(game, players, _current(latest)).rounds
    } if first else {}
    for record in history[first:]:
        latest[record.number] = record
        state = replay_records(game, players, _current(latest))
        after = {r.number: r.scores for r in state.rounds}
        mine, was = after.get(record.number), before.get(record.number)
        changes = tuple((seat, old, new) for seat, (old, new) in enumerate(zip(
            was or (None,) * len(players), mine or (None,) * len(players), strict=True))
            if old != new)
        lines.append(HistoryLine(record=record, way=way_entered(record, game, len(players)),
                                 playoff=record.number > len(game.round_cards or ""),
                                 scores=mine, changes=changes))
        before = after
    return lines


def _current(latest: dict[int, RoundRecord]) -> list[RoundRecord]:
    """The current rounds, given the newest record of each round number."""
    return current_records(list(latest.values()))
