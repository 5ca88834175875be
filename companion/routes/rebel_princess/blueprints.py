"""Rebel Princess's two blueprints, declared apart so that its views import them
without importing the package that gathers them: its pages (``bp``, under ``/<slug>/``) and
its JSON API (``api_bp``, under ``/api/v1/<slug>/``), both mounted by the factory from the
registry (:func:`companion.factory.blueprints`)."""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("rebel_princess", "companion.routes.rebel_princess")
api_bp = Blueprint("rebel_princess_api", "companion.routes.rebel_princess")
