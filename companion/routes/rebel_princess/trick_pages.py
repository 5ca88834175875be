"""Enter tricks: one phone taps in each card as it is played; winners, breaches and the score
follow at once. Every tap is a small POST (htmx swaps ``#trick-entry``; without JS the page
reloads), and the log lives in the database so any phone at the table sees the same round."""

from __future__ import annotations

from typing import Any

from flask import abort, flash, redirect, request, url_for
from flask_babel import gettext
from flask_wtf import FlaskForm
from werkzeug.wrappers import Response
from wtforms import HiddenField, IntegerField, StringField
from wtforms.validators import InputRequired, Length, NumberRange, Optional

from ...play import rebel_princess as play
from ...rulings import rebel_princess as rulings
from ...play import rebel_princess_tricks as entry
from ...db import get_session
from ...i18n import current_lang
from ...scoring.rebel_princess import Card, IncompleteEntryError, InvalidEntryError
from . import bp
from .pages import _round_context, _view_or_404, render_page_or_partial


ACTIONS = ("play", "fix", "undo", "power", "haggle", "accept", "validation", "confirm")


class TrickForm(FlaskForm):
    """Any tap on the trick screen: shapes only; the glue and the engine judge the rest."""

    version = IntegerField(validators=[InputRequired(), NumberRange(min=0)])
    card = StringField(validators=[Optional(), Length(max=4)])
    pos = IntegerField(validators=[Optional(), NumberRange(min=0, max=200)])
    seat = IntegerField(validators=[Optional(), NumberRange(min=0, max=5)])
    target = IntegerField(validators=[Optional(), NumberRange(min=0, max=5)])
    suit = StringField(validators=[Optional(), Length(max=1)])
    key = StringField(validators=[Optional(), Length(max=80)])
    on = HiddenField()
    cards = StringField(validators=[Optional(), Length(max=80)])  # cards tapped, "Q3.F2"
    pick = StringField(validators=[Optional(), Length(max=20)])  # go on to tap the cards
    zero = HiddenField()  # Snow White plays this card as a zero


def _context(code: str, number: int) -> dict[str, Any]:
    ctx = _round_context(_view_or_404(code), number)
    if ctx["record"] is not None and request.method == "GET":  # saved: Back after Confirm scores
        abort(redirect(url_for("rebel_princess.show", code=code), 303))
    if ctx["record"] is not None or ctx["playoff"] or not ctx["leader"]:
        abort(404)  # trick entry is for the next planned round; saved rounds edit by cards
    ctx["seat_leader"] = ctx["leader"].seat
    return ctx


def _render(ctx: dict[str, Any], status: int = 200, problem: entry.TrickRejected | None = None,
            pick: dict[str, Any] | None = None) -> tuple[str, int]:
    session = get_session()
    view = ctx["view"]
    supported = entry.is_supported(ctx["edition"], ctx["letter"])
    board = entry.board_of(session=session, view=view, number=ctx["number"],
                           letter=ctx["letter"], leader=ctx["seat_leader"])
    fix = request.args.get("pos", type=int)
    if fix is not None and not 0 <= fix < len(board.plays):
        fix = None
    chosen = None
    if pick is None and request.method == "GET" and request.args.get("pick"):
        pick = {"kind": request.args.get("pick", ""), "seat": request.args.get("seat", type=int),
                "target": request.args.get("target", type=int),
                "cards": " ".join(filter(None, (request.args.get("cards"),
                                                request.args.get("card"))))}
    if pick is not None and supported and fix is None:
        try:
            chosen = entry.pick_for(view=view, board=board, kind=pick["kind"], seat=pick["seat"],
                                    target=pick["target"],
                                    picked=entry.parse_cards(pick["cards"]))
        except entry.TrickRejected as error:
            problem = problem or error
    options = _power_options(view, board)
    return render_page_or_partial(
        "rebel_princess/tricks/page.html", "rebel_princess/tricks/_entry.html", status, board=board, supported=supported,
        problem=problem, fix=fix, pick=chosen, form=TrickForm(formdata=None),
        result=entry.preview(session=session, view=view, number=ctx["number"], board=board),
        powers=[o for o in options if o["arg"] not in ("after", "zero")],
        later=_after_options(board, options), zero=_zero_option(board, options), **ctx)


def _power_options(view: play.GameView, board: entry.Board) -> list[dict[str, Any]]:
    """The Princess powers at the table that can be entered now, with a one-line reminder."""
    options = []
    for player in view.players:
        slug = player.princess
        if slug not in entry.POWER_ARGS or player.seat in board.powers_used:
            continue
        try:
            text = rulings.princess(view.edition.value, slug).in_language(current_lang())
        except KeyError:
            continue
        options.append({"seat": player.seat, "slug": slug, "name": text.name,
                        "power": text.power, "reminder": text.summary.split(". ")[0].rstrip(".")
                        + ".", "arg": entry.POWER_ARGS[slug]})
    return options


def _after_options(board: entry.Board, options: list[dict[str, Any]]) -> dict[str, Any] | None:
    """What can happen right after the trick just finished: Mulan's swap (if she played in it),
    Alice's deal (if she won it without the Frog) and the haggle (p / T)."""
    trick = board.after_trick
    if trick is None:
        return None
    powers = []
    for option in options:
        if option["slug"] == "mulan" and any(p.seat == option["seat"] for p in trick.plays):
            powers.append(option)
        elif option["slug"] == "alice" and trick.winner == option["seat"] and \
                not any(c.is_frog for c in trick.cards) and trick.note(entry.HAGGLE) is None:
            powers.append(option)
    haggle = None
    if board.haggle_round and trick.note(entry.HAGGLE) is None and trick.note("alice") is None:
        own = {p.card for p in trick.plays if p.seat == trick.winner}
        haggle = {"seat": trick.winner, "takes": [c for c in trick.cards if c not in own]}
    if not powers and haggle is None:
        return None
    return {"trick": trick, "powers": powers, "haggle": haggle}


def _zero_option(board: entry.Board, options: list[dict[str, Any]]) -> dict[str, Any] | None:
    """Snow White's zero: a switch while it is her turn, or a button on the card she just
    played (7 or lower)."""
    for option in options:
        if option["arg"] != "zero":
            continue
        last = board.play_at(len(board.plays) - 1)
        if last is not None and last.seat == option["seat"] and last.card.rank <= 7:
            return {**option, "card": last.card, "when": "after"}
        if board.turn == option["seat"]:
            return {**option, "when": "before"}
    return None


@bp.get("/g/<code>/round/<int:number>/tricks", endpoint="tricks")
def show(code: str, number: int) -> tuple[str, int]:
    """The trick screen: the Round card, whose turn it is, the trick so far and the deck."""
    return _render(_context(code, number))


@bp.post("/g/<code>/round/<int:number>/tricks/<action>", endpoint="trick_act")
def act(code: str, number: int, action: str) -> Response | tuple[str, int]:
    """One tap: play a card, fix one, undo, announce a power, accept a breach, switch the rule
    checks, or confirm the scores."""
    if action not in ACTIONS:
        abort(404)
    ctx = _context(code, number)
    form = TrickForm()
    if not form.validate_on_submit():
        return _render(ctx, 422, entry.TrickRejected("bad-form"))
    args = {"session": get_session(), "view": ctx["view"], "number": number,
            "letter": ctx["letter"], "leader": ctx["seat_leader"], "version": form.version.data}
    try:
        if action in ("power", "haggle") and form.pick.data:  # on to tap the cards: no change
            return _render(ctx, pick={"kind": form.pick.data, "seat": form.seat.data,
                                      "target": form.target.data,
                                      "cards": " ".join(filter(None, (form.cards.data,
                                                                      form.card.data)))})
        if action == "play":
            entry.play_card(**args, card=_card(form.card.data), zero=form.zero.data == "1")
        elif action == "fix":
            entry.fix_card(**args, position=form.pos.data if form.pos.data is not None else -1,
                           card=_card(form.card.data))
        elif action == "undo":
            entry.undo(**args)
        elif action == "power":
            entry.use_power(**args, seat=form.seat.data if form.seat.data is not None else -1,
                            target=form.target.data, suit=form.suit.data or None,
                            cards=_cards(form))
        elif action == "haggle":
            entry.haggle(**args, cards=_cards(form))
        elif action == "accept":
            entry.accept(**args, key=form.key.data or "")
        elif action == "validation":
            entry.set_validation(**args, on=form.on.data == "1")
        else:
            entry.confirm(**args)
            flash(gettext("Round %(n)s saved from the tricks.", n=number))
            return redirect(url_for("rebel_princess.show", code=code))
    except entry.TrickRejected as error:
        if error.code == "saved":
            return redirect(url_for("rebel_princess.show", code=code))
        return _render(ctx, 422, error)
    except (play.EntryRejected, IncompleteEntryError, InvalidEntryError) as error:
        return _render(ctx, 422, entry.TrickRejected("not-saved", problems=error.problems))
    if request.headers.get("HX-Request") == "true":
        return _render(ctx)
    return redirect(url_for("rebel_princess.tricks", code=code, number=number), 303)


def _cards(form: TrickForm) -> tuple[Card, ...]:
    """The cards tapped for a power or a haggle: those picked before, then the last tap."""
    return entry.parse_cards(" ".join(filter(None, (form.cards.data, form.card.data))))


def _card(code: str | None) -> Card:
    try:
        return Card.from_code((code or "").strip().upper())
    except (InvalidEntryError, ValueError, KeyError):
        raise entry.TrickRejected("unknown-card", code=code) from None
