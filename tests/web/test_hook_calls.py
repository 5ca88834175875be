"""Every hook and view a request runs goes through ``app.ensure_sync``: the app's remembers the
plain ones (companion.factory._App), and answers as Flask's own would for each kind of callable."""

from __future__ import annotations

import functools

import pytest
from flask import Flask

from companion import factory


def _flasks(app, func):
    """What Flask's own ``ensure_sync`` gives (or raises) for ``func``."""
    try:
        return Flask.ensure_sync(app, func)
    except RuntimeError as error:  # (a coroutine without Flask's async extra installed)
        return type(error)


def _apps(app, func):
    try:
        return app.ensure_sync(func)
    except RuntimeError as error:
        return type(error)


class Hooks:
    def plain(self, response):
        return response

    async def waited(self, response):
        return response


def plain(response):
    return response


async def waited(response):
    return response


def test_each_callable_is_answered_as_flask_answers_it_asked_once_or_again(app):
    hooks = Hooks()
    callables = [plain, waited, hooks.plain, hooks.waited, functools.partial(plain),
                 functools.partial(waited), len, lambda response: response]
    for func in callables * 3:  # (first seen, then remembered)
        found, flasks = _apps(app, func), _flasks(app, func)
        if flasks is func:
            assert found is func
        else:
            assert found is not func and (found is flasks or type(found) is type(flasks))


def test_a_plain_function_is_marked_and_a_coroutine_never(app):
    def hook(response):
        return response

    async def later(response):
        return response

    assert app.ensure_sync(hook) is hook
    assert getattr(hook, factory.PLAIN) is True
    _apps(app, later)
    assert not hasattr(later, factory.PLAIN)
    method = Hooks().plain
    assert app.ensure_sync(method) is method and getattr(Hooks.plain, factory.PLAIN) is True
    assert app.ensure_sync(len) is len and len in app.plain_functions  # (takes no mark)


@pytest.mark.parametrize("path", ["/", "/healthz"])
def test_requests_run_their_hooks(client, path):
    assert client.get(path).status_code == 200
