"""URLs built once per process (companion.web.urls): a remembered URL is werkzeug's, character
for character, for every question that gives a different one — other values, other types of
the same value, other query orders, another script root or scheme — and the table is bounded."""

from __future__ import annotations

from flask import url_for
from werkzeug.routing import MapAdapter

from companion.games import registry
from companion.web import urls


def _werkzeugs(app, endpoint, **values):
    """What werkzeug's own adapter builds for the request being served."""
    from flask.globals import request_ctx

    remembering = request_ctx.url_adapter
    adapter = MapAdapter(app.url_map, remembering.server_name, remembering.script_name,
                         remembering.subdomain, remembering.url_scheme, remembering.path_info,
                         remembering.default_method, remembering.query_args)
    return adapter.build(endpoint, values)


def test_a_remembered_url_is_werkzeugs_own(app):
    questions = [("shell.index", {}), ("static", {"filename": "app.css", "v": "1"}),
                 ("i18n.switch", {"lang": "fr", "next": "/", "a": "1"}),
                 ("i18n.switch", {"lang": "fr", "a": "1", "next": "/"}),  # (the query's order)
                 ("i18n.switch", {"lang": "fr", "next": "/a b?c=d&e"}),
                 ("i18n.switch", {"lang": "fr", "next": 1}),
                 ("i18n.switch", {"lang": "fr", "next": True}),  # (equal to 1, not its URL)
                 ("i18n.switch", {"lang": "fr", "next": None}),
                 ("shell.game_rules", {"kind": registry()[0]}),
                 ("shell.game_rules", {"kind": registry()[0].slug})]
    with app.test_request_context("/", base_url="https://example.test/under/here"):
        for endpoint, values in questions * 2:  # (built, then remembered)
            assert url_for(endpoint, **values) == _werkzeugs(app, endpoint, **values)
        assert url_for("i18n.switch", lang="fr", next=True) != url_for("i18n.switch", lang="fr",
                                                                        next=1)
        assert url_for("static", filename="app.css", v="1") == "/under/here/static/app.css?v=1"
        assert url_for("i18n.switch", lang="fr", a="1", next="/").endswith("?a=1&next=/")
    with app.test_request_context("/", base_url="http://other.test/"):
        assert url_for("static", filename="app.css", v="1") == "/static/app.css?v=1"
        assert url_for("shell.index", _external=True) == "http://other.test/"
    with app.test_request_context("/", base_url="https://example.test/"):
        assert url_for("shell.index", _external=True) == "https://example.test/"


def test_a_value_of_any_other_type_is_built_each_time_and_never_kept(app):
    class Slug(str):
        pass
    with app.test_request_context("/"):
        before = dict(app.url_map.built)
        assert url_for("shell.game_rules", kind=Slug("kanai-duel")) == "/kanai-duel/rules"
        assert url_for("i18n.switch", lang="fr", next=["/a", "/b"]) == (
            "/lang/fr?next=/a&next=/b")
        assert app.url_map.built == before


def test_the_table_keeps_the_most_recent_urls_only(app, monkeypatch):
    monkeypatch.setattr(urls, "REMEMBERED", 3)
    with app.test_request_context("/"):
        app.url_map.built.clear()
        for n in range(5):
            url_for("i18n.switch", lang="fr", next=f"/{n}")
        url_for("i18n.switch", lang="fr", next="/2")  # (asked again: the most recent)
        url_for("i18n.switch", lang="fr", next="/5")
        kept = [dict(zip(key[9::3], key[11::3], strict=True))["next"]
                for key in app.url_map.built]
        assert kept == ["/4", "/2", "/5"]


def test_a_rule_added_forgets_the_urls_built(app):
    with app.test_request_context("/"):
        url_for("shell.index")
        assert app.url_map.built
        app.url_map.add(type(next(app.url_map.iter_rules()))("/elsewhere", endpoint="x.y"))
        assert not app.url_map.built


def _fields(adapter):
    return {name: getattr(adapter, name) for name in (
        "server_name", "script_name", "subdomain", "url_scheme", "path_info", "default_method",
        "query_args")}


def test_a_requests_adapter_is_werkzeugs_with_its_host_part_kept(app, monkeypatch):
    from werkzeug.routing import Map
    from werkzeug.test import EnvironBuilder

    asked = [dict(path="/kanai-duel/g/abc", query_string="x=%C3%A9&y",
                  base_url="http://Example.ORG:80/"),
             dict(path="/a b/é"), dict(path="/x", base_url="https://h.test:8443/sub/"),
             dict(path="/", headers={"Connection": "keep-alive, Upgrade",
                                     "Upgrade": "websocket"}),
             dict(path="/x", method="POST", base_url="http://xn--bcher-kva.example/"),
             dict(path="/x", base_url="http://bücher.example/")]
    for kwargs in asked * 2:  # (worked out, then kept)
        environ = EnvironBuilder(**kwargs).get_environ()
        for server_name, subdomain in ((None, ""), ("example.org", ""), (None, None)):
            kept = app.url_map.bind_to_environ(environ, server_name, subdomain)
            assert isinstance(kept, urls.RememberingAdapter)
            assert _fields(kept) == _fields(
                Map.bind_to_environ(app.url_map, environ, server_name, subdomain))
    assert 0 < len(app.url_map.hosts) <= urls.HOSTS
    monkeypatch.setattr(urls, "HOSTS", 2)  # (any Host a client says: the table stays bounded)
    for number in range(5):
        environ = EnvironBuilder("/", base_url=f"http://host{number}.test/").get_environ()
        assert app.url_map.bind_to_environ(environ, None, "").server_name == f"host{number}.test"
        assert len(app.url_map.hosts) <= 2


def test_a_host_werkzeug_refuses_is_refused_every_time(app, client):
    for _ in range(2):
        assert client.get("/", headers={"Host": "a..b" + "x" * 70}).status_code == 400
