"""Enter tricks: one phone taps in each card as it is played; winners, breaches and the score
follow at once. Every tap is a small POST (htmx swaps ``#trick-entry``; without JS the page
reloads), and the log lives in the database so any phone at the table sees the same round.

A request reads the round once (:func:`~companion.play.rebel_princess_tricks.open_round`: its row
and its judge), dispatches the tap to one glue function, and draws the screen from the same
judge. The Princess options shown come from each power's declaration."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from flask import (
    abort,
    flash,
    get_template_attribute,
    make_response,
    redirect,
    render_template,
    request,
    url_for,
)
from flask_babel import gettext
from markupsafe import Markup
from werkzeug.wrappers import Response

from ...db import get_session
from ...play import rebel_princess as play
from ...play import rebel_princess_tricks as entry
from ...play.store import KeyConflict
from ...rulings import rebel_princess as rulings
from ...scoring.problems import Problem
from ...scoring.rebel_princess import (
    Edition,
    InvalidValueError,
    RebelCard,
    deck,
    round_card,
)
from ...scoring.rebel_princess.engine import InvalidEntryError, WinReason, power_class
from ...scoring.rebel_princess.engine.powers import zero_rank
from ...web.i18n import current_lang
from ..page_store import page_form_key
from ..replays import form_key, refusal
from .blueprints import bp
from .forms import TrickForm
from .pages import render_page_or_partial
from .rounds import _round_context

#: The highest card the zero power takes, as its Princess declares it (the grid dims the others).
ZERO_RANK = zero_rank()


@dataclass(frozen=True)
class CardFace:
    """One card of the grid as drawn: what never changes during a round (its label and icon in
    the page's language, whether the zero power can take it)."""

    card: RebelCard
    code: str
    rank: int
    frog: bool
    high: bool
    label: Markup
    icon: Markup


class Faces:
    """Card chips, card names and suit icons as the shared macros (``_macros.html``) draw them,
    drawn once per language and edition and reused: a trick screen shows up to 48 cards and 60
    chips, and drawing each through its macro cost more than judging the tap."""

    def __init__(self, edition: str) -> None:
        self.edition = edition
        self._chips: dict[RebelCard, Markup] = {}
        self._labels: dict[RebelCard, Markup] = {}
        self._icons: dict[str, Markup] = {}
        self._reasons: dict[tuple[WinReason, str], Markup] = {}
        self._decks: dict[int, list[tuple[str, list[CardFace]]]] = {}
        self._lines: dict[tuple[Any, ...], Markup] = {}

    def deck(self, players: int) -> list[tuple[str, list[CardFace]]]:
        """The grid's cards by suit (Princes, Queens, Fairies, Pets), lowest first."""
        found = self._decks.get(players)
        if found is None:
            found = self._decks[players] = [
                (suit.value, [CardFace(card, card.code, card.rank, card.is_frog,
                                       ZERO_RANK is not None and card.rank > ZERO_RANK,
                                       self.label(card), self.icon(suit.value))
                              for card in deck(players) if card.suit is suit])
                for suit in entry.SUITS]
        return found

    def chip(self, card: RebelCard) -> Markup:
        found = self._chips.get(card)
        if found is None:
            found = self._chips[card] = get_template_attribute("_macros.html", "chip")(
                card, self.edition)
        return found

    def label(self, card: RebelCard) -> Markup:
        found = self._labels.get(card)
        if found is None:
            found = self._labels[card] = get_template_attribute("_macros.html", "card_name")(
                card)
        return found

    def icon(self, suit: str) -> Markup:
        found = self._icons.get(suit)
        if found is None:
            found = self._icons[suit] = get_template_attribute("_macros.html", "suit_icon")(
                suit, self.edition)
        return found


    def reason(self, reason: WinReason, rule_name: str) -> Markup:
        """Why a trick was won, in the page's language (:func:`reason_words`)."""
        key = (reason, rule_name)
        found = self._reasons.get(key)
        if found is None:
            found = self._reasons[key] = Markup.escape(reason_words(reason, rule_name))
        return found


    def lines(self, lines: Sequence[Any]) -> Markup:
        """A seat's score lines, as ``lines_list`` draws them."""
        key = tuple(lines)
        found = self._lines.get(key)
        if found is None:
            found = self._lines[key] = get_template_attribute("_macros.html", "lines_list")(
                list(lines))
        return found


_FACES: dict[tuple[str, str], Faces] = {}


class GridRows:
    """Draws one suit of the deck (``_grid_row.html``), once for each set of its cards played:
    a tap changes one suit at most, and the deck is most of the screen."""

    _drawn: OrderedDict[tuple[Any, ...], Markup] = OrderedDict()
    _size = 4096

    def __init__(self, faces: Faces, players: int) -> None:
        self.base = (current_lang(), faces.edition, players)

    @classmethod
    def forget(cls) -> None:
        cls._drawn.clear()

    def __call__(self, suit: str, row: Sequence[CardFace], played: frozenset[RebelCard],
                 forced: RebelCard | None, pick: Any) -> Markup:
        draw = get_template_attribute("rebel_princess/tricks/_grid_row.html", "grid_row")
        if pick:  # (cards being chosen for a power: drawn each time)
            return draw(suit, row, played, forced, pick)  # type: ignore[no-any-return]
        gone = frozenset(face.card for face in row if face.card in played)
        key = (*self.base, suit, gone, forced if forced is not None and forced.suit.value == suit
               else None)
        drawn = self._drawn.get(key)
        if drawn is None:
            drawn = self._drawn[key] = draw(suit, row, played, forced, pick)
            while len(self._drawn) > self._size:
                self._drawn.popitem(last=False)
        return drawn


class PastTricks:
    """Draws one trick of the list of tricks played (``_past_trick.html``), once: a trick that
    has not changed since it was drawn, for the same table, language and card being fixed, is
    reused (the list grows to 18 tricks, and only the last one changes while a round is
    entered)."""

    _drawn: OrderedDict[tuple[Any, ...], Markup] = OrderedDict()
    _size = 4096

    @classmethod
    def forget(cls) -> None:
        cls._drawn.clear()

    def __init__(self, faces: Faces, names: Sequence[str], short_names: Sequence[str],
                 fix_url: str, fix: int | None, rule_name: str) -> None:
        self.faces, self.fix_url, self.fix, self.rule_name = faces, fix_url, fix, rule_name
        self.names, self.short_names = list(names), list(short_names)
        self.base = (current_lang(), faces.edition, fix_url, tuple(names), tuple(short_names),
                     rule_name)

    def __call__(self, trick: entry.TrickView) -> Markup:
        fix = self.fix if any(p.position == self.fix for p in trick.plays) else None
        key = (*self.base, fix, trick)
        drawn = self._drawn.get(key)
        if drawn is None:
            drawn = get_template_attribute("rebel_princess/tricks/_past_trick.html",
                                           "past_trick")(
                trick, self.names, self.short_names, self.fix_url, fix, self.faces,
                self.rule_name)
            self._drawn[key] = drawn
            while len(self._drawn) > self._size:
                self._drawn.popitem(last=False)
        return drawn


def faces(edition: Edition) -> Faces:
    """The :class:`Faces` of ``edition`` in the page's language."""
    key = (current_lang(), edition.value)
    if key not in _FACES:
        _FACES[key] = Faces(edition.value)
    return _FACES[key]


def forget_drawings() -> None:
    """Drop the drawings kept of rounds (deck suits, past tricks): the next screens are drawn as
    by a server process that never drew these rounds. (The cards' faces, the same for every
    round of a language, stay.)"""
    GridRows.forget()
    PastTricks.forget()


@dataclass(frozen=True)
class TrickContext:
    """The round whose tricks are entered: the game, its number, Round card and first leader."""

    view: play.RebelGameView
    number: int
    letter: str
    leader: Any  # the scoring core's Leader of this round (seat and reason)

    @property
    def seat_leader(self) -> int:
        return int(self.leader.seat)

    @property
    def edition(self) -> Edition:
        return self.view.edition

    def open(self) -> entry.TrickEntry:
        """The round's row and judge, read once for this request. A table the engine cannot
        seat (a game stored before set-up refused it: one Princess at two seats) is said so on
        a page of its own, never a 500."""
        try:
            return entry.open_round(session=get_session(), view=self.view, number=self.number,
                                    letter=self.letter, leader=self.seat_leader)
        except InvalidEntryError:
            abort(make_response(render_template(
                "rebel_princess/tricks/impossible.html", view=self.view, number=self.number),
                200 if request.method == "GET" else 409))


@dataclass(frozen=True)
class PowerOption:
    """A Princess power at the table that can still be entered, with its one-line reminder and
    what its declaration says the screen asks for (``entry``: see
    :attr:`~companion.scoring.rebel_princess.engine.Power.entry`)."""

    seat: int
    slug: str
    name: str
    power: str
    reminder: str
    arg: str | None
    on_lead: bool
    max_rank: int | None
    needs_target: bool = False
    kind: str = ""  # how a use is shown (see power_kind)


@dataclass(frozen=True)
class ZeroOption:
    """The zero power: a switch while it is her turn (``when="before"``), or a button on the
    card she just played (``when="after"``, with ``card``)."""

    option: PowerOption
    when: str
    card: RebelCard | None = None

    @property
    def seat(self) -> int:
        return self.option.seat


@dataclass(frozen=True)
class HaggleOption:
    seat: int
    takes: tuple[RebelCard, ...]


@dataclass(frozen=True)
class AfterOptions:
    """What can happen right after the trick just finished: Mulan's swap (if she played in it),
    Alice's deal (if she won it without the Frog), the haggle (p / T) and the Musical Chairs
    passes (k / E: ``chairs``, until entered or said not seen)."""

    trick: entry.TrickView
    powers: tuple[PowerOption, ...]
    haggle: HaggleOption | None
    chairs: bool = False


@dataclass(frozen=True)
class PickRequest:
    """Cards being tapped for a power or a haggle (nothing stored yet)."""

    kind: str
    seat: int | None
    target: int | None
    cards: str
    part: str | None = None


def _context(code: str, number: int) -> TrickContext:
    view = entry.game_view(get_session(), code)
    if view is None:
        abort(404)
    ctx = _round_context(view, number)
    if ctx.record is not None and request.method == "GET":  # saved: Back after Confirm scores
        abort(redirect(url_for("rebel_princess.show", code=code), 303))
    if ctx.record is not None and _confirmed_by_this_form(view):  # Confirm sent again
        flash(gettext("Round %(n)s saved from the tricks.", n=number))
        abort(redirect(url_for("rebel_princess.show", code=code)))
    if ctx.record is not None or ctx.playoff or not ctx.leader:
        abort(404)  # trick entry is for the next planned round; saved rounds edit by cards
    return TrickContext(ctx.view, number, ctx.letter, ctx.leader)


def _confirmed_by_this_form(view: play.RebelGameView) -> bool:
    """Is this request a Confirm whose form (known by its idempotency key) saved the round?
    Sent again, it is answered as the first sending was; any other tap on a saved round is
    not found."""
    key = form_key(request.form.get("save_key")) if request.method == "POST" else None
    try:
        return key is not None and play.replayed_round(view.keys, key) is not None
    except KeyConflict:  # a changed copy of it: a tap on a saved round, as any other
        return False


def _render(ctx: TrickContext, round_: entry.TrickEntry | None = None, status: int = 200,
            problem: entry.TrickRejected | None = None,
            pick: PickRequest | None = None) -> tuple[str, int]:
    view = ctx.view
    supported = entry.is_supported(ctx.edition, ctx.letter)
    round_ = round_ or ctx.open()
    board = round_.board
    fix = request.args.get("pos", type=int)
    if fix is not None and not 0 <= fix < len(board.plays):
        fix = None
    chosen = None
    if pick is None and request.method == "GET" and request.args.get("pick"):
        pick = PickRequest(request.args.get("pick", ""), request.args.get("seat", type=int),
                           request.args.get("target", type=int),
                           " ".join(filter(None, (request.args.get("cards"),
                                                  request.args.get("card")))),
                           request.args.get("part"))
    if pick is not None and supported and fix is None:
        try:
            chosen = entry.pick_for(round_, kind=pick.kind, seat=pick.seat, target=pick.target,
                                    picked=entry.parse_cards(pick.cards), part=pick.part)
        except entry.TrickRejected as error:
            problem = problem or error
    options = _power_options(view, round_)
    result = entry.preview(round_)
    round_.done()
    drawn = faces(ctx.edition)
    fix_url = url_for("rebel_princess.tricks", code=view.game.code, number=ctx.number)
    rule_name = round_card(ctx.edition, ctx.letter).name(current_lang())
    return render_page_or_partial(
        "rebel_princess/tricks/page.html", "rebel_princess/tricks/_entry.html", status,
        board=board, supported=supported, problem=problem, fix=fix, pick=chosen,
        result=result, zero_rank=ZERO_RANK, faces=drawn, fix_url=fix_url,
        past_trick=PastTricks(drawn, view.names, view.short_names, fix_url, fix, rule_name),
        grid_row=GridRows(drawn, len(view.players)),
        powers=[o for o in options if o.arg not in ("after", "zero")],
        later=_after_options(round_, options), zero=_zero_option(round_, options),
        view=view, number=ctx.number, letter=ctx.letter, leader=ctx.leader,
        save_key=page_form_key,
        seat_leader=ctx.seat_leader, edition=ctx.edition,
        classic=ctx.edition is Edition.CLASSIC, record=None, playoff=False)


def _power_options(view: play.RebelGameView, round_: entry.TrickEntry) -> list[PowerOption]:
    """The Princess powers at the table that can be entered now, with a one-line reminder."""
    options = []
    for player in view.players:
        power = round_.judge.power_of(player.seat)
        if power is None or player.seat in round_.board.powers_used or \
                round_.judge.blocked_power(player.seat) is not None:
            continue  # (a power another one blocked this trick is not offered)
        try:
            text = rulings.princess(view.edition.value, power.slug).in_language(current_lang())
        except KeyError:
            continue
        options.append(PowerOption(player.seat, power.slug, text.name, text.power,
                                   text.summary.split(". ")[0].rstrip(".") + ".", power.entry,
                                   power.on_lead, power.max_rank, power.needs_target,
                                   power_kind(power.slug, view.edition.value)))
    return options


def _after_options(round_: entry.TrickEntry,
                   options: Sequence[PowerOption]) -> AfterOptions | None:
    """What the judge lets happen right after the trick just finished: the after-trick powers
    entered with cards (Mulan, Alice), the haggle (p / T) and the passes (k / E)."""
    trick = round_.board.after_trick
    if trick is None:
        return None
    judge = round_.judge
    seats = judge.after_trick_seats()
    powers = tuple(o for o in options if o.arg == "after" and o.seat in seats)
    option = judge.haggle_option()  # (a declined haggle is only in the table's record)
    haggle = HaggleOption(*option) if option is not None and trick.note(entry.HAGGLE) is None \
        else None
    chairs = round_.board.chairs_due
    if not powers and haggle is None and not chairs:
        return None
    return AfterOptions(trick, powers, haggle, chairs)


def _zero_option(round_: entry.TrickEntry,
                 options: Sequence[PowerOption]) -> ZeroOption | None:
    """The zero power, as the judge lets it be entered now: a switch while it is her turn, or
    a button on the card she just played."""
    for option in options:
        if option.arg == "zero":
            found = round_.judge.zero_option(option.seat)
            if found is not None:
                return ZeroOption(option, *found)
    return None


def reason_words(reason: WinReason, rule_name: str) -> str:
    """Why a trick was won ("Royal Decree: highest Queen"), worded by the trick screen's
    catalogue: the rules that decided it (the Round card, a reversed order), then the reason
    (its ``-low`` wording when the order was reversed)."""
    lang, words = current_lang(), entry.CATALOGUE
    rules = ([rule_name] if reason.card_rule else []) + (
        [words.text("won@reversed", lang)] if reason.cinderella else [])
    key = f"won@{reason.code}"
    if reason.low and f"{key}-low" in words.codes():
        key += "-low"
    suit = words.text(f"suit@{reason.suit}", lang) if reason.suit else ""
    text = words.text(key, lang, suit=suit)
    return words.text("won@with-rules", lang, rules=" + ".join(rules), reason=text) if rules \
        else text


@bp.app_template_global()
def trick_act_url(code: str, number: int, action: str) -> str:
    """The address a tap's form posts to (``rebel_princess.trick_act``). The screen's tap forms
    differ only in the action, the last segment: ``url_for`` runs once per request and round
    (three to a dozen times a screen before)."""
    environ = request.environ  # (this request's own: not g, which a test may share)
    kept = environ.get("companion.trick_act_url")
    if kept is None or kept[0] != (code, number):
        url = url_for("rebel_princess.trick_act", code=code, number=number, action="play")
        if not url.endswith("/play"):  # (not the shape assumed: no shortcut)
            return url_for("rebel_princess.trick_act", code=code, number=number, action=action)
        kept = environ["companion.trick_act_url"] = ((code, number), url.removesuffix("play"))
    return str(kept[1]) + action


@bp.app_template_filter("power_kind")
def power_kind(slug: str, edition: str) -> str:
    """How the trick screen shows a use of the power ``slug``, from its declaration:
    ``swap`` (it swaps a card of the trick: Mulan), ``dealt`` (it deals the trick back: Alice),
    ``zero`` (a card played as a zero: Snow White), ``frozen`` (a card someone must play: the
    Ice Princess), else ``""``; ``haggle`` for the haggle."""
    if slug in (entry.HAGGLE, entry.CHAIRS):
        return slug
    try:
        power = power_class(slug)(Edition(edition))
    except (KeyError, ValueError):
        return ""
    if power.redecides_trick:
        return "swap"
    if power.deals_trick_back:
        return "dealt"
    if power.entry == "zero":
        return "zero"
    return "frozen" if power.forces_card else ""


@bp.get("/g/<code>/round/<int:number>/tricks", endpoint="tricks")
def show(code: str, number: int) -> tuple[str, int]:
    """The trick screen: the Round card, whose turn it is, the trick so far and the deck."""
    return _render(_context(code, number))


def _card(form: TrickForm) -> RebelCard:
    try:
        return RebelCard.from_code((form.card.data or "").strip().upper())
    except (InvalidValueError, ValueError, KeyError):
        raise entry.TrickRejected("unknown-card", typed=form.card.data) from None


def _pos(form: TrickForm) -> int:
    return form.pos.data if form.pos.data is not None else -1


#: Each tap, by its action: the glue function that carries it out.
ACTIONS: dict[str, Callable[[entry.TrickEntry, TrickForm], None]] = {
    "play": lambda r, f: entry.play_card(r, version=f.based_on(), card=_card(f),
                                         zero=f.zero.data == "1"),
    "fix": lambda r, f: entry.fix_card(r, version=f.based_on(), position=_pos(f),
                                       card=_card(f)),
    "undo": lambda r, f: entry.undo(r, version=f.based_on()),
    "power": lambda r, f: entry.use_power(
        r, version=f.based_on(), seat=f.seat.data if f.seat.data is not None else -1,
        target=f.target.data, suit=f.suit.data or None, cards=entry.parse_cards(f.tapped()),
        part=f.part.data or None),
    "haggle": lambda r, f: entry.haggle(r, version=f.based_on(),
                                        cards=entry.parse_cards(f.tapped())),
    "chairs": lambda r, f: entry.chairs(r, version=f.based_on(),
                                        cards=entry.parse_cards(f.tapped())),
    "accept": lambda r, f: entry.accept(r, version=f.based_on(), key=f.key.data or ""),
    "validation": lambda r, f: entry.set_validation(r, version=f.based_on(),
                                                    on=f.on.data == "1"),
    "confirm": lambda r, f: entry.confirm(r, version=f.based_on(),
                                          key=form_key(f.save_key.data)),
}


@bp.post("/g/<code>/round/<int:number>/tricks/<action>", endpoint="trick_act")
def act(code: str, number: int, action: str) -> Response | tuple[str, int]:
    """One tap: play a card, fix one, undo, announce a power, accept a breach, switch the rule
    checks, or confirm the scores."""
    if action not in ACTIONS:
        abort(404)
    ctx = _context(code, number)
    form = TrickForm()
    if not form.validate_on_submit():
        return _render(ctx, status=422, problem=entry.TrickRejected("bad-form"))
    if action in ("power", "haggle", "chairs") and form.pick.data:  # on to tap the cards
        return _render(ctx, pick=PickRequest(form.pick.data, form.seat.data, form.target.data,
                                             form.tapped(), form.part.data or None))
    round_ = ctx.open()

    def refused(problems: list[Problem]) -> Response | tuple[str, int]:
        # A tap the board refuses names its one problem (``saved``: the round was stored
        # already, by a double tap of Confirm); a save the game refuses is "not saved".
        if len(problems) == 1 and problems[0].catalogue is entry.CATALOGUE:
            if problems[0].code == "saved":
                round_.done()
                return redirect(url_for("rebel_princess.show", code=code))
            return _render(ctx, round_, 422, entry.TrickRejected(problems[0].code,
                                                                 **problems[0].params))
        return _render(ctx, round_, 422, entry.TrickRejected("not-saved", problems=problems))

    answer = refusal(lambda: ACTIONS[action](round_, form),
                     problems=refused, stale=lambda: refused([]),
                     # (a changed copy of a Confirm already saved: the round is on the pad)
                     conflict=lambda _found: refused(entry.TrickRejected("stale").problems))
    if answer is not None:
        return answer
    if action == "confirm":
        round_.done()
        flash(gettext("Round %(n)s saved from the tricks.", n=number))
        return redirect(url_for("rebel_princess.show", code=code))
    if request.headers.get("HX-Request") == "true":
        return _render(ctx, round_)
    round_.done()
    return redirect(url_for("rebel_princess.tricks", code=code, number=number), 303)
