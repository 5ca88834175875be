"""Every game's entry pages on a phone (issue 22): at 390x844 and 360x740, in English and in
French, in the light and the dark colour scheme, every control a player taps is at least 44 x 44 px
and nothing is wider than the screen; what the table needs between two rounds is on the first
screen; axe-core finds no accessibility violation in either colour scheme on a page of each game,
the history and the rulings.

The layout checks pair each size with both languages and each language with both schemes
(English light and French dark at 390x844, French light and English dark at 360x740): every
size, language and scheme is covered, and every pair of them, in four runs instead of eight.

The pages are reached as a table reaches them (one game of each kind set up through its form).
"""

from __future__ import annotations

import re

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Browser, Page, expect

from .conftest import LANGUAGES, PHONES, no_horizontal_scroll
from .test_browser_history import play_by_numbers
from .test_browser_table import SIX, by_numbers, new_game

pytestmark = pytest.mark.browser

# What a thumb may tap: links, buttons, fields, <summary>, and the labels that stand for a radio
# or a checkbox (the input itself is hidden under its label). A label of a text field or a select
# is not measured: the field beside it is the target, and it is measured.
#
# One explicit exemption, WCAG 2.5.8's "inline": a link inside a sentence (display inline, in a
# block with more words than the link's own) — wrapping such a link in a 44-px box would break
# the sentence it belongs to. Such links are never the way to an action during play.
SMALL_TARGETS = """() => {
  const seen = new Set(), small = [];
  const visible = e => {
    if (!e.getClientRects().length) return false;
    return e.checkVisibility({visibilityProperty: true, opacityProperty: false});
  };
  const inline = e => {
    if (e.tagName !== "A" || getComputedStyle(e).display !== "inline") return false;
    let block = e.parentElement;
    while (block && getComputedStyle(block).display.startsWith("inline"))
      block = block.parentElement;
    return block && block.textContent.trim().length > e.textContent.trim().length + 12;
  };
  const target = e => {
    if (e.matches("input[type=radio], input[type=checkbox]"))
      return e.closest("label") || (e.id && document.querySelector(`label[for="${e.id}"]`)) || e;
    return e;
  };
  const sel = "a[href], button, input:not([type=hidden]), select, textarea, summary";
  for (const e of document.querySelectorAll(sel)) {
    const t = target(e);
    if (seen.has(t) || !visible(t) || inline(t) || t.closest("[hidden], .sr")) continue;
    seen.add(t);
    const r = t.getBoundingClientRect();
    if (r.width < 43.5 || r.height < 43.5) {
      const what = t.dataset.action || t.id || t.className || t.textContent.trim().slice(0, 20);
      const size = `${Math.round(r.width)}x${Math.round(r.height)}`;
      small.push(`${t.tagName.toLowerCase()} ${what}: ${size}`);
    }
  }
  return small;
}"""


def entry_pages(page: Page, base: str) -> list[str]:
    """One game of each kind set up through its form, and the pages a table enters it on."""
    pages = [base + "/rebel-princess/new"]
    new_game(page, base, SIX)
    game = page.url.rstrip("/")  # the pad's own address
    by_numbers(page, [4, 3, 5, 2, 1, 2])
    pages += [game, game + "/round/2/cards", game + "/round/2/counts", game + "/round/2/numbers",
              game + "/round/2/tricks"]
    pages.append(base + "/princesse-princesse/new")
    page.goto(pages[-1])
    for seat, name in enumerate(["Ana", "Ben", "Cléo", "Dan", "Eve", "Fay"]):
        page.locator(f'[data-name-seat="{seat}"]').fill(name)
    page.locator('[data-action="create"]').click()
    expect(page.locator("#board")).to_be_visible()
    pages += [page.url]
    page.locator('[data-action="round-end"]').click()
    pages += [page.url]
    page.goto(pages[-2])
    page.locator('[data-action="turn-log"]').click()
    page.locator('[data-action="start-log"]').click()
    expect(page.locator("#log-state")).to_be_visible()
    pages += [page.url]
    pages.append(base + "/reveillez/new")
    page.goto(pages[-1])
    for seat, name in enumerate(["Ana", "Ben", "Cléo", "Dan", "Eve"]):
        page.fill(f"#names-{seat}", name)
    page.click("[data-action=create]")
    expect(page.locator("#rv-table")).to_be_visible()
    pages += [page.url]
    pages.append(base + "/kanai-duel/new")
    page.goto(pages[-1])
    page.fill("#first", "Ana")
    page.fill("#second", "Ben")
    page.click("[data-action=create]")
    expect(page.locator("#board")).to_be_visible()
    pages += [page.url]
    # A finished game, for the history's list, its statistics' chart and a final pad's chart.
    play_by_numbers(page, base, "abc", [[5, 2, 8], [4, 1, 6], [3, 4, 7]])
    finished = page.url
    page.goto(base)
    page.locator("[data-action=group]").click()
    page.locator("[data-action=history]").click()
    expect(page.locator("[data-list=history] li[data-game]")).to_have_count(1)
    history = page.url
    page.locator("[data-tab=statistics]").click()
    expect(page).to_have_url(re.compile(r"/stats"))
    return pages + [history, page.url, finished]


# (size, language, colour scheme): each size in both languages and both schemes, each language
# in both schemes — every pair covered once, without running all eight combinations.
LOOKS = [(PHONES[0], "en", "light"), (PHONES[0], "fr", "dark"),
         (PHONES[1], "fr", "light"), (PHONES[1], "en", "dark")]


def look_id(look) -> str:
    size, lang, scheme = look
    return f"{size['width']}x{size['height']}-{lang}-{scheme}"


@pytest.fixture(scope="module")
def pages(browser: Browser, browser_context_args, tmp_path_factory):
    """The entry pages of one game of each kind, on one server for the whole module."""
    from companion import create_app

    from .conftest import start_server

    url, stop = start_server(create_app({
        "SECRET_KEY": "browser-tests",
        "DATABASE": str(tmp_path_factory.mktemp("layout") / "b.sqlite")}))
    context = browser.new_context(**browser_context_args)
    found = entry_pages(context.new_page(), url)
    context.close()
    yield url, found
    stop()


@pytest.mark.parametrize("look", LOOKS, ids=look_id)
def test_every_entry_page_has_thumb_sized_targets_and_no_sideways_scroll(
        browser: Browser, browser_context_args, pages, look, artifacts):
    _, urls = pages
    size, lang, scheme = look
    context = browser.new_context(**{**browser_context_args, "viewport": size},
                                  locale=LANGUAGES[lang], color_scheme=scheme)
    page = context.new_page()
    problems = {}
    for url in urls[:-3]:  # the history, its statistics and a finished game are not entry pages
        page.goto(url)
        page.wait_for_load_state("load")
        small = page.evaluate(SMALL_TARGETS)
        if not no_horizontal_scroll(page):
            small.append("wider than the screen")
        if small:
            problems[url.split("/", 3)[3]] = small
    context.close()
    assert not problems, "\n".join(f"{url}: {', '.join(small)}" for url, small in problems.items())


# What the table needs between two rounds or turns, on the first screen (issue 22): who plays
# first and why, the next Round card and its effect, the primary action.
FIRST_SCREEN = {
    1: ["#this-round [data-round-card]", "#this-round [data-reminder]", "#this-round [data-leader]",
        "#this-round .why", "#this-round .btn.primary"],
    7: [".pp-starter", "[data-action=round-end]"],
    9: ["#turn-form [data-card-choice='9']"],  # the turn log's card picker, whole
    11: [".rv-turn", "[data-action=wake]"],
    13: ["[data-score]", "[data-action=reveal]"],
}


@pytest.mark.parametrize("look", LOOKS, ids=look_id)
def test_what_the_table_needs_between_rounds_is_on_the_first_screen(
        browser: Browser, browser_context_args, pages, look):
    _, urls = pages
    size, lang, scheme = look
    context = browser.new_context(**{**browser_context_args, "viewport": size},
                                  locale=LANGUAGES[lang], color_scheme=scheme)
    page = context.new_page()
    below = []
    for index, selectors in FIRST_SCREEN.items():
        page.goto(urls[index])
        for selector in selectors:
            box = page.locator(selector).first.bounding_box()
            if box is None or box["y"] < 0 or box["y"] + box["height"] > size["height"]:
                below.append(f"{urls[index].split('/', 3)[3]}: {selector} {box}")
    # The secondary actions: one menu on the pad, not a stack of pills.
    page.goto(urls[1])
    expect(page.locator("[data-menu]")).to_have_count(1)
    expect(page.locator("[data-menu] [data-action=undo]")).to_be_hidden()
    context.close()
    assert not below, "\n".join(below)


AXE_PAGES = ["/rebel-princess/new", "{pad}", "/princesse-princesse/new", "{pp}",
             "/reveillez/new", "{rv}", "/kanai-duel/new", "{kd}", "{history}", "{stats}",
             "{finished}", "/rules", "/rebel-princess/rules"]


@pytest.mark.parametrize("colour_scheme", ["light", "dark"])
def test_no_accessibility_violation_in_either_scheme(browser: Browser, browser_context_args,
                                                     pages, colour_scheme):
    base, urls = pages
    known = {"pad": urls[1], "pp": urls[7], "rv": urls[11], "kd": urls[13], "history": urls[14],
             "stats": urls[15], "finished": urls[16]}
    context = browser.new_context(**browser_context_args, color_scheme=colour_scheme)
    page = context.new_page()
    axe = Axe()
    found = {}
    for path in AXE_PAGES:
        url = path.format(**known) if path.startswith("{") else base + path
        page.goto(url)
        page.wait_for_load_state("load")
        results = axe.run(page)
        if results.violations_count:
            found[path] = [f"{v['id']} at {[n['target'] for n in v['nodes']][:4]}: "
                           + v["nodes"][0].get("failureSummary", "").replace("\n", " ")[:160]
                           for v in results.response["violations"]]
    context.close()
    assert not found, "\n".join(f"{path}: {'; '.join(v)}" for path, v in found.items())
