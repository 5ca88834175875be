"""The phone pages of Love Letter « Princesse Princesse »: set-up, the tokens board, the round end
(fast path), the turn log, the history with edit and undo.

Each view reads the request with a form (shapes only), calls one glue function of
:mod:`companion.play.princesse_princesse` (which asks the rules core) and picks a template. A
refused entry re-renders the page with every problem (422) and stores nothing; a write made on
an old version of the game (another phone changed it) is refused with a message (409).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import abort, flash, redirect, render_template, request, url_for
from flask_babel import gettext as _
from werkzeug.wrappers import Response

from ...db import get_session
from ...play import princesse_princesse as play
from ...play import store
from ...rulings import Ruling
from ...rulings import load as load_rulings
from ...scoring.princesse_princesse import (
    CATALOGUE,
    CHARACTERS,
    GARDE_NAMEABLE,
    RoundReveal,
    Targeting,
    bonus_questions,
    check_reveal,
)
from ...scoring.problems import EntryError, Problem
from ...web.i18n import current_lang
from ..groups import group_for_new_game
from ..links import appends, entry_page, game_to_play_again, opened_game, reads_only
from ..page_store import game_page
from ..replays import form_key, refusal
from ..shell import remember
from .blueprints import bp
from .forms import (
    PrincessePrincesseNewGameForm,
    PrincessePrincesseWriteForm,
    WriteSent,
    cards_from,
    face_up_from,
    seats_from,
    turn_from,
    write_sent,
)

PP_RULINGS = "companion.rulings.princesse_princesse"

# The rulings entry that explains each problem code (linked next to the message).
PROBLEM_RULES = {
    "target-protected": "oliver", "target-out": "leaving-the-round", "target-self": "targets",
    "target-needed": "targets", "target-not-taken": "targets", "garde-named": "garde",
    "name-needed": "garde", "hit-needed": "garde", "no-copy-left": "deck-count",
    "too-many-copies": "deck-count", "no-higher-card": "bibliothecaire",
    "tie-impossible": "bibliothecaire", "loser-needed": "bibliothecaire",
    "loser-not-compared": "bibliothecaire", "reveal-needed": "turn-log",
    "unexpected-answer": "turn-log", "not-your-turn": "your-turn", "round-over": "end-of-round",
    "celeste-not-played": "celeste", "garde-lie": "mistakes", "librarian-wrong": "mistakes",
    "librarian-tie-wrong": "mistakes", "ogre-but-still-in": "ogre",
    "face-up-count": "set-up", "spy-seat-out": "spy-bonus",
    "princesses-seat-out": "princesses-bonus", "card-missing": "end-of-round",
    "nobody-in": "end-of-round", "game-already-over": "end-of-game",
    "players-out-of-range": "tokens-needed",
}


@bp.app_template_global("pp_rule_url")
def rule_url(slug: str | None) -> str | None:
    """The rulings page of ``slug`` in this game (None for no slug)."""
    return url_for("shell.game_rule", kind="princesse-princesse", slug=slug) if slug else None


@bp.app_template_global("pp_problem_rule")
def problem_rule(problem: Problem) -> str | None:
    return rule_url(PROBLEM_RULES.get(problem.code))


@bp.app_template_global("pp_effect")
def effect(value: int) -> Ruling:
    """The rulings entry of card ``value``: its summary is the effect line the turn form reads
    out (what a card does is said once, in ``rulings.toml``)."""
    return next(entry for entry in load_rulings(PP_RULINGS).entries if entry.value == value)


@bp.app_template_global("pp_card_name")
def card_name(value: int) -> str:
    """The printed name of card ``value`` in the page's language."""
    return CHARACTERS[value].name(current_lang()) if 0 <= value <= 9 else str(value)


# Names short enough for a fifth of a phone's width; soft hyphens say where a long one may break.
SHORT_NAMES = {
    "en": ("Spy", "Guard", "Advisors", "Libra\u00adrian", "Oliver", "Vladric", "Prin\u00adcesses",
           "Ghost King", "Celeste", "Ogre"),
    "fr": ("Espionne", "Garde", "Conseil\u00adlers", "Biblio\u00adthécaire", "Oliver", "Vladric",
           "Prin\u00adcesses", "Roi fantôme", "Céleste", "Ogre"),
}


@bp.app_template_global("pp_short_name")
def short_name(value: int) -> str:
    """A card's short name for the card grids, in the page's language."""
    return SHORT_NAMES[current_lang()][value] if 0 <= value <= 9 else str(value)


def _view_or_404(code: str) -> play.PrincesseGameView:
    game = opened_game(code, play.KIND)  # (the game read with the request's link)
    if game is None:
        abort(404)
    return play.view_game(get_session(), game)


def _write(code: str, action: Callable[[play.PrincesseGameView, WriteSent], Any],
           again: Callable[[play.PrincesseGameView, list[Problem], int], tuple[str, int]],
           done: str | None = None, *, view: play.PrincesseGameView | None = None
           ) -> Response | tuple[str, int]:
    """Run one write: its version and key (read without the form when the form would take them
    as they are: :func:`write_sent`), the glue ``action``, then 303 to the board (or ``done``);
    a refusal re-renders with ``again`` (422), a stale write with 409. ``view``: the game as the
    view already read it (read once per save)."""
    view = view or _view_or_404(code)
    sent = write_sent(request)
    if sent is None:
        form = PrincessePrincesseWriteForm()
        if not form.validate_on_submit():
            return again(view, [CATALOGUE.problem("stale-form")], 422)
        sent = WriteSent.of(form)

    def write() -> None:
        # The same form sent again (a double tap, a retry) is answered like the first; a changed
        # copy of a form already saved is refused, saying what it saved.
        if store.replayed(get_session(), view.game, form_key(sent.key)) is None:
            action(view, sent)

    refused = refusal(
        write, problems=lambda found: again(view, found, 422),
        stale=lambda: again(_view_or_404(code), [CATALOGUE.problem("stale-write")], 409),
        conflict=lambda c: again(view, [_already_saved_as(view, c.stored)], 409))
    return refused or redirect(done or url_for(".show", code=code), 303)


def _already_saved_as(view: play.PrincesseGameView, stored: store.Stored) -> Problem:
    """What a form already saved stored: a round (by its number), else the form only."""
    rid = stored.data.get("rid", stored.seq) if stored.kind in ("round", "edit") else None
    found = view.round_by_id(rid) if isinstance(rid, int) else None
    if found is not None:
        return CATALOGUE.problem("form-already-saved-round", round=found.line.number)
    return CATALOGUE.problem("form-already-saved")


def _fresh(view: play.PrincesseGameView) -> PrincessePrincesseWriteForm:
    return PrincessePrincesseWriteForm(formdata=None).fresh(view.version)


# --- set-up -------------------------------------------------------------------------------------

@bp.route("/new", methods=["GET", "POST"])
def new_game() -> Response | tuple[str, int]:
    """Set up a game: names in seat order and who starts."""
    form = PrincessePrincesseNewGameForm()
    if request.method == "GET":
        _fill_again(form)
    problems: list[Problem] = []
    if request.method == "POST" and form.validate_on_submit():
        names = form.player_names()
        try:
            game = play.create_game(session=get_session(), names=names, first=form.first.data,
                                    group_id=group_for_new_game())
        except EntryError as error:
            problems = error.problems
        else:
            remember(game.code)
            flash(_("Game created. May your letter reach the princess!"))
            return redirect(url_for(".show", code=game.code), 303)
    status = 422 if request.method == "POST" else 200
    return render_template("princesse_princesse/new.html", form=form, problems=problems), status


# --- the tokens board and the history -----------------------------------------------------------

def _fill_again(form: PrincessePrincesseNewGameForm) -> None:
    """Play again (``?again=<link token>``): the same players in the same seats; who starts is
    chosen afresh (the rules name no one for a next game)."""
    found = game_to_play_again(play.KIND)
    if found is not None:
        for entry, name in zip(form.names, found[1], strict=False):
            entry.data = name


@bp.get("/g/<code>")
@reads_only
@entry_page
def show(code: str) -> str:
    """The tokens board: tokens against the threshold, the round, who starts and why.

    Every phone at the table reloads it after each change: it is drawn once per version, link
    and language for all of them (:func:`page_store.game_page`)."""
    game = opened_game(code, play.KIND)
    if game is None:
        abort(404)

    def draw() -> str:
        view = play.view_game(get_session(), game)
        # (the one form of the board: the last round's undo, offered once a round is saved)
        return render_template("princesse_princesse/show.html", view=view,
                               form=_fresh(view) if view.last else None)
    return game_page(game, draw)


@bp.get("/g/<code>/history")
@entry_page
def history(code: str) -> str:
    """Every round with its starter, reveal and tokens; edit or undo any of them."""
    view = _view_or_404(code)
    return render_template("princesse_princesse/history.html", view=view, form=_fresh(view))


def _history_again(view: play.PrincesseGameView, problems: list[Problem], status: int
                   ) -> tuple[str, int]:
    return render_template("princesse_princesse/history.html", view=view, form=_fresh(view),
                           problems=problems), status


@bp.post("/g/<code>/round/<int:rid>/undo")
@appends
def undo_round(code: str, rid: int) -> Response | tuple[str, int]:
    """Take a round out of the game (the history keeps it)."""
    def action(view: play.PrincesseGameView, sent: WriteSent) -> None:
        play.undo_round(session=get_session(), view=view, based_on=sent.version,
                        key=form_key(sent.key), rid=rid)
        flash(_("Round undone."))
    return _write(code, action, _history_again)


# --- round end: the fast path -------------------------------------------------------------------

def _round_context(view: play.PrincesseGameView, rid: int | None) -> dict[str, Any]:
    """What the round-end page shows: who is in, the cards, the bonus answers (from the request,
    else from the round being edited)."""
    source = request.form if request.method == "POST" else request.args
    edited = view.round_by_id(rid) if rid is not None else None
    if edited is not None and "step" not in source:
        still_in = sorted(edited.reveal.still_in)
        cards = {s: c for s, c in enumerate(edited.reveal.cards) if c is not None}
        spies, princesses = sorted(edited.reveal.spies), sorted(edited.reveal.princesses)
        step = 1
    else:
        still_in = seats_from(source.getlist("in"), view.players)
        cards = cards_from(source, view.players)
        spies = seats_from(source.getlist("spy"), view.players)
        princesses = seats_from(source.getlist("princesses"), view.players)
        step = 2 if source.get("step") == "2" and still_in else 1
    # The round a new entry is for, carried by both steps: Back after saving shows this page
    # again, and saving it again must not add the same round a second time.
    for_round = None if edited is not None else (
        source.get("round", type=int) or view.progress.round_number)
    return {"still_in": still_in, "cards": cards, "spies": spies, "princesses": princesses,
            "step": step, "rid": rid, "edited": edited, "for_round": for_round,
            "questions": [str(q) for q in bonus_questions(len(still_in))]}


def _already_saved(view: play.PrincesseGameView, ctx: dict[str, Any]) -> list[Problem]:
    """The problem of a page for a round that has been saved since it was opened."""
    number = ctx["for_round"]
    if number is not None and number < view.progress.round_number:
        return [CATALOGUE.problem("round-already-saved", round=number)]
    return []


def _reveal(ctx: dict[str, Any], players: int) -> RoundReveal:
    """The reveal the page describes; answers for players out of the round are dropped."""
    still_in = set(ctx["still_in"])
    several = len(still_in) > 1
    cards = tuple(ctx["cards"].get(s) if s in still_in and several else None
                  for s in range(players))
    princesses = [s for s in ctx["princesses"] if s in still_in] if several else []
    return RoundReveal(frozenset(still_in), cards,
                       frozenset(s for s in ctx["spies"] if s in still_in),
                       frozenset(princesses))


@bp.route("/g/<code>/round", methods=["GET", "POST"])
@appends
@entry_page
def round_end(code: str) -> Response | tuple[str, int] | str:
    """Round end, fast path: who is still in, their cards, then the bonus questions."""
    view = _view_or_404(code)
    rid = request.values.get("edit", type=int)
    if rid is not None and view.round_by_id(rid) is None:
        abort(404)
    ctx = _round_context(view, rid)
    if request.method == "GET":
        if view.progress.game_over and rid is None:
            return redirect(url_for(".show", code=code), 303)
        return render_template("princesse_princesse/round.html", view=view, form=_fresh(view),
                               problems=_already_saved(view, ctx), **ctx)

    def action(view: play.PrincesseGameView, sent: WriteSent) -> None:
        if _already_saved(view, ctx):
            raise EntryError(_already_saved(view, ctx))
        reveal = _reveal(ctx, view.players)
        problems = check_reveal(reveal)
        if problems:
            raise EntryError(problems)
        play.save_round(session=get_session(), view=view, based_on=sent.version,
                        key=form_key(sent.key), reveal=reveal, rid=rid)
        edited = view.round_by_id(rid) if rid is not None else None  # (save_round found it)
        flash(_("Round %(n)s edited.", n=edited.number) if edited is not None
              else _("Round %(n)s saved.", n=view.progress.round_number))

    def again(view: play.PrincesseGameView, problems: list[Problem],
              status: int) -> tuple[str, int]:
        return render_template("princesse_princesse/round.html", view=view, form=_fresh(view),
                               problems=problems, **{**ctx, "step": 2}), status

    return _write(code, action, again, view=view)


# --- the turn log -------------------------------------------------------------------------------

def _log_page(view: play.PrincesseGameView, problems: list[Problem] | None = None,
              status: int = 200, card: int | None = None,
              answers: dict[str, Any] | None = None) -> tuple[str, int]:
    log = view.log
    questions = None
    if log is not None and not log.round.is_over() and card is not None and 0 <= card <= 9:
        questions = log.round.questions(card)
    refusals = {}
    targets_someone = card is not None and 0 <= card <= 9 \
        and CHARACTERS[card].targeting is not Targeting.NONE
    if questions is not None and log is not None and card is not None and targets_someone:
        # Why each seat that cannot be targeted is refused (shown next to its name). A card that
        # targets nobody says so once, in its effect line (issue 22), not once per player.
        for seat in range(view.players):
            if seat not in questions.targets:
                problem = log.round.target_problem(card, seat)
                if problem is not None:
                    refusals[seat] = problem
    return render_template("princesse_princesse/log.html", view=view, form=_fresh(view),
                           problems=problems or [], card=card, questions=questions,
                           refusals=refusals, targets_someone=targets_someone,
                           answers=answers or {},
                           garde_names=GARDE_NAMEABLE), status


@bp.get("/g/<code>/log")
@entry_page
def turn_log(code: str) -> tuple[str, int] | Response:
    """The turn log: whose turn it is, protections, the unseen count, the turn being entered."""
    view = _view_or_404(code)
    if view.progress.game_over and view.log is None:
        return redirect(url_for(".show", code=code), 303)
    return _log_page(view, card=request.args.get("card", type=int))


def _log_again(view: play.PrincesseGameView, problems: list[Problem],
               status: int) -> tuple[str, int]:
    card = request.form.get("card", type=int)
    return _log_page(view, problems, status, card=card, answers=request.form.to_dict())


@bp.post("/g/<code>/log/start")
@appends
def start_log(code: str) -> Response | tuple[str, int]:
    """Start the turn log of this round (at two players, with the three face-up cards)."""
    def action(view: play.PrincesseGameView, sent: WriteSent) -> None:
        play.start_log(session=get_session(), view=view, based_on=sent.version,
                       key=form_key(sent.key), face_up=face_up_from(request.form))
    return _write(code, action, _log_again, url_for(".turn_log", code=code))


@bp.post("/g/<code>/log/turn")
@appends
def play_turn(code: str) -> Response | tuple[str, int]:
    """One turn: the card, its target and the table's answers."""
    def action(view: play.PrincesseGameView, sent: WriteSent) -> None:
        if view.log is None or view.log.round.current_seat is None:
            raise EntryError(CATALOGUE.problem("round-over"))
        if request.form.get("card", type=int) is None:
            raise EntryError(CATALOGUE.problem("card-needed"))
        turn = turn_from(request.form, view.log.round.current_seat)
        play.play_turn(session=get_session(), view=view, based_on=sent.version,
                       key=form_key(sent.key), turn=turn)
    return _write(code, action, _log_again, url_for(".turn_log", code=code))


@bp.post("/g/<code>/log/undo")
@appends
def undo_turn(code: str) -> Response | tuple[str, int]:
    """Take back the last turn of the log."""
    def action(view: play.PrincesseGameView, sent: WriteSent) -> None:
        play.undo_turn(session=get_session(), view=view, based_on=sent.version,
                       key=form_key(sent.key))
    return _write(code, action, _log_again, url_for(".turn_log", code=code))


@bp.post("/g/<code>/log/discard")
@appends
def discard_log(code: str) -> Response | tuple[str, int]:
    """Abandon the turn log; the round end can still be entered by the fast path."""
    def action(view: play.PrincesseGameView, sent: WriteSent) -> None:
        play.discard_log(session=get_session(), view=view, based_on=sent.version,
                         key=form_key(sent.key))
    return _write(code, action, _log_again)


@bp.post("/g/<code>/log/finish")
@appends
def finish_log(code: str) -> Response | tuple[str, int]:
    """The round the log ended: only the final cards are tapped."""
    def action(view: play.PrincesseGameView, sent: WriteSent) -> None:
        play.finish_log(session=get_session(), view=view, based_on=sent.version,
                        key=form_key(sent.key),
                        cards=cards_from(request.form, view.players))
        flash(_("Round %(n)s saved.", n=view.progress.round_number))
    return _write(code, action, _log_again)
