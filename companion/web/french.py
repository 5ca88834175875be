"""French as a French player writes it (issue 22): « d'Ana », « qu'Ana », « d'Hélène », « de Ben ».

:func:`format_sentence` fills a translated message's ``%(…)s`` fields as ``%`` does, and where a
name follows « de » or « que » and starts with a vowel sound (a vowel, a mute h, or a y before a
consonant: « d'Yves », « de Yann »), it writes the elided form. Only the words just before a field
change: the catalogue's own words (« de huit ») are never touched. Pure: every message goes
through it (companion.web.i18n installs it for the templates and for ``gettext`` in Python; the
rules cores' ``messages.toml`` catalogues fill their ``{player}`` fields with :func:`format_braces`,
which lives with them in ``companion.scoring.problems``, as the vowel rule does).

The rule for names: a name is taken as starting with a vowel sound when it starts with a vowel,
with an h (every h is taken as mute, as in most French first names: « d'Hélène », « d'Hugo »), or
with a y followed by a consonant (« d'Yves », but « de Yann »). A name is never given a pronoun:
sentences say the player's name again, or « sa main », rather than « il » or « elle ».
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from companion.scoring.problems import VOWELS, format_braces, starts_with_vowel_sound

__all__ = ["VOWELS", "elide", "format_braces", "format_sentence", "starts_with_vowel_sound"]

_BEFORE_FIELD = re.compile(r"\b(de|que|De|Que) %\((\w+)\)s")


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

