"""companion: a phone companion for princess card games played with real cards.

The package itself imports nothing heavy, so the pure rules cores (``companion.scoring.<game>``)
and the rulings (``companion.rulings``) can be used without Flask or a database; the app factory
lives in :mod:`companion.factory`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from flask import Flask


def create_app(test_config: dict[str, Any] | None = None) -> Flask:
    """Build the Flask app (see :func:`companion.factory.create_app`) — or, for the operator's
    commands on the ``flask`` command line, only what they use (:mod:`companion.ops.operator`)."""
    from .ops import operator

    if test_config is None and operator.is_operator_command():
        return operator.create_operator_app()
    from .factory import create_app as build

    return build(test_config)
