"""The OpenAPI document: generated from the models, structurally sound, and its examples work."""

from __future__ import annotations

import pytest
from flask import url_for

from companion.games import registry
from companion.routes.rebel_princess import api_models

# Response models by schema name: the class name, or (when two games share a class name) the
# module-qualified name pydantic gives both.
RESPONSES = {name: op.response for kind in registry() for op in kind.api_operations()
             for name in (op.response.__name__,
                          f"{op.response.__module__.replace('.', '__')}__{op.response.__name__}")}

METHODS = {"get", "put", "post", "delete", "patch", "options", "head", "trace"}


@pytest.fixture
def document(client):
    response = client.get("/api/v1/openapi.json")
    assert response.status_code == 200
    return response.get_json()


def _refs(node):
    """Every $ref (and discriminator mapping target) anywhere in the document."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref":
                yield value
            elif key == "mapping" and isinstance(value, dict):
                yield from value.values()
            else:
                yield from _refs(value)
    elif isinstance(node, list):
        for item in node:
            yield from _refs(item)


def _resolve(document, ref):
    assert ref.startswith("#/"), ref
    node = document
    for part in ref[2:].split("/"):
        node = node[part.replace("~1", "/").replace("~0", "~")]
    return node


def _examples(document):
    for path, item in document["paths"].items():
        content = item["post"]["requestBody"]["content"]["application/json"]
        for name, example in content["examples"].items():
            yield path, name, example["value"]


def test_document_is_openapi_3_1(document, app):
    assert document["openapi"].startswith("3.1.")
    assert document["info"]["title"] and document["info"]["version"]
    assert {"/api/v1/rebel-princess/score-round", "/api/v1/rebel-princess/next-leader",
            "/api/v1/rebel-princess/standings", "/api/v1/rebel-princess/check-round",
            } <= set(document["paths"])
    # Every registered game's operations, each under its own prefix, and nothing else.
    with app.test_request_context():
        paths = {kind.slug: {url_for(op.endpoint) for op in kind.api_operations()}
                 for kind in registry()}
    for slug, own in paths.items():
        assert all(path.startswith(f"/api/v1/{slug}/") for path in own), slug
    assert set(document["paths"]) == set().union(*paths.values())


def test_every_path_posts_a_model(document):
    schemas = document["components"]["schemas"]
    for item in document["paths"].values():
        assert set(item) <= METHODS
        operation = item["post"]
        assert operation["operationId"]
        ref = operation["requestBody"]["content"]["application/json"]["schema"]["$ref"]
        assert ref.startswith("#/components/schemas/")
        assert ref.rsplit("/", 1)[1] in schemas
        assert {"200", "400", "422"} <= set(operation["responses"])
        for response in operation["responses"].values():
            assert response["description"]


def test_errors_share_one_schema(document):
    for item in document["paths"].values():
        for status in ("400", "422"):
            schema = item["post"]["responses"][status]["content"]["application/json"]["schema"]
            assert schema == {"$ref": "#/components/schemas/ErrorResponse"}


def test_every_ref_resolves(document):
    refs = list(_refs(document))
    assert refs
    for ref in refs:
        assert isinstance(_resolve(document, ref), dict), ref


def test_fields_are_described(document):
    for name, schema in document["components"]["schemas"].items():
        for field, prop in schema.get("properties", {}).items():
            if field != "edition" or "const" not in prop:
                assert prop.get("description"), f"{name}.{field}"


def test_every_endpoint_has_examples(document):
    paths = {path for path, _, _ in _examples(document)}
    assert paths == set(document["paths"])


def test_each_example_request_succeeds(client, document):
    """Every example request in the document gets a 200 whose body matches the 200 schema."""
    for path, name, body in _examples(document):
        response = client.post(path, json=body)
        assert response.status_code == 200, (path, name, response.get_json())
        ok = document["paths"][path]["post"]["responses"]["200"]["content"]["application/json"]
        RESPONSES[ok["schema"]["$ref"].rsplit("/", 1)[1]].model_validate(response.get_json())


def test_schemas_are_generated_from_the_models(document):
    schema = api_models.ScoreRoundRequest.model_json_schema(
        ref_template="#/components/schemas/{model}")
    schema.pop("$defs", None)
    assert document["components"]["schemas"]["ScoreRoundRequest"] == schema


def test_each_games_standings_keeps_its_title(document):
    """Rebel Princess and Réveillez each answer ``/standings``: their models are named after
    their game, and their schemas keep the title clients know them by."""
    schemas = document["components"]["schemas"]
    for game in ("RebelPrincess", "Reveillez"):
        assert schemas[f"{game}StandingsRequest"]["title"] == "StandingsRequest"
        assert schemas[f"{game}StandingsResponse"]["title"] == "StandingsResponse"
    for slug, game in (("rebel-princess", "RebelPrincess"), ("reveillez", "Reveillez")):
        operation = document["paths"][f"/api/v1/{slug}/standings"]["post"]
        body = operation["requestBody"]["content"]["application/json"]["schema"]
        assert body == {"$ref": f"#/components/schemas/{game}StandingsRequest"}
