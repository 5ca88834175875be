"""Groups (``/group/<token>/…``): the people who play together, reached only through their link.

Whoever opens a group's link is a member: this browser remembers it (its signed session cookie,
as games are remembered) and may start games in it, see its history and statistics, rename and
merge its players, export and import, rename the group, replace its link and delete it. The
group's pages — this blueprint and the history's — resolve the token before any view runs
(:func:`_open_group`): an unknown or replaced token is a 404, and every query inside is narrowed
to ``g.group``.

A phone that starts a game and knows no group gets a new group made for it (named after the
players); a phone that knows several picks one on the set-up page (the last used preselected);
*Play again* stays in the game's group. A browser also knows the groups of the games it holds a
scorer link for (the scorer's *Other phones* page shows the group's link anyway); a viewer link
shows its game and nothing of the group.
"""

from __future__ import annotations

from typing import Any

from flask import (
    Blueprint,
    abort,
    current_app,
    flash,
    g,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from flask_babel import gettext as _
from werkzeug.wrappers import Response

from ..common.person_names import name_key
from ..db import get_session
from ..forms.groups import DeleteGroupForm, GroupNameForm, ReplaceGroupLinkForm
from ..models import Group
from ..play import groups, people, store, summaries
from ..play.tokens import is_token
from ..web.requests import itself
from ..web.security import IMPORTS
from . import addresses, links, qr
from .closed import closed_or_404

bp = Blueprint("groups", __name__, url_prefix="/group/<group_token>")

REMEMBERED = 12
"""How many groups a phone remembers (the last used first)."""
GROUPED = ("groups", "history", "exports")
NEW = "new"
"""The set-up form's choice of a new group (the other choices are the groups' tokens)."""
"""The blueprints whose pages belong to one group (their URLs start with its token)."""


# --- what this browser knows ---------------------------------------------------------------------

def _remembered() -> list[str]:
    items = session.get("groups", [])
    return [i for i in items if isinstance(i, str)] if isinstance(items, list) else []


def remembered_groups() -> list[str]:
    """The link tokens of the groups this phone knows, last used first."""
    return _remembered()


def remember_group(group: Group, *, instead_of: str | None = None) -> None:
    """Put a group first on this phone's list (the last used is preselected for a new game)."""
    items = [i for i in _remembered() if i not in (group.token, instead_of)]
    updated = [group.token, *items][:REMEMBERED]
    if updated != _remembered():
        session["groups"] = updated


def forget_group(token: str) -> None:
    if token in _remembered():
        session["groups"] = [i for i in _remembered() if i != token]


def my_groups() -> list[Group]:
    """The groups this browser may open, the last used first: those whose link it opened, then
    those of the games it holds a scorer link for (a browser that created games before groups
    existed finds their group here)."""
    db = get_session()
    found = groups.by_tokens(db, _remembered())
    known = {group.id for group in found}
    scored = [game.group_id for link, game in links.my_links()
              if link.role == "scorer" and game.group_id not in known]
    by_id = groups.by_ids(db, list(dict.fromkeys(scored)))
    return found + [by_id[i] for i in dict.fromkeys(scored) if i in by_id]


def _again_group() -> Group | None:
    """The group of the game a set-up page plays again, when this browser holds its scorer
    link (a viewer link shows nothing of the group)."""
    token = request.args.get(links.AGAIN, "")
    found = store.link_and_game(get_session(), token) if len(token) > links.CODE_MAX \
        else None
    if found is None or found[0].role != "scorer":
        return None
    return get_session().get(Group, found[1].group_id)


@bp.app_template_global()
def group_choice() -> tuple[list[Group], Group | None]:
    """For a set-up page: the groups this phone may start a game in, and the one preselected
    (the played-again game's, else the last used; None: a new group will be made)."""
    if "group_choice" in g:
        kept: tuple[list[Group], Group | None] = g.group_choice
        return kept
    mine = my_groups()
    again = _again_group()
    if again is not None and all(again.id != group.id for group in mine):
        mine = [again, *mine]
    picked = request.form.get("group", "")  # a set-up form drawn again keeps its pick
    chosen = next((group for group in mine if group.token == picked), None)
    choice = (mine, None if picked == NEW else chosen or again or (mine[0] if mine else None))
    g.group_choice = choice
    return choice


def group_for_new_game() -> int | None:
    """The group a set-up form's new game goes into: the one picked on the form (any group
    link this browser was given), else the preselected one; None makes a new group."""
    picked = request.form.get("group", "")
    if picked:
        group = groups.by_token(get_session(), picked)
        if group is not None:
            return group.id
        # A group replaced or deleted since the page was drawn: never another group by guess.
        return None
    preselected = group_choice()[1]
    return preselected.id if preselected is not None else None


@bp.before_app_request
def _no_group_of_that_shape() -> None:
    """A set-up form whose ``group`` no group's link could be (a NUL, a control character, a
    space…) names nothing: 404 before anything is read or stored."""
    # (An import counts as a new game too, but its form has no group and may be large: it is
    # read by its own view, under its own size limit.)
    asked = itself(request)  # (read once: see companion.web.requests.itself)
    if asked.method == "POST" and asked.endpoint in itself(current_app).extensions.get(
            "companion.creating", ()) and asked.endpoint not in IMPORTS:
        picked = asked.form.get("group", "")
        if picked and not is_token(picked):
            abort(404)


def started_in(group_id: int) -> None:
    """After a game was stored: its group becomes this phone's last used."""
    group = get_session().get(Group, group_id)
    if group is not None:
        remember_group(group)


# --- resolving the group of a page ---------------------------------------------------------------

@bp.app_url_value_preprocessor
def _open_group(endpoint: str | None, values: dict[str, Any] | None) -> None:
    if not endpoint or endpoint.partition(".")[0] not in GROUPED or values is None:
        return
    token = str(values.pop("group_token", ""))
    group = groups.by_token(get_session(), token)
    if group is None:
        closed_or_404(token)
    g.group = group


@bp.app_url_defaults
def _token_in_urls(endpoint: str, values: dict[str, Any]) -> None:
    if endpoint.partition(".")[0] in GROUPED and "group_token" not in values:
        group = g.get("group")
        if group is not None:
            values["group_token"] = group.token


@bp.app_context_processor
def _group_context() -> dict[str, Any]:
    return {"group": g.get("group")}


@bp.app_template_global()
def known_players() -> list[str]:
    """The players of the group a set-up page preselects, most recent first (type-ahead)."""
    preselected = group_choice()[1]
    if preselected is None or preselected.id is None:
        return []
    return people.known_names(get_session(), preselected.id)


# --- pages ---------------------------------------------------------------------------------------

def group_address(group: Group) -> str:
    """The full address of the group's page: the link a phone joins the group with."""
    return addresses.public_base() + url_for("groups.home", group_token=group.token)


@bp.get("/")
def home(form: GroupNameForm | None = None, status: int = 200) -> tuple[str, int]:
    """The group: its games in progress, its history, its link as a QR code, its name."""
    group = g.group
    remember_group(group)
    # A game this phone holds a link of opens through that link (a scorer keeps scoring);
    # any other through its viewer link: a member watches the group's games.
    held = {game.id: (link.role, link.token) for link, game in links.my_links()}
    # What the page shows: the games in progress, and how many are finished (one count).
    _, in_progress = summaries.records(get_session(), group_id=group.id, finished=False,
                                     count=False)
    links.know_viewer_links([r.game for r in in_progress if r.game.id not in held])
    address = group_address(group)
    urls = {}
    for record in in_progress:
        kind = record.kind
        if record.game.id in held and kind.show_endpoint:
            urls[record.game.code] = url_for(kind.show_endpoint, code=held[record.game.id][1])
        else:
            urls[record.game.code] = links.game_url(record.game)
    return render_template(
        "groups/home.html", in_progress=in_progress, urls=urls,
        finished=summaries.count_finished(get_session(), group.id), address=address,
        qr=qr.qr_svg(address), rename=form or GroupNameForm(name=group.name),
        replace=ReplaceGroupLinkForm()), status


@bp.post("/rename")
def rename() -> Response | tuple[str, int]:
    """Rename the group."""
    form = GroupNameForm()
    if form.validate_on_submit():
        try:
            groups.rename(session=get_session(), group=g.group, name=form.name.data or "")
        except groups.GroupError as error:
            form.name.errors = [_("A name cannot hold control characters.")
                                if error.code == "name-control" else
                                _("Type a name of at most %(max)s characters.",
                                  max=groups.NAME_MAX)]
        else:
            flash(_("Renamed."))
            return redirect(url_for(".home"), 303)
    return home(form, 422)


@bp.post("/replace")
def replace() -> Response:
    """Replace every link of the group at once (the group's, each game's): only this phone keeps
    them; every other phone is shut out until it is given the new group link."""
    if not ReplaceGroupLinkForm().validate_on_submit():
        abort(400)
    old = g.group.token
    renamed = groups.replace_links(session=get_session(), group=g.group)
    links.keep_renamed(renamed)
    remember_group(g.group, instead_of=old)
    flash(_("Every link of the group was replaced, the group’s and each game’s: the old ones "
            "open nothing any more. Only this phone has the new ones: give the new group link "
            "below to everyone else in the group."))
    return redirect(url_for(".home", group_token=g.group.token), 303)


@bp.route("/delete", methods=["GET", "POST"])
def delete() -> Response | tuple[str, int]:
    """Delete the group and everything in it, once its name is typed again."""
    form = DeleteGroupForm()
    group = g.group
    if request.method == "POST":
        if form.validate_on_submit() and name_key(form.confirm.data or "") == name_key(group.name):
            token = group.token
            groups.delete_group(session=get_session(), group_id=group.id)
            forget_group(token)
            flash(_("The group and all its games were deleted."))
            return redirect(url_for("shell.index"), 303)
        form.confirm.errors = [_("Type the group's name exactly to delete it.")]
        return render_template("groups/delete.html", form=form), 422
    return render_template("groups/delete.html", form=form), 200
