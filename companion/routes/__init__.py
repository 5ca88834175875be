"""Blueprints: ``games`` (the phone web app) and ``api`` (the stateless JSON API)."""
