"""The blueprints: the shell's pages (home, links, groups, history, the offline copy), the JSON
API's common part, and one package per game (``<key>/``: pages, forms, API).

A view parses the request, calls one ``play/`` function and renders. Routes import every layer
below them; only the factory imports them (nothing below the routes reaches back up)."""
