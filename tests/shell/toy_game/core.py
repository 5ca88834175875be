"""The toy game's rules core: one rule — the higher card wins, equal cards tie."""

from __future__ import annotations


def winner(a: int, b: int) -> int | None:
    """The seat (0 or 1) whose card is higher, or None on a tie."""
    return None if a == b else (0 if a > b else 1)
