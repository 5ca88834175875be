"""Rulings of the Kanai duel (rulings.toml, in the shared format)."""
