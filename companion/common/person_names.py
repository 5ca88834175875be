"""A person's name as the app compares and stores it: folded for comparison (:func:`name_key`)
and checked before it is stored (:func:`name_problem`). Pure: the export format checks a file's
names with it as the forms and the glue do (:mod:`companion.play.people`)."""

from __future__ import annotations

import unicodedata


def name_key(name: str) -> str:
    """``name`` folded for comparison: no accents, case-folded, single spaces."""
    decomposed = unicodedata.normalize("NFKD", name)
    bare = "".join(c for c in decomposed if not unicodedata.combining(c))
    return " ".join(bare.casefold().split())


KEY_MAX = 76
"""The longest folded name (:func:`name_key`) a new name may have: ``Person.key`` holds 80, and
"Ana 2" … "Ana 99" add up to 3 more. Folding can lengthen a name a lot (one "ﷺ" is 18
characters folded), so this is measured on the key, not on the name typed."""


def name_problem(name: str | None) -> str | None:
    """Why ``name`` cannot be stored as a player's name, or None: ``name-control`` (a control,
    surrogate or unassigned character, NUL included: neither database stores all of them alike),
    ``name-too-long`` (its folded key is longer than :data:`KEY_MAX`)."""
    if not name:
        return None
    if any(unicodedata.category(c) in ("Cc", "Cs", "Cn") for c in name):
        return "name-control"
    if len(name_key(name)) > KEY_MAX:
        return "name-too-long"
    return None
