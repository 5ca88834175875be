"""The rest of the table's last mile (issue 29), at 390×844 and 360×740, in French and English:
quick taps by cards log no htmx error, and the narrow screens cut no name nor title."""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import Browser, expect

from companion import create_app

from .conftest import LANGUAGES, PHONES, start_server

pytestmark = pytest.mark.browser

SIZES_AND_LANGUAGES = [(size, lang) for size in PHONES for lang in LANGUAGES]
IDS = [f"{size['width']}x{size['height']}-{lang}" for size, lang in SIZES_AND_LANGUAGES]
PRINCES = [f"P{n}" for n in range(1, 11)]


def phone(browser: Browser, browser_context_args, size, lang, **more):
    context = browser.new_context(**{**browser_context_args, "viewport": size,
                                     "locale": LANGUAGES[lang], **more})
    return context.new_page()


def new_deluxe_game(page, base: str, names: list[str], cards: str = "a") -> None:
    page.goto(f"{base}/rebel-princess/new")
    if not page.locator("input[name=edition][value=deluxe]").is_checked():
        page.locator("label:has(input[name=edition][value=deluxe])").click()
    for i, letter in enumerate(cards):
        page.locator(f"select[name='cards-{i}']").select_option(letter)
    for seat, name in enumerate(names):
        page.locator(f"input[name='names-{seat}']").fill(name)
    page.locator("[data-action=create]").click()
    expect(page.locator("#pad")).to_be_visible()


# --- (d) quick taps by cards: every preview answered or passed over, none aborted with an error --

@pytest.fixture
def slow_previews(tmp_path):
    """The app, whose running-score answers (``…/preview``) take 400 ms more: a slow Wi-Fi."""
    app = create_app({"SECRET_KEY": "browser-tests", "DATABASE": str(tmp_path / "b.sqlite")})
    inner = app.wsgi_app

    def slow(environ, start_response):
        if environ.get("PATH_INFO", "").endswith("/preview"):
            time.sleep(0.4)
        return inner(environ, start_response)

    app.wsgi_app = slow  # type: ignore[method-assign]
    url, stop = start_server(app)
    yield url
    stop()


@pytest.mark.parametrize(("size", "lang"), SIZES_AND_LANGUAGES, ids=IDS)
def test_quick_taps_by_cards_log_no_htmx_error(browser: Browser, browser_context_args,
                                               slow_previews, artifacts, size, lang):
    """Ten Princes tapped in quick succession while each running-score answer takes 400 ms (a
    slow Wi-Fi): the console has no error (htmx's ``afterRequest``/``sendAbort`` of a preview
    cut short), and the running score ends on the last tap's (all ten to Ana)."""
    page = phone(browser, browser_context_args, size, lang)
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    new_deluxe_game(page, slow_previews, ["Ana", "Ben", "Cy", "Di"])
    page.locator("[data-action=enter-cards]").first.click()
    expect(page.locator("#cards-entry")).to_be_visible()
    for code in PRINCES:
        page.locator(f"[data-row={code}] input[data-seat='0']").check(force=True, timeout=5_000)
    expect(page.locator("#live [data-live-seat='0'] [data-points]")).to_have_attribute(
        "data-points", "10", timeout=20_000)
    page.wait_for_timeout(1_000)  # every preview still in flight has come back
    page.screenshot(path=str(artifacts / f"table-rest-quick-taps-{size['width']}-{lang}.png"))
    assert not [e for e in errors if "htmx" in e], errors
    page.context.close()


# --- (b) at 360×740 and 390×844: the statistics' tables fit their box, the filters show whole ----

TABLES_OVER = """() => [...document.querySelectorAll('main table')].filter(
    t => t.getBoundingClientRect().width > t.parentElement.clientWidth + 0.5).map(
    t => `${t.closest('section') && t.closest('section').dataset.kind} ${t.dataset.table} `
         + `${t.getBoundingClientRect().width} > ${t.parentElement.clientWidth}`)"""
# A select shows its chosen option whole: the text's width (measured in the select's own font)
# fits inside its paddings and the arrow (about 20 px).
SELECTS_CUT = """() => [...document.querySelectorAll('main select')].filter(s => {
    const cs = getComputedStyle(s), probe = document.createElement('span');
    probe.style.font = cs.font; probe.style.whiteSpace = 'pre'; probe.style.position = 'absolute';
    probe.textContent = s.options[s.selectedIndex].text; document.body.append(probe);
    const text = probe.getBoundingClientRect().width; probe.remove();
    const room = s.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight) - 20;
    return text > room;
}).map(s => `${s.name}: ${s.options[s.selectedIndex].text} (${s.clientWidth} px)`)"""


@pytest.fixture
def known_server(tmp_path):
    """The app holding the known games of tests/history (all four kinds, Princesse Princesse's
    five facts among them); (base URL, the group's history address)."""
    from sqlmodel import select

    from companion.db import get_session
    from companion.models import Group
    from tests.history.conftest import store_known_games

    app = create_app({"SECRET_KEY": "browser-tests", "DATABASE": str(tmp_path / "b.sqlite")})
    with app.app_context():
        session = get_session()
        store_known_games(session)
        token = session.exec(select(Group)).first().token
    url, stop = start_server(app)
    yield url, f"/group/{token}/history"
    stop()


@pytest.mark.parametrize(("size", "lang"), SIZES_AND_LANGUAGES, ids=IDS)
def test_statistics_and_history_filters_fit_the_phone(browser: Browser, browser_context_args,
                                                      known_server, artifacts, size, lang):
    """Princesse Princesse's « En détail » table (five facts) fits its box instead of running
    422 px wide in 314; the history's two filters show « Tous les jeux » and « Tout le monde »
    whole; no page scrolls sideways."""
    base, history = known_server
    page = phone(browser, browser_context_args, size, lang)
    for name, path in (("statistics", "/stats"), ("games", ""), ("players", "/people")):
        page.goto(base + history + path)
        expect(page.locator("main h1")).to_be_visible()
        page.screenshot(path=str(artifacts / f"table-rest-{name}-{size['width']}-{lang}.png"),
                        full_page=True)
        assert page.evaluate(TABLES_OVER) == [], name
        assert page.evaluate(SELECTS_CUT) == [], name
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), name
    page.goto(base + history + "/stats")
    facts = page.locator("section[data-kind=princesse_princesse] [data-table=facts]")
    expect(facts.locator("thead th")).to_have_count(6)  # Player + the five ways to a token
    page.context.close()
