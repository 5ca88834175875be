"""Words at the table (issue 22, point 5): the entry modes' names, the French set-up's edition, the
duel's target said in full, the header's links in the header's face."""

from __future__ import annotations

import html as html_lib
import re
from pathlib import Path
from urllib.parse import urlsplit

from .conftest import setup_form

CSS = Path(__file__).resolve().parents[2] / "companion" / "static" / "app.css"


def text(response) -> str:
    return html_lib.unescape(response.text)


def _edition(html: str) -> str:
    for tag in re.findall(r"<input[^>]*>", html):
        if 'name="edition"' in tag and "checked" in tag:
            return re.search(r'value="(\w+)"', tag).group(1)
    raise AssertionError("no edition checked")


def test_a_french_set_up_defaults_to_rebelles_princesses(client):
    assert _edition(client.get("/rebel-princess/new").text) == "deluxe"
    client.set_cookie("lang", "fr")
    assert _edition(client.get("/rebel-princess/new").text) == "classic"


def test_the_entry_modes_have_distinct_names(client):
    code = re.fullmatch(r"/rebel-princess/g/(\w+)", urlsplit(client.post(
        "/rebel-princess/new", data=setup_form()).headers["Location"]).path)[1]
    for lang, counts, scores in (("en", "Enter round by counts", "By scores"),
                                 ("fr", "Saisir la manche par décompte", "Par scores")):
        client.set_cookie("lang", lang)
        pad = text(client.get(f"/rebel-princess/g/{code}"))
        assert counts in pad and scores in pad, lang
        assert "nombres" not in pad and "By numbers" not in pad
        page = text(client.get(f"/rebel-princess/g/{code}/round/1/numbers"))
        assert ("by scores" if lang == "en" else "par scores") in page


def test_the_duel_says_its_target_in_full(client):
    response = client.post("/kanai-duel/new", data={
        "first": "Ana", "second": "Ben", "mode": "referee", "wins": "4", "abilities": "all",
        "set_aside": "none"})
    duel = urlsplit(response.headers["Location"]).path
    assert "first to 4 wins" in text(client.get(duel))
    client.set_cookie("lang", "fr")
    page = text(client.get(duel))
    assert "4\u00a0victoires pour gagner" in page or "4 victoires pour gagner" in page
    assert not re.search(r">\s*en 4\s*<", page)


def test_the_headers_links_are_in_the_headers_face():
    rules = [rule for rule in re.findall(r"([^{}]*)\{([^}]*)\}", CSS.read_text())
             if ".top" in rule[0]]
    assert rules
    assert [r for r in rules if "monospace" in r[1]] == []
