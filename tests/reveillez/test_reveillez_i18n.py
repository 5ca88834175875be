"""The French catalogue of « Réveillez »: every string translated, nothing fuzzy."""

from __future__ import annotations

from pathlib import Path

from babel.messages.pofile import read_po

PO = (Path(__file__).resolve().parents[2]
      / "companion/translations/reveillez/fr/LC_MESSAGES/messages.po")


def test_french_catalogue_is_complete():
    """No empty and no fuzzy translation in the game's French catalogue."""
    with PO.open("rb") as handle:
        catalogue = read_po(handle, locale="fr")
    messages = [m for m in catalogue if m.id]
    assert len(messages) > 50
    for message in messages:
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        assert all(strings), message.id
        assert not message.fuzzy, message.id
