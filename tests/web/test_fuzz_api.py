"""The JSON API never answers 5xx: a schemathesis run of the OpenAPI document
(``/api/v1/openapi.json``): every operation, with requests that follow the document (positive)
and requests that break it (negative), bounded in examples and derandomized so that a failure
reproduces. Every refusal has the error shape. It runs on SQLite (``make test``) and PostgreSQL
(``make test-postgres``)."""

from __future__ import annotations

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis import GenerationMode

EXAMPLES = 30
"""Per operation and mode: about 20 operations x 2 modes x 30 requests, a few seconds in all."""


def _operations(app):
    schema = schemathesis.openapi.from_wsgi("/api/v1/openapi.json", app)
    return [result.ok() for result in schema.get_all_operations()]


@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE],
                         ids=lambda mode: mode.value)
def test_the_api_never_answers_5xx(app, mode):
    operations = _operations(app)
    assert len(operations) >= 8
    for operation in operations:
        @given(case=operation.as_strategy(generation_mode=mode))
        @settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
                  suppress_health_check=list(HealthCheck))
        def never_5xx(case):
            response = case.call()
            assert response.status_code < 500, (case.as_curl_command(), response.text[:500])
            if response.status_code >= 400:
                body = response.json()
                assert isinstance(body.get("error"), str) and body["error"], body

        never_5xx()
