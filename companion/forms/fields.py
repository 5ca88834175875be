"""What every form of the app shares about reading its fields."""

from __future__ import annotations

from typing import TypeVar

Value = TypeVar("Value")


def required(value: Value | None) -> Value:
    """A required field's value, read once its form validated. WTForms types every field's
    ``data`` as possibly None (a field not filled in yet); a form that validated with
    ``InputRequired`` has one, so this is where that is said, once."""
    if value is None:
        raise ValueError("a required field read before its form validated")
    return value
