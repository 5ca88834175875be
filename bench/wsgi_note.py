"""What the benches served by :mod:`bench.wsgi` say of it in their output (a module of its own:
importing :mod:`bench.wsgi` makes the app)."""

NOT_AS_SHIPPED = (
    "- Not the app as shipped: bench/wsgi.py serves it with CSRF and the rate limits off, as "
    "this load generator sends every table's requests from one address (the shipped limits, "
    "120 writes a minute per address, would refuse them) and no page's CSRF token. What the "
    "two cost a save is measured as shipped by `python -m bench.saves` (CSRF, limits on, a "
    "browser's cookie; issue 36).")
"""Said by every bench served by :mod:`bench.wsgi` (:mod:`bench.tables`, :mod:`bench.polls`,
:mod:`bench.imports`)."""
