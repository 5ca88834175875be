"""Names shortened to fit a button or a chart label, the one rule used everywhere (issue 22).

A name that fits is kept whole. A longer one is cut where a syllable ends and the cut is shown
with an ellipsis, or, when no syllable fits, it is shown by its initial, so a shortened name never
reads as another word or name (« Marie » -> « Ma… », never « Mari »; « Chloé » -> « C. » or
« Chlo… », never « Chl »). A name of several words (« Anne-Sophie »,
« Jean Paul ») keeps its first word and the initials of the others (« Anne-S. »), or only
initials (« A.-S. ») when even that is too long. Among a table's names, each label is lengthened,
one syllable at a time, until no two players share one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

ELLIPSIS = "…"
_VOWELS = set("aeiouyàâäéèêëîïôöùûüÿœæ")
_PARTS = re.compile(r"([ \-]+)")


def _is_vowel(char: str) -> bool:
    return char.lower() in _VOWELS


def syllable_cuts(word: str) -> list[int]:
    """Where ``word`` may be cut, each cut after a whole syllable: before a consonant between two
    vowels (« Ma|rie »), between two consonants after a vowel (« Ben|ja|min », « An|ne ») unless
    they start a syllable together (« Chris|to|phe »: ph, ch, th, pr, bl…), and before an é, è, ë
    or ï that follows a vowel (« Chlo|é », « Lo|ïc »). Never before a final consonant."""
    cuts = []
    for i in range(1, len(word)):
        before, here = word[i - 1], word[i]
        if not (before.isalpha() and here.isalpha()):
            continue
        if _is_vowel(here):
            if here in "éèëï" and _is_vowel(before):
                cuts.append(i)
            continue
        if i == len(word) - 1:
            continue
        after = word[i + 1]
        if _is_vowel(before):
            if _is_vowel(after) or (after in "lrh" and here not in "lrh"):
                cuts.append(i)  # V|CV, V|CLV
        elif i >= 2 and _is_vowel(word[i - 2]) and not _starts_together(before, here):
            cuts.append(i)  # VC|C
    return cuts


def _starts_together(first: str, second: str) -> bool:
    """Two consonants that open a syllable together: ch, ph, th, gn; pr, bl, tr…"""
    return second == "h" or (first, second) == ("g", "n") or (
        second in "lr" and first not in "lr")


def candidates(name: str, width: int) -> list[str]:
    """The labels ``name`` may take, shortest first, ending with the whole name."""
    name = name.strip()
    if len(name) <= width + 1:  # one letter more is no wider than an ellipsis
        return [name]
    parts = [part for part in _PARTS.split(name) if part]
    if len(parts) > 1:  # « Anne-Sophie », « Jean Paul »: the first word, then initials
        joined = ["-" if "-" in part else " " if _PARTS.fullmatch(part) else f"{part[0]}."
                  for part in parts]
        first_and_initials = parts[0] + "".join(joined[1:])
        initials = "".join(joined).replace(" ", "")
        found = [first_and_initials] if len(first_and_initials) <= width + 1 else [
            initials, first_and_initials]
    else:
        prefixes = [name[:cut] + ELLIPSIS for cut in syllable_cuts(name)]
        fitting = [p for p in prefixes if len(p) <= width + 1]
        longer = [p for p in prefixes if len(p) > width + 1]
        # The longest cut that fits; when none does, the initial first (« C. »), then longer cuts.
        found = fitting[-1:] + longer if fitting else [name[0] + "."] + longer
    return [label for label in found if len(label) < len(name)] + [name]


def shorten(name: str, width: int) -> str:
    """``name`` in about ``width`` characters by the rule above."""
    return candidates(name, width)[0]


def short_names(names: Sequence[str], width: int) -> list[str]:
    """Each name shortened to about ``width`` characters, lengthened until the labels tell the
    players apart: no two alike, and no cut name that could be the start of another player's
    (« Benja… » and « Benoît », not « Ben… » and « Be… »)."""
    options = [candidates(name, width) for name in names]
    chosen = [0] * len(names)

    def unclear(seat: int) -> bool:
        label = options[seat][chosen[seat]]
        if chosen[seat] == len(options[seat]) - 1:
            return False  # the whole name
        stem = label.removesuffix(ELLIPSIS).casefold()
        return any(other != seat and (
            options[other][chosen[other]].casefold() == label.casefold()
            or (label.endswith(ELLIPSIS) and names[other].strip().casefold().startswith(stem)))
            for other in range(len(names)))

    while clash := [seat for seat in range(len(names)) if unclear(seat)]:
        for seat in clash:
            chosen[seat] += 1
    return [opts[i] for opts, i in zip(options, chosen, strict=True)]
