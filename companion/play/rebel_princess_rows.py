"""A Rebel Princess round entry in a round record's columns, and back: what the players entered
(cards taken, counts or typed scores, leaders, a play-off's Round card) as the text the row
holds, and the scoring core's :class:`~companion.scoring.rebel_princess.PlayedRound` read from
a stored record."""

from __future__ import annotations

from collections.abc import Sequence

from ..models import RoundRecord
from ..scoring.rebel_princess import PlayedRound, RebelCard, RoundCounts


def encode_taken(taken: Sequence[frozenset[RebelCard]]) -> str:
    return "|".join(" ".join(c.code for c in sorted(cards)) for cards in taken)


def decode_taken(text: str) -> tuple[frozenset[RebelCard], ...]:
    return tuple(frozenset(RebelCard.from_code(code) for code in part.split()) for part in
                 text.split("|"))


def _encode_ints(values: Sequence[int] | frozenset[int] | None) -> str | None:
    if values is None:
        return None
    ordered = sorted(values) if isinstance(values, frozenset) else list(values)
    return ",".join(str(v) for v in ordered)


def _decode_ints(text: str | None) -> tuple[int, ...] | None:
    if text is None:
        return None
    return tuple(int(v) for v in text.split(",") if v != "")


def played_from_record(record: RoundRecord) -> PlayedRound:
    """The scoring core's view of a stored round."""
    no_tricks = _decode_ints(record.no_tricks)
    return PlayedRound(
        taken=decode_taken(record.taken) if record.taken is not None else None,
        no_tricks=frozenset(no_tricks) if no_tricks is not None else None,
        scores=_decode_ints(record.scores),
        leader=record.leader,
        last_trick_winner=record.last_trick_winner,
        round_card=record.round_card,
        counts=RoundCounts.from_notation(record.counts) if record.counts else None,
    )


def entry_columns(played: PlayedRound, mode: str) -> dict[str, object]:
    """The columns of a round record that hold its entry, made from the core's round."""
    return {"mode": mode,
            "taken": encode_taken(played.taken) if played.taken is not None else None,
            "no_tricks": _encode_ints(played.no_tricks),
            "scores": _encode_ints(played.scores),
            "leader": played.leader,
            "last_trick_winner": played.last_trick_winner,
            "round_card": played.round_card,
            "counts": str(played.counts) if played.counts is not None else None}
