"""The Content-Security-Policy allows no inline style (issue 28, item 8): ``style-src 'self'``,
nothing ``'unsafe-inline'`` anywhere, and no page needs it — no ``style`` attribute and no
``<style>`` element without a nonce in any answer of any GET route (every route of the URL map,
every game of a group, as the page and as htmx's partial), nor in any template or script.

A player's colour is a class (``seat-N``, app.css), and the few layout figures a template used to
write as custom properties are classes too: the last tests check that app.css and tricks.css have
a rule for every value a game can ask for.
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from companion.common.colours import seat_class
from companion.db import get_session
from companion.scoring.rebel_princess import Edition, required_cards, round_cards
from companion.scoring.rebel_princess.cards import MAX_PLAYERS, MIN_PLAYERS, deck
from companion.web.security import CSP
from tests.shell.test_group_isolation import addresses, member_of, store_group

PACKAGE = Path(__file__).resolve().parents[2] / "companion"
STATIC = PACKAGE / "static"


class InlineStyles(HTMLParser):
    """The inline styles of an HTML answer: each ``style`` attribute, and each ``<style>``
    element without a nonce (the policy would need ``'unsafe-inline'`` for either)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        names = {name.lower() for name, _ in attrs}
        if "style" in names:
            self.found.append(f"<{tag} style=…>")
        if tag.lower() == "style" and "nonce" not in names:
            self.found.append("<style> without a nonce")

    handle_startendtag = handle_starttag


def inline_styles(html: str) -> list[str]:
    parser = InlineStyles()
    parser.feed(html)
    parser.close()
    return parser.found


def directives(csp: str) -> dict[str, str]:
    return {d.strip().partition(" ")[0]: d.strip().partition(" ")[2]
            for d in csp.split(";") if d.strip()}


def test_the_parser_finds_what_the_policy_refuses():
    """(The check below is only as good as this: it must see each kind of inline style.)"""
    assert inline_styles('<p style="color:red">x</p><svg><rect style="fill:red"/></svg>') == [
        "<p style=…>", "<rect style=…>"]
    assert inline_styles("<style>p{}</style>") == ["<style> without a nonce"]
    assert inline_styles('<style nonce="abc">p{}</style><p class="seat-0">x</p>') == []


def test_the_policy_allows_no_inline_style_nor_anything_inline():
    assert "unsafe-inline" not in CSP
    assert directives(CSP)["style-src"] == "'self'"
    assert directives(CSP)["script-src"] == "'self'"


@pytest.fixture
def group(app):
    with app.app_context():
        return store_group(get_session(), "A")


def test_no_answer_of_any_get_route_holds_an_inline_style(app, group):
    """Every GET address of the URL map with every link of a group holding each of the four
    games (finished and in play), asked as the group's phone would (htmx's partials are the
    same template files, included). Every answer's policy has no ``'unsafe-inline'``; no HTML
    answer has a style attribute or a ``<style>`` element; players are coloured by class."""
    phone = member_of(app, group)
    checked, pages, seats = 0, set(), set()
    for _rule, path, _ in addresses(app, group, [], "GET"):
        response = phone.get(path)
        assert response.status_code < 500, path
        csp = response.headers.get("Content-Security-Policy", "")
        assert csp and "unsafe-inline" not in csp, (path, csp)
        assert directives(csp)["style-src"] == "'self'", (path, csp)
        if response.mimetype == "text/html":
            assert not inline_styles(response.text), (path, inline_styles(response.text))
            if response.status_code == 200:
                pages.add(path.split("/")[1])
                seats |= set(re.findall(r'class="[^"]*\b(seat-\d+)\b', response.text))
        checked += 1
    assert checked > 150
    # The walk reached the pages of each game and of the group's history, and their players
    # (4 at most in this group) were drawn in their seats' colours.
    assert {"rebel-princess", "princesse-princesse", "reveillez", "kanai-duel", "group",
            "record"} <= pages, pages
    assert seats == {seat_class(seat) for seat in range(4)}


def test_no_template_or_script_writes_an_inline_style():
    """At the source: no template writes a style attribute or a ``<style>`` element, and no
    script sets a style attribute or writes markup holding one (setting a property through
    ``element.style`` is CSSOM, which the policy allows)."""
    attribute = re.compile(r"""(?:\sstyle\s*=|<style\b|setAttribute\(\s*["']style["']|"""
                           r"""\.style\.cssText|\.style\s*=)""", re.I)
    offenders = []
    sources = [*(PACKAGE / "templates").rglob("*.html"), *STATIC.rglob("*.js")]
    for path in sources:
        if path.name.startswith("htmx-"):  # (vendored: its own <style> is turned off, below)
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if attribute.search(line):
                offenders.append(f"{path.relative_to(PACKAGE)}:{number}: {line.strip()[:80]}")
    assert not offenders, offenders
    assert len(sources) > 100


def test_htmx_is_told_not_to_write_inline_styles(client):
    """htmx adds a ``<style>`` for its request indicators unless its config says not to (app.css
    carries those rules instead); and it copies an element's ``style`` attribute onto the one a
    swap brings in (``setAttribute``, refused) unless ``style`` is left out of the attributes it
    settles — an attribute that a script's CSSOM change (allowed) leaves on an element."""
    html = client.get("/").text
    config = json.loads(re.search(r"""<meta name="htmx-config" content='([^']*)'>""", html)[1])
    assert config["includeIndicatorStyles"] is False
    assert "style" not in config["attributesToSettle"] and "class" in config["attributesToSettle"]
    css = (STATIC / "app.css").read_text(encoding="utf-8")
    assert ".htmx-indicator { opacity: 0;" in css and ".htmx-request .htmx-indicator" in css


def _rules(css: str, selector: str) -> dict[str, str]:
    """``{class: value}`` for each ``<selector>.<class> { --x: value; }`` rule."""
    return dict(re.findall(re.escape(selector) + r"\.([\w-]+) \{ --[\w-]+: ([\d.]+); \}", css))


def test_every_count_of_cards_a_round_asks_has_its_rows_class():
    """The entry by cards shares the screen out by its rows: its cards (``rows-N``) plus what
    else the round asks — a rule in app.css for every round card of every edition and table."""
    rules = _rules((STATIC / "app.css").read_text(encoding="utf-8"), "#cards-entry")
    counts = {len(required_cards(edition, card.letter, players))
              for edition in Edition for card in round_cards(edition)
              for players in range(MIN_PLAYERS, MAX_PLAYERS + 1)}
    for count in counts:
        assert rules.get(f"rows-{count}") == str(count), count
    # What else a round asks: as many rows as the template used to add.
    assert {name: float(value) for name, value in rules.items() if not name.startswith("rows-")} \
        == {"ask-no-trick": 1.6, "ask-last-trick": 1.6, "with-reminder": .6, "with-playoff": .6}


def test_every_table_has_its_trick_slots_and_deck_columns_classes():
    css = (STATIC / "rebel_princess" / "tricks.css").read_text(encoding="utf-8")
    slots, columns = _rules(css, ".slots"), _rules(css, ".suitrow")
    for players in range(MIN_PLAYERS, MAX_PLAYERS + 1):
        assert slots.get(f"seats-{players}") == str(players), players
        for suit in {card.suit for card in deck(players)}:
            wanted = (sum(card.suit is suit for card in deck(players)) + 1) // 2
            assert columns.get(f"cols-{wanted}") == str(wanted), (players, suit)
