"""Rebel Princess's round entry pages: a round entered by cards, by counts or by numbers,
with the live tally while it is tapped (htmx), saved through the glue as one entry. A page
reads its form into a round (:mod:`.forms`), calls the glue once (``play.enter_round``, its
refusals through :func:`companion.routes.replays.refusal`) and renders."""


from __future__ import annotations

from dataclasses import dataclass
from dataclasses import fields as dataclass_fields
from typing import Any

from flask import (
    abort,
    flash,
    redirect,
    render_template,
    request,
    url_for,
)
from flask_babel import gettext as _
from werkzeug.wrappers import Response

from ...common.bounds import whole_or_none
from ...db import get_session
from ...models import RoundRecord
from ...play import rebel_princess as play
from ...play.rebel_princess_rows import played_from_record
from ...play.store import KeyConflict
from ...scoring.rebel_princess import (
    Edition,
    PlayedRound,
    Problem,
    RebelCard,
    RoundEntry,
    is_counted_by_princes,
    needs_no_tricks,
    princes,
    required_cards,
    round_cards,
    tally,
    tally_counts,
)
from ...scoring.rebel_princess.problems import CATALOGUE
from ..links import appends_records
from ..replays import form_key, refusal
from .blueprints import bp
from .forms import (
    NumbersSent,
    card_choices,
    cards_form,
    counts_form,
    numbers_form,
    numbers_sent,
    played_from_cards,
    played_from_counts,
    prefill_cards,
    prefill_counts,
    prefill_numbers,
)
from .pages import _view_or_404

# --- round entry -----------------------------------------------------------------------------

#: Round entry pages are never kept by the browser: Back after Save asks the server again, which
#: shows the round as saved (an edit with what was stored), never the form as it was before Save.
#: Taps in progress survive a reload through the draft kept by rebel_princess/entry.js instead.
_NOT_STORED = frozenset({"rebel_princess.enter_cards", "rebel_princess.enter_numbers",
                         "rebel_princess.preview_cards", "rebel_princess.enter_counts",
                         "rebel_princess.preview_counts"})


@bp.after_request
def _entry_pages_not_stored(response: Response) -> Response:
    if request.endpoint in _NOT_STORED:
        response.headers["Cache-Control"] = "no-store"
    return response


@dataclass(frozen=True)
class RoundPage:
    """What every round entry page shows of its round: the game, which round, its stored
    version (``None`` for a new one), whether it is a play-off, its Round card and leader, and
    the Round cards a play-off may have drawn."""

    view: play.RebelGameView
    number: int
    record: RoundRecord | None
    playoff: bool
    letter: str
    leader: Any
    edition: Edition
    classic: bool
    drawable: list[str]

    def fields(self) -> dict[str, Any]:
        """The page's fields, for its template."""
        return {f.name: getattr(self, f.name) for f in dataclass_fields(self)}


def _round_context(view: play.RebelGameView, number: int) -> RoundPage:
    """Which round this is, its card, its leader and the stored version, or 404."""
    record = view.record(number)
    planned = view.state.setup.rounds_planned
    if record is None and number != len(view.records) + 1:
        abort(404)
    if record is None and view.state.finished:
        abort(404)
    playoff = number > planned
    if record is not None:
        result = view.state.rounds[number - 1] if number <= len(view.state.rounds) else None
        letter = result.round_card if result else (record.round_card or "")
        leader = result.leader if result else None
    else:
        letter = view.state.next_round_card or ""
        leader = view.state.next_leader
    drawable: list[str] = []
    if playoff:
        # The players say which card was drawn (``round_card``, in the query or the form); an
        # empty one asks again, even when editing.
        drawable = _playoff_letters(view, number)
        asked = request.values.get("round_card")
        if asked is not None or record is None:
            letter = asked if asked in drawable else ""
    return RoundPage(view, number, record, playoff, letter, leader, view.edition,
                     view.edition is Edition.CLASSIC, drawable)


def _playoff_letters(view: play.RebelGameView, number: int) -> list[str]:
    """The Round cards a play-off can draw: those not on the table yet (the game's own and the
    earlier play-offs'). The physical cards show which carry the black hourglass, so the players
    pick the one drawn among these (our decision: the app has no list of hourglass cards)."""
    used = set(view.game.round_cards or "") | {
        r.round_card for r in view.state.rounds if r.playoff and r.number != number}
    return [c.letter for c in round_cards(view.edition) if c.letter not in used]


def _letter_for(ctx: RoundPage) -> str:
    return ctx.letter or ("a" if ctx.edition is Edition.DELUXE else "A")


def _build_cards_form(ctx: RoundPage) -> tuple[Any, list[RebelCard]]:
    """The by-cards form of this round: a row for each card its Round card scores (none for a
    play-off until the players say which card was drawn)."""
    view, edition, letter = ctx.view, ctx.edition, ctx.letter
    players = len(view.players)
    cards = list(required_cards(edition, letter, players)) if letter else []
    form = cards_form(players=players, cards=cards,
                      ask_no_tricks=bool(letter) and needs_no_tricks(edition, letter),
                      ask_last_trick=ctx.classic,
                      ask_round_card=_drawable_choices(ctx))
    return form, cards


def _drawable_choices(ctx: RoundPage) -> list[Any] | None:
    if not ctx.playoff:
        return None
    return card_choices(ctx.edition, only=ctx.drawable)


@bp.route("/g/<code>/round/<int:number>/cards", methods=["GET", "POST"])
@appends_records
def enter_cards(code: str, number: int) -> Response | tuple[str, int]:
    """Enter (or edit) a round by tapping who took each card that scores."""
    ctx = _round_context(_view_or_404(code), number)
    form, cards = _build_cards_form(ctx)
    players = len(ctx.view.players)
    if request.method == "GET" and ctx.record is not None:
        prefill_cards(form, _id(ctx.record), ctx.record.round_card,
                      played_from_record(ctx.record), players)
    problems: list[Problem] = []
    if request.method == "POST" and _validate(form):
        outcome = _save(ctx, played_from_cards(form, players, cards), "cards", form.base.data,
                        form.key.data, shown=cards)
        if isinstance(outcome, Response):
            return outcome
        problems = outcome
    status = 422 if request.method == "POST" else 200
    return render_template("rebel_princess/rounds/cards.html", form=form.keyed(), cards=cards,
                           problems=problems,
                           live=_live(ctx, form, cards), can_count=_counts_allowed(ctx),
                           **ctx.fields()), status


@bp.post("/g/<code>/round/<int:number>/preview")
def preview_cards(code: str, number: int) -> str:
    """The live tally while cards are being given out (htmx); stores nothing."""
    ctx = _round_context(_view_or_404(code), number)
    form, cards = _build_cards_form(ctx)
    form.validate()
    return render_template("rebel_princess/rounds/_live.html", live=_live(ctx, form, cards),
                           can_count=_counts_allowed(ctx), **ctx.fields())


def _totals_before(ctx: RoundPage) -> tuple[int, ...]:
    view, number = ctx.view, ctx.number
    return tuple(view.state.rounds[number - 2].totals_after if number > 1
                 and number - 2 < len(view.state.rounds) else (0,) * len(view.players))


def _live(ctx: RoundPage, form: Any, cards: list[RebelCard]) -> dict[str, Any]:
    """Running scores and lines for the cards given out so far, and what is still missing."""
    played = played_from_cards(form, len(ctx.view.players), cards)
    letter = _letter_for(ctx)
    found = tally(RoundEntry(ctx.edition, letter, len(ctx.view.players),
                             played.taken or (), played.no_tricks, _totals_before(ctx)))
    return {"score": found.score, "missing": list(found.missing),
            "problems": list(found.problems), "letter": letter}


def _build_counts_form(ctx: RoundPage) -> Any:
    """The by-counts form of this round: a Princes picker per player and the Frog."""
    players = len(ctx.view.players)
    return counts_form(players=players, most=len(princes(players)),
                       ask_no_tricks=needs_no_tricks(ctx.edition, ctx.letter),
                       ask_last_trick=ctx.classic, ask_round_card=_drawable_choices(ctx))


def _counts_allowed(ctx: RoundPage) -> bool:
    return bool(ctx.letter) and is_counted_by_princes(ctx.edition, ctx.letter,
                                                         len(ctx.view.players))


@bp.route("/g/<code>/round/<int:number>/counts", methods=["GET", "POST"])
@appends_records
def enter_counts(code: str, number: int) -> Response | tuple[str, int]:
    """Enter (or edit) a round by how many Princes each player took and who took the Frog."""
    ctx = _round_context(_view_or_404(code), number)
    if not _counts_allowed(ctx):  # identities score this round: by cards it is
        drawn: dict[str, Any] = {"round_card": ctx.letter} if ctx.playoff else {}
        return redirect(url_for("rebel_princess.enter_cards", code=code, number=number,
                                **drawn))
    form = _build_counts_form(ctx)
    record = ctx.record
    players = len(ctx.view.players)
    if request.method == "GET" and record is not None:
        prefill_counts(form, _id(record), record.round_card, played_from_record(record),
                       players)
    problems: list[Problem] = []
    if request.method == "POST" and _validate(form):
        outcome = _save(ctx, played_from_counts(form, players), "counts", form.base.data,
                        form.key.data)
        if isinstance(outcome, Response):
            return outcome
        problems = outcome
    status = 422 if request.method == "POST" else 200
    return render_template("rebel_princess/rounds/counts.html", form=form.keyed(),
                           problems=problems,
                           live=_live_counts(ctx, form),
                           most=len(princes(len(ctx.view.players))), **ctx.fields()), status


@bp.post("/g/<code>/round/<int:number>/counts/preview")
def preview_counts(code: str, number: int) -> str:
    """The live tally while counts are being tapped (htmx); stores nothing."""
    ctx = _round_context(_view_or_404(code), number)
    if not _counts_allowed(ctx):
        abort(400)
    form = _build_counts_form(ctx)
    form.validate()
    return render_template("rebel_princess/rounds/_live_counts.html", live=_live_counts(ctx, form),
                           oob=True, **ctx.fields())


def _live_counts(ctx: RoundPage, form: Any) -> dict[str, Any]:
    """Running scores for the counts tapped so far, and what is still missing: Princes not
    counted yet, the Frog, or counts that add up to too many."""
    played = played_from_counts(form, len(ctx.view.players))
    assert played.counts is not None
    letter = _letter_for(ctx)
    found = tally_counts(ctx.edition, letter, len(ctx.view.players), played.counts,
                         no_tricks=played.no_tricks, totals_before=_totals_before(ctx))
    return {"score": found.score, "princes_left": found.princes_left,
            "frog_missing": found.frog_missing, "unset": list(found.unset),
            "missing": found.still_to_enter, "problems": list(found.problems),
            "letter": letter}


def _validate(form: Any) -> bool:
    """Validate a round form; a version field that is not a record number is a broken request
    (the page never sends one), not something the player can correct."""
    valid = bool(form.validate_on_submit())
    if form.base.errors:
        abort(400)
    return valid


def _id(record: RoundRecord) -> int:
    assert record.id is not None  # (a stored record)
    return record.id


def _save(ctx: RoundPage, played: PlayedRound, mode: str, base: str | None, key: str | None,
          shown: list[RebelCard] | None = None) -> Response | list[Problem]:
    """Store the entry and go back to the pad, or return the problems (nothing stored). The
    form's ``base`` (the version it edits) and ``key`` as sent: the form is known by its key, as
    every game's are: sent again, it is answered like the first sending; sent again changed, it
    is told the round is saved already (nothing stored)."""
    view, number = ctx.view, ctx.number
    text = (base or "").strip()  # Optional() lets blank text through unchecked
    base_id = whole_or_none(text, 1) if text else None
    if text and base_id is None:
        abort(400)  # not a record number (the page never sends one)
    saved: list[RoundRecord] = []
    refused: list[Problem] | None = refusal(
        lambda: saved.append(play.enter_round(
            session=get_session(), game=view.game, number=number, played=played, mode=mode,
            base_id=base_id, view=view, shown=shown, key=form_key(key))),
        problems=_as_given, stale=list[Problem], conflict=_already_saved)
    if refused is not None:
        return refused
    if base_id is not None and saved[0].id == base_id:
        flash(_("Round %(n)s unchanged: nothing to save.", n=number))
        return redirect(url_for("rebel_princess.show", code=view.game.code))
    flash(_saved_message(number, base_id))
    return redirect(url_for("rebel_princess.show", code=view.game.code))


def _as_given(problems: list[Problem]) -> list[Problem]:
    return problems


def _already_saved(conflict: KeyConflict) -> list[Problem]:
    """A changed copy of a round form already saved: the round it saved is there (the pad
    shows it; its row edits it), and nothing of this copy was stored."""
    number = conflict.stored.data.get("number")
    return [CATALOGUE.problem("round-already-saved", number=number)]


def _saved_message(number: int, base_id: int | None) -> str:
    return (_("Round %(n)s updated.", n=number) if base_id
            else _("Round %(n)s saved.", n=number))


@bp.route("/g/<code>/round/<int:number>/numbers", methods=["GET", "POST"])
@appends_records
def enter_numbers(code: str, number: int) -> Response | tuple[str, int]:
    """Enter (or edit) a round by typing each player's score, as on paper. A save is read
    without binding the form when the form would take it as it is (:func:`numbers_sent`);
    anything else, and every page drawn, goes through the form."""
    ctx = _round_context(_view_or_404(code), number)
    view = ctx.view
    players = len(view.players)
    form = None
    sent = None
    if request.method == "POST":
        sent = numbers_sent(request, players=players, ask_last_trick=ctx.classic,
                            drawable=ctx.drawable if ctx.playoff else None)
        if sent is None:
            form = _numbers_form(ctx)
            if _validate(form):
                sent = NumbersSent.of(form, players)
    problems: list[Problem] = []
    warnings: list[Problem] = []
    if sent is not None:
        warnings = play.numbers_warnings(view, number, sent.played)
        if not warnings or sent.confirm:
            outcome = _save(ctx, sent.played, "numbers", sent.base, sent.key)
            if isinstance(outcome, Response):
                return outcome
            problems = outcome
    if form is None:  # (the page is drawn: the form as the player sent it, or as stored)
        form = _numbers_form(ctx)
        record = ctx.record
        if request.method == "POST":
            _validate(form)  # (it takes what was sent: drawn as it always was, validated)
        elif record is not None:
            stored = played_from_record(record)
            prefill_numbers(form, _id(record), record.round_card, stored,
                            play.shown_scores(view, number, stored))
    status = 422 if request.method == "POST" else 200
    return render_template("rebel_princess/rounds/numbers.html", form=form.keyed(),
                           problems=problems,
                           warnings=warnings, **ctx.fields()), status


def _numbers_form(ctx: RoundPage) -> Any:
    """The by-numbers form of this round: a score per player (and the last trick in a classic
    game, the Round card a play-off drew)."""
    return numbers_form(players=len(ctx.view.players), ask_last_trick=ctx.classic,
                        ask_round_card=_drawable_choices(ctx))
