"""The Kanai duel's phone pages: set-up, a game in referee mode (one phone taps both revealed
cards) or two-phone mode (each phone picks secretly; the server reveals both at once), live
updates, undo.

Views parse a form, call one function of :mod:`companion.play.kanai_duel` and redirect (303) to
the game, or re-render it with the problems (422) or the news that someone else changed the game
(409); nothing is stored then. Which seat a phone plays is kept in its signed session cookie, as
the secret key of that seat (the first phone gets seat 1's key when it creates the game, the second
phone seat 2's by scanning the QR code).
"""

from __future__ import annotations

from typing import Any

from flask import abort, redirect, render_template, request, session, url_for
from flask_babel import gettext as _
from werkzeug.wrappers import Response

from ...db import get_session
from ...i18n import current_lang
from ...models import Game
from ...play import kanai_duel as play
from ...play import store
from ...scoring.kanai_duel import Card, SetAside, Step
from ...scoring.problems import EntryError, Problem
from .. import links
from ..links import game_to_play_again
from ..shell import group_for_new_game, remember
from . import bp
from .forms import NewGameForm, PickForm, RoundForm, UndoForm

SEATS = "kanai_duel_seats"


# --- helpers for templates ----------------------------------------------------------------------

@bp.app_template_filter("kd_problem")
def problem_text(problem: Problem, names: list[str]) -> str:
    """A problem's sentence in the page's language, naming the player instead of their seat."""
    lang = current_lang()
    if problem.catalogue is None:
        return problem.text(lang)
    params = dict(problem.params)
    if problem.seat is not None and 0 <= problem.seat < len(names):
        params["player"] = names[problem.seat]
    return problem.catalogue.text(problem.code, lang, seat=problem.seat, card=problem.card,
                                  **params)


@bp.app_template_filter("kd_step")
def step_text(step: Step, names: list[str]) -> str:
    """A reasoning step in the page's language, naming the players."""
    return step.text(current_lang(), names)


@bp.app_template_filter("kd_card")
def card_label(card: Card | str) -> str:
    """A card's printed name in the page's language."""
    return Card(card).label(current_lang())


qr_svg = links.qr_svg  # bounded: each Host header would make another address to draw


# --- seats of this phone ------------------------------------------------------------------------

def _seat(game: Game) -> int | None:
    keys = session.get(SEATS)
    key = keys.get(game.code) if isinstance(keys, dict) else None
    return play.seat_of(game, key if isinstance(key, str) else None)


def _take_seat(game: Game, key: str) -> None:
    keys = session.get(SEATS)
    keys = dict(keys) if isinstance(keys, dict) else {}
    keys[game.code] = key
    session[SEATS] = dict(list(keys.items())[-30:])


def _game_or_404(code: str) -> Game:
    game = store.get_game(get_session(), code, kind=play.KIND)
    if game is None:
        abort(404)
    return game


# --- set-up -------------------------------------------------------------------------------------

@bp.route("/new", methods=["GET", "POST"])
def new_game() -> Response | tuple[str, int]:
    """Set up a duel: names, one phone or two, variants."""
    form = NewGameForm()
    problems: list[Problem] = []
    if request.method == "GET":
        _fill_again(form)
        return render_template("kanai_duel/new.html", form=form, problems=problems), 200
    if form.validate_on_submit():
        message = _set_aside_problem(form)
        if message:
            form.set_aside.errors = [*form.set_aside.errors, message]
        else:
            try:
                return _create(form)
            except EntryError as error:
                problems = error.problems
    return render_template("kanai_duel/new.html", form=form, problems=problems), 422


def _fill_again(form: NewGameForm) -> None:
    """Play again (``?again=<link token>``): the same two players in the same places, one phone
    or two, the same variants. The cards set aside (B) are chosen afresh."""
    found = game_to_play_again(play.KIND)
    if found is None:
        return
    game, names = found
    if len(names) == 2:
        form.first.data, form.second.data = names
    settings = play.settings(game)
    if settings.get("mode") in (play.REFEREE, play.PHONES):
        form.mode.data = settings["mode"]
    variants = set(settings.get("variants") or [])
    form.wins.data = "3" if "impatience" in variants else "4"
    form.abilities.data = ("none" if "numbers" in variants else "clown_minister"
                           if "numbers-clown-minister" in variants else "all")
    form.until_dawn.data = "until-dawn" in variants
    form.set_aside.data = ("chosen" if "seven" in variants else "random"
                           if "wanderlust" in variants else "none")


def _set_aside_problem(form: NewGameForm) -> str | None:
    """Variant B: on one phone, both cards set aside are entered here; on two phones, each
    player sets theirs aside secretly on their own phone, so none is entered here."""
    if "seven" not in form.variants():
        return None
    if form.mode.data == play.PHONES:
        if form.out() != (None, None):
            return _("With two phones, each player sets a card aside secretly on their own "
                     "phone before round 1: leave “sets aside” empty.")
        return None
    if None in form.out():
        return _("Choose the card each player sets aside.")
    return None


def _create(form: NewGameForm) -> Response:
    game, key = play.create(session=get_session(), names=[form.first.data, form.second.data],
                            mode=form.mode.data or play.REFEREE, variants=form.variants(),
                            out=form.out(), group_id=group_for_new_game())
    if key is not None:
        _take_seat(game, key)
    remember(game.code)
    return redirect(url_for("kanai_duel.show", code=game.code), 303)


# --- a game -------------------------------------------------------------------------------------

def _context(game: Game, *, problems: list[Problem] | None = None, stale: bool = False,
             round_form: RoundForm | None = None, pick_form: PickForm | None = None
             ) -> dict[str, Any]:
    view = play.view_game(get_session(), game, _seat(game))
    context: dict[str, Any] = {
        "view": view, "problems": problems or [], "stale": stale,
        "round_form": (round_form or RoundForm(formdata=None)).fresh(view.version),
        "pick_form": (pick_form or PickForm(formdata=None)).fresh(view.version),
        "undo_form": UndoForm(formdata=None).fresh(view.version),
        "SetAside": SetAside, "cards": list(Card),
    }
    if view.mode == play.PHONES and view.seat.seat == 0 and not view.joined:
        join_url = url_for("kanai_duel.join", code=game.code, key=play.seat_key(game, 1),
                           _external=True)
        context.update(join_url=join_url, join_qr=qr_svg(join_url))
    return context


def _page(game: Game, status: int = 200, **kwargs: Any) -> tuple[str, int]:
    context = _context(game, **kwargs)
    template = ("kanai_duel/_board.html" if request.headers.get("HX-Request") == "true"
                else "kanai_duel/show.html")
    return render_template(template, **context), status


@bp.get("/g/<code>")
def show(code: str) -> tuple[str, int]:
    """A game: score, holds, what carries over, the last round's reasoning, and the entry."""
    return _page(_game_or_404(code))


@bp.get("/g/<code>/board")
def board(code: str) -> tuple[str, int]:
    """The board alone (what the live update swaps in)."""
    game = _game_or_404(code)
    return render_template("kanai_duel/_board.html", **_context(game)), 200


@bp.get("/g/<code>/version")
def version(code: str) -> Response:
    """The game's version, with an ETag: 304 when the phone already has it (live updates)."""
    game = _game_or_404(code)
    number = store.version(get_session(), game)
    response = Response(f'{{"version": {number}}}', mimetype="application/json")
    response.set_etag(f"v{number}")
    response.headers["Cache-Control"] = "no-cache"
    return response.make_conditional(request)


@bp.post("/g/<code>/round")
def play_round(code: str) -> Response | tuple[str, int]:
    """Referee mode: the two revealed cards."""
    game = _game_or_404(code)
    form = RoundForm()
    if not form.validate_on_submit():
        problem = Problem("tap-both-cards")
        return _page(game, 422, problems=[problem], round_form=form)
    try:
        play.play_round(session=get_session(), game=game,
                        cards=[form.first.data or "", form.second.data or ""],
                        based_on=form.based_on(), key=form.key.data or None)
    except EntryError as error:
        return _page(game, 422, problems=error.problems, round_form=form)
    except store.StaleWrite:
        return _page(game, 409, stale=True)
    return redirect(url_for("kanai_duel.show", code=code), 303)


@bp.post("/g/<code>/undo")
def undo(code: str) -> Response | tuple[str, int]:
    """Referee mode: take back the last round."""
    game = _game_or_404(code)
    form = UndoForm()
    if not form.validate_on_submit():
        abort(400)
    try:
        play.undo(session=get_session(), game=game, based_on=form.based_on(),
                  key=form.key.data or None)
    except EntryError as error:
        return _page(game, 422, problems=error.problems)
    except store.StaleWrite:
        return _page(game, 409, stale=True)
    return redirect(url_for("kanai_duel.show", code=code), 303)


@bp.post("/g/<code>/pick")
def pick(code: str) -> Response | tuple[str, int]:
    """Two-phone mode: this phone's secret pick (cannot be changed once made)."""
    game = _game_or_404(code)
    seat = _seat(game)
    if seat is None:
        abort(403)
    form = PickForm()
    if not form.validate_on_submit():
        return _page(game, 422, problems=[Problem("tap-a-card")], pick_form=form)
    try:
        play.pick(session=get_session(), game=game, seat=seat, card=form.card.data or "",
                  key=form.key.data or None)
    except EntryError as error:
        return _page(game, 422, problems=error.problems, pick_form=form)
    except store.StaleWrite:
        return _page(game, 409, stale=True)
    return redirect(url_for("kanai_duel.show", code=code), 303)


@bp.get("/g/<code>/join/<key>")
def join(code: str, key: str) -> Response:
    """Two-phone mode: the second phone scanned the QR code and takes its seat."""
    game = _game_or_404(code)
    seat = play.seat_of(game, key)
    if seat is None:
        abort(404)
    _take_seat(game, key)
    if seat == 1:
        play.join(session=get_session(), game=game)
    return redirect(url_for("kanai_duel.show", code=code), 303)
