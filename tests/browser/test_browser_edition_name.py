"""What a Rebel Princess game is called, surface by surface (issue 39, item 1): one place says it
(:meth:`companion.games.GameKind.game_name`, per edition and language) and every surface reads
it — the header and ``<title>`` of the score pad and of an entry page (the bar above the entry),
the end screen and what it shares (image and text), the rulings, the history, a player's
statistics, the CSV export and the BG Stats link — in English and French, Deluxe and classic.
A Deluxe game is « Rebel Princess Deluxe » in French too; a classic game « Rebelles Princesses »
in English too (the French box's name: it is the only edition sold under that name)."""

from __future__ import annotations

import json
import re
from urllib.parse import parse_qs, urlparse

import pytest
from playwright.sync_api import Browser, Page, expect

from companion import create_app
from companion.db import get_session
from companion.games import by_key
from companion.play import groups, rebel_princess, store
from companion.scoring.rebel_princess import Edition, PlayedRound

from .conftest import PHONES, start_server
from .test_browser_share import MOCK_SHARE

pytestmark = pytest.mark.browser

NAMES = {"deluxe": "Rebel Princess Deluxe", "classic": "Rebelles Princesses"}
OTHER = {"deluxe": "Rebelles Princesses", "classic": "Deluxe"}
CASES = [(edition, lang) for edition in NAMES for lang in ("en", "fr")]
SCORES = {"deluxe": [[0, 2, 6, 7], [1, 0, 6, 7], [2, 2, 5, 6]],  # Ana wins
          "classic": [[0, 2, 6, 7], [2, 0, 6, 7], [2, 2, 5, 6], [3, 3, 4, 5], [3, 3, 4, 5]]}


def test_the_registry_is_the_one_place():
    """The names this file expects are the registry's (the tests read the pages, not this)."""
    kind = by_key("rebel_princess")
    assert kind is not None
    for edition, name in NAMES.items():
        for lang in ("en", "fr"):
            assert kind.game_name(edition, lang) == name
            assert kind.game_name(edition, lang, short=True) == name


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    """One group; per edition a finished game (3 rounds Deluxe, 5 classic) and a game at its
    first round."""
    app = create_app({"SECRET_KEY": "browser-tests",
                      "DATABASE": str(tmp_path_factory.mktemp("names") / "n.sqlite")})
    found: dict[str, str] = {}
    with app.app_context(), app.test_request_context():
        from flask import url_for

        session = get_session()
        group = groups.new_group(session, name="Edition table")
        session.commit()
        found["group"] = group.token
        for edition, cards in ((Edition.DELUXE, "ady"), (Edition.CLASSIC, "ACBDM")):
            key = edition.value
            done = rebel_princess.create_game(
                session=session, edition=edition, names=["Ana", "Ben", "Cy", "Di"],
                first_leader=0, round_cards=list(cards), group_id=group.id)
            for number, scores in enumerate(SCORES[key], start=1):
                rebel_princess.save_round(
                    session=session, game=done, number=number, mode="numbers", base_id=None,
                    played=PlayedRound(scores=tuple(scores), last_trick_winner=number % 4))
            links = store.links_of(session, done)
            found[f"{key}-end"] = url_for("rebel_princess.show", code=links["viewer"].token)
            found[f"{key}-record"] = url_for("records.game", token=links["viewer"].token)
            found[f"{key}-csv"] = url_for("records.export_game_csv", token=links["viewer"].token)
            going = rebel_princess.create_game(
                session=session, edition=edition, names=["Ana", "Ben", "Cy", "Di"],
                first_leader=0, round_cards=list(cards), group_id=group.id)
            scorer = store.links_of(session, going)["scorer"].token
            found[f"{key}-pad"] = url_for("rebel_princess.show", code=scorer)
            found[f"{key}-cards"] = url_for("rebel_princess.enter_cards", code=scorer, number=1)
            found[f"{key}-rule"] = url_for("rebel_princess.round_card_help", edition=key,
                                           letter=cards[0])
        found["history"] = url_for("history.index", group_token=group.token)
        people = {p.name: p.id for p in store_people(session, group.id)}
        found["person"] = url_for("history.person", group_token=group.token,
                                  person_id=people["Ana"])
    url, stop = start_server(app)
    yield {name: url + path if path.startswith("/") else path for name, path in found.items()}
    stop()


def store_people(session, group_id):
    from sqlmodel import select

    from companion.models import Person
    return session.exec(select(Person).where(Person.group_id == group_id))


def _page(browser: Browser, browser_context_args, lang: str, size=PHONES[1]) -> Page:
    context = browser.new_context(**{**browser_context_args, "viewport": size},
                                  locale={"en": "en-GB", "fr": "fr-FR"}[lang])
    context.add_init_script(MOCK_SHARE)
    return context.new_page()


def _header_and_title(page: Page, name: str, edition: str) -> None:
    header = page.locator("header .game-name")
    expect(header).to_have_text(name)
    expect(header).to_have_attribute("title", name)
    assert name in page.title(), page.title()
    assert OTHER[edition] not in page.title()


@pytest.mark.parametrize(("edition", "lang"), CASES, ids=[f"{e}-{lang}" for e, lang in CASES])
def test_the_score_pad_and_the_entry_bar(browser, browser_context_args, tables, edition, lang):
    page = _page(browser, browser_context_args, lang)
    page.goto(tables[f"{edition}-pad"])
    _header_and_title(page, NAMES[edition], edition)
    expect(page.locator("h1.sr")).to_have_text(NAMES[edition])
    page.goto(tables[f"{edition}-cards"])
    expect(page.locator("[data-action=save]").first).to_be_attached()
    _header_and_title(page, NAMES[edition], edition)
    page.context.close()


@pytest.mark.parametrize(("edition", "lang"), CASES, ids=[f"{e}-{lang}" for e, lang in CASES])
def test_the_end_screen_and_what_it_shares(browser, browser_context_args, tables, edition,
                                           lang):
    page = _page(browser, browser_context_args, lang)
    page.goto(tables[f"{edition}-end"])
    expect(page.locator("#result")).to_be_visible()
    _header_and_title(page, NAMES[edition], edition)
    svg = page.locator("template[data-share-image]").evaluate("t => t.innerHTML")
    assert NAMES[edition] in svg and OTHER[edition] not in svg
    page.locator("[data-share-result]").click()
    expect(page.locator("html[data-shared]")).to_have_count(1)
    shared = page.evaluate("window.__shared")[0]
    assert shared["text"].startswith(NAMES[edition] + " · "), shared["text"]
    page.context.close()


@pytest.mark.parametrize(("edition", "lang"), CASES, ids=[f"{e}-{lang}" for e, lang in CASES])
def test_the_rulings(browser, browser_context_args, tables, edition, lang):
    page = _page(browser, browser_context_args, lang)
    page.goto(tables[f"{edition}-rule"])
    expect(page.locator("[data-edition-name]")).to_have_text(NAMES[edition])
    assert page.title().endswith(NAMES[edition]), page.title()
    page.context.close()


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_history_statistics_export_and_bg_stats(browser, browser_context_args, tables, lang):
    page = _page(browser, browser_context_args, lang)
    for where in ("history", "person"):  # the history, and a player's statistics
        page.goto(tables[where])
        games = page.locator("[data-list=history] li[data-game], li[data-game]")
        text = " ".join(games.all_inner_texts())
        for name in NAMES.values():
            assert name in text, f"{where}: {name} missing in {text!r}"
        assert "Deluxe ·" not in text.replace("Rebel Princess Deluxe ·", "")
    for edition, name in NAMES.items():
        page.goto(tables[f"{edition}-record"])
        expect(page.locator("h1")).to_contain_text(name)
        assert page.title().startswith(name), page.title()
        href = page.locator("[data-action=bg-stats]").get_attribute("href") or ""
        data = json.loads(parse_qs(urlparse(href).query)["data"][0])
        assert data["game"]["name"] == name, data["game"]
        csv = page.request.get(tables[f"{edition}-csv"]).text()
        rows = [line.split(",") for line in csv.strip().splitlines()[1:]]
        assert rows and all(row[1] == name for row in rows), csv
        assert re.search(rf",{re.escape(OTHER[edition])},", csv) is None
    page.context.close()
