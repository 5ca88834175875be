"""The phone web app: games list, new game, the score pad, round entry, undo and history."""

from __future__ import annotations

import random
import re
from dataclasses import replace
from typing import Any

from flask import (
    abort,
    flash,
    g,
    redirect,
    render_template,
    request,
    url_for,
)
from flask_babel import gettext as _
from werkzeug.wrappers import Response

from ...db import get_session
from ...forms.rebel_princess import (
    ASCII_NUMBER,
    EmptyForm,
    NewGameForm,
    card_choices,
    cards_form,
    counts_form,
    numbers_form,
)
from ...i18n import current_lang
from ...models import Game
from ...play import rebel_princess as play
from ...play import rebel_princess_tricks as tricks_entry
from ...play import store
from ...rulings import rebel_princess as rulings
from ...scoring.rebel_princess import (
    BATHROOM_BREAK,
    FROG,
    Card,
    Edition,
    IncompleteEntryError,
    InvalidValueError,
    PlayedRound,
    Problem,
    RoundCounts,
    RoundEntry,
    counts_from_taken,
    is_counted_by_princes,
    message_for,
    needs_no_tricks,
    princes,
    recommended_first_game,
    required_cards,
    round_card,
    round_cards,
    tally,
    tally_counts,
)
from .. import links
from ..links import game_to_play_again
from ..shell import remember
from . import bp

bp.add_app_template_global(round_card, "round_card")


@bp.app_template_global("card_summary")
def card_summary(edition: Edition | str, letter: str | None) -> str:
    """A Round card's one-paragraph reminder in the page's language ("" if unknown)."""
    if not letter:
        return ""
    try:
        return rulings.round_card_summary(str(getattr(edition, "value", edition)), letter,
                                          current_lang())
    except KeyError:
        return ""


@bp.app_template_filter("problem_message")
def problem_message(problem: Problem, names: list[str]) -> str:
    """A problem's sentence in the page's language, naming the player instead of their seat."""
    params = dict(problem.params)
    if problem.seat is not None and 0 <= problem.seat < len(names):
        params["player"] = names[problem.seat]
    lang = current_lang()
    if lang == "fr" and isinstance(params.get("expected"), str):
        # The scoring core describes ranges in English ("-10 or 15", "15 to 25").
        params["expected"] = re.sub(r"\b(or|to)\b", lambda m: {"or": "ou", "to": "à"}[m[1]],
                                    params["expected"])
    card = problem.card
    if card is not None and problem.code != "unknown-card" and card.strip().upper() == FROG.code:
        card = _("the Frog")  # "A8" means nothing at the table ("A" is the French Animaux)
    message = message_for(problem.code, lang, card=card, **params)
    return message[:1].upper() + message[1:]


def render_page_or_partial(page: str, partial: str, status: int = 200, **context: Any
                           ) -> tuple[str, int]:
    """The partial for an htmx request, the full page otherwise."""
    template = partial if request.headers.get("HX-Request") == "true" else page
    return render_template(template, **context), status


def _game_or_404(code: str) -> Game:
    """The game this request opened through its link (read with the link), else by code."""
    game = g.get("link_game")
    if game is None or game.code != code or game.kind != play.KIND:
        game = play.get_game(get_session(), code)
        if game is None:
            abort(404)
    return game


def _view_or_404(code: str) -> play.GameView:
    return play.view_game(get_session(), _game_or_404(code))


NEW_PAGE = "rebel_princess/games/new.html"
NEW_FORM = "rebel_princess/games/_new_form.html"


# --- games list and set-up -------------------------------------------------------------------

@bp.route("/rebel-princess/new", methods=["GET", "POST"])
def new_game() -> Response | tuple[str, int]:
    """Set up a game; the preset buttons fill in the Round cards."""
    form = NewGameForm()
    if request.method == "GET":
        _fill_again(form)
    edition = form.edition_value()
    letters = [c.letter for c in round_cards(edition)]
    for field in form.cards:
        field.choices = card_choices(edition)
    preset = request.form.get("preset")
    if request.method == "GET" or preset:
        _fill_cards(form, edition, preset or "recommended", letters)
        return render_page_or_partial(NEW_PAGE, NEW_FORM, form=form, edition=edition,
                                      princesses=rulings.princess_names(current_lang()))
    if form.validate_on_submit():
        names = form.player_names()
        try:
            game = play.create_game(
                session=get_session(), edition=edition, names=names,
                first_leader=form.first_leader.data, round_cards=form.chosen_cards(),
                princesses=[p.data for p in form.princesses][: len(names)])
        except InvalidValueError as error:
            form.cards.errors = [problem_message(error.problem, names)]
        else:
            remember(game.code)
            flash(_("Game created. Have a lovely party!"))
            return redirect(url_for("rebel_princess.show", code=game.code))
    return render_page_or_partial(NEW_PAGE, NEW_FORM, 422, form=form, edition=edition,
                                  princesses=rulings.princess_names(current_lang()))


def _fill_again(form: NewGameForm) -> None:
    """Play again (``?again=<link token>``): the same players in the same seats, the same
    edition and length. Who leads, the Round cards and the Princesses are chosen afresh."""
    found = game_to_play_again(play.KIND)
    if found is None:
        return
    game, names = found
    form.edition.data = game.edition if game.edition in ("deluxe", "classic") else "deluxe"
    form.length.data = "3" if len(game.round_cards or "") == 3 else "5"
    for entry, name in zip(form.names, names, strict=False):
        entry.data = name


def _fill_cards(form: NewGameForm, edition: Edition, preset: str, letters: list[str]) -> None:
    chosen = [f.data for f in form.cards]
    if preset == "random":
        picks = random.sample(letters, 5)
        bathroom = BATHROOM_BREAK[edition]
        if picks[0] == bathroom:  # Bathroom Break never first: it changes nothing in round 1
            picks[0], picks[-1] = picks[-1], picks[0]
        chosen = picks
    elif preset == "recommended" or any(c not in letters for c in chosen):
        chosen = list(recommended_first_game(edition))
    for field, letter in zip(form.cards, chosen, strict=True):
        field.data = letter


@bp.get("/rebel-princess/new/card-help")
def card_help() -> str:
    """The explanation of the Round card just picked in one set-up select (htmx)."""
    edition = Edition(request.args.get("edition")) if request.args.get("edition") in (
        "deluxe", "classic") else Edition.DELUXE
    field_id = request.args.get("field", "")
    if not (field_id.startswith("cards-") and field_id[6:].isdigit()):
        abort(400)
    letter = request.args.get(field_id, "")
    return render_template("rebel_princess/games/_card_help.html", edition=edition,
                           field_id=field_id,
                           letter=letter, bathroom_letter=BATHROOM_BREAK[edition])


# --- the score pad ---------------------------------------------------------------------------

@bp.get("/g/<code>")
def show(code: str) -> str:
    """The game: this round's card and leader, the score pad, and the result at the end.

    Every phone at the table reloads it after each change: it is rendered once per version,
    link and language for all of them (:func:`links.cached_page`)."""
    session = get_session()
    game = _game_or_404(code)
    players = play.players_of(session, game)
    # Other phones at the table get the viewer link: they watch, they cannot change the pad.
    share_url = links.game_address(game, store.links_of(session, game)["viewer"])
    key = ("rebel_princess.show", game.id, links.version_of(game), share_url,
           tuple((p.seat, p.name, p.princess, p.person_id) for p in players))
    return links.cached_page(key, lambda: _render_show(
        play.view_game(session, game, players=players), share_url))


def _render_show(view: play.GameView, share_url: str) -> str:
    letter = view.state.next_round_card
    return render_template("rebel_princess/games/show.html", view=view, undo_form=EmptyForm(),
                           reminder=_reminder(view), share_url=share_url,
                           qr_svg=qr_svg(share_url),
                           can_enter_tricks=bool(letter) and not view.state.next_is_playoff
                           and tricks_entry.is_supported(view.edition, letter),
                           # The fastest correct entry is the default: counts when they decide.
                           can_enter_counts=bool(letter) and not view.state.next_is_playoff
                           and is_counted_by_princes(view.edition, letter, len(view.players)))


qr_svg = links.qr_svg



def _reminder(view: play.GameView) -> str | None:
    letter = view.state.next_round_card
    if letter is None:
        return None
    try:
        return rulings.round_card_summary(view.edition.value, letter, current_lang())
    except KeyError:
        return None


@bp.get("/g/<code>/rules")
def this_game(code: str) -> str:
    """The rulings of this table only: its Round cards, its Princesses and how they combine."""
    view = _view_or_404(code)
    letters = [*view.game.round_cards, *(r.round_card for r in view.state.rounds if r.playoff)]
    table = rulings.for_table(view.edition.value, tuple(letters),
                              [p.princess or "" for p in view.players])
    return render_template("rebel_princess/games/this_game.html", view=view, table=table)


@bp.get("/g/<code>/history")
def history(code: str) -> str:
    """Every entry, edit and undo, oldest first: nothing is ever lost."""
    view = _view_or_404(code)
    return render_template("rebel_princess/games/history.html", view=view,
                           lines=play.describe_history(
                               play.history_of(get_session(), view.game), game=view.game,
                               players=view.players))


@bp.post("/g/<code>/undo")
def undo(code: str) -> Response:
    """Undo the last entry or edit."""
    view = _view_or_404(code)
    if not EmptyForm().validate_on_submit():
        abort(400)
    version = request.form.get("version", "")
    based_on = int(version) if version.isascii() and version.isdigit() else None
    try:
        record = play.undo_last(session=get_session(), game=view.game, based_on=based_on)
    except play.EntryRejected:
        latest = play.history_of(get_session(), view.game)[-1]
        if based_on is not None and latest.action == "undone" and latest.seq == based_on + 1:
            record = latest  # a double tap: the first tap undid it
        else:
            flash(_("Someone else changed the game meanwhile: nothing was undone. Check the "
                    "pad, then undo again if you still need to."))
            return redirect(url_for("rebel_princess.show", code=code))
    flash(_("Undone: round %(n)s.", n=record.number) if record else _("Nothing to undo."))
    return redirect(url_for("rebel_princess.show", code=code))


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


def _round_context(view: play.GameView, number: int) -> dict[str, Any]:
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
    return {"view": view, "number": number, "record": record, "playoff": playoff,
            "letter": letter, "leader": leader, "edition": view.edition,
            "classic": view.edition is Edition.CLASSIC, "drawable": drawable}


def _playoff_letters(view: play.GameView, number: int) -> list[str]:
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


def _played_from_cards(form: Any, ctx: dict[str, Any], cards: list[Card]) -> PlayedRound:
    """The entry as tapped so far; values that are not seats are left out (the form reports
    them), so a tampered or stale form can never crash the live tally."""
    players = len(ctx["view"].players)
    taken: list[set[Card]] = [set() for _ in range(players)]
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


def _letter_for(ctx: dict[str, Any]) -> str:
    return ctx["letter"] or ("a" if ctx["edition"] is Edition.DELUXE else "A")


def _build_cards_form(ctx: dict[str, Any]) -> tuple[Any, list[Card]]:
    """The by-cards form of this round: a row for each card its Round card scores (none for a
    play-off until the players say which card was drawn)."""
    view, edition, letter = ctx["view"], ctx["edition"], ctx["letter"]
    players = len(view.players)
    cards = list(required_cards(edition, letter, players)) if letter else []
    form = cards_form(players=players, cards=cards,
                      ask_no_tricks=bool(letter) and needs_no_tricks(edition, letter),
                      ask_last_trick=ctx["classic"],
                      ask_round_card=_drawable_choices(ctx))
    return form, cards


def _drawable_choices(ctx: dict[str, Any]) -> list[Any] | None:
    if not ctx["playoff"]:
        return None
    return card_choices(ctx["edition"], only=ctx["drawable"])


def _as_shown(played: PlayedRound, cards: list[Card]) -> PlayedRound:
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
    if request.method == "GET" and ctx["record"] is not None:
        _prefill_cards(form, ctx["record"], len(ctx["view"].players))
    problems: list[Problem] = []
    if request.method == "POST" and _validate(form):
        played = _played_from_cards(form, ctx, cards)
        record = ctx["record"]
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
                           **ctx), status


@bp.post("/g/<code>/round/<int:number>/preview")
def preview_cards(code: str, number: int) -> str:
    """The live tally while cards are being given out (htmx); stores nothing."""
    ctx = _round_context(_view_or_404(code), number)
    form, cards = _build_cards_form(ctx)
    form.validate()
    return render_template("rebel_princess/rounds/_live.html", live=_live(ctx, form, cards),
                           can_count=_counts_allowed(ctx), **ctx)


def _totals_before(ctx: dict[str, Any]) -> tuple[int, ...]:
    view, number = ctx["view"], ctx["number"]
    return tuple(view.state.rounds[number - 2].totals_after if number > 1
                 and number - 2 < len(view.state.rounds) else (0,) * len(view.players))


def _live(ctx: dict[str, Any], form: Any, cards: list[Card]) -> dict[str, Any]:
    """Running scores and lines for the cards given out so far, and what is still missing."""
    played = _played_from_cards(form, ctx, cards)
    letter = _letter_for(ctx)
    found = tally(RoundEntry(ctx["edition"], letter, len(ctx["view"].players),
                             played.taken or (), played.no_tricks, _totals_before(ctx)))
    return {"score": found.score, "missing": list(found.missing),
            "problems": list(found.problems), "letter": letter}


def _build_counts_form(ctx: dict[str, Any]) -> Any:
    """The by-counts form of this round: a Princes picker per player and the Frog."""
    players = len(ctx["view"].players)
    return counts_form(players=players, most=len(princes(players)),
                       ask_no_tricks=needs_no_tricks(ctx["edition"], ctx["letter"]),
                       ask_last_trick=ctx["classic"], ask_round_card=_drawable_choices(ctx))


def _counts_from_form(form: Any, players: int) -> RoundCounts:
    """The counts tapped so far; anything that is not a count or a seat is left out (the form
    reports it)."""
    def count(seat: int) -> int | None:
        value = form[f"princes_{seat}"].data
        return int(value) if value is not None and ASCII_NUMBER.fullmatch(str(value)) else None
    return RoundCounts(tuple(count(s) for s in range(players)), _seat(form.frog.data, players))


def _played_from_counts(form: Any, ctx: dict[str, Any]) -> PlayedRound:
    players = len(ctx["view"].players)
    no_tricks = None
    if "no_trick_0" in form:
        no_tricks = frozenset(s for s in range(players) if form[f"no_trick_{s}"].data)
    return PlayedRound(
        counts=_counts_from_form(form, players), no_tricks=no_tricks,
        leader=_seat(form.leader.data, players),
        last_trick_winner=_seat(form.last_trick.data, players) if "last_trick" in form else None,
        round_card=form.round_card.data if "round_card" in form else None)


def _counts_allowed(ctx: dict[str, Any]) -> bool:
    return bool(ctx["letter"]) and is_counted_by_princes(ctx["edition"], ctx["letter"],
                                                         len(ctx["view"].players))


@bp.route("/g/<code>/round/<int:number>/counts", methods=["GET", "POST"])
def enter_counts(code: str, number: int) -> Response | tuple[str, int]:
    """Enter (or edit) a round by how many Princes each player took and who took the Frog."""
    ctx = _round_context(_view_or_404(code), number)
    if not _counts_allowed(ctx):  # identities score this round: by cards it is
        return redirect(url_for("rebel_princess.enter_cards", code=code, number=number,
                                **({"round_card": ctx["letter"]} if ctx["playoff"] else {})))
    form = _build_counts_form(ctx)
    record = ctx["record"]
    if request.method == "GET" and record is not None:
        _prefill_counts(form, record, len(ctx["view"].players))
    problems: list[Problem] = []
    if request.method == "POST" and _validate(form):
        outcome = _save(ctx, _played_from_counts(form, ctx), "counts", form.base.data)
        if isinstance(outcome, Response):
            return outcome
        problems = outcome
    status = 422 if request.method == "POST" else 200
    return render_template("rebel_princess/rounds/counts.html", form=form, problems=problems,
                           live=_live_counts(ctx, form),
                           most=len(princes(len(ctx["view"].players))), **ctx), status


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
                           oob=True, **ctx)


def _live_counts(ctx: dict[str, Any], form: Any) -> dict[str, Any]:
    """Running scores for the counts tapped so far, and what is still missing: Princes not
    counted yet, the Frog, or counts that add up to too many."""
    played = _played_from_counts(form, ctx)
    assert played.counts is not None
    letter = _letter_for(ctx)
    found = tally_counts(ctx["edition"], letter, len(ctx["view"].players), played.counts,
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


def _save(ctx: dict[str, Any], played: PlayedRound, mode: str, base: str | None
          ) -> Response | list[Problem]:
    """Store the entry and go back to the pad, or return the problems (nothing stored)."""
    view, number = ctx["view"], ctx["number"]
    base_id = int(base) if base else None  # the form checked it is ASCII digits
    try:
        saved = play.save_round(session=get_session(), game=view.game, number=number,
                                played=played, mode=mode, base_id=base_id, view=view)
    except play.EntryRejected as error:
        # Read the game again: the entry that won may have been stored after this page loaded.
        record = play.view_game(get_session(), view.game).record(number)
        if (error.problems[0].code in ("round-already-saved", "stale-edit")
                and record is not None and play.played_from_record(record) == played
                and record.mode == mode):
            # A double tap: the first tap already stored exactly this entry.
            flash(_saved_message(number, base_id))
            return redirect(url_for("rebel_princess.show", code=view.game.code))
        return error.problems
    except (IncompleteEntryError, InvalidValueError) as error:
        return list(error.problems)
    if base_id is not None and saved.id == base_id:
        flash(_("Round %(n)s unchanged: nothing to save.", n=number))
        return redirect(url_for("rebel_princess.show", code=view.game.code))
    flash(_saved_message(number, base_id))
    return redirect(url_for("rebel_princess.show", code=view.game.code))


def _saved_message(number: int, base_id: int | None) -> str:
    return (_("Round %(n)s updated.", n=number) if base_id
            else _("Round %(n)s saved.", n=number))


@bp.route("/g/<code>/round/<int:number>/numbers", methods=["GET", "POST"])
def enter_numbers(code: str, number: int) -> Response | tuple[str, int]:
    """Enter (or edit) a round by typing each player's score, as on paper."""
    ctx = _round_context(_view_or_404(code), number)
    view = ctx["view"]
    players = len(view.players)
    form = numbers_form(players=players, ask_last_trick=ctx["classic"],
                        ask_round_card=_drawable_choices(ctx))
    record = ctx["record"]
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
                           warnings=warnings, **ctx), status


@bp.get("/rebel-princess/rules/round-cards/<edition>/<letter>")
def round_card_help(edition: str, letter: str) -> Response:
    """A Round card's rulings entry, found by edition and letter."""
    try:
        slug = rulings.round_card(edition, letter).slug
    except KeyError:
        abort(404)
    return redirect(url_for("rebel_princess.rule", slug=slug))


@bp.get("/rebel-princess/rules")
def rules_index() -> str:
    """Search the rulings, or browse them by kind."""
    query = request.args.get("q", "").strip()[:80]
    edition = request.args.get("edition") if request.args.get("edition") in (
        "deluxe", "classic") else None
    found = rulings.search(query, edition=edition) if query else None
    return render_template("rebel_princess/rules/index.html", query=query, found=found,
                           edition=edition,
                           entries=rulings.entries(edition=edition))


@bp.get("/rebel-princess/rules/<slug>")
def rule(slug: str) -> str:
    """One rulings entry: the card or power in full, how the app reads it, and related entries."""
    try:
        found = rulings.entry(slug)
    except KeyError:
        abort(404)
    return render_template("rebel_princess/rules/entry.html", entry=found,
                           text=found.in_language(current_lang()),
                           related=rulings.links_of(slug))
