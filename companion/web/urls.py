"""The app's URLs, each built once per process: werkzeug's map, whose adapters remember what
they have built.

A page links to a handful of addresses (its stylesheet and scripts, the home page, the rules,
its game's entry screens), the same ones on every drawing of it: werkzeug works each one out
afresh (the rule found, each value converted and quoted), some 5 µs a link and 8 % of a
drawing's CPU. :class:`RememberingAdapter` keeps what :meth:`MapAdapter.build` gave
for the same question, asked in the same place (the server name, script root, subdomain and
scheme the request came in on), in one bounded table per map (:data:`REMEMBERED` answers,
least recently used dropped first): the same URL as werkzeug's, character for character.

Only plain values are remembered (``str``, ``int``, ``bool``, ``None``, and the values a map's
converter reads one field of, registered with :meth:`RememberingMap.remember_values_of`): an
answer is kept under the values' types as well as their values (``1`` and ``True`` make
different URLs), and never under an object that could change or that the table would keep
alive (a row). Flask's defaults (a group's token, :mod:`companion.routes.groups`) are filled in
before the adapter is asked, so they are part of the question. A rule added to the map empties
the table. The table holds the links' tokens the pages hold, in this process's memory only.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Mapping
from threading import Lock
from typing import Any

from werkzeug.routing import Map, MapAdapter

REMEMBERED = 4096
"""How many built URLs a map keeps (a few hundred bytes each): the pages being looked at
link to far fewer; past it the least recently used is dropped."""

HOSTS = 64
"""How many hosts' adapters a map keeps the host part of (the server's names and addresses:
a handful); past it, the table starts again."""

_PLAIN: dict[type, Callable[[Any], Any] | None] = {str: None, int: None, bool: None,
                                                    type(None): None}


class RememberingMap(Map):
    """werkzeug's :class:`Map`, whose adapters (one a request) share one table of built URLs."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.built: OrderedDict[tuple[Any, ...], str] = OrderedDict()
        self.built_lock = Lock()
        self.hosts: dict[tuple[Any, ...], tuple[str, str | None, str]] = {}
        """The host part of an adapter for each host asked (:meth:`bind_to_environ`)."""
        super().__init__(*args, **kwargs)  # (its rules added: :meth:`add` finds the table)
        self.plain_values = dict(_PLAIN)
        """The types of values an answer is remembered under, each with what of a value goes
        into the question (None: the value itself: immutable, compared by value)."""

    def remember_values_of(self, kind: type, part: Callable[[Any], Any]) -> None:
        """Remember answers for values of ``kind`` too, under ``part(value)``: all that the
        converter taking them reads of one (a game kind: its slug)."""
        self.plain_values[kind] = part

    def add(self, *args: Any, **kwargs: Any) -> None:
        super().add(*args, **kwargs)
        with self.built_lock:  # (a rule added may build an endpoint's URLs another way)
            self.built.clear()

    def bind(self, *args: Any, **kwargs: Any) -> MapAdapter:
        return _remembering(super().bind(*args, **kwargs))

    def bind_to_environ(self, environ: Any, server_name: str | None = None,
                        subdomain: str | None = None) -> MapAdapter:
        """werkzeug's adapter for a request, its host part (the server name as werkzeug
        reads it from the Host header, checked and IDNA-encoded, the subdomain and the scheme)
        worked out once per host and kept (:data:`HOSTS` of them): the rest of werkzeug's
        work, the same for each request to one host, is some 10 µs of every request's cycle
        (issue 36). The same adapter as werkzeug's; a request whose host werkzeug refuses is
        refused by werkzeug, and a subdomain left to be read from the host (never by Flask,
        whose apps match no subdomain) goes to werkzeug each time."""
        if type(environ) is not dict or subdomain is None or self.host_matching:
            return _remembering(super().bind_to_environ(environ, server_name, subdomain))
        get = environ.get
        key = (get("HTTP_HOST"), get("SERVER_NAME"), get("SERVER_PORT"),
               environ["wsgi.url_scheme"], get("HTTP_CONNECTION"), get("HTTP_UPGRADE"),
               server_name, subdomain)
        host = self.hosts.get(key)
        if host is None:
            made = super().bind_to_environ(environ, server_name, subdomain)
            if len(self.hosts) >= HOSTS:  # (Host is the client's to say: bounded)
                self.hosts.clear()
            self.hosts[key] = (made.server_name, made.subdomain, made.url_scheme)
            return _remembering(made)
        script, path = _decoded(get("SCRIPT_NAME")), _decoded(get("PATH_INFO"))
        return RememberingAdapter(self, host[0], "/" if script is None else script, host[1],
                                  host[2], "/" if path is None else path,
                                  environ["REQUEST_METHOD"], _decoded(get("QUERY_STRING")))


def _decoded(value: str | None) -> str | None:
    """A WSGI string (latin-1 bytes) as the text werkzeug reads it (UTF-8, errors replaced)."""
    return value.encode("latin1").decode(errors="replace") if value is not None else None


def _remembering(adapter: MapAdapter) -> RememberingAdapter:
    return RememberingAdapter(adapter.map, adapter.server_name, adapter.script_name,
                              adapter.subdomain, adapter.url_scheme, adapter.path_info,
                              adapter.default_method, adapter.query_args)


class RememberingAdapter(MapAdapter):
    """An adapter whose :meth:`build` answers a question it was asked before from its map's
    table (:class:`RememberingMap`)."""

    map: RememberingMap

    def build(self, endpoint: Any, values: Mapping[str, Any] | None = None,
              method: str | None = None, force_external: bool = False,
              append_unknown: bool = True, url_scheme: str | None = None) -> str:
        key = self._question(endpoint, values, method, force_external, append_unknown,
                             url_scheme)
        if key is None:
            return super().build(endpoint, values, method, force_external, append_unknown,
                                 url_scheme)
        built = self.map.built
        try:
            url = built[key]
        except KeyError:
            pass
        else:
            try:
                built.move_to_end(key)
            except KeyError:  # (dropped by another thread meanwhile: the answer stands)
                pass
            return url
        url = super().build(endpoint, values, method, force_external, append_unknown,
                            url_scheme)
        with self.map.built_lock:
            built[key] = url
            if len(built) > REMEMBERED:
                built.popitem(last=False)
        return url

    def _question(self, endpoint: Any, values: Mapping[str, Any] | None, method: str | None,
                  force_external: bool, append_unknown: bool,
                  url_scheme: str | None) -> tuple[Any, ...] | None:
        """Everything the URL depends on, or None when a value is not plain (not remembered)."""
        if type(values) is not dict and values is not None:  # (a MultiDict: as werkzeug does)
            return None
        plain = self.map.plain_values
        parts: list[Any] = [endpoint, method, force_external, append_unknown, url_scheme,
                            self.server_name, self.script_name, self.subdomain, self.url_scheme]
        if values:
            for name, value in values.items():
                kind = type(value)
                try:
                    part = plain[kind]
                except KeyError:
                    return None
                # (in order: the query string keeps it)
                parts += (name, kind, value if part is None else part(value))
        return tuple(parts)
