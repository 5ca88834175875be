"""The modifier registry and the hook composition order."""

from __future__ import annotations

import string

import pytest

from companion.scoring.rebel_princess.engine import Edition, InvalidEntryError, Modifier, RoundState
from companion.scoring.rebel_princess.engine.modifiers import (
    HOOKS,
    modifier_class,
    overridden,
    registered,
    round_card_class,
)
from companion.scoring.rebel_princess.round_cards import round_cards


@pytest.mark.parametrize("edition, letters", [
    (Edition.DELUXE, string.ascii_lowercase), (Edition.CLASSIC, string.ascii_uppercase[:21]),
])
def test_every_round_card_has_a_modifier(edition, letters):
    """Deluxe a-z and classic A-U each map to a registered Round card modifier."""
    assert [c.letter for c in round_cards(edition)] == list(letters)
    for letter in letters:
        cls = round_card_class(edition, letter)
        assert cls.letters[edition] == letter
        assert modifier_class(cls.slug) is cls


def test_round_card_letters_accept_either_case():
    """Deluxe letters are lower case and classic upper case; either case is looked up."""
    assert round_card_class(Edition.DELUXE, "F") is round_card_class(Edition.CLASSIC, "d")


@pytest.mark.parametrize("edition, letter", [(Edition.DELUXE, "aa"), (Edition.CLASSIC, "V")])
def test_unknown_round_card_is_rejected(edition, letter):
    """A letter outside the edition's Round cards raises InvalidEntryError."""
    with pytest.raises(InvalidEntryError):
        round_card_class(edition, letter)


def test_unknown_slug_is_rejected():
    """Looking up a slug nobody registered raises InvalidEntryError."""
    with pytest.raises(InvalidEntryError):
        modifier_class("no-such-rule")


def test_slugs_are_kebab_case():
    """Every registered slug is lower-case kebab case, the form rulings data joins on."""
    for slug in registered():
        assert slug == slug.lower() and " " not in slug and "_" not in slug


def test_plain_cards_override_no_trick_hook():
    """A card without trick rules overrides no hook, so the hot loop never calls it."""
    plain = round_card_class(Edition.DELUXE, "a")(Edition.DELUXE)
    assert not any(overridden(plain, hook) for hook in HOOKS)
    beans = round_card_class(Edition.DELUXE, "c")(Edition.DELUXE)
    assert overridden(beans, "legal") and not overridden(beans, "winner")


def test_base_modifier_hooks_change_nothing():
    """The base hooks return their input unchanged."""
    state = RoundState.deal(4, seed=3)
    base = Modifier(Edition.DELUXE)
    assert base.legal(state, 0, 0b1010) == 0b1010
    assert base.follow(state, 17, 2) == 2
    assert base.winner(state, [17, 18], 1) == 1


def test_engine_imports_no_web_or_database_code():
    """The engine is pure rules: no flask, sqlmodel or sqlalchemy import in any of its modules."""
    import ast
    from pathlib import Path

    import companion.scoring.rebel_princess.engine

    forbidden = {"flask", "flask_wtf", "sqlmodel", "sqlalchemy"}
    for path in Path(companion.scoring.rebel_princess.engine.__file__).parent.glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            else:
                continue
            assert not {name.split(".")[0] for name in names} & forbidden, path.name
