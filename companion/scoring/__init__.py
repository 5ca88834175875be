"""The rules cores, one package per game (``<key>/``), and the one problem type they share
(``problems.py``): pure Python, no web framework, no database, no other game.

They import only themselves, ``problems.py`` and ``companion.common``; every layer above may
import them (the glue replays entries through them, history and the web word their problems)."""
