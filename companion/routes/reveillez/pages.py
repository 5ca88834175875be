"""The phone pages of « Réveillez »: set-up, the table (one tap per step of an action), undo and
the history. Views parse a form, call one glue function and pick a template."""

from __future__ import annotations

from dataclasses import dataclass, field

from flask import abort, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _
from werkzeug.wrappers import Response

from ...db import get_session
from ...models import Game
from ...play import reveillez as play
from ...play.store import KeyConflict
from ...scoring.problems import EntryError, Problem
from ...scoring.reveillez import (
    CATALOGUE,
    GRID,
    NUMBERS,
    USUAL_VALUES,
    PowerCard,
    Special,
    target,
)
from ...web.requests import itself
from ..groups import group_for_new_game
from ..links import appends, entry_page, game_to_play_again, opened_game, reads_only
from ..page_store import game_page
from ..replays import form_key, refusal
from ..shell import remember
from .blueprints import bp
from .forms import ActionForm, ReveillezNewGameForm, ReveillezWriteForm, fresh_key, tap_sent


@dataclass(frozen=True)
class Table:
    """What the table template shows: the game, the action being built and its question."""

    view: play.TableView
    form: ReveillezWriteForm  # the action's while one is being built, else the undo form
    draft: play.Draft | None = None
    plan: play.Plan | None = None
    problems: list[Problem] = field(default_factory=list)  # why a tap was refused
    stale: bool = False
    hints: list[Problem] = field(default_factory=list)  # what the action being built still lacks

    @property
    def step(self) -> str | None:
        return None if self.plan is None else self.plan.step

    @property
    def hidden(self) -> dict[str, object]:
        """The answers so far, minus the ones this step asks again."""
        if self.draft is None:
            return {}
        asked = ASKED.get(self.step or "", ())
        return {k: v for k, v in self.draft.fields().items() if k not in asked}

    @property
    def tap(self) -> tuple[str, frozenset[int]]:
        """The form field a tap on the grid or on a princess fills, and the values allowed."""
        state, step = self.view.state, self.step
        if step == "slot":
            return "slot", frozenset(state.sleeping_slots())
        if step == "companion" and self.draft is not None:
            return "companion_slot", frozenset(state.sleeping_slots()) - {self.draft.slot}
        if step == "target" and self.draft is not None:
            allowed = state.stealable() if self.draft.do == "steal" else state.sleepable()
            return "princess", frozenset(allowed)
        return "", frozenset()

    @property
    def refused_targets(self) -> tuple[tuple[int, list[Problem]], ...]:
        """The princesses the knight being played may not take, with why (said on the page)."""
        if self.step != "target" or self.draft is None or self.draft.do != "steal":
            return ()
        return self.view.state.unstealable()

    @property
    def wakes(self) -> int | None:
        """The seat that wakes a princess in this action (the jester's count may name another)."""
        if self.plan is None or self.draft is None or self.draft.do not in ("wake", "jester"):
            return None
        return self.plan.seat

    @property
    def asked_slot(self) -> int | None:
        """The slot whose value the value step asks."""
        if self.draft is None:
            return None
        return self.draft.companion_slot if self.step == "companion-value" else self.draft.slot


ASKED = {
    "slot": ("slot", "value", "name"), "value": ("value", "name"),
    "companion": ("companion_slot", "companion_value", "companion_name"),
    "companion-value": ("companion_value", "companion_name"), "revealed": ("revealed",),
    "target": ("princess", "defended", "dest"), "defence": ("defended", "dest"),
}


def _game_or_404(code: str) -> Game:
    game = opened_game(code, play.KIND)  # (the game read with the request's link)
    if game is None:
        abort(404)
    return game


def _render(template: str, status: int = 200, **context: object) -> tuple[str, int]:
    return render_template(template, grid=GRID, numbers=NUMBERS, powers=list(PowerCard),
                           usual_values=USUAL_VALUES, specials=list(Special), **context), status


SAID_IN_THE_PANEL = frozenset({"discard-invalid"})
"""Problems the discard panel says itself (``reveillez/_question.html``), never in a box too."""


def _table(view: play.TableView, *, draft: play.Draft | None = None, key: str | None = None,
           problems: list[Problem] | None = None, status: int = 200,
           stale: bool = False, saved: play.LogItem | None = None,
           already_saved: bool = False) -> tuple[str, int]:
    # The action's form is drawn only while an action is being built; the table without one
    # shows the undo form alone. (Drawn, a tap's form is its version, key and CSRF token: the
    # answers so far are the draft's hidden inputs.)
    form = ReveillezWriteForm(formdata=None, data={"version": view.version,
                                                   "key": key or fresh_key()}
                              ) if draft is not None else None
    current = play.plan(view.state, draft) if draft is not None else None
    refused = list(problems or [])
    if current is not None and current.step == "cards":
        # The discard panel says itself, beside the cards, why these cards are no discard:
        # said once, where the player looks, never again in a box above.
        refused = [p for p in refused if p.code not in SAID_IN_THE_PANEL]
    # While an action is being built, what it still lacks is a hint, not a refusal: the red
    # "Not recorded" box is only for a tap the app really refused.
    hints = [p for p in current.problems if current.step not in ("ready",)
             and not (current.step == "cards" and p.code in SAID_IN_THE_PANEL)] \
        if current is not None and not refused else []
    undo_form = ReveillezWriteForm(formdata=None,
                                   data={"version": view.version, "key": fresh_key()})
    table = Table(view, form if form is not None else undo_form, draft, current, refused, stale,
                  hints)
    return _render("reveillez/table.html", status, table=table, view=view, saved=saved,
                   already_saved=already_saved, undo_form=undo_form)


def _already_saved(view: play.TableView, conflict: KeyConflict) -> tuple[str, int]:
    """A changed copy of a form already stored: nothing recorded; the table says what the form
    stored, and its action buttons are there to enter the change as a new action."""
    return _table(view, status=409, saved=play.stored_item(view, conflict.stored.seq),
                  already_saved=True)


# --- set-up -------------------------------------------------------------------------------------

@bp.route("/new", methods=["GET", "POST"])
def new_game() -> Response | tuple[str, int]:
    """Set up a game: names clockwise, who starts, the variant."""
    form = ReveillezNewGameForm()
    problems: list[Problem] = []
    if request.method == "GET":
        _fill_again(form)
    if request.method == "POST" and form.validate_on_submit():
        try:
            game = play.create_game(session=get_session(), names=form.player_names(),
                                    first=form.first.data or 0, variant=form.variant.data,
                                    show_values=form.show_values.data,
                                    group_id=group_for_new_game())
        except EntryError as error:
            problems = error.problems
        else:
            remember(game.code)
            flash(_("Game created: wake the princesses!"))
            return redirect(url_for("reveillez.show", code=game.code), 303)
    status = 422 if request.method == "POST" else 200
    return _render("reveillez/new.html", status, form=form, problems=problems,
                   targets=[(n, target(n)) for n in range(2, 6)])


def _fill_again(form: ReveillezNewGameForm) -> None:
    """Play again (``?again=<link token>``): the same players in the same seats, the same
    variant and display of values; who starts (left of the dealer) is chosen afresh."""
    found = game_to_play_again(play.KIND)
    if found is None:
        return
    game, names = found
    settings = play.Settings.of(game)
    for entry, name in zip(form.names, names, strict=False):
        entry.data = name
    form.variant.data = settings.variant
    form.show_values.data = settings.show_values


# --- the table ----------------------------------------------------------------------------------

@bp.get("/g/<code>")
@reads_only
@entry_page
def show(code: str) -> str:
    """The table: the 12 princesses, each player's points, and the next action's first step.

    Every phone at the table reloads it after each change: it is drawn once per version, link,
    language and address (an action half built has its own) for all of them
    (:func:`page_store.game_page`)."""
    game = opened_game(code, play.KIND)
    if game is None:
        abort(404)
    if request.args:  # an action being built: the scorer's own page, drawn for this request
        return _show(game)
    return game_page(game, lambda: _show(game))


def _show(game: Game) -> str:
    view = play.view_game(get_session(), game)
    do = request.args.get("do")
    draft = None
    if do in play.ACTIONS and not view.state.is_over:
        draft = play.Draft(do)
        # An action half built is addressed by its answers so far (the page answered to a tap
        # gives this address): a reload, Back or the language switch asks the same question.
        answers = ActionForm(formdata=request.args, meta={"csrf": False})
        answers.validate()
        if len(request.args) > 1 and not set(answers.errors) - {"version", "key"}:
            draft = answers.tap().draft()
    return _table(view, draft=draft)[0]


@bp.post("/g/<code>/act")
@appends
def act(code: str) -> Response | tuple[str, int]:
    """One tap of an action: ask the next question, or store the complete action."""
    session = get_session()
    game = _game_or_404(code)
    tap = tap_sent(itself(request))  # (a tap's fixed shape, read without binding a form)
    if tap is None:
        form = ActionForm()
        if not form.validate_on_submit():
            view = play.view_game(session, game)
            return _table(view, problems=[CATALOGUE.problem("notation", given="…")],
                          status=422)
        tap = form.tap()
    draft, final = tap.draft(), tap.final
    recorded: list[object] = []  # the event stored (None: the action is not complete yet)

    def write() -> None:
        recorded.append(play.record_draft(
            session=session, game=game, draft=draft, based_on=tap.version,
            key=form_key(tap.key) or fresh_key(), final=final)[1])

    refused = refusal(
        write, problems=lambda found: _table(play.view_game(session, game), draft=draft,
                                      key=tap.key, problems=found, status=422),
        stale=lambda: _table(play.view_game(session, game), stale=True, status=409),
        conflict=lambda c: _already_saved(play.view_game(session, game), c))
    if refused is not None:
        return refused
    if recorded[0] is None:
        view = play.view_game(session, game)
        return _table(view, draft=draft, key=tap.key)
    return redirect(url_for("reveillez.show", code=code), 303)


@bp.post("/g/<code>/undo")
@appends
def undo(code: str) -> Response | tuple[str, int]:
    """Take back the last action (the history keeps it, struck through)."""
    session = get_session()
    game = _game_or_404(code)
    form = ReveillezWriteForm()
    if not form.validate_on_submit():
        abort(400)
    refused = refusal(
        lambda: play.undo(session=session, game=game, based_on=form.version.data or 0,
                          key=form_key(form.key.data) or fresh_key()),
        problems=lambda found: _table(play.view_game(session, game), problems=found,
                                      status=422),
        stale=lambda: _table(play.view_game(session, game), stale=True, status=409),
        conflict=lambda c: _already_saved(play.view_game(session, game), c))
    return refused or redirect(url_for("reveillez.show", code=code), 303)


@bp.get("/g/<code>/history")
def history(code: str) -> tuple[str, int]:
    """Every action of the game, undone ones struck through."""
    view = play.view_game(get_session(), _game_or_404(code))
    return _render("reveillez/history.html", view=view)
