"""French elision (issue 22): « d'Ana », « qu'Ana », « d'Hélène », « de Ben » — the helper, and
every message of every French catalogue that puts a name after « de » or « que », through both
ways a message is filled (``gettext`` in Python, ``_()`` in a template)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.messages.pofile import read_po
from flask import render_template_string
from flask_babel import gettext, ngettext
from markupsafe import Markup

from companion import create_app
from companion.web.french import elide, format_sentence, starts_with_vowel_sound

TRANSLATIONS = Path(__file__).resolve().parents[2] / "companion" / "translations"


@pytest.mark.parametrize("name, vowel_sound", [
    ("Ana", True), ("Éloïse", True), ("Oscar", True), ("Ugo", True), ("Inès", True),
    ("Hélène", True), ("Hugo", True), ("Yves", True), ("Yann", False), ("Ben", False),
    ("Zoé", False), ("  ana", True), ("", False), ("7", False), ("Œdipe", True)])
def test_which_names_start_with_a_vowel_sound(name, vowel_sound):
    assert starts_with_vowel_sound(name) is vowel_sound


def test_elide_one_word():
    assert [elide("de", n) for n in ("Ana", "Hélène", "Ben")] == ["d'Ana", "d'Hélène", "de Ben"]
    assert [elide("que", n) for n in ("Ana", "Hugo", "Yann")] == ["qu'Ana", "qu'Hugo", "que Yann"]


def test_only_the_words_before_a_name_change():
    assert format_sentence("Carte de %(name)s, de huit", {"name": "Ana"}) == "Carte d'Ana, de huit"
    assert format_sentence("De %(a)s à %(b)s", {"a": "Ana", "b": "Ben"}) == "D'Ana à Ben"
    assert format_sentence("celle de %(n)s", {"n": 8}) == "celle de 8"
    assert format_sentence("node %(name)s", {"name": "Ana"}) == "node Ana"
    assert format_sentence("100 %%", {}) == "100 %"
    markup = format_sentence(Markup("que %(name)s joue"), {"name": "<Ana>"})
    assert isinstance(markup, Markup) and markup == "que &lt;Ana&gt; joue"
    assert format_sentence(Markup("que %(name)s"), {"name": "Ana & Co"}) == "qu'Ana &amp; Co"


def _messages_with_a_name_after_de_or_que():
    found = []
    for po in sorted(TRANSLATIONS.glob("**/fr/LC_MESSAGES/messages.po")):
        with po.open("rb") as handle:
            catalogue = read_po(handle)
        for message in catalogue:
            if not message.id or not message.string:
                continue
            strings = message.string if isinstance(message.string, tuple) else (message.string,)
            if any(re.search(r"\b(de|que|De|Que) %\(\w+\)s", s) for s in strings):
                found.append(message.id)
    return found


MESSAGES = _messages_with_a_name_after_de_or_que()


def test_there_are_such_messages_in_every_game():
    assert len(MESSAGES) >= 15


@pytest.fixture(scope="module")
def french(tmp_path_factory):
    app = create_app({"TESTING": True, "SECRET_KEY": "t", "WTF_CSRF_ENABLED": False,
                      "DATABASE": str(tmp_path_factory.mktemp("fr") / "f.sqlite")})
    with app.test_request_context(headers={"Cookie": "lang=fr"}):
        yield app


def _fields(text: str, name: str) -> dict[str, object]:
    return {key: (1 if kind == "d" else name)
            for key, kind in re.findall(r"%\((\w+)\)([sd])", text)}


@pytest.mark.parametrize("name, joined", [("Ana", r"(d|qu)'Ana"), ("Hélène", r"(d|qu)'Hélène"),
                                          ("Ben", r"(de|que) Ben")])
def test_every_message_that_takes_a_name(french, name, joined):
    for message_id in MESSAGES:
        if isinstance(message_id, tuple):
            singular, plural = message_id
            values = _fields(singular + plural, name)
            values.pop("num", None)
            said = [ngettext(singular, plural, 1, **values),
                    render_template_string("{{ ngettext(s, p, 1, **v) }}", s=singular,
                                           p=plural, v=values)]
        else:
            values = _fields(message_id, name)
            said = [gettext(message_id, **values),
                    render_template_string("{{ _(s, **v) }}", s=message_id, v=values)]
        for text in said:
            assert re.search(joined, text, re.I), (message_id, text)
            assert not re.search(rf"\b(de|que) {name}", text, re.I) or name == "Ben", text


# The rules cores' own catalogues (``messages.toml``, ``steps.toml``: ``{player}`` fields), filled
# through companion.scoring.problems.Catalogue like every problem a player reads.

COMPANION = TRANSLATIONS.parent
#: Fields that hold a person's (or a Princess's) name in these catalogues.
NAME_FIELDS = {"player", "on", "leader", "by", "rule", "name", "other", "first", "second",
               "winner", "names"}


def _toml_messages():
    import tomllib
    found = []
    for path in sorted(COMPANION.glob("**/*.toml")):
        tables = tomllib.loads(path.read_text(encoding="utf-8"))
        french = tables.get("messages_fr")
        if not isinstance(french, dict):
            continue
        package = ".".join(path.relative_to(COMPANION.parent).parent.parts)
        for code, text in french.items():
            if isinstance(text, str) and set(re.findall(r"\{(\w+)\}", text)) & NAME_FIELDS:
                found.append((package, path.name, code, text))
    return found


TOML_MESSAGES = _toml_messages()


def test_the_cores_have_such_messages():
    assert len(TOML_MESSAGES) >= 40
    assert {package.rsplit(".", 1)[-1] for package, *_ in TOML_MESSAGES} >= {
        "kanai_duel", "princesse_princesse", "rebel_princess", "reveillez", "engine",
        "rebel_princess_tricks"}


@pytest.mark.parametrize("name, joined", [("Ana", r"(d|qu)'Ana"), ("Hélène", r"(d|qu)'Hélène"),
                                          ("Ben", r"(de|que) Ben")])
def test_every_core_message_that_takes_a_name(name, joined):
    from companion.scoring.problems import Catalogue

    for package, filename, code, text in TOML_MESSAGES:
        values = {key: (name if key in NAME_FIELDS else 3)
                  for key in re.findall(r"\{(\w+)\}", text)}
        said = Catalogue(package, filename).text(code, "fr", **values)
        assert name in said, (code, said)
        assert not re.search(rf"\b(de|que) {name}", said, re.I) or name == "Ben", (code, said)
        if re.search(r"\b(de|que|De|Que) \{(" + "|".join(NAME_FIELDS) + r")\}", text):
            assert re.search(joined, said, re.I), (code, said)


#: A pronoun standing for the player (« il ou elle », « a-t-il », « prend-elle », « qu'il »), or
#: an agreement guessed with « (e) » (« éliminé(e) »).
PRONOUN = re.compile(r"\bil ou elle\b|\b\w+-t-(il|elle)\b|\b\w+-(il|elle)\b|\bqu'il (a|avait)\b"
                     r"|\w\(e\)")


def _all_french_messages_with_a_name():
    for po in sorted(TRANSLATIONS.glob("**/fr/LC_MESSAGES/messages.po")):
        with po.open("rb") as handle:
            for message in read_po(handle):
                strings = message.string if isinstance(message.string, tuple) else (
                    message.string,)
                for text in strings:
                    if text and re.search(r"%\((name|player|names|other)\)s", text):
                        yield text
    for *_, text in TOML_MESSAGES:
        if re.search(r"\{(player|on|leader|name)\}", text):
            yield text


def test_a_player_is_named_never_il_ou_elle():
    texts = list(_all_french_messages_with_a_name())
    assert len(texts) > 100
    assert [text for text in texts if PRONOUN.search(text)] == []
