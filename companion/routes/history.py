"""History and statistics of a group (``/group/<token>/history/…``): its finished games, each
player's figures, head to head, renaming and merging its players, export and import; and a
finished game's record (``/record/<link token>``: its chart, export and BG Stats), reached from
the game's own links or from its group's history, never by the game's code.

The group's pages open only through the group's link (resolved by
:mod:`companion.routes.groups` into ``g.group``); every query is narrowed to that group. Built
from the registry and each game's ``summary`` (see :mod:`companion.history.summary`): nothing
here names a game. Games are linked with :func:`companion.routes.links.game_url`.
"""

from __future__ import annotations

import html
import re
from collections import Counter
from dataclasses import dataclass
from datetime import tzinfo
from typing import Any

from flask import (
    Blueprint,
    Response,
    abort,
    flash,
    g,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from flask_babel import gettext as _
from werkzeug import wrappers
from werkzeug.exceptions import RequestEntityTooLarge

from ..common.bounds import db_id, page_number
from ..common.person_names import name_key
from ..db import get_session
from ..extensions import csrf_exempt
from ..forms.fields import required
from ..forms.history import ImportForm, MergeForm, RenameForm
from ..games import GameKind, by_slug, registry
from ..history import bgstats, charts, paging, share
from ..history.export_format import MAX_BYTES, ImportProblem
from ..history.summary import utc
from ..models import Game, Group, ImportJob, Person, stored_id
from ..ops import jobs
from ..play import closed, export, groups, imports, store, summaries
from ..play import people as play_people
from ..web.i18n import current_lang
from ..web.local_time import utc_text, zone_named
from . import exports, links
from .closed import closed_or_404
from .groups import remember_group, remembered_groups
from .links import game_url, know_viewer_links

bp = Blueprint("history", __name__, url_prefix="/group/<group_token>/history")
records_bp = Blueprint("records", __name__, url_prefix="/record")
restore_bp = Blueprint("restore", __name__)

PAGE = 30
"""Finished games per page of the history."""


# --- helpers for templates ---------------------------------------------------------------------

@bp.context_processor
def _kinds_by_key() -> dict[str, object]:
    return {"kind_of": {kind.key: kind for kind in registry()}}


@bp.app_template_global()
def running_chart(game: Game) -> charts.LineChart | None:
    """The running totals of ``game`` as a chart, for ``history/_line_chart.html`` (on a game's
    own score pad: ``{% with chart = running_chart(view.game) %}{% include
    "history/_line_chart.html" %}{% endwith %}``)."""
    record = summaries.record_of(get_session(), game)
    if record is None:
        return None
    return charts.line_chart(record.names, record.summary.progress, record.summary.winners,
                             record.summary.step)


@bp.app_template_global()
def share_image(game: Game, decided: str) -> share.ShareImage | None:
    """The image a finished game's end screen shares (``shell/_share.html``), or None while the
    game goes on; ``decided``: how that screen says the game was decided (its own words)."""
    record = summaries.record_of(get_session(), game)
    if record is None or not record.summary.finished:
        return None
    lang = current_lang()
    # the words as text (not Markup.striptags: it would turn French no-break spaces into spaces)
    text = html.unescape(re.sub(r"<[^>]*>", " ", str(decided)))
    return share.share_image(record.names, record.summary, text,
                             title=record.kind.game_name(record.game.edition, lang),
                             when=utc_text(record.game.updated_at, "date", lang))


@dataclass(frozen=True)
class Filters:
    """The history's filters, read from the query string (unknown values are ignored)."""

    kind: GameKind | None
    person: int | None

    @classmethod
    def read(cls) -> Filters:
        kind = by_slug(request.args.get("game", ""))
        person = request.args.get("player", type=db_id)
        return cls(kind if kind in summaries.kinds_with_history() else None, person)

    def args(self) -> dict[str, str | int]:
        found: dict[str, str | int] = {}
        if self.kind is not None:
            found["game"] = self.kind.slug
        if self.person is not None:
            found["player"] = self.person
        return found


def _group() -> int:
    """The id of the group whose page this is (resolved from its link before the view)."""
    return int(g.group.id)


def _people() -> dict[int, str]:
    return play_people.names_by_id(get_session(), _group())


def _record_or_404(token: str) -> summaries.Record:
    """A finished game by one of its own live links (scorer or viewer), never by its code.
    Games in progress open only through their pages: a record is of a finished game."""
    found = store.link_and_game(get_session(), token) if len(token) > links.CODE_MAX else None
    if found is None:
        closed_or_404(token)
    record = summaries.record_of(get_session(), found[1])
    if record is None or not record.summary.finished:
        abort(404)
    return record


@bp.app_template_global()
def record_url(game: Game, endpoint: str = "records.game") -> str:
    """The address of a finished game's record (chart, export), through its viewer link."""
    token = g.get("viewer_tokens", {}).get(game.id)
    if token is None:
        token = store.links_of(get_session(), game)["viewer"].token
    return url_for(endpoint, token=token)


# --- history ---------------------------------------------------------------------------------

@bp.get("/")
def index() -> str:
    """Every finished game, newest first, filterable by game and player.

    The pager's links name the game a page starts after (``older``) or before (``newer``), and
    the last page is read from the oldest end (``oldest``): every page reads its own games from
    the (group, updated_at) index, however deep (a bare ``page`` — an old link — still counts
    games from the newest). A malformed key is ignored (the first page)."""
    filters = Filters.read()
    page = request.args.get("page", 1, type=page_number)
    older = request.args.get("older", None, type=paging.parse_key)
    newer = None if older is not None else request.args.get("newer", None, type=paging.parse_key)
    oldest = older is None and newer is None and request.args.get("oldest") == "1"
    session, kind = get_session(), filters.kind.key if filters.kind else None
    keyed = older is not None or newer is not None
    if oldest:
        total, _ = summaries.records(session, group_id=_group(), kind=kind,
                                     person=filters.person, limit=0)
        page = max(1, -(-total // PAGE))
        limit = total - (page - 1) * PAGE or PAGE
        _, shown = summaries.records(session, group_id=_group(), kind=kind,
                                     person=filters.person, limit=limit, count=False,
                                     oldest=True)
    else:
        total, shown = summaries.records(
            session, group_id=_group(), kind=kind, person=filters.person,
            offset=0 if keyed else (page - 1) * PAGE, limit=PAGE,
            older_than=older, newer_than=newer)
    know_viewer_links([r.game for r in shown])
    more = total > page * PAGE and bool(shown)
    args: dict[str, Any] = dict(filters.args())
    pager = {
        "newer": None if page <= 1 else
        url_for("history.index", **args) if page == 2 or not shown else
        url_for("history.index", **args, page=page - 1, newer=summaries.key_text(shown[0].game)),
        "older": url_for("history.index", **args, page=page + 1,
                         older=summaries.key_text(shown[-1].game)) if more else None,
        "oldest": url_for("history.index", **args, oldest=1)
        if total > (page + 1) * PAGE else None,
    }
    return render_template(
        "history/index.html", records=shown, total=total, page=page, pager=pager,
        filters=filters, people=play_people.people(session, _group()),
        kinds=summaries.kinds_with_history(), urls={r.game.code: game_url(r.game) for r in shown})


@records_bp.get("/<token>")
def game(token: str) -> str:
    """One finished game: its final standings, its running totals as a chart, export and BG
    Stats (nothing of its group but the names at its seats)."""
    record = _record_or_404(token)
    summary = record.summary
    chart = charts.line_chart(record.names, summary.progress, summary.winners, summary.step)
    ranks = summary.ranks() if summary.scores else ()
    return render_template("history/game.html", record=record, summary=summary, chart=chart,
                           order=sorted((place, seat) for seat, place in enumerate(ranks)),
                           colours=[charts.colour(seat) for seat in range(len(ranks))],
                           score_pad=game_url(record.game),
                           bg_stats=_bg_stats_url(record) if summary.finished else None)


def _bg_stats_url(record: summaries.Record) -> str:
    people = {p: n for p, n in play_people.names_by_id(get_session(), record.game.group_id).items()
              if p in record.people}
    names = [people.get(p, record.names[seat]) for seat, p in enumerate(record.people)]
    data = bgstats.play_data(
        game_name=record.kind.game_name(record.game.edition, "en"), game_id=record.kind.key,
        code=record.game.code,
        started=utc(record.game.created_at), ended=utc(record.game.updated_at), names=names,
        player_ids=[name_key(name) for name in names], summary=record.summary,
        board=record.game.edition or "", zone=_zone())
    return bgstats.play_url(data)


# --- statistics --------------------------------------------------------------------------------

@bp.get("/stats")
def statistics() -> str:
    """Per game: each player's games, wins, win rate, average and best score, the game's own
    facts, and a win-rate chart."""
    filters = Filters.read()
    per_kind, games = summaries.statistics(get_session(), group_id=_group(),
                                         kind=filters.kind.key if filters.kind else None)
    people = _people()
    bars = {s.kind: charts.bar_chart([(people.get(line.person, "?"), line.wins, line.games)
                                      for line in s.lines]) for s in per_kind}
    return render_template("history/stats.html", per_kind=per_kind, bars=bars, people=people,
                           filters=filters, kinds=summaries.kinds_with_history(), games=games)


@bp.get("/players/")
def people() -> str:
    """The group's players: each one's page, and merging two of them."""
    everyone = play_people.people(get_session(), _group())
    return render_template("history/players.html", people=everyone, finished=_finished(),
                           merge=_merge_form(everyone))


def _finished() -> Counter[int]:
    """The finished games each person played, counted as their own page counts them (issue 22:
    the list counted every seat, unfinished games too, and said 24 where the page said 8); one
    grouped query, whatever the group holds."""
    return Counter(summaries.finished_by_person(get_session(), _group()))


def _merge_form(everyone: list[play_people.PersonRow]) -> MergeForm:
    form = MergeForm()
    choices = [(p.id, p.name) for p in everyone]
    form.source.choices = choices
    form.target.choices = choices
    return form


def _person_or_404(person_id: int) -> Person:
    person = play_people.get_person(get_session(), _group(), person_id)
    if person is None:
        abort(404)
    return person


@bp.get("/players/<int:person_id>")
def person(person_id: int, form: RenameForm | None = None, status: int = 200
           ) -> tuple[str, int]:
    """One player's figures in every game they finished, and head to head with another."""
    who = _person_or_404(person_id)
    lines = summaries.lines_of(get_session(), group_id=_group(), person=person_id)
    games, recent = summaries.records(get_session(), group_id=_group(), person=person_id, limit=5)
    know_viewer_links([r.game for r in recent])
    others = [p for p in play_people.people(get_session(), _group()) if p.id != person_id]
    rename = form or RenameForm(name=who.name)
    return render_template("history/person.html", person=who, lines=lines, others=others,
                           recent=recent, games=games, rename=rename), status


@bp.post("/players/<int:person_id>/rename")
def rename(person_id: int) -> wrappers.Response | tuple[str, int]:
    """Rename a player everywhere (their seats in every game too)."""
    _person_or_404(person_id)
    form = RenameForm()
    if form.validate_on_submit():
        try:
            play_people.rename(session=get_session(), group_id=_group(), person_id=person_id,
                           name=required(form.name.data))
        except play_people.PeopleError as error:
            form.name.errors = [people_error(error)]
        else:
            flash(_("Renamed."))
            return redirect(url_for(".person", person_id=person_id), 303)
    return person(person_id, form, 422)


@bp.post("/players/merge")
def merge() -> wrappers.Response | tuple[str, int]:
    """Merge two players (a typo): the first one's games become the second one's."""
    everyone = play_people.people(get_session(), _group())
    form = _merge_form(everyone)
    if form.validate_on_submit():
        try:
            kept = play_people.merge(session=get_session(), group_id=_group(),
                                 source=form.source.data, target=form.target.data)
        except play_people.PeopleError as error:
            form.target.errors = [people_error(error)]
        else:
            flash(_("Merged: every game is now %(name)s's.", name=kept.name))
            return redirect(url_for(".person", person_id=kept.id), 303)
    return render_template("history/players.html", people=everyone, finished=_finished(),
                           merge=form), 422


def people_error(error: play_people.PeopleError) -> str:
    """The sentence for a refused rename or merge."""
    params = error.params
    return {
        "name-empty": _("Type a name."),
        "name-too-long": _("A name has at most %(max)s characters.", max=params.get("max")),
        "name-taken": _("%(other)s already has this name: merge the two players instead.",
                        other=params.get("other")),
        "same-person": _("Pick two different players."),
        "played-together": _("%(other)s played in the same game (%(games)s in all): they are "
                             "two people, not a typo.", other=params.get("other"),
                             games=params.get("games")),
    }.get(error.code, _("That player is not here any more."))


@bp.get("/versus")
def versus() -> str:
    """Head to head: two players' finished games together, who won and who finished ahead."""
    first = _person_or_404(request.args.get("a", 0, type=db_id))
    second = _person_or_404(request.args.get("b", 0, type=db_id))
    overall, per = summaries.versus(get_session(), group_id=_group(), first=first.id or 0,
                                    second=second.id or 0)
    _, together = summaries.records(get_session(), group_id=_group(), person=first.id,
                                  with_person=second.id, limit=10, count=False)
    know_viewer_links([r.game for r in together])
    return render_template("history/versus.html", first=first, second=second, overall=overall,
                           per=per, together=together)


# --- export and import ---------------------------------------------------------------------------

def _download(text: str, name: str, mimetype: str) -> Response:
    response = Response(text, mimetype=mimetype)
    response.headers["Content-Disposition"] = f'attachment; filename="{name}"'
    response.headers["Cache-Control"] = "no-store"
    return response


def _zone() -> tzinfo:
    """The phone's time zone (the "tz" cookie app.js keeps; UTC when unknown)."""
    return zone_named(request.cookies.get("tz"))


@bp.get("/export.json")
def export_all() -> wrappers.Response:
    """Every finished game of the group, as the versioned JSON export (docs/export.md): sent at
    once for a small group, else written by a job (:mod:`companion.routes.exports`)."""
    return exports.asked("json")


@bp.get("/export.json.gz")
def export_all_packed() -> wrappers.Response:
    """The same export, gzip-compressed (a tenth of the size): a backup that any import of the
    app takes back, however many games it holds."""
    return exports.asked("json.gz")


@bp.get("/export.csv")
def export_all_csv() -> wrappers.Response:
    """Every finished game of the group, one row per player per game (CSV)."""
    return exports.asked("csv")


@records_bp.get("/<token>/export.json")
def export_game(token: str) -> Response:
    """One finished game as the JSON export."""
    record = _record_or_404(token)
    code = record.game.code
    return _download(export.dumps(export.export(get_session(), [record.game])),
                     f"princess-table-{code}.json", "application/json")


@records_bp.get("/<token>/export.csv")
def export_game_csv(token: str) -> Response:
    """One finished game, one row per player (CSV)."""
    record = _record_or_404(token)
    code = record.game.code
    people = {p: n for p, n in play_people.names_by_id(get_session(), record.game.group_id).items()
              if p in record.people}
    return _download(export.export_csv([record], people, _zone()),
                     f"princess-table-{code}.csv", "text/csv")


# The import checks its own CSRF token (its form): the form is read after the request's size
# limit is raised, which the app-wide check would read too early.
@csrf_exempt
@bp.route("/import", methods=["GET", "POST"])
def import_page() -> wrappers.Response | tuple[str, int] | str:
    """Import a JSON export into the group: every game not in it yet, with its players; all
    or nothing, as a job whose progress the next page shows."""
    return _import_into(_group())


@csrf_exempt  # as the import above
@restore_bp.route("/import", methods=["GET", "POST"])
def restore() -> wrappers.Response | tuple[str, int] | str:
    """Restore a backup into a new group (a fresh install, or a phone that knows no group):
    the group is made with the games, and this phone remembers it; nothing if the file is
    refused."""
    return _import_into(None)


def _import_into(group_id: int | None) -> wrappers.Response | tuple[str, int] | str:
    # A backup is larger than a form: raise this request's limit before the form is read.
    request.max_content_length = MAX_BYTES + 64 * 1024
    action = url_for(".import_page" if group_id is not None else "restore.restore")
    try:
        form = ImportForm()
    except RequestEntityTooLarge:
        return render_template("history/import.html", form=ImportForm(formdata=None),
                               action=action,
                               problems=[ImportProblem("too-large",
                                                       detail=f"{MAX_BYTES // 2**20} MB")]), 413
    if request.method == "GET":
        return render_template("history/import.html", form=form, problems=[], action=action)
    if not form.validate_on_submit():
        return render_template("history/import.html", form=form, problems=[], action=action), 422
    raw = form.file.data.read()
    # A restore (no group): the same backup restored again goes into the group it made, among
    # those this phone knows, and adds nothing (the job finds which: imports.restore_target).
    known = [g.id for g in groups.by_tokens(get_session(), remembered_groups())
             if g.id is not None] if group_id is None else []
    job = imports.new_job(get_session(), raw=raw, group_id=group_id,
                          new_group_name=_("Imported games"), known=known)
    jobs.start(stored_id(job.id))
    _sent(job.token)
    return redirect(_job_url(job), 303)


SENT = 4
"""How many of its own imports a phone remembers (the newest): their finished pages lead it to
the group they stored into, and only it."""


def _sent(token: str) -> None:
    """Remember on this phone (its signed session) that it sent the job ``token``."""
    kept = [t for t in session.get("sent_jobs", []) if isinstance(t, str) and t != token]
    session["sent_jobs"] = [token, *kept][:SENT]


def _is_sender(token: str) -> bool:
    kept = session.get("sent_jobs", [])
    return isinstance(kept, list) and token in kept


def _job_url(job: ImportJob) -> str:
    group = get_session().get(Group, job.group_id) if job.group_id is not None else None
    if group is not None:  # (a restore into a group this phone knows: that group's page)
        return url_for("history.import_job", token=job.token, group_token=group.token)
    return url_for("restore.job", token=job.token)


def _job_or_404(token: str, group_id: int | None) -> ImportJob:
    job = imports.job_of(get_session(), token)
    if job is None or job.group_id != group_id:
        closed_or_404(token)  # (its group's links replaced, or the group deleted: said so)
    if group_id is None and closed.why_closed(get_session(), token) is not None:
        closed_or_404(token)  # a running restore whose group was closed meanwhile
    imports.abandon_stale(get_session(), token)  # its process died: the page says so
    get_session().refresh(job)
    jobs.take_over(job)  # sent to a worker that died before taking it: run here
    return job


@bp.get("/import/<token>")
def import_job(token: str) -> wrappers.Response | tuple[str, int]:
    """An import's progress (games stored out of the total), then what came of it."""
    return _job_page(_job_or_404(token, _group()))


@restore_bp.get("/import/<token>")
def job(token: str) -> wrappers.Response | tuple[str, int]:
    """A restore's progress, then what came of it."""
    return _job_page(_job_or_404(token, None))


@bp.get("/import/<token>/progress")
def import_progress(token: str) -> Response | tuple[str, int]:
    """The progress bar alone (polled by its page, like ``/live``)."""
    return _progress(_job_or_404(token, _group()))


@restore_bp.get("/import/<token>/progress")
def job_progress(token: str) -> Response | tuple[str, int]:
    """The progress bar alone (polled by its page, like ``/live``)."""
    return _progress(_job_or_404(token, None))


def _job_page(job: ImportJob) -> wrappers.Response | tuple[str, int]:
    if job.state == "done":
        flash(_("Imported %(added)s games (%(skipped)s already here).", added=job.added,
                skipped=job.skipped))
        group = get_session().get(Group, job.result_group_id)
        if group is None:  # deleted since
            closed_or_404(job.token)
        if job.group_id is None:
            # A restore's page is reached by its job's token alone: it leads to the group only
            # the phone that sent the file (its session says so), never whoever holds the token.
            if not _is_sender(job.token):
                return render_template("history/import_done.html", job=job), 200
            remember_group(group)
        return redirect(url_for("history.index", group_token=group.token), 303)
    if job.state in imports.FINISHED:
        problems = imports.problems_of(job) if job.state == "refused" else []
        action = url_for("history.import_page" if job.group_id is not None else
                         "restore.restore")
        return render_template("history/import.html", form=ImportForm(formdata=None),
                               action=action, problems=problems,
                               abandoned=job.state == "abandoned"), 422
    return render_template("history/import_job.html", job=job, poll=_progress_url(job),
                           quiet=imports.is_quiet(job), runner=jobs.runner_of(job)), 200


def _progress_url(job: ImportJob) -> str:
    if job.group_id is not None:
        return url_for("history.import_progress", token=job.token)
    return url_for("restore.job_progress", token=job.token)


def _progress(job: ImportJob) -> Response | tuple[str, int]:
    response = Response(render_template("history/_import_progress.html", job=job,
                                        poll=_progress_url(job), quiet=imports.is_quiet(job),
                                        runner=jobs.runner_of(job)))
    if job.state in imports.FINISHED:
        response.headers["HX-Refresh"] = "true"  # the page shows what came of it
    response.headers["Cache-Control"] = "no-store"
    return response
