"""The phone web app: games list, new game, the score pad, round entry, undo and history."""

from __future__ import annotations

import random
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
from wtforms import Field

from ...common.bounds import page_number, whole_or_none
from ...db import get_session
from ...history.charts import line_chart
from ...models import Game, RoundRecord
from ...play import page_reads, store
from ...play import rebel_princess as play
from ...play import rebel_princess_tricks as tricks_entry
from ...play.rebel_princess_history_lines import describe_history
from ...rulings import rebel_princess as rulings
from ...scoring.rebel_princess import (
    BATHROOM_BREAK,
    Edition,
    InvalidValueError,
    is_counted_by_princes,
    recommended_first_game,
    round_card,
    round_cards,
)
from ...web.i18n import current_lang
from .. import addresses, page_store, qr
from ..groups import group_for_new_game
from ..links import appends_records, game_to_play_again, reads_only
from ..replays import form_key, refusal
from ..shell import remember
from .blueprints import bp
from .forms import (
    PadUndoForm,
    RebelPrincessNewGameForm,
    card_choices,
)

bp.add_app_template_global(round_card, "round_card")


@bp.app_template_global("bathroom_letter")
def bathroom_letter(edition: Edition | str) -> str:
    """Bathroom Break's letter in ``edition``, from the Round card catalogue."""
    return BATHROOM_BREAK[Edition(edition)]


@bp.app_template_global("first_game_cards")
def first_game_cards(edition: Edition | str) -> tuple[str, ...]:
    """The rulebook's five Round cards for a first game in ``edition``, from the catalogue."""
    return recommended_first_game(Edition(edition))


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


def render_page_or_partial(page: str, partial: str, status: int = 200, **context: Any
                           ) -> tuple[str, int]:
    """The partial for an htmx request, the full page otherwise."""
    template = partial if request.headers.get("HX-Request") == "true" else page
    return render_template(template, **context), status


def _game_or_404(code: str) -> Game:
    """The game this request opened through its link (read with the link), else by code."""
    game: Game | None = g.get("link_game")
    if game is None or game.code != code or game.kind != play.KIND:
        game = play.get_game(get_session(), code)
        if game is None:
            abort(404)
    return game


def _view_or_404(code: str) -> play.RebelGameView:
    return play.view_game(get_session(), _game_or_404(code))


NEW_PAGE = "rebel_princess/games/new.html"
NEW_FORM = "rebel_princess/games/_new_form.html"


# --- games list and set-up -------------------------------------------------------------------

@bp.route("/new", methods=["GET", "POST"])
def new_game() -> Response | tuple[str, int]:
    """Set up a game; the preset buttons fill in the Round cards."""
    form = RebelPrincessNewGameForm()
    if request.method == "GET":
        # A French table most likely owns the French box, Rebelles Princesses (issue 22).
        form.edition.data = "classic" if current_lang() == "fr" else "deluxe"
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
                princesses=[p.data for p in form.princesses][: len(names)],
                group_id=group_for_new_game())
        except InvalidValueError as error:  # the field the core names (the Round cards if none)
            named: Field = form.princesses if error.problem.field == "princesses" else form.cards
            named.errors = [error.problem.text(current_lang(), names)]
        else:
            remember(game.code)
            flash(_("Game created. Have a lovely party!"))
            return redirect(url_for("rebel_princess.show", code=game.code))
    return render_page_or_partial(NEW_PAGE, NEW_FORM, 422, form=form, edition=edition,
                                  princesses=rulings.princess_names(current_lang()))


def _fill_again(form: RebelPrincessNewGameForm) -> None:
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


def _fill_cards(form: RebelPrincessNewGameForm, edition: Edition, preset: str,
                letters: list[str]) -> None:
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


@bp.get("/new/card-help")
def card_help() -> str:
    """The explanation of the Round card just picked in one set-up select (htmx)."""
    asked = request.args.get("edition", "")
    edition = Edition(asked) if asked in ("deluxe", "classic") else Edition.DELUXE
    field_id = request.args.get("field", "")
    if not (field_id.startswith("cards-") and field_id[6:].isdigit()):
        abort(400)
    letter = request.args.get(field_id, "")
    return render_template("rebel_princess/games/_card_help.html", edition=edition,
                           field_id=field_id,
                           letter=letter, bathroom_letter=BATHROOM_BREAK[edition])


# --- the score pad ---------------------------------------------------------------------------

@bp.get("/g/<code>")
@reads_only
def show(code: str) -> str:
    """The game: this round's card and leader, the score pad, and the result at the end.

    Every phone at the table reloads it after each change: it is rendered once per version,
    link and language for all of them (:func:`page_store.cached_page`)."""
    session = get_session()
    game = _game_or_404(code)
    assert game.id is not None
    # (on PostgreSQL one round trip on the polls' reader; else through the session)
    players, links = (page_reads.seats_and_links(session, game.id)
                      or (play.players_of(session, game), store.live_links(session, game)))
    if not players:  # (deleted with its group since its link was read)
        raise store.GameGone
    # Other phones at the table get the viewer link: they watch, they cannot change the pad.
    page_store.live_links_are(game, [link.id for link in links if link.id is not None])
    share_url = addresses.game_address(game, {link.role: link for link in links}["viewer"])
    key = ("rebel_princess.show", game.id, page_store.version_of(game), share_url,
           tuple((p.seat, p.name, p.princess, p.person_id) for p in players))
    return page_store.cached_page(key, lambda: _render_show(
        play.view_game(session, game, players=players), share_url))


def _render_show(view: play.RebelGameView, share_url: str) -> str:
    letter = view.state.next_round_card or ""  # ("": none to enter)
    # The running totals' chart from the replay just made (what the game's kept summary
    # holds, made by the same function at each save), not read and decoded again.
    summary = play.summary_from(view.game, view.state)
    return render_template("rebel_princess/games/show.html", view=view, chart=line_chart(
                               [p.name for p in view.players], summary.progress,
                               summary.winners, summary.step),
                           undo_form=PadUndoForm().fresh(),
                           reminder=_reminder(view), share_url=share_url,
                           qr_svg=qr_svg(share_url),
                           can_enter_tricks=bool(letter) and not view.state.next_is_playoff
                           and tricks_entry.is_supported(view.edition, letter),
                           # The fastest correct entry is the default: counts when they decide.
                           can_enter_counts=bool(letter) and not view.state.next_is_playoff
                           and is_counted_by_princes(view.edition, letter, len(view.players)))


qr_svg = qr.qr_svg



def _reminder(view: play.RebelGameView) -> str | None:
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
    letters = [*(view.game.round_cards or ""),
               *(r.round_card for r in view.state.rounds if r.playoff)]
    table = rulings.for_table(view.edition.value, tuple(letters),
                              [p.princess or "" for p in view.players])
    return render_template("rebel_princess/games/this_game.html", view=view, table=table)


HISTORY_PAGE = 50
"""Records per page of a game's history (page 1: the newest, each page oldest first)."""


@bp.get("/g/<code>/history")
def history(code: str) -> str:
    """Every entry, edit and undo, oldest first, by pages of the newest first: nothing is ever
    lost, and a page replays only its own records."""
    view = _view_or_404(code)
    page = request.args.get("page", 1, type=page_number)
    records = play.history_of(get_session(), view.game)
    stop = max(len(records) - (page - 1) * HISTORY_PAGE, 0)
    first = max(stop - HISTORY_PAGE, 0)
    return render_template("rebel_princess/games/history.html", view=view, page=page,
                           first=first, older=first > 0, lines=describe_history(
                               records[:stop], game=view.game, players=view.players,
                               first=first))


@bp.post("/g/<code>/undo")
@appends_records
def undo(code: str) -> Response:
    """Undo the last entry or edit."""
    view = _view_or_404(code)
    form = PadUndoForm()
    if not form.validate_on_submit():
        abort(400)
    based_on = whole_or_none(request.form.get("version", ""))
    undone: list[RoundRecord | None] = []

    def moved_on(_problems: object = None) -> Response:
        flash(_("Someone else changed the game meanwhile: nothing was undone. Check the "
                "pad, then undo again if you still need to."))
        return redirect(url_for("rebel_princess.show", code=code))

    refused = refusal(
        lambda: undone.append(play.undo_entry(session=get_session(), game=view.game,
                                              based_on=based_on, key=form_key(form.key.data))),
        problems=moved_on, stale=moved_on, conflict=moved_on)
    if refused is not None:
        return refused
    record = undone[0]
    flash(_("Undone: round %(n)s.", n=record.number) if record else _("Nothing to undo."))
    return redirect(url_for("rebel_princess.show", code=code))


@bp.get("/rules/round-cards/<edition>/<letter>")
def round_card_help(edition: str, letter: str) -> Response:
    """A Round card's rulings entry, found by edition and letter."""
    try:
        slug = rulings.round_card(edition, letter).slug
    except KeyError:
        abort(404)
    return redirect(url_for("rebel_princess.rule", slug=slug))


@bp.get("/rules")
def rules_index() -> str:
    """Search the rulings, or browse them by kind."""
    query = request.args.get("q", "").strip()[:80]
    edition = request.args.get("edition") if request.args.get("edition") in (
        "deluxe", "classic") else None
    found = rulings.search(query, edition=edition) if query else None
    return render_template("rebel_princess/rules/index.html", query=query, found=found,
                           edition=edition,
                           entries=rulings.entries(edition=edition))


@bp.get("/rules/<slug>")
def rule(slug: str) -> str:
    """One rulings entry: the card or power in full, how the app reads it, and related entries."""
    try:
        found = rulings.entry(slug)
    except KeyError:
        abort(404)
    return render_template("rebel_princess/rules/entry.html", entry=found,
                           text=found.in_language(current_lang()),
                           related=rulings.links_of(slug))
