"""No query string makes a 500 (issue 40 item 2): every GET route of the URL map, reached with a
real link of its kind, is sent every query parameter the app reads — found by watching what the
pages read, not listed by hand — holding non-ASCII text, a NUL, bytes that are not UTF-8 and
overlong values. Each answer is a page or a clear 4xx, and nothing is stored."""

from __future__ import annotations

from urllib.parse import quote

from werkzeug.datastructures import ImmutableMultiDict

from ..shell.test_no_write_on_read import writes
from ..shell.test_take_links_back import ARGUMENTS, table  # noqa: F401  (a fixture)

HOSTILE = ["é", "ﷺ" * 5, "\x00", "a\x00b", "x" * 10_000, "9" * 5_000, "-1", "²"]
"""Values sent to every parameter; plus a raw ``%ff%fe`` that is no UTF-8 at all."""


class _Watched(ImmutableMultiDict):  # type: ignore[type-arg]
    """A query string (or form) that writes down every name a page asks it for."""

    asked: set[str] = set()

    def get(self, key, default=None, type=None):
        _Watched.asked.add(key)
        return super().get(key, default, type)

    def getlist(self, key, type=None):
        _Watched.asked.add(key)
        return super().getlist(key, type)

    def __getitem__(self, key):
        _Watched.asked.add(key)
        return super().__getitem__(key)

    def __contains__(self, key):
        _Watched.asked.add(key)
        return super().__contains__(key)


def _paths(app, table) -> list[str]:  # noqa: F811
    """Every GET route, with the first of the table's links that opens it (else any)."""
    candidates = [*table["tokens"], table["job"], table["group"]]
    found = []
    client = table["other"]
    for rule in app.url_map.iter_rules():
        if "GET" not in rule.methods or rule.endpoint == "static":
            continue
        names = rule.arguments & {"code", "token", "group_token"}
        tries = candidates if names else [None]
        for token in tries:
            with app.test_request_context():
                from flask import url_for
                values = {arg: ARGUMENTS.get(arg, "0" * 32) for arg in rule.arguments}
                values.update({name: token for name in names})
                if "kind" in rule.arguments:
                    values["kind"] = "rebel-princess"
                path = url_for(rule.endpoint, **values)
            if client.get(path).status_code < 400:
                break
        found.append(path)
    return found


def test_no_query_string_makes_a_500(app, table, monkeypatch):  # noqa: F811
    monkeypatch.setattr(app.request_class, "parameter_storage_class", _Watched)
    _Watched.asked = set()
    client = table["other"]
    paths = _paths(app, table)  # (asked once plainly: the names each page reads)
    for path in paths:  # the names a half-built action or a help panel reads next
        client.get(path, query_string={"do": "wake", "field": "cards-0", "step": "1"})
    assert {"q", "page", "a", "text", "seal", "again", "do", "game", "player"} <= _Watched.asked
    # (read only once another is right: the second of versus, the language switch's return)
    names = sorted((_Watched.asked | {"b", "next"}) - {"csrf_token"})
    asked = 0
    with writes(app) as written:
        asked = _send(client, paths, names)
    assert written == [] and asked > 500


def _send(client, paths: list[str], names: list[str]) -> int:
    asked = 0
    for path in paths:
        for value in HOSTILE:
            for query in ({name: value for name in names},
                          *({name: value} for name in names[:: max(1, len(names) // 8)])):
                answer = client.get(path, query_string=query)
                assert answer.status_code < 500, (path, query)
                asked += 1
        raw = "&".join(f"{quote(name)}=%ff%fe%00" for name in names)
        assert client.get(f"{path}?{raw}").status_code < 500, (path, "raw")
    return asked
