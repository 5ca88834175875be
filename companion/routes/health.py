"""For the operator's load balancer and monitoring: ``/healthz``, ``/readyz`` and ``/metrics``.

- ``GET /healthz``: 200 ``ok`` whenever the process answers; touches no database (a load
  balancer's liveness check must not fail because the database is slow).
- ``GET /readyz``: 200 when the database answers, holds the schema this code was written for
  (:func:`companion.db.check`), and the configured Redis (if any) answers; else 503 with one
  line per part that is not ready, naming it (``database: …``, ``schema: …``, ``redis: …``);
  then ``version: 1.0.0`` (:mod:`companion.common.release`) and, with a shared Redis, ``import
  workers: 2 live`` (RQ workers with a recent heartbeat: :func:`companion.ops.jobs.live_workers`).
- ``GET /metrics``: Prometheus' text format (:mod:`companion.web.metrics`), only to the addresses
  in ``METRICS_ALLOW`` (loopback by default); anyone else gets a 404, as for any unknown page.

None of them opens the session, counts against the rate limits or is compressed.
"""

from __future__ import annotations

from flask import Blueprint, Response, abort, current_app, request
from flask.blueprints import BlueprintSetupState
from sqlalchemy import text

from ..common.release import version
from ..db import check, get_engine
from ..ops import jobs, schema
from ..web import logs, metrics

bp = Blueprint("health", __name__)


def _plain(body: str, status: int = 200) -> Response:
    response = current_app.response_class(body + "\n", status=status, mimetype="text/plain")
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.get("/healthz")
def healthz() -> Response:
    """The process answers."""
    return _plain("ok")


def _database() -> str | None:
    try:
        with get_engine().connect() as connection:
            connection.execute(text("SELECT 1"))
    except Exception as error:  # any failure: not ready, said in one line
        return f"database: unreachable ({type(error).__name__})"
    state = check(get_engine())
    return None if state.is_ready else f"schema: {state.problem}"


def _redis() -> str | None:
    url = schema.redis_url(current_app.config)
    if url is None:
        return None
    error = logs.redis_ping(url)
    return None if error is None else f"redis: unreachable ({type(error).__name__})"


@bp.get("/readyz")
def readyz() -> Response:
    """Ready to serve: the database (and its schema) and the configured Redis answer."""
    redis = _redis()
    problems = [p for p in (_database(), redis) if p]
    said = [*problems] if problems else ["ready"]
    said.append(f"version: {version()}")
    workers = None if redis else jobs.workers_state(current_app)
    if workers is not None:  # (informative: a server runs imports itself without a worker)
        said.append(f"import workers: {workers}")
    return _plain("\n".join(said), 503 if problems else 200)


@bp.get("/metrics")
def prometheus() -> Response:
    """The counts, for the addresses ``METRICS_ALLOW`` names only."""
    if not metrics.is_allowed(request.remote_addr):
        abort(404)
    body, content_type = metrics.exposition()
    response = current_app.response_class(body, content_type=content_type)
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.record_once
def _not_rate_limited(state: BlueprintSetupState) -> None:
    """A load balancer's checks and Prometheus' scrapes never count against the rate limits."""
    limiter = state.app.extensions.get("companion.limiter")
    if limiter is not None:
        limiter.exempt(bp)
        state.app.extensions.setdefault("companion.unlimited", set()).add(bp.name)
