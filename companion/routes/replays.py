"""The idempotency key a write form is stored under: the form's own key with the fingerprint of
what it says (see :func:`companion.play.store.keyed`).

A form sent again unchanged (a double tap, a network retry, Back and resend) finds the entry it
stored and is answered like the first sending; the same form sent with a changed value is told
what is stored and that nothing was saved (:class:`companion.play.store.KeyConflict`), never
"saved" for a change that was dropped.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from flask import request

from ..play import store
from ..scoring.problems import EntryError, Problem
from ..web.requests import itself

Answer = TypeVar("Answer")

IGNORED = frozenset({"csrf_token"})
"""Fields that say nothing of the entry (the CSRF token may be renewed between two sendings)."""


def form_key(key: str | None) -> str | None:
    """The key to store this request's form under (None: the form has no key)."""
    content = [(name, value) for name, values in itself(request).form.lists()
               if name not in IGNORED for value in values]
    return store.keyed(key, content)


def refusal(write: Callable[[], object], *, problems: Callable[[list[Problem]], Answer],
            stale: Callable[[], Answer],
            conflict: Callable[[store.KeyConflict], Answer | None]) -> Answer | None:
    """Run a game's ``write`` and answer its refusal, the same way on every write page: None when
    it was stored; else what ``problems`` says of the core's problems (:class:`EntryError`, 422),
    ``stale`` of a write that came after another phone's (:class:`~companion.play.store.StaleWrite`,
    409), or ``conflict`` of a changed copy of a form already saved
    (:class:`~companion.play.store.KeyConflict`; None: answered as stored)."""
    try:
        write()
    except EntryError as error:
        return problems(error.problems)
    except store.StaleWrite:
        return stale()
    except store.KeyConflict as found:
        return conflict(found)
    return None
