"""The idempotency key a write form is stored under: the form's own key with the fingerprint of
what it says (see :func:`companion.play.store.keyed`).

A form sent again unchanged (a double tap, a network retry, Back and resend) finds the entry it
stored and is answered like the first sending; the same form sent with a changed value is told
what is stored and that nothing was saved (:class:`companion.play.store.KeyConflict`), never
"saved" for a change that was dropped.
"""

from __future__ import annotations

from flask import request

from ..play import store

IGNORED = frozenset({"csrf_token"})
"""Fields that say nothing of the entry (the CSRF token may be renewed between two sendings)."""


def form_key(key: str | None) -> str | None:
    """The key to store this request's form under (None: the form has no key)."""
    content = [(name, value) for name, values in request.form.lists() if name not in IGNORED
               for value in values]
    return store.keyed(key, content)
