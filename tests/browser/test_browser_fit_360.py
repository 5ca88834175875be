"""Every entry page at 360x740 (issue 39, items 4 and 6), with four, five and six long accented
names, in English and French:

- every control (button, link, input, select, summary) a player can tap is at least 44 px both
  ways, with every menu (``details``) and popover open;
- no name is broken inside a word, and no name is clipped unless the clip is the ellipsis rule
  the app chose for a name that does not fit (one line, ``text-overflow: ellipsis``), on every
  page that shows names: the entry pages, the score tables, every game's end screen, the
  history, the statistics, the players, a player's page and head to head.

Screenshots land in tests/artifacts/ (``fit-*.png``)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page
from sqlmodel import select

from companion import create_app
from companion.db import get_session
from companion.models import Person
from companion.play import groups, kanai_duel, princesse_princesse, rebel_princess, reveillez, store
from companion.scoring.princesse_princesse import RoundReveal
from companion.scoring.rebel_princess import Edition, PlayedRound

from ..history.conftest import kd_game, pp_game, rv_game
from .conftest import PHONES, no_horizontal_scroll, start_server

pytestmark = pytest.mark.browser

LONG = ["Anaïs-Bérénice", "Bérénice", "Dominique", "Marie-Élise", "Gwenaëlle", "Maximilien"]
COUNTS = (4, 5, 6)
SMALL = PHONES[1]

# Every control on the page that a finger can reach, measured where it is drawn: a radio or a
# checkbox drawn by its label (the input itself hidden) is measured by its label.
MEASURE = """() => {
  const seen = [];
  const visible = (el) => {
    const r = el.getBoundingClientRect();
    const s = getComputedStyle(el);
    return r.width > 0 && r.height > 0 && s.visibility !== "hidden" && s.display !== "none";
  };
  for (const el of document.querySelectorAll(
      "main button, main a[href], main input:not([type=hidden]), main select, main summary,"
      + " main textarea, header button, header a[href], header summary, header select,"
      + " [popover]:popover-open button, [popover]:popover-open a[href]")) {
    let target = el;
    if (el.matches("input[type=radio], input[type=checkbox]")) {
      const r = el.getBoundingClientRect();
      if ((r.width < 44 || r.height < 44) && el.closest("label")) target = el.closest("label");
    }
    if (!visible(target) && !visible(el)) continue;
    if (el.closest("[inert], [aria-hidden=true]")) continue;
    const r = target.getBoundingClientRect();
    if (r.width < 43.5 || r.height < 43.5) {
      const action = el.dataset.action ? "[" + el.dataset.action + "]" : "";
      seen.push(`${el.tagName.toLowerCase()}${action}`
                + ` «${(el.innerText || el.value || el.name || "").trim().slice(0, 30)}»`
                + ` ${Math.round(r.width)}x${Math.round(r.height)}`);
    }
  }
  return seen;
}"""

OPEN_EVERYTHING = """() => {
  for (const d of document.querySelectorAll("details")) d.open = true;
}"""

# Each word of each player's name (or of its label) drawn on two lines, or clipped without an
# ellipsis.
NAMES_BROKEN = """(names) => {
  const parts = new Set();
  for (const n of names) {
    for (const p of n.split(/[\\s-]+/)) if (p.length > 1) parts.add(p.toLowerCase());
  }
  const isName = (word) => {
    const w = word.replace(/[….,:;!?()«»“”"'’]+$/u, "").replace(/^[(«“"']+/u, "").toLowerCase();
    if (w.length < 2) return false;
    for (const p of parts) if (p.startsWith(w)) return true;
    return false;
  };
  const found = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const node = walker.currentNode;
    const el = node.parentElement;
    if (!el || el.closest("script, style, template, noscript, option, .sr, [hidden]")) continue;
    const box = el.getBoundingClientRect();
    if (box.width === 0 || box.height === 0) continue;
    const text = node.textContent;
    const re = /[^\\s\\-]+/gu;
    let m;
    while ((m = re.exec(text))) {
      if (!isName(m[0])) continue;
      const range = document.createRange();
      range.setStart(node, m.index);
      range.setEnd(node, m.index + m[0].length);
      const tops = new Set([...range.getClientRects()].filter(r => r.width > 0)
                           .map(r => Math.round(r.top / 4)));
      if (tops.size > 1) {
        found.push(`broken: «${m[0]}» in <${el.tagName.toLowerCase()} class="${el.className}">`);
      }
    }
    // clipped: the element holding the name is narrower than its text, with no ellipsis
    let holder = el;
    while (holder && getComputedStyle(holder).display === "inline") holder = holder.parentElement;
    if (holder && holder.scrollWidth > holder.clientWidth + 1) {
      const s = getComputedStyle(holder);
      const ellipsis = s.textOverflow === "ellipsis" && s.whiteSpace === "nowrap"
        && !/flex|grid/.test(s.display);
      const named = [...text.matchAll(re)].some(w => isName(w[0]));
      if (s.overflowX !== "visible" && !ellipsis && named) {
        const tag = holder.tagName.toLowerCase();
        found.push(`clipped: «${text.trim()}» in <${tag} class="${holder.className}">`);
      }
    }
  }
  return [...new Set(found)];
}"""


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    """Per count of players (4, 5, 6): games of every kind at their entry, one finished Rebel
    Princess game; the new-game pages; the history of the group."""
    app = create_app({"SECRET_KEY": "browser-tests",
                      "DATABASE": str(tmp_path_factory.mktemp("fit") / "f.sqlite")})
    pages: dict[int, dict[str, str]] = {}
    with app.app_context(), app.test_request_context():
        from flask import url_for

        session = get_session()
        group = groups.new_group(session, name="Long names")
        session.commit()
        for count in COUNTS:
            names = LONG[:count]
            found = pages.setdefault(count, {})
            for edition, cards in ((Edition.DELUXE, "ady"), (Edition.CLASSIC, "ACBDM")):
                game = rebel_princess.create_game(
                    session=session, edition=edition, names=names, first_leader=0,
                    round_cards=list(cards), group_id=group.id)
                rebel_princess.save_round(
                    session=session, game=game, number=1, mode="numbers", base_id=None,
                    played=PlayedRound(scores=tuple(range(count)), last_trick_winner=0))
                code = store.links_of(session, game)["scorer"].token
                key = edition.value
                found[f"rp-{key}-pad"] = url_for("rebel_princess.show", code=code)
                for mode in ("cards", "counts", "numbers"):
                    found[f"rp-{key}-{mode}"] = url_for(f"rebel_princess.enter_{mode}",
                                                        code=code, number=2)
                found[f"rp-{key}-tricks"] = url_for("rebel_princess.tricks", code=code,
                                                    number=2)
                found[f"rp-{key}-share"] = url_for("links.share", token=code)  # seats' links
            done = rebel_princess.create_game(
                session=session, edition=Edition.DELUXE, names=names, first_leader=0,
                round_cards=list("ady"), group_id=group.id)
            for number in (1, 2, 3):
                scores = [number + seat * 2 for seat in range(count)]
                rebel_princess.save_round(
                    session=session, game=done, number=number, mode="numbers", base_id=None,
                    played=PlayedRound(scores=tuple(scores), last_trick_winner=0))
            viewer = store.links_of(session, done)["viewer"].token
            found["rp-end"] = url_for("rebel_princess.show", code=viewer)
            found["rp-record"] = url_for("records.game", token=viewer)
            pp = princesse_princesse.create_game(session=session, names=names, first=0,
                                                 group_id=group.id)
            code = store.links_of(session, pp)["scorer"].token
            found["pp-show"] = url_for("princesse_princesse.show", code=code)
            found["pp-round"] = url_for("princesse_princesse.round_end", code=code)
            rv = reveillez.create_game(session=session, names=names[:5], first=0,
                                       variant=False, show_values=False, group_id=group.id)
            found["rv-show"] = url_for("reveillez.show",
                                       code=store.links_of(session, rv)["scorer"].token)
            kd, _ = kanai_duel.create(session=session, names=names[:2], mode=kanai_duel.REFEREE,
                                      variants=[], group_id=group.id)
            found["kd-show"] = url_for("kanai_duel.show",
                                       code=store.links_of(session, kd)["scorer"].token)
            # the other games' end screens, with the same long names
            ended = {"pp-end": pp_game(session, LONG[:5], [
                         RoundReveal.of([None] * 5, still_in={0}, spies={0}),
                         RoundReveal.of([None, 8, 5, None, None], princesses={1, 2}),
                         RoundReveal.of([5, None, None, 5, None])], group_id=group.id),
                     "rv-end": rv_game(session, names[:2], [20, 10, 20, 5, 15],
                                       group_id=group.id),
                     "kd-end": kd_game(session, names[:2], ["princess/prince"],
                                       group_id=group.id)}
            for where, game in ended.items():
                viewer = store.links_of(session, game)["viewer"].token
                found[where] = url_for(f"{game.kind.replace('-', '_')}.show", code=viewer)
        people = {person.name: person.id for person in session.exec(
            select(Person).where(Person.group_id == group.id))}
        for count in COUNTS:
            pages[count]["history"] = url_for("history.index", group_token=group.token)
            # the group's pages that show names: statistics, the players, one player, versus
            pages[count]["stats"] = url_for("history.statistics", group_token=group.token)
            pages[count]["people"] = url_for("history.people", group_token=group.token)
            pages[count]["person"] = url_for("history.person", group_token=group.token,
                                             person_id=people[LONG[count - 1]])
            pages[count]["versus"] = url_for("history.versus", group_token=group.token,
                                             a=people[LONG[0]], b=people[LONG[count - 1]])
        news = {f"new-{kind}": url_for(f"{kind}.new_game") for kind in (
            "rebel_princess", "princesse_princesse", "reveillez", "kanai_duel")}
    url, stop = start_server(app)
    yield {"pages": {count: {k: url + v for k, v in found.items()}
                     for count, found in pages.items()},
           "new": {k: url + v for k, v in news.items()}}
    stop()


def _page(browser: Browser, browser_context_args, lang: str) -> Page:
    context = browser.new_context(**{**browser_context_args, "viewport": SMALL},
                                  locale={"en": "en-GB", "fr": "fr-FR"}[lang])
    return context.new_page()


def _controls(page: Page) -> list[str]:
    page.evaluate(OPEN_EVERYTHING)
    small = page.evaluate(MEASURE)
    for index in range(page.locator("[popover]").count()):
        popover = page.locator("[popover]").nth(index)
        popover.evaluate("p => p.showPopover()")
        small += page.evaluate(MEASURE)
        popover.evaluate("p => p.hidePopover()")
    return sorted(set(small))


ENTRY = ["rp-deluxe-pad", "rp-deluxe-cards", "rp-deluxe-counts", "rp-deluxe-numbers",
         "rp-deluxe-tricks", "rp-classic-pad", "rp-classic-cards", "rp-classic-counts",
         "rp-classic-numbers", "rp-classic-tricks", "pp-show", "pp-round", "rv-show", "kd-show"]


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_no_control_under_44_px_on_an_entry_page(browser, browser_context_args, tables,
                                                 artifacts, lang):
    page = _page(browser, browser_context_args, lang)
    small: dict[str, list[str]] = {}
    for name, url in tables["new"].items():
        page.goto(url)
        if found := _controls(page):
            small[name] = found
    for count in COUNTS:
        for name in ENTRY:
            page.goto(tables["pages"][count][name])
            if found := _controls(page):
                small[f"{count}-{name}"] = found
            assert no_horizontal_scroll(page), f"{count}-{name}: wider than 360 px"
    page.context.close()
    assert not small, "\n".join(f"{where}: {found}" for where, found in small.items())


@pytest.mark.parametrize("lang", ["en", "fr"])
@pytest.mark.parametrize("count", COUNTS)
def test_no_name_broken_inside_a_word(browser, browser_context_args, tables, artifacts, lang,
                                      count):
    page = _page(browser, browser_context_args, lang)
    broken: dict[str, list[str]] = {}
    for name, url in tables["pages"][count].items():
        page.goto(url)
        page.evaluate(OPEN_EVERYTHING)
        if found := page.evaluate(NAMES_BROKEN, LONG[:count]):
            broken[name] = found
        page.screenshot(path=str(artifacts / f"fit-{count}-{lang}-{name}.png"), full_page=True)
    page.context.close()
    assert not broken, "\n".join(f"{where}: {found}" for where, found in broken.items())
