"""No inline style (issue 28, item 8), as a phone's browser sees it: the main screens of each of
the four games, their set-up pages and the group's pages (home, history, statistics, a game's
record) are loaded, in the light and the dark scheme, with a listener for the browser's own
``securitypolicyviolation`` events — none may fire, a tap that redraws part of a page included —
and each player's colour still shows: each mark's colour and each border of a player's colour is
their seat's, now that the colour comes from a class instead of a style attribute. The layout
figures that came from style attributes (the entry by cards' rows, the trick's slots, the deck's
columns) are checked too."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page, expect
from sqlmodel import select

from companion import create_app
from companion.common.colours import PALETTE
from companion.db import get_session
from companion.models import Game
from companion.play import store
from tests.shell.test_group_isolation import store_group

from .conftest import start_server

pytestmark = pytest.mark.browser

LISTEN = """window.__refused = [];
document.addEventListener("securitypolicyviolation", e =>
  window.__refused.push(`${e.violatedDirective} ${e.blockedURI} ${e.sample}`));"""

REFUSED = """async () => {  // events are queued: let the ones of the page's last changes arrive
  await new Promise(done => requestAnimationFrame(() => setTimeout(done, 0)));
  return window.__refused; }"""

# What the pages draw in a player's colour, and the property that carries it.
COLOURED = [
    (".seat-mark", "backgroundColor"),
    ("#pad thead th[data-seat]", "borderBottomColor"),
    ("[data-table=game-facts] thead th[data-seat]", "borderBottomColor"),
    (".livebar span[data-mini-seat]", "borderTopColor"),
    (".countrow[data-count-seat]", "borderLeftColor"),
    (".pp-tokens li[data-seat]", "borderLeftColor"),
    (".kd-player[data-player]", "borderTopColor"),
    (".rv-player", "borderLeftColor"),
    (".rv-cell.awake .rv-tap", "borderTopColor"),
]

COLOURS = """([selector, property]) => [...document.querySelectorAll(selector)].map(e => {
  const holder = e.closest("[class*='seat-']:not(.seat-mark):not(.seat-name)") || e;
  const seat = (e.className.match && e.className.match(/\\bseat-(\\d+)\\b/))
            || holder.className.match(/\\bseat-(\\d+)\\b/);
  return [seat ? Number(seat[1]) : null, getComputedStyle(e)[property]]; })"""


def rgb(colour: str) -> str:
    value = colour.lstrip("#")
    return "rgb({}, {}, {})".format(*(int(value[i:i + 2], 16) for i in (0, 2, 4)))


@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    """A group of four players holding each game (Rebel Princess finished and in play), served;
    its group link and each game's scorer link."""
    app = create_app({"SECRET_KEY": "browser-tests",
                      "DATABASE": str(tmp_path_factory.mktemp("csp") / "b.sqlite")})
    with app.app_context():
        session = get_session()
        group = store_group(session, "A")
        scorer = {}
        for code in group.codes:
            game = session.exec(select(Game).where(Game.code == code)).one()
            scorer[code] = store.links_of(session, game)["scorer"].token
    url, stop = start_server(app)
    rp, pp, rv, kd, playing = (scorer[code] for code in group.codes)
    yield url, group.token, {"rp": rp, "pp": pp, "rv": rv, "kd": kd, "playing": playing}
    stop()


def screens(token: str, links: dict[str, str]) -> list[str]:
    group = f"/group/{token}"
    playing = f"/rebel-princess/g/{links['playing']}"
    return [
        "/", "/rebel-princess/new", "/princesse-princesse/new", "/reveillez/new", "/kanai-duel/new",
        f"{group}/", f"{group}/history/", f"{group}/history/stats", f"{group}/history/players/",
        f"/rebel-princess/g/{links['rp']}", f"/rebel-princess/g/{links['rp']}/history",
        playing, f"{playing}/round/1/cards", f"{playing}/round/1/counts",
        f"{playing}/round/1/numbers", f"{playing}/round/1/tricks",
        f"/princesse-princesse/g/{links['pp']}", f"/princesse-princesse/g/{links['pp']}/log",
        f"/princesse-princesse/g/{links['pp']}/history",
        f"/reveillez/g/{links['rv']}", f"/reveillez/g/{links['rv']}/history",
        f"/kanai-duel/g/{links['kd']}",
    ]


def listening(browser: Browser, browser_context_args, scheme: str):
    context = browser.new_context(**browser_context_args, color_scheme=scheme)
    context.add_init_script(LISTEN)
    return context


@pytest.fixture(params=["light", "dark"])
def phone(request, browser: Browser, browser_context_args):
    """A phone in each colour scheme, listening for refusals."""
    context = listening(browser, browser_context_args, request.param)
    yield context.new_page()
    context.close()


@pytest.fixture
def light_phone(browser: Browser, browser_context_args):
    context = listening(browser, browser_context_args, "light")
    yield context.new_page()
    context.close()


def test_no_page_breaks_the_policy_and_every_player_keeps_their_colour(phone: Page, stored):
    base, token, links = stored
    page = phone
    # Each game's record in the group's history, as a phone reaches it.
    page.goto(f"{base}/group/{token}/history/")
    records = page.eval_on_selector_all("a[href*='/record/']", "links => links.map(a => a.href)")
    assert len(records) >= 4
    seen: dict[str, int] = {}
    for path in [*screens(token, links), *records]:
        page.goto(path if path.startswith("http") else base + path)
        assert page.evaluate(REFUSED) == [], path
        for selector, prop in COLOURED:
            for seat, colour in page.evaluate(COLOURS, [selector, prop]):
                assert seat is not None, (path, selector)
                assert colour == rgb(PALETTE[seat][0]), (path, selector, seat, colour)
                seen[selector] = seen.get(selector, 0) + 1
    # Each kind of coloured thing was on some screen (the check above did check something).
    assert set(seen) == {selector for selector, _ in COLOURED}, seen


def test_taps_that_redraw_part_of_a_page_break_nothing(light_phone: Page, stored):
    """The entry by cards redraws its running score (htmx) at each tap; the trick screen its
    trick and deck: what comes in carries no inline style either, and keeps its colours."""
    base, _token, links = stored
    page = light_phone
    playing = f"{base}/rebel-princess/g/{links['playing']}"
    page.goto(f"{playing}/round/1/cards")
    row = page.locator(".cardrow").first
    with page.expect_response(lambda r: "/preview" in r.url or r.request.method == "POST"):
        row.locator("label").nth(1).click()
    expect(page.locator(".livebar span[data-mini-seat]").first).to_be_visible()
    assert page.evaluate(REFUSED) == []
    for seat, colour in page.evaluate(COLOURS, [".livebar span[data-mini-seat]",
                                                "borderTopColor"]):
        assert colour == rgb(PALETTE[seat][0])
    page.goto(f"{playing}/round/1/tricks")
    first = page.locator(".cardbtn:not([disabled])").first
    code = first.get_attribute("data-play")
    first.click()
    expect(page.locator(f".slot [data-card='{code}'], .slot .chip").first).to_be_visible()
    assert page.evaluate(REFUSED) == []
    # A style a script set through the CSSOM (allowed) leaves a style attribute behind, which
    # htmx would copy onto the element a swap brings in (refused): the set-up's redraws.
    page.goto(f"{base}/rebel-princess/new")
    page.evaluate("""() => document.querySelectorAll("#new-game input").forEach(input => {
        input.style.caretColor = "red"; input.style.removeProperty("caret-color"); })""")
    for edition in ("classic", "deluxe"):
        with page.expect_response(lambda r: r.request.method == "POST"):
            page.locator(f"label:has(input[name=edition][value={edition}])").click()
        expect(page.locator(f"input[name=edition][value={edition}]")).to_be_checked()
    assert page.evaluate(REFUSED) == []


LAYOUT = """() => {
  const number = (element, property) => {  // a custom property's value, as the page computes it
    const probe = document.createElement("i");
    probe.style.width = `calc(var(${property}) * 1px)`;  // (CSSOM: the policy allows it)
    element.appendChild(probe);
    const value = parseFloat(getComputedStyle(probe).width);
    probe.remove();
    return value;
  };
  const form = document.querySelector("#cards-entry");
  return form && {
    rows: number(form, "--rows"),
    wanted: form.querySelectorAll(".cardrow").length
      + (form.querySelector("[name=no_trick_0]") ? 1.6 : 0)
      + (form.querySelector("[name=last_trick]") ? 1.6 : 0)
      + (form.querySelector("[data-reminder]") ? 0.6 : 0)
      + (form.querySelector("input[type=hidden][name=round_card]") ? 0.6 : 0)};
}"""


def test_the_layout_the_style_attributes_gave_is_kept(light_phone: Page, stored):
    """The entry by cards shares out the screen by its rows (its cards, plus what else the
    round asks), the trick shows a slot per player on a line, the deck half a suit a row."""
    base, _token, links = stored
    page = light_phone
    playing = f"{base}/rebel-princess/g/{links['playing']}"
    page.goto(f"{playing}/round/1/cards")
    layout = page.evaluate(LAYOUT)
    assert layout["rows"] == pytest.approx(layout["wanted"]) and layout["rows"] >= 10
    page.goto(f"{playing}/round/1/tricks")
    columns = page.evaluate("""() => [".slots", ".suitrow"].map(s =>
      getComputedStyle(document.querySelector(s)).gridTemplateColumns.split(" ").length)""")
    suit = page.locator(".suitrow").first.locator(".cardbtn").count()
    assert columns == [3, (suit + 1) // 2]  # a table of three
    assert page.evaluate(REFUSED) == []


def test_the_listener_sees_an_inline_style_the_policy_refuses(browser: Browser, stored):
    """(The checks above are only as good as the listener: an inline style put into one of our
    pages fires it. A page of its own, outside the suite's console check, which would fail on
    the refusal this test makes on purpose.)"""
    base, _token, _links = stored
    page = browser.new_page()
    try:
        page.add_init_script(LISTEN)
        page.goto(base + "/")
        page.evaluate("""() => document.body.insertAdjacentHTML("beforeend",
                         '<p style="color: red">x</p><style>p { color: red }</style>')""")
        refused = page.evaluate(REFUSED)
        assert {r.split()[0] for r in refused} == {"style-src-attr", "style-src-elem"}, refused
    finally:
        page.close()
