"""Rebel Princess's round entry pages: a round entered by cards, by counts or by numbers,
with the live tally while it is tapped (htmx), saved through the glue as one entry."""


from __future__ import annotations

from dataclasses import dataclass, replace
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
from ...scoring.rebel_princess import (
    Edition,
    PlayedRound,
    Problem,
    RebelCard,
    RoundCounts,
    RoundEntry,
    counts_from_taken,
    is_counted_by_princes,
    needs_no_tricks,
    princes,
    required_cards,
    round_cards,
    tally,
    tally_counts,
)
from ..replays import refusal
from .blueprints import bp
from .forms import (
    ASCII_NUMBER,
    card_choices,
    cards_form,
    counts_form,
    numbers_form,
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
    record: Any
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


def _seat(value: object, players: int) -> int | None:
    """A seat number from a form value, or None for anything that is not one of the seats
    (ASCII digits only: "²" and "١" are not seats)."""
    text = str(value) if value is not None else ""
    return int(text) if ASCII_NUMBER.fullmatch(text) and int(text) < players else None


def _played_from_cards(form: Any, ctx: RoundPage, cards: list[RebelCard]) -> PlayedRound:
    """The entry as tapped so far; values that are not seats are left out (the form reports
    them), so a tampered or stale form can never crash the live tally."""
    players = len(ctx.view.players)
    taken: list[set[RebelCard]] = [set() for _ in range(players)]
    for card in cards:
        seat = _seat(form[card.code].data, players)
        if seat is not None:
            taken[seat].add(card)
    no_tricks = None
    if "no_trick_0" in form:
        no_tricks = frozenset(s for s in range(players) if form[f"no_trick_{s}"].data)
    return PlayedRound(
        taken=tuple(frozenset(t) for t in taken), no_tricks=no_tricks,
        leader=_seat(form.leader.data, players),
        last_trick_winner=_seat(form.last_trick.data, players) if "last_trick" in form else None,
        round_card=form.round_card.data if "round_card" in form else None)


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


def _as_shown(played: PlayedRound, cards: list[RebelCard]) -> PlayedRound:
    """A stored entry as the by-cards form shows it: only the cards it has a row for."""
    if played.taken is None:
        return played
    rows = set(cards)
    return replace(played, taken=tuple(frozenset(c for c in t if c in rows)
                                       for t in played.taken))


def _prefill_shared(form: Any, record: Any, played: PlayedRound) -> None:
    """Fill the fields both round forms share from the stored version being edited."""
    form.base.data = str(record.id)
    if played.leader is not None:
        form.leader.data = str(played.leader)
    if "last_trick" in form and played.last_trick_winner is not None:
        form.last_trick.data = str(played.last_trick_winner)
    if "round_card" in form and record.round_card:
        form.round_card.data = record.round_card


def _prefill_cards(form: Any, record: Any, players: int) -> None:
    played = play.played_from_record(record)
    _prefill_shared(form, record, played)
    if played.taken is not None:
        for seat, cards in enumerate(played.taken):
            for card in cards:
                if card.code in form:
                    form[card.code].data = str(seat)
    if played.no_tricks is not None and "no_trick_0" in form:
        for seat in range(players):
            form[f"no_trick_{seat}"].data = seat in played.no_tricks


@bp.route("/g/<code>/round/<int:number>/cards", methods=["GET", "POST"])
def enter_cards(code: str, number: int) -> Response | tuple[str, int]:
    """Enter (or edit) a round by tapping who took each card that scores."""
    ctx = _round_context(_view_or_404(code), number)
    form, cards = _build_cards_form(ctx)
    if request.method == "GET" and ctx.record is not None:
        _prefill_cards(form, ctx.record, len(ctx.view.players))
    problems: list[Problem] = []
    if request.method == "POST" and _validate(form):
        played = _played_from_cards(form, ctx, cards)
        record = ctx.record
        if record is not None and _as_shown(play.played_from_record(record), cards) == played:
            # Saved as the edit page showed it: the stored entry, unchanged (a round confirmed
            # from the trick screen also holds the cards that score nothing, which have no row).
            played = play.played_from_record(record)
        outcome = _save(ctx, played, "cards", form.base.data)
        if isinstance(outcome, Response):
            return outcome
        problems = outcome
    status = 422 if request.method == "POST" else 200
    return render_template("rebel_princess/rounds/cards.html", form=form, cards=cards,
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
    played = _played_from_cards(form, ctx, cards)
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


def _counts_from_form(form: Any, players: int) -> RoundCounts:
    """The counts tapped so far; anything that is not a count or a seat is left out (the form
    reports it)."""
    def count(seat: int) -> int | None:
        value = form[f"princes_{seat}"].data
        return int(value) if value is not None and ASCII_NUMBER.fullmatch(str(value)) else None
    return RoundCounts(tuple(count(s) for s in range(players)), _seat(form.frog.data, players))


def _played_from_counts(form: Any, ctx: RoundPage) -> PlayedRound:
    players = len(ctx.view.players)
    no_tricks = None
    if "no_trick_0" in form:
        no_tricks = frozenset(s for s in range(players) if form[f"no_trick_{s}"].data)
    return PlayedRound(
        counts=_counts_from_form(form, players), no_tricks=no_tricks,
        leader=_seat(form.leader.data, players),
        last_trick_winner=_seat(form.last_trick.data, players) if "last_trick" in form else None,
        round_card=form.round_card.data if "round_card" in form else None)


def _counts_allowed(ctx: RoundPage) -> bool:
    return bool(ctx.letter) and is_counted_by_princes(ctx.edition, ctx.letter,
                                                         len(ctx.view.players))


@bp.route("/g/<code>/round/<int:number>/counts", methods=["GET", "POST"])
def enter_counts(code: str, number: int) -> Response | tuple[str, int]:
    """Enter (or edit) a round by how many Princes each player took and who took the Frog."""
    ctx = _round_context(_view_or_404(code), number)
    if not _counts_allowed(ctx):  # identities score this round: by cards it is
        drawn: dict[str, Any] = {"round_card": ctx.letter} if ctx.playoff else {}
        return redirect(url_for("rebel_princess.enter_cards", code=code, number=number,
                                **drawn))
    form = _build_counts_form(ctx)
    record = ctx.record
    if request.method == "GET" and record is not None:
        _prefill_counts(form, record, len(ctx.view.players))
    problems: list[Problem] = []
    if request.method == "POST" and _validate(form):
        outcome = _save(ctx, _played_from_counts(form, ctx), "counts", form.base.data)
        if isinstance(outcome, Response):
            return outcome
        problems = outcome
    status = 422 if request.method == "POST" else 200
    return render_template("rebel_princess/rounds/counts.html", form=form, problems=problems,
                           live=_live_counts(ctx, form),
                           most=len(princes(len(ctx.view.players))), **ctx.fields()), status


def _prefill_counts(form: Any, record: Any, players: int) -> None:
    """Fill the counts form from a stored version (a card entry is counted, too)."""
    played = play.played_from_record(record)
    _prefill_shared(form, record, played)
    counts = played.counts
    if counts is None and played.taken is not None:
        counts = counts_from_taken(players, played.taken)
    if counts is not None:
        for seat, count in enumerate(counts.princes):
            form[f"princes_{seat}"].data = None if count is None else str(count)
        form.frog.data = None if counts.frog is None else str(counts.frog)
    if played.no_tricks is not None and "no_trick_0" in form:
        for seat in range(players):
            form[f"no_trick_{seat}"].data = seat in played.no_tricks


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
    played = _played_from_counts(form, ctx)
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


def _save(ctx: RoundPage, played: PlayedRound, mode: str, base: str | None
          ) -> Response | list[Problem]:
    """Store the entry and go back to the pad, or return the problems (nothing stored)."""
    view, number = ctx.view, ctx.number
    text = (base or "").strip()  # Optional() lets blank text through unchecked
    base_id = whole_or_none(text, 1) if text else None
    if text and base_id is None:
        abort(400)  # not a record number (the page never sends one)
    saved: list[RoundRecord] = []
    refused: list[Problem] | None = refusal(
        lambda: saved.append(play.enter_round(
            session=get_session(), game=view.game, number=number, played=played, mode=mode,
            base_id=base_id, view=view)),
        problems=_as_given, stale=list[Problem], conflict=lambda _found: None)
    if refused is not None:
        return refused
    if base_id is not None and saved[0].id == base_id:
        flash(_("Round %(n)s unchanged: nothing to save.", n=number))
        return redirect(url_for("rebel_princess.show", code=view.game.code))
    flash(_saved_message(number, base_id))
    return redirect(url_for("rebel_princess.show", code=view.game.code))


def _as_given(problems: list[Problem]) -> list[Problem]:
    return problems


def _saved_message(number: int, base_id: int | None) -> str:
    return (_("Round %(n)s updated.", n=number) if base_id
            else _("Round %(n)s saved.", n=number))


@bp.route("/g/<code>/round/<int:number>/numbers", methods=["GET", "POST"])
def enter_numbers(code: str, number: int) -> Response | tuple[str, int]:
    """Enter (or edit) a round by typing each player's score, as on paper."""
    ctx = _round_context(_view_or_404(code), number)
    view = ctx.view
    players = len(view.players)
    form = numbers_form(players=players, ask_last_trick=ctx.classic,
                        ask_round_card=_drawable_choices(ctx))
    record = ctx.record
    if request.method == "GET" and record is not None:
        stored = play.played_from_record(record)
        _prefill_shared(form, record, stored)
        scores = stored.scores or (view.state.rounds[number - 1].scores
                                   if number <= len(view.state.rounds) else ())
        for seat, value in enumerate(scores):
            form[f"score_{seat}"].data = value
    problems: list[Problem] = []
    warnings: list[Problem] = []
    if request.method == "POST" and _validate(form):
        played = PlayedRound(
            scores=tuple(int(form[f"score_{s}"].data) for s in range(players)),
            leader=_seat(form.leader.data, players),
            last_trick_winner=_seat(form.last_trick.data, players) if "last_trick" in form
            else None,
            round_card=form.round_card.data if "round_card" in form else None)
        trial = (play.replay(view, replace=(number, played)) if record is not None
                 else play.replay(view, extra=played))
        if number <= len(trial.rounds):
            warnings = list(trial.rounds[number - 1].warnings)
        if not warnings or form.confirm.data:
            outcome = _save(ctx, played, "numbers", form.base.data)
            if isinstance(outcome, Response):
                return outcome
            problems = outcome
    status = 422 if request.method == "POST" else 200
    return render_template("rebel_princess/rounds/numbers.html", form=form, problems=problems,
                           warnings=warnings, **ctx.fields()), status
