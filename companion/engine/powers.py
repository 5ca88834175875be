"""Princess powers as modifiers, one small class each.

Deluxe has 12 Princesses, the classic edition 10 (no Rapunzel, no Thumbelina); several powers read
differently in the two rulebooks (Deluxe "Princess Cards" p. 23; French "Cartes Pouvoirs de
Princesses" p. 14). A power is used once per round and is then exhausted until the next round.

The powers are registered by slug so records, rulings data and the UI can name them; their effects
are not modelled yet (``modelled = False``): a round with Princesses plays as if no power was used.
"""

from __future__ import annotations

from typing import ClassVar

from companion.scoring.cards import Edition

from .modifiers import Modifier, register

__all__ = ["POWER_SLUGS", "Power", "power_slugs"]


class Power(Modifier):
    """A Princess power. ``editions`` lists the editions that have this Princess."""

    kind: ClassVar[str] = "power"
    editions: ClassVar[frozenset[Edition]] = frozenset(Edition)
    modelled: ClassVar[bool] = False


_BOTH = frozenset(Edition)
_DELUXE_ONLY = frozenset({Edition.DELUXE})

#: Slug, name and editions of every Princess.
_PRINCESSES = [
    ("alice", "Alice", _BOTH),
    ("cinderella", "Cinderella", _BOTH),
    ("ice-princess", "The Ice Princess", _BOTH),
    ("little-mermaid", "The Little Mermaid", _BOTH),
    ("mulan", "Mulan", _BOTH),
    ("pea-princess", "The Pea Princess", _BOTH),
    ("pocahontas", "Pocahontas", _BOTH),
    ("rapunzel", "Rapunzel", _DELUXE_ONLY),
    ("scheherazade", "Scheherazade", _BOTH),
    ("sleeping-beauty", "Sleeping Beauty", _BOTH),
    ("snow-white", "Snow White", _BOTH),
    ("thumbelina", "Thumbelina", _DELUXE_ONLY),
]

for _slug, _name, _editions in _PRINCESSES:
    register(type(_name.replace("The ", "").replace(" ", ""), (Power,), {
        "slug": _slug, "editions": _editions, "__module__": __name__,
        "__doc__": f"{_name}'s power (effect not modelled yet)."}))

POWER_SLUGS: tuple[str, ...] = tuple(slug for slug, _, _ in _PRINCESSES)


def power_slugs(edition: Edition) -> tuple[str, ...]:
    """The Princess slugs of an edition: 12 in Deluxe, 10 in the classic edition."""
    return tuple(slug for slug, _, editions in _PRINCESSES if edition in editions)
