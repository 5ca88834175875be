"""Never lose an entry (issue 21), in every game on a phone: a half-entered round comes back after
a reload, Back, the language switch and a save with no network; a round saved with the network
cut is kept on the phone and stored exactly once when the network is back; a queued save the
server refuses on arrival says why and gives the entry back to fix.

Each case runs on one or two phone sizes and languages per game, so that every game is seen at
390x844 and 360x740, in English and in French, without running every case four times: what is
checked does not depend on them. Rebel Princess: by counts (390, en), by numbers (360, fr; refused
on arrival in all four), trick by trick (360-en, 390-fr); Princesse Princesse: round end (360, en;
refused on arrival 390, fr); Réveillez (all four; offline 360-en, 390-fr); the duel (390, fr;
refused on arrival 360, en)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from playwright.sync_api import Browser, Page, expect

from .conftest import LANGUAGES

pytestmark = pytest.mark.browser

BIG = {"width": 390, "height": 844}
SMALL = {"width": 360, "height": 740}


def ready(page: Page) -> None:
    """Wait until the page's drafts are set up (drafts.js marks <html>): a phone tapping Save
    in the page's first milliseconds, before its script ran, is not what this file tests."""
    expect(page.locator("html[data-drafts=ready]")).to_have_count(1)


def tap(page: Page, selector: str) -> None:
    """Tap the label around a (visually hidden) radio or box."""
    page.locator(f"label:has({selector})").first.click()


@dataclass
class Game:
    """One entry form of one game: how to open it, tap part of it, finish it, and read back what
    the game stored."""

    open: Callable[[Page, str], str]          # create a game, open the entry form: game's URL
    part: Callable[[Page], None]              # tap part of the entry
    has_part: Callable[[Page], None]          # expect the part on screen
    rest: Callable[[Page], None]              # tap the rest of the entry
    stored: Callable[[Page], int]             # rounds stored, read on the game's page
    board: str                                # the game's state on its page
    size: dict
    lang: str


# --- Rebel Princess -----------------------------------------------------------------------------

def rp_new(page: Page, base: str) -> str:
    page.goto(f"{base}/rebel-princess/new")
    if not page.locator("input[name=edition][value=deluxe]").is_checked():  # French: classic
        page.locator("label:has(input[name=edition][value=deluxe])").click()
        expect(page.locator("select[name='cards-0']")).to_have_value("a")
    for seat, name in enumerate(["Ana", "Ben", "Cy"]):
        page.locator(f"input[name='names-{seat}']").fill(name)
    page.locator("[data-action=create]").click()
    expect(page.locator("#this-round")).to_be_visible()
    return page.url


def rp_counts_open(page: Page, base: str) -> str:
    game = rp_new(page, base)
    page.goto(f"{game}/round/1/counts")
    expect(page.locator("#counts-entry")).to_be_visible()
    ready(page)
    return game


def rp_counts_part(page: Page) -> None:
    tap(page, "input[name=princes_0][value='3']")
    tap(page, "input[name=frog][value='1']")


def rp_counts_has_part(page: Page) -> None:
    expect(page.locator("input[name=princes_0][value='3']")).to_be_checked()
    expect(page.locator("input[name=frog][value='1']")).to_be_checked()


def rp_counts_rest(page: Page) -> None:
    tap(page, "input[name=princes_1][value='4']")  # Cy's count is filled in: the rest


def rp_numbers_open(page: Page, base: str) -> str:
    game = rp_new(page, base)
    page.locator("[data-action=enter-numbers]").click()
    expect(page.locator("#numbers-entry")).to_be_visible()
    ready(page)
    return game


def rp_numbers_part(page: Page) -> None:
    page.locator("#score_0").fill("4")
    page.locator("#score_1").fill("7")


def rp_numbers_has_part(page: Page) -> None:
    expect(page.locator("#score_0")).to_have_value("4")
    expect(page.locator("#score_1")).to_have_value("7")


def rp_numbers_rest(page: Page) -> None:
    page.locator("#score_2").fill("3")  # 14 in all: Once Upon a Time's Princes


def rp_stored(page: Page) -> int:
    expect(page.locator("#pad")).to_be_visible()
    return page.locator("#pad tr[data-round-row]:not(.future)").count()


# --- Princesse Princesse ------------------------------------------------------------------------

def pp_open(page: Page, base: str) -> str:
    page.goto(f"{base}/princesse-princesse/new")
    for seat, name in enumerate(["Ana", "Ben", "Cléo"]):
        page.locator(f'[data-name-seat="{seat}"]').fill(name)
    page.locator('[data-action="create"]').click()
    expect(page.locator("#board")).to_be_visible()
    game = page.url
    page.locator('[data-action="round-end"]').click()
    tap(page, '[data-in-seat="0"]')
    tap(page, '[data-in-seat="2"]')
    page.locator('[data-action="next"]').click()
    expect(page.locator("#round-step-2")).to_be_visible()
    ready(page)
    return game


def pp_part(page: Page) -> None:
    tap(page, '[data-choice="card-0-7"]')


def pp_has_part(page: Page) -> None:
    expect(page.locator('[data-choice="card-0-7"]')).to_be_checked()


def pp_rest(page: Page) -> None:
    tap(page, '[data-choice="card-2-3"]')


def pp_stored(page: Page) -> int:
    expect(page.locator("#board")).to_be_visible()
    return int(page.locator("#board").get_attribute("data-round")) - 1


# --- The Kanai duel (referee) -------------------------------------------------------------------

def kd_open(page: Page, base: str) -> str:
    page.goto(f"{base}/kanai-duel/new")
    page.fill("#first", "Ana")
    page.fill("#second", "Ben")
    page.click("[data-action=create]")
    expect(page.locator("[data-form=round]")).to_be_visible()
    ready(page)
    return page.url


def kd_part(page: Page) -> None:
    page.click("[data-hand='0'] [data-card=prince]")


def kd_has_part(page: Page) -> None:
    expect(page.locator("[data-hand='0'] [data-card=prince] input")).to_be_checked()


def kd_rest(page: Page) -> None:
    page.click("[data-hand='1'] [data-card=general]")


def kd_stored(page: Page) -> int:
    expect(page.locator("#board")).to_be_visible()
    last = page.locator("[data-last-round]")
    return int(last.get_attribute("data-last-round")) if last.count() else 0


GAMES = {
    "rp-counts": Game(rp_counts_open, rp_counts_part, rp_counts_has_part, rp_counts_rest,
                      rp_stored, "#pad", BIG, "en"),
    "rp-numbers": Game(rp_numbers_open, rp_numbers_part, rp_numbers_has_part, rp_numbers_rest,
                       rp_stored, "#pad", SMALL, "fr"),
    "pp-round-end": Game(pp_open, pp_part, pp_has_part, pp_rest, pp_stored, "#board", SMALL, "en"),
    "kd-referee": Game(kd_open, kd_part, kd_has_part, kd_rest, kd_stored, "#board", BIG, "fr"),
}


@pytest.fixture(params=list(GAMES))
def game(request, browser: Browser, browser_context_args):
    """(the game's entry form, a phone of its size and language)."""
    spec = GAMES[request.param]
    context = browser.new_context(**{**browser_context_args, "viewport": spec.size},
                                  locale=LANGUAGES[spec.lang])
    page = context.new_page()
    yield spec, page
    context.close()


def switch_language(page: Page) -> None:
    other = page.locator("[data-nav=lang] a[data-lang]").first
    lang = other.get_attribute("data-lang")
    other.click()
    expect(page.locator("html")).to_have_attribute("lang", lang)


def test_a_half_entry_comes_back_after_reload_back_language_and_no_network(game, live_server):
    spec, page = game
    spec.open(page, live_server)
    entry = page.url
    spec.part(page)

    page.reload()
    spec.has_part(page)
    expect(page.locator("[data-draft-notice]")).to_be_visible()

    page.locator("[data-nav=rules]").click()  # another page, then Back
    expect(page.locator("[data-nav=rules]")).to_be_visible()
    page.go_back()
    expect(page).to_have_url(entry)
    spec.has_part(page)

    switch_language(page)
    spec.has_part(page)
    expect(page.locator("[data-draft-notice]")).to_be_visible()

    # The whole round, saved with the network cut: kept on this phone, the entry still there.
    spec.rest(page)
    page.context.set_offline(True)
    page.locator("form[data-draft] .savebar button.primary").click()
    expect(page.locator("[data-outbox=waiting]")).to_be_visible()
    spec.has_part(page)

    # The network is back: sent once, the game shows it stored, the draft is gone.
    page.context.set_offline(False)
    expect(page.locator("[data-outbox=sent]")).to_be_visible()
    assert spec.stored(page) == 1
    assert page.evaluate("Object.keys(localStorage).filter(k => k.startsWith('draft:')"
                         " || k === 'companion-outbox')") == []
    page.reload()
    assert spec.stored(page) == 1


def other_phone_saves_round_1(page: Page, base: str, scores: list[int]) -> None:
    """Another phone of the same table stores round 1 meanwhile (same cookies, its own
    network: the request API is not cut by the browser's offline mode)."""
    code = page.url.split("/rebel-princess/g/", 1)[1].split("/", 1)[0]
    form_page = page.context.request.get(f"{base}/rebel-princess/g/{code}/round/1/numbers").text()
    token = re.search(r'name="csrf_token" type="hidden" value="([^"]+)"|'
                      r'name="csrf_token" value="([^"]+)"', form_page)
    csrf = next(group for group in token.groups() if group)
    answer = page.context.request.post(
        f"{base}/rebel-princess/g/{code}/round/1/numbers", max_redirects=0,
        form={"csrf_token": csrf, **{f"score_{s}": str(v) for s, v in enumerate(scores)}})
    assert answer.status in (302, 303), answer.text()[:500]


def test_a_queued_save_refused_on_arrival_says_why_and_gives_the_entry_back(
        phone_in: Page, live_server: str):
    """Saved with no network; meanwhile another phone stores the same round: when the network
    is back the server refuses the queued one, and this phone says why, with the entry."""
    page = phone_in
    rp_numbers_open(page, live_server)
    rp_numbers_part(page)
    rp_numbers_rest(page)
    page.context.set_offline(True)
    page.locator("[data-action=save]").click()
    expect(page.locator("[data-outbox=waiting]")).to_be_visible()
    other_phone_saves_round_1(page, live_server, [14, 0, 0])

    page.context.set_offline(False)
    refused = page.locator("[data-draft-notice=refused]")
    expect(refused).to_be_visible()
    expect(page.locator("[data-outbox=refused]")).to_be_visible()
    expect(refused).not_to_have_text(re.compile(r"^\s*$"))
    for said in (refused, page.locator("[data-outbox=refused]")):  # "Not saved" said once
        assert len(re.findall(r"Not saved|Non enregistré", said.inner_text())) == 1, \
            said.inner_text()
    rp_numbers_has_part(page)
    expect(page.locator("#score_2")).to_have_value("3")
    # Nothing was stored twice: the pad holds the other phone's round only.
    page.locator("header a.code").first.click()
    assert rp_stored(page) == 1
    expect(page.locator("#pad")).to_have_attribute("data-totals", "14,0,0")
    # The refusal is said on every page until the entry is opened and fixed or discarded.
    expect(page.locator("[data-outbox=refused] a")).to_be_visible()
    page.go_back()
    page.locator("[data-draft-discard]").click()
    expect(page.locator("[data-outbox]")).to_be_hidden()


def lose_the_first_answer(page: Page, path_end: str) -> list[str]:
    """The first save posted to an address ending in ``path_end`` reaches the server, but its
    answer never comes back (the network dropped on the way); every save posted there is
    listed (its body), the lost one first."""
    sent: list[str] = []

    def drop_the_answer(route):
        if route.request.method == "POST":
            sent.append(route.request.post_data or "")
        if route.request.method == "POST" and len(sent) == 1:
            route.fetch()  # the server stores it...
            route.abort("internetdisconnected")  # ...and the phone never hears back
        else:
            route.continue_()

    page.route(lambda url: url.split("?")[0].endswith(path_end), drop_the_answer)
    return sent


def test_a_save_whose_answer_was_lost_is_stored_once(phone: Page, live_server: str):
    """The save reached the server but its answer never came back (the network dropped on the
    way): the phone keeps it, sends it again, and the round is stored once."""
    page = phone
    pp_open(page, live_server)
    pp_part(page)
    pp_rest(page)
    lost = lose_the_first_answer(page, "/round")
    page.locator("[data-action=save]").click()
    expect(page.locator("#board")).to_be_visible()  # sent again a few seconds later: stored
    assert lost and pp_stored(page) == 1


def test_a_rebel_princess_save_whose_answer_was_lost_is_known_by_its_key(phone: Page,
                                                                          live_server: str):
    """The same for a Rebel Princess round: the outbox sends the very form again, with the key
    the page drew in it, and the server answers it as stored (one round on the pad)."""
    page = phone
    rp_numbers_open(page, live_server)
    rp_numbers_part(page)
    rp_numbers_rest(page)
    sent = lose_the_first_answer(page, "/round/1/numbers")
    page.locator("[data-action=save]").click()
    expect(page.locator("#pad")).to_be_visible()  # sent again a few seconds later: stored
    keys = [re.search(r"(?:^|&)key=([^&]+)", body) for body in sent]
    assert len(sent) == 2 and all(keys) and keys[0][1] == keys[1][1]
    assert rp_stored(page) == 1


def board_text(page: Page, board: str) -> str:
    """The game's state as its page says it, without the history of rounds (which keeps an
    undone round, marked undone: the duel's « Every round »)."""
    return page.evaluate("""sel => { const b = document.querySelector(sel).cloneNode(true);
        b.querySelectorAll('[data-list=rounds]').forEach(e => e.remove());
        document.body.appendChild(b); const t = b.innerText; b.remove(); return t; }""", board)


def test_undo_right_after_a_save_restores_the_game_exactly(game, live_server):
    """Save a round: an Undo shows by the thumb for a few seconds; one tap and the game is as it
    was before the save."""
    spec, page = game
    url = spec.open(page, live_server)
    if page.url == url:  # the entry is on the game's page (the duel)
        before = board_text(page, spec.board)
    else:
        page.goto(url)
        before = board_text(page, spec.board)
        page.go_back()
        ready(page)
    spec.part(page)
    spec.rest(page)
    page.locator("form[data-draft] .savebar button.primary").click()
    toast = page.locator("[data-undo-toast]")
    expect(toast).to_be_visible()
    assert spec.stored(page) == 1
    box, height = toast.bounding_box(), page.viewport_size["height"]
    assert box["y"] + box["height"] <= height and box["y"] > height / 2  # by the thumb
    toast.locator("[data-action=undo-now]").click()
    expect(page.locator("[data-undo-toast]")).to_have_count(0)
    assert spec.stored(page) == 0
    assert board_text(page, spec.board) == before


def test_reveillez_keeps_an_action_half_built_and_offers_undo(phone_in: Page, live_server: str):
    """A wake half built (the place tapped, a name typed) survives a reload, Back and the
    language switch; once stored, Undo by the thumb takes it back."""
    page = phone_in
    page.goto(f"{live_server}/reveillez/new")
    for seat, name in enumerate(["Ana", "Ben"]):
        page.fill(f"#names-{seat}", name)
    page.click("[data-action=create]")
    expect(page.locator("#rv-table")).to_have_attribute("data-turn", "0")
    page.click("[data-action=wake]")
    page.locator(".rv-grid [data-slot='4'] button").click()
    expect(page.locator("[data-question=value]")).to_be_visible()
    page.fill("input[name=value_typed]", "17")

    page.reload()
    expect(page.locator("[data-question=value]")).to_be_visible()
    expect(page.locator("input[name=value_typed]")).to_have_value("17")
    expect(page.locator("[data-draft-notice]")).to_be_visible()
    switch_language(page)
    expect(page.locator("[data-question=value]")).to_be_visible()
    expect(page.locator("input[name=value_typed]")).to_have_value("17")
    page.locator("[data-nav=rules]").click()
    page.go_back()
    expect(page.locator("input[name=value_typed]")).to_have_value("17")

    page.click("[data-value=typed]")
    expect(page.locator("[data-seat='0'][data-points='17']")).to_be_visible()
    toast = page.locator("[data-undo-toast]")
    expect(toast).to_be_visible()
    toast.locator("[data-action=undo-now]").click()
    expect(page.locator("[data-seat='0'][data-points='0']")).to_be_visible()
    assert page.evaluate("Object.keys(localStorage).filter(k => k.startsWith('draft:'))") == []


def test_undoing_a_past_round_asks_first(phone: Page, live_server: str):
    """Princesse Princesse's history: « Undo this round » asks; nothing changes until Yes."""
    page = phone
    url = pp_open(page, live_server)
    pp_part(page)
    pp_rest(page)
    page.locator("[data-action=save]").click()
    expect(page.locator("#board")).to_have_attribute("data-round", "2")
    page.goto(f"{url}/history")
    page.locator("summary[data-action=undo]").click()
    question = page.locator("[data-confirm=undo][open] .confirm-box")
    expect(question).to_be_visible()
    page.goto(url)
    expect(page.locator("#board")).to_have_attribute("data-round", "2")  # only asked
    page.goto(f"{url}/history")
    page.locator("summary[data-action=undo]").click()
    page.locator("[data-action=undo-yes]").click()
    expect(page.locator("#board")).to_have_attribute("data-round", "1")


def test_a_refused_save_shows_its_first_problem_and_says_so_by_the_save_button(
        phone_in: Page, live_server: str):
    """Save a round with a count missing: the page scrolls to the first problem and focuses it,
    and the Save bar says the save was refused; building the entry showed nothing red."""
    page = phone_in
    rp_counts_open(page, live_server)
    tap(page, "input[name=princes_0][value='1']")
    expect(page.locator(".problems, ul.errors")).to_have_count(0)  # nothing refused yet
    page.locator("[data-action=save]").click()
    summary = page.locator("[data-problems-summary]")
    expect(summary).to_be_visible()
    focused = page.evaluate("""() => {
        const e = document.activeElement, r = e.getBoundingClientRect();
        return {alert: e.matches('[role=alert], .problems, ul.errors'),
                seen: r.top >= 0 && r.bottom <= innerHeight}; }""")
    assert focused == {"alert": True, "seen": True}
    page.mouse.wheel(0, 2000)
    summary.click()
    assert page.evaluate("document.activeElement.matches('[role=alert], .problems, ul.errors')")


# --- Rebel Princess, trick by trick -------------------------------------------------------------

@pytest.fixture
def one_phone(request, browser: Browser, browser_context_args):
    """A phone of the size and language given by the test's parameter ("390-en", "360-fr")."""
    width, lang = request.param.split("-")
    size = BIG if width == "390" else SMALL
    context = browser.new_context(**{**browser_context_args, "viewport": size},
                                  locale=LANGUAGES[lang])
    page = context.new_page()
    yield page
    context.close()


def first_cards(count: int) -> list[str]:
    """The first ``count`` cards of a legal 3-player Once Upon a Time round led by Ana."""
    from companion.scoring.rebel_princess.engine import RoundState
    state = RoundState.deal(3, edition="deluxe", round_card="a", seed=5, leader=0)
    order = []
    while len(order) < count:
        card = sorted(state.legal_plays(), key=str)[0]
        state.play(card)
        order.append(str(card))
    return order


def tricks_open(page: Page, base: str) -> str:
    page.goto(f"{base}/rebel-princess/new")
    for seat, name in enumerate(["Ana", "Ben", "Cy"]):
        page.locator(f"input[name='names-{seat}']").fill(name)
    page.locator("#first_leader").select_option("0")
    page.locator("[data-action=create]").click()
    expect(page.locator("#this-round")).to_be_visible()
    page.locator("[data-action=enter-tricks]").click()
    expect(page.locator("#trick-entry")).to_have_attribute("data-version", "0")
    return page.url


def played_cards(page: Page) -> list[str]:
    return page.locator("#trick-entry [data-play][data-played]").evaluate_all(
        "bs => bs.map(b => b.dataset.play)")


@pytest.mark.parametrize("one_phone", ["360-en", "390-fr"], indirect=True)
def test_card_taps_with_no_network_wait_on_the_phone_and_go_once(one_phone: Page,
                                                                 live_server: str):
    """Trick by trick with the network cut: each card tapped is kept on the phone, greyed out,
    in order (Undo takes back the last one still there); when the network is back they are sent
    in order, each stored once, and the screen shows the tricks as the server judged them."""
    page = one_phone
    tricks_open(page, live_server)
    *cards, wrong = first_cards(6)
    page.context.set_offline(True)
    for card in [*cards, wrong]:
        page.locator(f"#trick-entry [data-play='{card}']").click()
        expect(page.locator(f"#trick-entry [data-play='{card}']")).to_be_disabled()
    box = page.locator("[data-queue=taps]")
    expect(box).to_have_attribute("data-taps", "waiting")
    page.locator("#trick-entry [data-action=undo]").click()  # the last one was a mistap
    expect(page.locator(f"#trick-entry [data-play='{wrong}']")).to_be_enabled()
    expect(page.locator("[data-outbox=waiting]")).to_be_visible()
    page.locator("#trick-entry [data-action=validation]").click()  # needs the server: says so
    expect(box).to_be_visible()
    expect(page.locator("#trick-entry")).to_have_attribute("data-version", "0")
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        page.screenshot(path=f"/tmp/offline-taps-{page.viewport_size['width']}-{scheme}.png")

    page.context.set_offline(False)
    expect(page.locator("#trick-entry")).to_have_attribute("data-version", "5")
    assert sorted(played_cards(page)) == sorted(cards)
    expect(box).to_be_hidden()
    expect(page.locator("#trick-entry")).to_have_attribute("data-turn", re.compile(r"[0-2]"))
    page.reload()
    expect(page.locator("#trick-entry")).to_have_attribute("data-version", "5")


@pytest.mark.parametrize("one_phone", ["390-en", "360-fr"], indirect=True)
def test_a_card_tap_refused_on_arrival_says_why_and_which_taps(one_phone: Page,
                                                               live_server: str):
    """Two cards tapped with no network; meanwhile another phone taps a card first: when the
    network is back the first kept tap is refused, the phone says why and which taps were not
    recorded (the second was made on the first: not sent), and Discard shows the round as
    stored."""
    page = one_phone
    url = tricks_open(page, live_server)
    cards = first_cards(3)
    page.context.set_offline(True)
    for card in cards[:2]:
        page.locator(f"#trick-entry [data-play='{card}']").click()
    expect(page.locator("[data-queue=taps]")).to_have_attribute("data-taps", "waiting")
    page_html = page.context.request.get(url).text()
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', page_html)[1]
    answer = page.context.request.post(f"{url}/play", max_redirects=0,
                                       form={"csrf_token": csrf, "version": "0",
                                             "card": cards[2]})
    assert answer.status == 303, answer.text()[:300]

    page.context.set_offline(False)
    box = page.locator("[data-queue=taps]")
    expect(box).to_have_attribute("data-taps", "refused")
    expect(box).to_contain_text(page.locator(f"[data-play='{cards[0]}']").get_attribute(
        "aria-label"))
    expect(page.locator("[data-outbox=refused]")).to_be_visible()
    page.screenshot(path=f"/tmp/offline-taps-refused-{page.viewport_size['width']}.png")
    box.locator("[data-taps-discard]").click()
    expect(page.locator("#trick-entry")).to_have_attribute("data-version", "1")
    assert played_cards(page) == [cards[2]]
    expect(box).to_be_hidden()
    expect(page.locator("[data-outbox]")).to_be_hidden()


@pytest.mark.parametrize("one_phone", ["390-en"], indirect=True)
def test_a_card_tap_whose_answer_was_lost_is_stored_once(one_phone: Page, live_server: str):
    """The tap reached the server but the answer never came back: the phone keeps it, sends it
    again, and the card is played once."""
    page = one_phone
    tricks_open(page, live_server)
    card = first_cards(1)[0]
    lost = []

    def drop_the_answer(route):
        if route.request.method == "POST" and not lost:
            route.fetch()
            lost.append(route.request.url)
            route.abort("internetdisconnected")
        else:
            route.continue_()

    page.route(lambda u: u.split("?")[0].endswith("/tricks/play"), drop_the_answer)
    page.locator(f"#trick-entry [data-play='{card}']").click()
    expect(page.locator("#trick-entry")).to_have_attribute("data-version", "1")
    assert lost and played_cards(page) == [card]


# --- Réveillez ----------------------------------------------------------------------------------

def rv_open(page: Page, base: str) -> str:
    page.goto(f"{base}/reveillez/new")
    for seat, name in enumerate(["Ana", "Ben"]):
        page.fill(f"#names-{seat}", name)
    page.click("[data-action=create]")
    expect(page.locator("#rv-table")).to_have_attribute("data-turn", "0")
    return page.url


def rv_wake_up_to_the_value(page: Page, slot: int) -> None:
    page.click("[data-action=wake]")
    page.locator(f".rv-grid [data-slot='{slot}'] button").click()
    expect(page.locator("[data-question=value]")).to_be_visible()


def other_phone_undoes(page: Page, url: str) -> None:
    """Another phone of the table takes back the last action (its own network)."""
    html = page.context.request.get(url).text()
    form = re.search(r'<form data-undo.*?</form>', html, re.S)[0]
    fields = dict(re.findall(r'name="(\w+)"[^>]*value="([^"]*)"', form))
    answer = page.context.request.post(f"{url}/undo", form=fields, max_redirects=0)
    assert answer.status == 303, answer.text()[:300]


@pytest.mark.parametrize("one_phone", ["360-en", "390-fr"], indirect=True)
def test_reveillez_actions_made_with_no_network_go_once_or_say_why(one_phone: Page,
                                                                   live_server: str):
    """An action finished with the network cut waits on the phone and is stored once when the
    network is back; a step tapped offline leads to its next question once sent; a queued
    action the server refuses on arrival (another phone undid the action it followed) says why
    and gives the entry back."""
    page = one_phone
    url = rv_open(page, live_server)
    rv_wake_up_to_the_value(page, 4)
    page.context.set_offline(True)
    page.fill("input[name=value_typed]", "17")
    page.click("[data-value=typed]")
    expect(page.locator("[data-outbox=waiting]")).to_be_visible()
    expect(page.locator("[data-draft-notice]")).to_be_visible()
    expect(page.locator("input[name=value_typed]")).to_have_value("17")
    page.context.set_offline(False)
    expect(page.locator("[data-seat='0'][data-points='17']")).to_be_visible()
    expect(page.locator("[data-outbox=sent]")).to_be_visible()
    page.reload()
    expect(page.locator("#rv-table")).to_have_attribute("data-version", "1")

    # Ben: the place tapped with no network; the next question comes once it is sent.
    page.click("[data-action=wake]")
    page.context.set_offline(True)
    page.locator(".rv-grid [data-slot='7'] button").click()
    expect(page.locator("[data-outbox=waiting]")).to_be_visible()
    page.context.set_offline(False)
    expect(page.locator("[data-question=value]")).to_be_visible()

    # Offline again; meanwhile another phone undoes Ana's wake: refused on arrival, said.
    page.context.set_offline(True)
    page.fill("input[name=value_typed]", "12")
    page.click("[data-value=typed]")
    expect(page.locator("[data-outbox=waiting]")).to_be_visible()
    other_phone_undoes(page, url)
    page.context.set_offline(False)
    refused = page.locator("[data-draft-notice=refused]")
    expect(refused).to_be_visible()
    expect(refused).not_to_have_text(re.compile(r"^\s*$"))
    expect(page.locator("[data-outbox=refused]")).to_be_visible()
    expect(page.locator("input[name=value_typed]")).to_have_value("12")
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        page.screenshot(path=f"/tmp/offline-rv-refused-{page.viewport_size['width']}-{scheme}.png",
                        full_page=True)
    page.goto(url)
    expect(page.locator("#rv-table")).to_have_attribute("data-version", "2")  # stored: none


# --- A queued save refused on arrival, in the other games ---------------------------------------

def other_phone_posts(page: Page, page_url: str, post_url: str, form: dict) -> None:
    """Another phone of the table (same cookies, its own network) stores something first."""
    html = page.context.request.get(page_url).text()
    csrf = re.search(r'"X-CSRFToken": "([^"]+)"', html)[1]
    version = re.search(r'data-version="(\d+)"|name="version" value="(\d+)"', html)
    version = next(v for v in version.groups() if v)
    answer = page.context.request.post(post_url, max_redirects=0,
                                       form={"csrf_token": csrf, "version": version, **form})
    assert answer.status in (302, 303), answer.text()[:300]


REFUSED_ELSEWHERE = {
    # game: (open, part, has_part, rest, what the other phone stores first, phone)
    "pp": (pp_open, pp_part, pp_has_part, pp_rest,
           ("/round", {"step": "2", "in": "1", "card-1": "5", "key": "other"}), "390-fr"),
    "kd": (kd_open, kd_part, kd_has_part, kd_rest,
           ("/round", {"first": "spy", "second": "general", "key": "other"}), "360-en"),
}


@pytest.mark.parametrize("one_phone,which", [(phone, which) for which, (*_, phone)
                                             in REFUSED_ELSEWHERE.items()],
                         indirect=["one_phone"], ids=list(REFUSED_ELSEWHERE))
def test_a_queued_save_refused_on_arrival_in_the_other_games(one_phone: Page,
                                                             live_server: str, which: str):
    """Princesse Princesse's round end and the duel's round, saved with no network while another
    phone stores first: when the network is back the phone says why and the entry is back."""
    page = one_phone
    open_, part, has_part, rest, (path, form), _ = REFUSED_ELSEWHERE[which]
    game = open_(page, live_server)
    part(page)
    rest(page)
    page.context.set_offline(True)
    page.locator("form[data-draft] .savebar button.primary").click()
    expect(page.locator("[data-outbox=waiting]")).to_be_visible()
    other_phone_posts(page, game, game + path, form)

    page.context.set_offline(False)
    refused = page.locator("[data-draft-notice=refused]")
    expect(refused).to_be_visible()
    expect(refused).not_to_have_text(re.compile(r"^\s*$"))
    expect(page.locator("[data-outbox=refused]")).to_be_visible()
    has_part(page)
    page.screenshot(path=f"/tmp/offline-refused-{which}.png", full_page=True)


def test_a_draft_kept_at_an_old_address_comes_back_at_the_new_one(phone: Page, live_server: str):
    """A phone that kept a half entry before Rebel Princess's pages moved under /rebel-princess/
    finds it again there: the old /g/ address redirects to the same form, which takes the draft
    over."""
    rp_numbers_open(phone, live_server)
    entry = phone.url.removeprefix(live_server)
    assert entry.startswith("/rebel-princess/g/"), entry
    rp_numbers_part(phone)
    drafts = "Object.keys(localStorage).filter(k => k.startsWith('draft:'))"
    [key] = phone.evaluate(drafts)
    old_key = key.replace("draft:/rebel-princess/g/", "draft:/g/")
    phone.evaluate("([now, old]) => { localStorage.setItem(old, localStorage.getItem(now));"
                   " localStorage.removeItem(now); }", [key, old_key])
    phone.goto(live_server + entry.removeprefix("/rebel-princess"))  # the old address
    expect(phone).to_have_url(live_server + entry)
    rp_numbers_has_part(phone)
    expect(phone.locator("[data-draft-notice]")).to_be_visible()
    assert phone.evaluate(drafts) == [key]
