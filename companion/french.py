"""French as a French player writes it (issue 22): « d'Ana », « qu'Ana », « d'Hélène », « de Ben ».

:func:`format_sentence` fills a translated message's ``%(…)s`` fields as ``%`` does, and where a
name follows « de » or « que » and starts with a vowel sound (a vowel, a mute h, or a y before a
consonant: « d'Yves », « de Yann »), it writes the elided form. Only the words just before a field
change: the catalogue's own words (« de huit ») are never touched. Pure: every message goes
through it (companion.i18n installs it for the templates and for ``gettext`` in Python).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

VOWELS = "aeiouàâäéèêëîïôöùûüœæ"
_BEFORE_FIELD = re.compile(r"\b(de|que|De|Que) %\((\w+)\)s")


def starts_with_vowel_sound(word: str) -> bool:
    """A vowel, a mute h (names are taken as mute: « d'Hélène », « d'Hugo »), or a y followed by a
    consonant (« Yves »); a y before a vowel sounds as a consonant (« Yann »)."""
    w = word.strip().lower()
    if not w:
        return False
    if w[0] == "y":
        return len(w) > 1 and w[1] not in VOWELS
    return w[0] in VOWELS or w[0] == "h"


def elide(word: str, name: str) -> str:
    """« de » or « que » followed by ``name``: « d'Ana », « qu'Ana », « de Ben »."""
    if starts_with_vowel_sound(name):
        return f"{word[:-1]}'{name}"
    return f"{word} {name}"


def format_sentence(template: str, values: Mapping[str, Any]) -> str:
    """``template % values`` (always, as Jinja's ``_()`` does), with « de »/« que » elided before
    a name that needs it. The template keeps its type (a Markup template escapes the values, as
    ``%`` does)."""
    if values and "%(" in template:
        def fix(match: re.Match[str]) -> str:
            word, key = match.group(1), match.group(2)
            value = values.get(key)
            if isinstance(value, str) and starts_with_vowel_sound(value):
                return f"{word[:-1]}'%({key})s"
            return match.group(0)
        fixed = _BEFORE_FIELD.sub(fix, str(template))
        if fixed != str(template):
            template = type(template)(fixed)
    return template % values
