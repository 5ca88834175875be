"""The Kanai duel's phone pages: set-up, a game in referee mode (one phone taps both revealed
cards) or two-phone mode (each phone picks secretly; the server reveals both at once), live
updates, undo.

Views parse a form, call one function of :mod:`companion.play.kanai_duel` and redirect (303) to
the game, or re-render it with the problems (422) or the news that someone else changed the game
(409); nothing is stored then.

Two phones: each seat has its own link, and acts only through it. The creator's phone holds seat
1's link; the second phone scans the join code (seat 2's link), sees a page with a Join button and
takes the seat by pressing it (a POST). The browser that took a seat keeps a secret for that link
in its signed session cookie; any other browser opening the link is told the seat is taken. Seat
links may post only to the views marked :func:`~companion.routes.links.for_seats` (pick, join,
and the creator's re-invite); the referee's round and undo refuse two-phone games.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import abort, g, make_response, redirect, render_template, request, session, url_for
from flask_babel import gettext as _
from werkzeug.wrappers import Response

from ...db import get_session
from ...forms.fields import required
from ...models import Game, GameLink
from ...play import kanai_duel as play
from ...play import store
from ...scoring.kanai_duel import CATALOGUE, DuelCard, DuelSetAside, Step, card_words
from ...scoring.problems import LANGUAGES, EntryError, Problem
from ...web.i18n import current_lang
from ...web.requests import itself
from .. import links, page_store, qr
from ..addresses import public_base
from ..groups import group_for_new_game
from ..links import appends, entry_page, for_seats, game_to_play_again, reads_only
from ..replays import form_key, refusal
from ..shell import remember
from .blueprints import bp
from .forms import (
    JoinForm,
    KanaiDuelNewGameForm,
    PickForm,
    ReinviteForm,
    RoundForm,
    RoundSent,
    UndoForm,
    round_sent,
)

SEATS = "kanai_duel_links"
"""The session's secrets of the seat links this browser took: ``{link token: secret}``."""


# --- helpers for templates ----------------------------------------------------------------------

@bp.app_template_filter("kd_step")
def step_text(step: Step, names: list[str]) -> str:
    """A reasoning step in the page's language, naming the players, as a sentence (its first
    letter a capital)."""
    said = step.text(current_lang(), names)
    return said[:1].upper() + said[1:]


_LABELS = {lang: {card.value: card.label(lang) for card in DuelCard} for lang in LANGUAGES}
"""Each card's printed name (:meth:`DuelCard.label`) by language and notation: a page names
the same eight cards some thirty times."""


@bp.app_template_filter("kd_card")
def card_label(card: DuelCard | str) -> str:
    """A card's printed name in the page's language."""
    return _LABELS[current_lang()][card]


@bp.app_template_global("kd_rule_urls")
def rule_urls() -> Callable[[str], str]:
    """The address of a rulings entry of the duel, made once per entry for the drawing that
    asks (a page links the same few entries from each round's steps)."""
    made: dict[str, str] = {}

    def rule_url(slug: str) -> str:
        url = made.get(slug)
        if url is None:
            url = made[slug] = url_for("shell.game_rule", kind="kanai-duel", slug=slug)
        return url
    return rule_url


qr_svg = qr.qr_svg  # bounded: each Host header would make another address to draw


# --- seats of this phone ------------------------------------------------------------------------

def _secret(token: str) -> str | None:
    secrets = session.get(SEATS)
    secret = secrets.get(token) if isinstance(secrets, dict) else None
    return secret if isinstance(secret, str) else None


def _keep_secret(token: str, secret: str) -> None:
    secrets = session.get(SEATS)
    secrets = dict(secrets) if isinstance(secrets, dict) else {}
    secrets.pop(token, None)
    secrets[token] = secret
    session[SEATS] = dict(list(secrets.items())[-30:])


def _seat(game: Game) -> int | None:
    """The seat this request acts for: that of the seat link it came through, if this browser
    took it; None for the viewer link, the scorer link and a seat not taken yet. A seat link
    another browser took opens nothing here (403)."""
    link = g.get("link")
    if link is None:
        return None
    if play.seat_of_link(link) is None and request.method == "GET":
        _move_to_seat_link(game)
    try:
        return play.holder(get_session(), game, link, _secret(link.token))
    except play.Taken:
        abort(_taken(game))


LEGACY_SEATS = "kanai_duel_seats"
"""Where browsers kept a seat's secret key per game code before seat links (two-phone games
stored before them)."""


def _move_to_seat_link(game: Game) -> None:
    """A two-phone game stored before seat links, opened by a browser that kept a seat's secret
    key (the creator's, or the phone that scanned the old code): that browser is sent to its
    seat's link (migration 0010 gave every such game its seat links) — its join page, whose
    button takes the seat, or the seat itself once this browser took it. Nothing is written on
    this GET."""
    keys = session.get(LEGACY_SEATS)
    key = keys.get(game.code) if isinstance(keys, dict) else None
    seat = play.legacy_seat(game, key if isinstance(key, str) else None)
    link = play.seat_link(get_session(), game, seat) if seat is not None else None
    if link is None:
        return
    target = "kanai_duel.show" if _secret(link.token) is not None else "kanai_duel.join"
    abort(redirect(url_for(target, code=link.token), 303))


def _keep_seats(renamed: dict[str, str]) -> None:
    """Links this browser holds were replaced (its group's, all at once): the seats it took
    under the old links it takes again under the new ones; the other seats wait for a browser
    given the new link."""
    db = get_session()
    for old, new in renamed.items():
        secret = _secret(old)
        found = store.link_and_game(db, new) if secret is not None else None
        if secret is None or found is None:
            continue
        link, game = found
        try:
            _keep_secret(link.token, play.claim(session=db, game=game, link=link, secret=secret))
        except play.Taken:
            continue


@bp.record_once
def _on_links_renamed(state: Any) -> None:
    state.app.extensions.setdefault(links.RENAMED, []).append(_keep_seats)


def _taken(game: Game) -> Response:
    """A seat's link that another browser took: it opens nothing here (no game, no link)."""
    g.pop("link", None)
    names = store.names_of(get_session(), game)
    return make_response(render_template("kanai_duel/seat.html", taken=True, game=game,
                                         names=names, form=None), 403)


def _unclaimed_seat() -> bool:
    """Whether this request came through a seat link no browser has taken yet."""
    link = g.get("link")
    return link is not None and play.seat_of_link(link) is not None


def _game_or_404(code: str) -> Game:
    game = links.opened_game(code, play.KIND)  # (the game read with the request's link)
    if game is None:
        abort(404)
    return game


# --- set-up -------------------------------------------------------------------------------------

@bp.route("/new", methods=["GET", "POST"])
def new_game() -> Response | tuple[str, int]:
    """Set up a duel: names, one phone or two, variants."""
    form = KanaiDuelNewGameForm()
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


def _fill_again(form: KanaiDuelNewGameForm) -> None:
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


def _set_aside_problem(form: KanaiDuelNewGameForm) -> str | None:
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


def _create(form: KanaiDuelNewGameForm) -> Response:
    db = get_session()
    names = [required(form.first.data), required(form.second.data)]
    game, secret = play.create(session=db, names=names,
                               mode=form.mode.data or play.REFEREE, variants=form.variants(),
                               out=form.out(), group_id=group_for_new_game())
    if secret is None:
        remember(game.code)
        return redirect(url_for("kanai_duel.show", code=game.code), 303)
    link = play.seat_link(db, game, 0)
    assert link is not None
    _keep_secret(link.token, secret)
    remember(link.token)
    return redirect(url_for("kanai_duel.show", code=link.token), 303)


# --- a game -------------------------------------------------------------------------------------

def _seat_or_join(game: Game) -> int | None:
    """The seat this request acts for (see :func:`_seat`); a seat's link not taken yet goes to
    its Join page."""
    seat = _seat(game)
    if seat is None and _unclaimed_seat():
        abort(redirect(url_for("kanai_duel.join", code=g.link.token), 303))
    return seat


def _context(game: Game, seat: int | None, *, problems: list[Problem] | None = None,
             stale: bool = False, round_form: RoundForm | None = None,
             pick_form: PickForm | None = None) -> dict[str, Any]:
    view = play.view_game(get_session(), game, seat)
    context: dict[str, Any] = {
        "view": view, "problems": problems or [], "stale": stale,
        "DuelSetAside": DuelSetAside, "cards": list(DuelCard),
    }
    # The forms of this mode's page only (_referee.html and the undo: one phone; _phones.html:
    # two), each for this version.
    if view.mode == play.PHONES:
        pick_form = (pick_form or PickForm(formdata=None)).fresh(view.version)
        pick_form.round.data = str(view.stage)
        context.update(pick_form=pick_form,
                       reinvite_form=ReinviteForm(formdata=None).fresh(view.version))
    else:
        context.update(round_form=(round_form or RoundForm(formdata=None)).fresh(view.version),
                       undo_form=UndoForm(formdata=None).fresh(view.version))
    if view.mode == play.PHONES and seat is not None:  # others at the table may watch
        watch_url = public_base() + url_for("kanai_duel.show", code=store.links_of(
            get_session(), game)["viewer"].token)
        context.update(watch_url=watch_url, watch_qr=qr_svg(watch_url))
    if view.mode == play.PHONES and seat == 0 and not view.joined:
        other = play.seat_link(get_session(), game, 1)
        if other is not None:  # the address other phones use, as on « Other phones »
            join_url = public_base() + url_for("kanai_duel.join", code=other.token)
            context.update(join_url=join_url, join_qr=qr_svg(join_url))
    return context


def _page(game: Game, status: int = 200, **kwargs: Any) -> tuple[str, int]:
    context = _context(game, _seat_or_join(game), **kwargs)
    template = ("kanai_duel/_board.html" if request.headers.get("HX-Request") == "true"
                else "kanai_duel/show.html")
    return render_template(template, **context), status


@bp.get("/g/<code>")
@reads_only
@entry_page
def show(code: str) -> str:
    """A game: score, holds, what carries over, the last round's reasoning, and the entry.

    Every phone reloads it (or its board) after each change: it is drawn once per version and
    link (so per seat: each seat's link shows its own hidden cards) and language for all of
    them (:func:`page_store.game_page`); a seat's page only ever reaches the browser that took
    it."""
    template = ("kanai_duel/_board.html" if request.headers.get("HX-Request") == "true"
                else "kanai_duel/show.html")
    return _drawn(code, template)


@bp.get("/g/<code>/board")
@entry_page
def board(code: str) -> str:
    """The board alone (what the live update swaps in), drawn once per version as the page."""
    return _drawn(code, "kanai_duel/_board.html")


def _drawn(code: str, template: str) -> str:
    game = links.opened_game(code, play.KIND)
    if game is None:
        abort(404)
    seat = _seat_or_join(game)  # before the drawing: who may see this seat's page at all
    return page_store.game_page(game, lambda: render_template(template, **_context(game, seat)))


@bp.get("/g/<code>/version")
def version(code: str) -> Response:
    """The game's version, with an ETag: 304 when the phone already has it (live updates)."""
    game = _game_or_404(code)
    number = store.version(get_session(), game)
    response = Response(f'{{"version": {number}}}', mimetype="application/json")
    response.set_etag(f"v{number}")
    response.headers["Cache-Control"] = "no-cache"
    return response.make_conditional(request)


def _replayed(game: Game, conflict: store.KeyConflict) -> tuple[str, int]:
    """A changed copy of a form already saved: nothing stored; the page says what is stored."""
    stored = conflict.stored
    card, cards = stored.data.get("card"), stored.data.get("cards")
    known = {c.value for c in DuelCard}
    if card in known:
        problem = CATALOGUE.problem("form-already-saved-card", card=card,
                                    **card_words(DuelCard(card)))
    elif isinstance(cards, list) and len(cards) == 2 and all(c in known for c in cards):
        first, second = (card_words(DuelCard(c)) for c in cards)
        problem = CATALOGUE.problem("form-already-saved-round", first_en=first["name_en"],
                                    first_fr=first["name_fr"], second_en=second["name_en"],
                                    second_fr=second["name_fr"])
    else:
        problem = CATALOGUE.problem("form-already-saved")
    return _page(game, 409, problems=[problem])


@bp.post("/g/<code>/round")
@appends
def play_round(code: str) -> Response | tuple[str, int]:
    """Referee mode: the two revealed cards (two-phone games refuse it)."""
    game = _game_or_404(code)
    sent = round_sent(itself(request))  # (the page's fixed shape, read without binding a form)
    if sent is None:
        form = RoundForm()
        if not form.validate_on_submit():
            problem = CATALOGUE.problem("tap-both-cards")
            return _page(game, 422, problems=[problem], round_form=form)
        sent = RoundSent(form.first.data or "", form.second.data or "", form.version.data or "",
                         form.key.data)
    refused = refusal(
        lambda: play.play_round(session=get_session(), game=game,
                                cards=[sent.first, sent.second],
                                based_on=sent.based_on(), key=form_key(sent.key)),
        problems=lambda found: _page(game, 422, problems=found, round_form=RoundForm()),
        stale=lambda: _page(game, 409, stale=True), conflict=lambda c: _replayed(game, c))
    return refused or redirect(url_for("kanai_duel.show", code=code), 303)


@bp.post("/g/<code>/undo")
@appends
def undo(code: str) -> Response | tuple[str, int]:
    """Referee mode: take back the last round (two-phone games refuse it: a revealed round is
    never reopened)."""
    game = _game_or_404(code)
    form = UndoForm()
    if not form.validate_on_submit():
        abort(400)
    refused = refusal(
        lambda: play.undo(session=get_session(), game=game, based_on=form.based_on(),
                          key=form_key(form.key.data)),
        problems=lambda found: _page(game, 422, problems=found),
        stale=lambda: _page(game, 409, stale=True), conflict=lambda c: _replayed(game, c))
    return refused or redirect(url_for("kanai_duel.show", code=code), 303)


@bp.post("/g/<code>/pick")
@for_seats
def pick(code: str) -> Response | tuple[str, int]:
    """Two-phone mode: this seat's secret pick, for the round the page showed (cannot be changed
    once made)."""
    game = _game_or_404(code)
    seat = _seat(game)
    if seat is None:
        abort(403)
    form = PickForm()
    if not form.validate_on_submit():
        return _page(game, 422, problems=[CATALOGUE.problem("tap-a-card")], pick_form=form)
    refused = refusal(
        lambda: play.pick(session=get_session(), game=game, seat=seat,
                          card=form.card.data or "", for_stage=form.stage(),
                          based_on=form.based_on()),
        problems=lambda found: _page(game, 422, problems=found, pick_form=form),
        stale=lambda: _page(game, 409, stale=True), conflict=lambda c: _replayed(game, c))
    return refused or redirect(url_for("kanai_duel.show", code=code), 303)


def _holds_another_seat(game: Game, link: GameLink) -> bool:
    """Whether this browser already plays another seat of ``game``."""
    for seat in range(len(store.SEAT_ROLES)):
        other = play.seat_link(get_session(), game, seat)
        if other is None or other.id == link.id or _secret(other.token) is None:
            continue
        try:
            if play.holder(get_session(), game, other, _secret(other.token)) == seat:
                return True
        except play.Taken:
            continue
    return False


def _join_page(game: Game, status: int = 200) -> tuple[str, int]:
    link = g.link
    seat = play.seat_of_link(link)
    return render_template("kanai_duel/seat.html", taken=False, game=game, seat=seat,
                           names=store.names_of(get_session(), game),
                           form=JoinForm(formdata=None), share_page_url=None), status


@bp.route("/g/<code>/join", methods=["GET", "POST"])
@entry_page
@for_seats
def join(code: str) -> Response | tuple[str, int]:
    """Two-phone mode: the page the join code opens (a seat's link not taken yet): its button
    takes the seat for this browser, once. A seat taken by this browser goes to the game; by
    another browser, opens nothing (403)."""
    game = _game_or_404(code)
    link = g.get("link")
    if link is None or play.seat_of_link(link) is None:
        abort(404)
    if _seat(game) is not None:  # this browser took it already (a double tap, a reload)
        return redirect(url_for("kanai_duel.show", code=code), 303)
    if _holds_another_seat(game, link):  # one phone plays one seat, never both
        return _taken(game)
    if request.method == "GET":
        return _join_page(game)
    if not JoinForm().validate_on_submit():
        return _join_page(game, 400)
    try:
        secret = play.claim(session=get_session(), game=game, link=link)
    except play.Taken:
        return _taken(game)
    _keep_secret(link.token, secret)
    remember(link.token)
    return redirect(url_for("kanai_duel.show", code=code), 303)


@bp.post("/g/<code>/reinvite")
@for_seats
def reinvite(code: str) -> Response | tuple[str, int]:
    """Two-phone mode, the creator's phone only: a new link for the other seat (a lost phone).
    Every phone sees it was done; the old link opens nothing."""
    game = _game_or_404(code)
    if _seat(game) != 0:
        abort(403)
    form = ReinviteForm()
    if not form.validate_on_submit():
        abort(400)
    refused = refusal(
        lambda: play.reinvite(session=get_session(), game=game, seat=1,
                              based_on=form.based_on(), key=form_key(form.key.data)),
        problems=lambda found: _page(game, 422, problems=found),
        stale=lambda: _page(game, 409, stale=True),
        # the creator's re-invite was already done with this form: the page shows it
        conflict=lambda _conflict: None)
    return refused or redirect(url_for("kanai_duel.show", code=code), 303)
