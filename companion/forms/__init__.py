"""The Flask-WTF forms of the shell's pages (groups, history, a player's name); each game's own
forms live beside its routes (``routes/<key>/forms.py``).

Imported by ``routes/`` only; they import the helpers, the glue's rules for names and ``web/``."""
