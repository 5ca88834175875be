"""The glue between stored rows and the rules: create, replay and save a game, a group's links,
people, summaries, totals, export and import; one module per game (``<key>.py``). No Flask.

Imports the rules cores, history, the helpers, the registry and the storage core; imported by
``web/``, ``ops/``, ``forms/`` and ``routes/`` — nothing below the routes reaches back up."""
