"""A group's export (``/group/<token>/history/export…``): sent at once for a small group, else
made by a job (:mod:`companion.play.export_jobs`, run by :mod:`companion.ops.jobs`) whose
progress page (``/group/<token>/history/export/<job>``) hands the file over when it is written.

A job's pages open only through the group link it was started through: its address holds the
link and the job's own 128 random bits, and a job of another link (or of this group's link
before it was replaced) is not found. The file is sent from the disk (gunicorn hands it to the
kernel, ``sendfile``); nothing is read from the database to send it.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, tzinfo

from flask import (
    Blueprint,
    Response,
    abort,
    current_app,
    g,
    redirect,
    render_template,
    request,
    send_file,
    url_for,
)
from flask_babel import format_decimal
from markupsafe import Markup
from sqlmodel import Session
from werkzeug import wrappers

from ..db import get_engine, get_session
from ..ops import jobs
from ..play import export_jobs, people, summaries
from ..web.local_time import zone_named

bp = Blueprint("exports", __name__, url_prefix="/group/<group_token>/history/export")

IMMEDIATE = 10
"""A group of at most this many finished games gets its export in the answer to the tap: it
costs about what a save does (bench/RESULTS.md, issue 36 session 7); a larger group's export is
a job, and the request that starts it costs the same whatever the group holds."""


def _zone() -> tzinfo:
    """The phone's time zone (the "tz" cookie app.js keeps; UTC when unknown)."""
    return zone_named(request.cookies.get("tz"))


def _filename(kind: export_jobs.Kind) -> str:
    """The downloaded file's name: today's date on the phone."""
    return f"princess-table-{datetime.now(_zone()).strftime('%Y-%m-%d')}.{kind.suffix}"


def asked(kind_name: str) -> wrappers.Response:
    """The answer to a tap on one of the group's exports (a ``GET``: it changes nothing
    stored): the file itself for a small group, else the progress page of the job that makes
    it (one already made or under way for this link, format and time zone, when the group has
    not changed since it started; else a new one)."""
    kind = export_jobs.FORMATS[kind_name]
    group_id = int(g.group.id)
    total = summaries.count_finished(get_session(), group_id)
    if total <= IMMEDIATE:
        return _streamed(kind, group_id, _filename(kind))
    job = jobs.export_job(current_app, get_session(), group_id=group_id,
                          group_token=str(g.group.token), kind=kind.name,
                          zone=export_jobs.zone_name(_zone()), filename=_filename(kind),
                          total=total)
    if job is None:  # the export folder is full
        response = Response(render_template("history/export_busy.html"), 503)
        response.headers["Retry-After"] = "600"
        return response
    return redirect(url_for("exports.job", token=job.token), 303)


def _streamed(kind: export_jobs.Kind, group_id: int, name: str) -> Response:
    """A small group's export, sent as it is made (the bytes a job writes), on a session of its
    own, outside the request's context (an answer dropped unread closes its session wherever
    it is let go)."""
    engine = get_engine()
    zone = _zone()
    names = people.names_by_id(get_session(), group_id) if kind.name == "csv" else None

    def made() -> Iterator[bytes]:
        with Session(engine, expire_on_commit=False) as reader:
            yield from export_jobs.pieces(reader, kind, group_id, zone, names)

    response = Response(made(), mimetype=kind.mimetype)
    response.headers["Content-Disposition"] = f'attachment; filename="{name}"'
    response.headers["Cache-Control"] = "no-store"
    return response


def _job_or_404(token: str) -> export_jobs.ExportJob:
    found = jobs.export_folder(current_app).of_link(token, int(g.group.id), str(g.group.token))
    if found is None:
        abort(404)
    return found


def _progress_of(found: export_jobs.ExportJob) -> Markup:
    return Markup(render_template("history/_export_progress.html", job=found,
                           stopped=found.stopped(),
                           megabytes=format_decimal(round(found.size / 2**20, 1)),
                           kilobytes=format_decimal(max(1, round(found.size / 2**10))),
                           poll=url_for("exports.progress", token=found.token),
                           again=url_for(_AGAIN[found.format])))


_AGAIN = {"json": "history.export_all", "json.gz": "history.export_all_packed",
          "csv": "history.export_all_csv"}


@bp.get("/<token>")
def job(token: str) -> tuple[str, int]:
    """An export's progress (games written out of the total), then its download link."""
    found = _job_or_404(token)
    return render_template("history/export_job.html", job=found, progress=_progress_of(found),
                           done=found.state == "done"), 200


@bp.get("/<token>/progress")
def progress(token: str) -> Response:
    """The progress bar alone (polled by its page every second)."""
    found = _job_or_404(token)
    response = Response(str(_progress_of(found)))
    if found.state == "done" or found.stopped():
        response.headers["HX-Refresh"] = "true"  # the page shows the download, or the failure
    response.headers["Cache-Control"] = "no-store"
    return response


SENT_AS = {"json": "application/octet-stream"}
"""The type a job's file is sent as, when not its format's own."""


@bp.get("/<token>/file")
def download(token: str) -> wrappers.Response:
    """The written export, from the disk."""
    found = _job_or_404(token)
    path = jobs.export_folder(current_app).file(found)
    if found.state != "done" or not path.is_file():
        return redirect(url_for("exports.job", token=found.token), 303)
    # JSON goes as bytes to save: the app compresses JSON it sends (Flask-Compress), which
    # here would cost the CPU the job saved (the .json.gz is the packed one; CSV is left be).
    mimetype = SENT_AS.get(found.format, found.kind.mimetype)
    response = send_file(path, mimetype=mimetype, as_attachment=True,
                         download_name=found.filename, conditional=False, etag=False,
                         max_age=0)
    response.headers["Cache-Control"] = "no-store"
    return response

