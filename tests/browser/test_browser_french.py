"""The app on a phone set to French: every screen of a game reads in French, fits 360 px, and the
FR | EN switch works without JavaScript."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, expect

from .conftest import give_the_rest, no_horizontal_scroll

pytestmark = pytest.mark.browser

# Words of our English UI that never appear in the French one. Player names here are Ana, Ben,
# Cy and Di, so none of them can match by accident. ("Total", "Score", "Deluxe" and "Princes"
# are French too.)
ENGLISH = ["Round", "round", "leads", "led", "Save", "save", "Enter", "New game", "players",
           "Player", "Undo", "History", "Subtotal", "Score pad", "Rules", "Rulings", "Back",
           "trick", "tricks", "won", "Queens", "Fairies", "Pets", "Frog", "Dancing Queens",
           "Search", "Tap", "the", "and", "or", "of", "by", "pad", "Edit", "editing", "Start"]
WORDS = re.compile(r"\b(" + "|".join(re.escape(w) for w in ENGLISH) + r")\b")



def english_words(page: Page) -> list[str]:
    """English UI words in what the page shows (and its title). Left out: text marked
    ``lang="en"`` (a card's English name on its rulings page) and the source line of a rulings
    entry, which cites the English rulebook's section titles as printed."""
    text = page.evaluate("""() => {
        let shown = document.title + '\\n' + document.body.innerText;
        for (const e of document.querySelectorAll('body [lang=en], .source')) {
            shown = shown.replace(e.innerText, ' ');
        }
        return shown; }""")
    return sorted(set(WORDS.findall(text)))


def check_screen(page: Page, artifacts, name: str) -> None:
    """In French, nothing of the English UI; fits 390 px and 360 px; screenshot saved."""
    assert page.locator("html").get_attribute("lang") == "fr"
    assert english_words(page) == [], f"{name}: {english_words(page)}"
    assert no_horizontal_scroll(page), f"{name}: wider than 390 px"
    page.screenshot(path=str(artifacts / f"fr-{name}.png"), full_page=True)
    page.set_viewport_size({"width": 360, "height": 780})
    assert no_horizontal_scroll(page), f"{name}: wider than 360 px"
    page.set_viewport_size({"width": 390, "height": 844})


def test_a_game_in_french(french: Page, live_server: str, artifacts):
    """Games list, new game, round screen, entry by cards and by numbers, score pad, history and
    a rulings page: all in French, the Round card by its French name."""
    page = french
    page.goto(f"{live_server}/")
    expect(page.locator("h1")).to_have_text("À quoi jouez-vous ?")
    check_screen(page, artifacts, "games-empty")

    page.locator("[data-action=new-game]").click()  # the chooser, then the game
    expect(page.locator("h1")).to_have_text("Nouvelle partie")
    page.locator("[data-action=new-rebel-princess]").click()
    expect(page.locator("h1")).to_have_text("Nouvelle partie")
    expect(page.locator("[data-nav=game]")).to_have_text("Rebelles Princesses")
    # A French table starts on its own box, Rebelles Princesses; this game is a Deluxe one.
    expect(page.locator("input[name=edition][value=classic]")).to_be_checked()
    page.locator("label:has(input[name=edition][value=deluxe])").click()
    expect(page.locator("select[name='cards-0']")).to_have_value("a")
    page.locator("label:has(input[name=length][value='3'])").click()
    expect(page.locator("select[name='cards-3']")).to_have_count(0)
    for seat, name in enumerate(["Ana", "Ben", "Cy", "Di"]):
        page.locator(f"input[name='names-{seat}']").fill(name)
    page.locator("select[name='cards-0']").select_option("z")
    page.locator("select[name='cards-1']").select_option("a")
    page.locator("select[name='cards-2']").select_option("y")
    expect(page.locator("select[name='cards-0'] option:checked")).to_have_text(
        "z · Reines de la danse")
    check_screen(page, artifacts, "new-game")
    page.locator("[data-action=create]").click()

    # The round screen and the score pad.
    expect(page.locator("#this-round")).to_be_visible()
    expect(page.locator("#this-round h2")).to_have_text("Reines de la danse")
    expect(page.locator("#this-round .leader")).to_have_text("Ana ouvre")
    expect(page.locator(".flash")).to_contain_text("Partie créée")
    check_screen(page, artifacts, "round")

    # Round 1 by cards: Ben takes P1-P3 and Q1, everything else goes to Di.
    page.locator("[data-action=enter-cards]").click()
    for code in ("P1", "P2", "P3", "Q1"):
        page.locator(f"[data-row={code}] label:has(input[value='1'])").click()
    give_the_rest(page, 3)
    expect(page.locator("[data-missing='0']")).to_be_visible()
    expect(page.locator("#live")).to_contain_text("Score en cours")
    check_screen(page, artifacts, "entry-by-cards")
    page.locator("[data-action=save]").click()
    expect(page.locator(".flash")).to_have_text("Manche 1 enregistrée.")
    expect(page.locator("[data-round-row='1'] small")).to_contain_text("Reines de la danse")
    check_screen(page, artifacts, "score-pad")

    # Round 2 by numbers, with a total this card cannot give: the warning is in French.
    page.locator("[data-action=enter-numbers]").click()
    for seat, value in enumerate([1, 2, 3, 4]):
        page.locator(f"#score_{seat}").fill(str(value))
    page.locator("[data-action=save]").click()
    expect(page.locator("[data-warning=impossible-round-total]")).to_contain_text(
        "Les scores font 10 en tout")
    check_screen(page, artifacts, "entry-by-numbers")

    page.goto(page.url.split("/round/")[0] + "/history")
    expect(page.locator("h1")).to_have_text("Historique")
    check_screen(page, artifacts, "history")

    page.goto(f"{live_server}/")
    expect(page.locator("[data-game]")).to_contain_text("manche 2 sur 3")
    check_screen(page, artifacts, "games")


def test_rulings_in_french(french: Page, live_server: str, artifacts):
    page = french
    page.goto(f"{live_server}/rebel-princess/rules")
    expect(page.locator("h1")).to_have_text("Précisions de règles")
    check_screen(page, artifacts, "rulings")
    page.goto(f"{live_server}/rebel-princess/rules/deluxe-z")
    expect(page.locator("h1")).to_have_text("Reines de la danse")
    expect(page.locator(".rule [lang=en]")).to_have_text("Dancing Queens")
    check_screen(page, artifacts, "rulings-card")


def test_switch_between_french_and_english_without_javascript(
        browser: Browser, browser_context_args, live_server: str):
    """The switch is a plain link: it works with JavaScript off and keeps the page."""
    context = browser.new_context(**browser_context_args, locale="fr-FR", java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{live_server}/rebel-princess/rules/deluxe-z")
    expect(page.locator("h1")).to_have_text("Reines de la danse")
    page.locator("[data-lang=en]").click()
    expect(page.locator("h1")).to_have_text("Dancing Queens")
    assert page.url.endswith("/rebel-princess/rules/deluxe-z")
    expect(page.locator("[data-nav=lang] [aria-current]")).to_have_text("EN")
    page.goto(f"{live_server}/")
    expect(page.locator("h1")).to_have_text("What are you playing?")  # the choice outlives the page
    page.locator("[data-lang=fr]").click()
    expect(page.locator("h1")).to_have_text("À quoi jouez-vous ?")
    context.close()
