"""French and English: the browser's language picks one, the FR | EN switch overrides it, the JSON
API stays English, and the French catalogue is complete, current and compiled."""

from __future__ import annotations

import html as html_lib
import re
import string
import tomllib
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path

import pytest
from babel.dates import format_datetime
from babel.messages.pofile import read_po

ROOT = Path(__file__).resolve().parents[2]
TRANSLATIONS = ROOT / "companion" / "translations"
PO = TRANSLATIONS / "fr" / "LC_MESSAGES" / "messages.po"
MO = PO.with_suffix(".mo")
FRENCH = {"Accept-Language": "fr-FR,fr;q=0.9,en;q=0.5"}


@pytest.fixture
def french(client):
    """A client whose browser asks for French (as a phone set to French does)."""
    client.environ_base["HTTP_ACCEPT_LANGUAGE"] = FRENCH["Accept-Language"]
    return client


def text_of(response):
    """The page as read: entities such as ``&#39;`` decoded."""
    return html_lib.unescape(response.text)


def lang_of(html):
    return re.search(r'<html lang="(\w+)"', html).group(1)


def catalogue():
    with PO.open("rb") as f:
        return read_po(f, locale="fr")


# --- picking the language -------------------------------------------------------------------------

def test_english_by_default(client):
    html = client.get("/").text
    assert lang_of(html) == "en"
    assert "New game" in html


def test_accept_language_french_gives_french_pages(french):
    html = french.get("/").text
    assert lang_of(html) == "fr"
    assert "Nouvelle partie" in html and "New game" not in html


def test_a_language_we_do_not_have_falls_back_to_english(client):
    assert lang_of(client.get("/", headers={"Accept-Language": "de-DE,de"}).text) == "en"


def test_switch_overrides_the_browser_and_goes_back(french):
    response = french.get("/lang/en?next=/rebel-princess/rules")
    assert response.status_code == 302
    assert response.headers["Location"] == "/rebel-princess/rules"
    assert "lang=en" in response.headers["Set-Cookie"]
    assert lang_of(french.get("/rebel-princess/rules").text) == "en"
    french.get("/lang/fr?next=/")
    assert lang_of(french.get("/").text) == "fr"


def test_switch_link_is_on_every_page_and_points_back_here(french):
    html = french.get("/rebel-princess/rules?q=frog").text
    link = re.search(r'<a [^>]*href="([^"]+)"[^>]*data-lang="en"', html).group(1)
    assert link.startswith("/lang/en?next=") and "rules" in link and "frog" in link
    assert 'data-lang="fr"' not in html  # the current language is shown, not linked


@pytest.mark.parametrize("target", ["https://evil.example/", "//evil.example/", "rules", "",
                                    "/\t/evil.example", "/\n/evil.example", "/\\evil.example",
                                    "/\\/evil.example", " //evil.example", "/\x00", "/\n",
                                    "/\r\nSet-Cookie: x=1", "\t//evil.example"])
def test_switch_never_redirects_off_site(client, target):
    """Decoded and checked as a browser would read it: only a plain same-site path."""
    response = client.get("/lang/fr", query_string={"next": target})
    assert response.status_code == 302
    assert response.headers["Location"] == "/"


def test_switch_with_an_encoded_tab_or_newline_never_leaves_the_site(client):
    for raw in ("/lang/en?next=/%09/evil.example", "/lang/en?next=/%0a", "/lang/en?next=%2F%2Fx"):
        response = client.get(raw)
        assert (response.status_code, response.headers["Location"]) == (302, "/"), raw


def test_switch_to_an_unknown_language_is_404(client):
    assert client.get("/lang/de").status_code == 404


def test_pages_vary_on_language(french):
    vary = french.get("/").headers["Vary"]
    assert "Accept-Language" in vary and "Cookie" in vary


def test_api_stays_english(french):
    french.set_cookie("lang", "fr")
    response = french.post("/api/v1/rebel-princess/score-round", json={
        "edition": "deluxe", "round_card": "a", "players": 4, "taken": [["P1"], [], [], []]})
    assert response.status_code == 422
    messages = [p["message"] for p in response.get_json()["problems"]]
    assert any("has not been given to anyone yet" in m for m in messages), messages
    assert "Vary" not in response.headers or "Accept-Language" not in response.headers["Vary"]


# --- French pages ---------------------------------------------------------------------------------

def test_round_screen_in_french_names_cards_and_reminds_in_french(french, make_game):
    html = french.get(f"/rebel-princess/g/{make_game(cards='zabcd')}").text
    assert "Reines de la danse" in html and "Dancing Queens" not in html
    assert "Manche 1 sur 5" in html
    assert "ouvre" in html and "leads" not in html
    assert "formez des couples" in html  # the Round card reminder, from the French rulings


def test_classic_round_cards_in_english_use_our_english_names(client, make_game):
    html = client.get(f"/rebel-princess/g/{make_game(edition='classic')}").text
    assert "Once Upon a Time" in html


def test_new_game_validation_and_flash_in_french(french):
    response = french.post("/rebel-princess/new", data={
        "edition": "deluxe", "length": "5", "create": "1",
                                         "names-0": "Ana", "names-1": "Ben"})
    assert response.status_code == 422
    assert "Inscrivez au moins 3 joueurs" in response.text
    response = french.post("/rebel-princess/new", data={
        "edition": "deluxe", "length": "5", "first_leader": "0", "create": "1",
        **{f"names-{i}": n for i, n in enumerate(["Ana", "Ben", "Cy"])},
        **{f"cards-{i}": c for i, c in enumerate("abcde")}}, follow_redirects=True)
    assert "Partie créée" in response.text


def test_problems_of_an_entry_in_french(french, make_game):
    code = make_game(cards="abcde")
    response = french.post(f"/rebel-princess/g/{code}/round/1/cards", data={"P1": "0"})
    assert response.status_code == 422
    assert "Personne n'a encore reçu le 2 de Princes." in text_of(response)  # never « P2 »
    assert "Pas encore enregistré" in text_of(response)


def test_saved_round_and_score_lines_in_french(french, make_game, enter_round_by_cards):
    code = make_game(cards="abcde")
    response = enter_round_by_cards(code, 1, rest=1, given={"P1": 0, "P2": 0})
    assert response.status_code == 302
    page = french.get(f"/rebel-princess/g/{code}").text
    assert "Manche 1 enregistrée." in page
    assert "Sous-total" in page and "Historique" in page
    live = french.get(f"/rebel-princess/g/{code}/round/1/cards").text
    assert "2 Princes" in live and "Score en cours" in live


def test_games_list_dates_in_french(french, make_game):
    make_game()
    html = french.get("/").text
    month = format_datetime(datetime.now(UTC), "MMM", locale="fr")
    assert month in html  # "nov.", "déc."…: the month as French players write it
    assert "manche 1 sur 5" in html


def test_rulings_entry_in_the_page_language(french, app):
    html = french.get("/rebel-princess/rules/deluxe-z").text
    assert "<h1>Reines de la danse</h1>" in html
    assert 'lang="en">Dancing Queens<' in html  # the name in the other language, marked
    assert "<h1>Dancing Queens</h1>" in app.test_client().get("/rebel-princess/rules/deluxe-z").text


def test_rulings_source_in_french_has_our_words_in_french(french):
    page = text_of(french.get("/rebel-princess/rules/deluxe-z"))
    assert "lecture de l'appli" in page and "app's reading" not in page


# --- the French messages of the scoring core ------------------------------------------------------

def _fields(template):
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def test_every_problem_message_has_a_french_version_with_the_same_fields():
    package = resources.files("companion.scoring.rebel_princess")
    text = package.joinpath("messages.toml").read_text("utf-8")
    data = tomllib.loads(text)
    english, french = data["messages"], data["messages_fr"]
    assert set(french) == set(english)
    for code, sentence in english.items():
        assert _fields(french[code]) == _fields(sentence), code


