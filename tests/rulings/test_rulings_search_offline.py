"""The offline search (``static/rulings_search.js``, run here in Node) finds what the server's
search finds, from the index the offline copy carries plus the text of the stored pages."""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from companion.routes.pwa import build_bundle, fill_frame
from companion.rulings import load, words
from companion.rulings import rebel_princess as rp

SCRIPT = Path(__file__).parents[2] / "companion" / "static" / "rulings_search.js"
ARTICLE = re.compile(r"<article[^>]*data-entry[^>]*>(.*?)</article>", re.S)


@pytest.fixture(autouse=True)
def _node():
    """Node.js runs the offline search script here; a machine without it fails, never skips."""
    assert shutil.which("node"), "these tests need Node.js (Debian: apt-get install nodejs)"


QUERIES = {
    "/rebel-princess/rules": ["frog", "frgo", "grenouille", "Grenouile", "grenoiulle", "z",
                              "deluxe z", "Cendrilon", "snowwhite", "blancheneige",
                              "littlemermaid", "Snow White",
                              "pets revenge", "mulan"],
    "/princesse-princesse/rules": ["celeste", "Céleste", "celsete", "roifantome", "ghostking",
                                   "dragonn", "kingsadvisors", "garde", "guard", "1", "princesses"],
    "/reveillez/rules": ["chevalier", "knight", "dragonn", "cartesnumerotees", "jester",
                         "bouffon", "potion"],
    "/kanai-duel/rules": ["ministre", "minister", "Général", "jusqualaube", "untildawn", "7",
                          "spy", "espion", "seven"],
}
SERVER = {
    "/rebel-princess/rules": lambda q: [e.slug for e in rp.search(q)],
    **{f"/{game.replace('_', '-')}/rules": (lambda g: lambda q: [
        e.slug for e in load(f"companion.rulings.{g}").search(q)])(game)
       for game in ("princesse_princesse", "reveillez", "kanai_duel")},
}


@pytest.fixture
def offline(app):
    """The index a phone stores: the bundle's rows plus each stored page's text (as sw.js)."""
    bundle = build_bundle(app, "en")
    texts = {}
    for page in bundle.pages:
        found = ARTICLE.search(fill_frame(bundle.frames[page.frame], page.values))
        texts[page.path] = html.unescape(re.sub(r"<[^>]*>", " ", found[1])) if found else ""
    data = bundle.as_json()["search"]
    return {"stop": data["stop"], "weighSummary": data["weigh_summary"], "index": {
        page: [[*row, texts.get(row[0], "")] for row in rows]
        for page, rows in data["index"].items()}}


def offline_search(offline, tmp_path, queries):
    """Slugs found by the script for each (search page, query)."""
    (tmp_path / "index.json").write_text(json.dumps(offline), encoding="utf-8")
    (tmp_path / "queries.json").write_text(json.dumps(queries), encoding="utf-8")
    program = f"""
const s = require({json.dumps(str(SCRIPT))});
const data = require({json.dumps(str(tmp_path / "index.json"))});
const queries = require({json.dumps(str(tmp_path / "queries.json"))});
const stop = new Set(data.stop.split(" "));
console.log(JSON.stringify(queries.map(([page, q]) =>
  s.search(data.index[page], q, stop, null, data.weighSummary.includes(page))
    .map((row) => row[0].split("/").pop()))));
"""
    done = subprocess.run(["node", "-e", program], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def test_every_game_has_an_offline_index(offline):
    """Each game's search page has its entries, with the stored page's text."""
    assert set(offline["index"]) == set(QUERIES)
    for rows in offline["index"].values():
        assert rows and all(row[7] for row in rows)


def test_the_offline_search_puts_first_what_the_server_puts_first(offline, tmp_path):
    """Same best result as the server for names, letters, values, typos, missing spaces and
    accents, in every game."""
    queries = [(page, q) for page, qs in QUERIES.items() for q in qs]
    found = offline_search(offline, tmp_path, queries)
    for (page, query), slugs in zip(queries, found, strict=True):
        expected = SERVER[page](query)
        assert slugs[:1] == expected[:1], (page, query, slugs[:3], expected[:3])


def test_fold_matches_the_servers():
    """Accents and case are folded as the server folds them (ß as "ss", like casefold)."""
    program = (f"const s = require({json.dumps(str(SCRIPT))});"
               "console.log(JSON.stringify(s.words(\"Jusqu'à l'Aube, CÉLESTE-Œuf ß\")));")
    done = subprocess.run(["node", "-e", program], capture_output=True, text=True, check=True)
    assert json.loads(done.stdout) == words("Jusqu'à l'Aube, CÉLESTE-Œuf ß")
