"""History pages by key (issue 36, item 4): the pager's links name the game a page starts after
(``older``) or before (``newer``), and the last page is read from the oldest end (``oldest``),
so that a deep page reads its own games instead of counting every game before it (OFFSET).
Walking the links either way shows every finished game once, in order, as the numbered pages
do; a malformed key shows the first page (never an error, nothing stored)."""

from __future__ import annotations

import html
import re

import pytest

from .test_history_page_cost import copy_games
from .test_history_pages import listed


def _codes(page: str) -> list[str]:
    start = page.index('data-list="history"')
    return re.findall(r'<li data-game="([^"]+)"', page[start:page.index("</ul>", start)])


def _link(page: str, action: str) -> str | None:
    found = re.search(rf'<a class="btn" href="([^"]+)" data-action="{action}">', page)
    return html.unescape(found.group(1)) if found else None


def _numbered(client, base: str, query: str) -> list[list[str]]:
    """The pages as ``?page=N`` gives them (counted from the newest, OFFSET)."""
    pages, number = [], 1
    while True:
        page = client.get(f"{base}/?page={number}{query}").text
        pages.append(_codes(page))
        if 'data-action="older"' not in page:
            return pages
        number += 1


@pytest.mark.parametrize("query", ["", "&game=rebel-princess", "&player={ana}"])
def test_the_keyed_links_walk_every_page_both_ways(app, client, known, query, monkeypatch):
    monkeypatch.setattr("companion.routes.history.PAGE", 7)
    copy_games(app, known.group_id, 10)  # 66 finished games, many sharing one updated_at
    query = query.format(ana=known.person["Ana"])
    numbered = _numbered(client, known.base, query)
    assert len(numbered) >= 3
    # newest to oldest through the "older" links
    walked, url = [], f"{known.base}/?{query.lstrip('&')}"
    while url:
        page = client.get(url)
        assert page.status_code == 200
        walked.append(_codes(page.text))
        url = _link(page.text, "older")
        assert url is None or "older=" in url  # a key, not a count
    assert walked == numbered
    # the oldest page at once, then back to the newest through the "newer" links
    first = client.get(f"{known.base}/?{query.lstrip('&')}").text
    back, url = [], _link(first, "oldest")
    while url:
        page = client.get(url)
        assert page.status_code == 200
        back.append(_codes(page.text))
        assert f'data-page="{len(numbered) - len(back) + 1}"' in page.text or len(back) == 1
        url = _link(page.text, "newer")
    assert back == numbered[::-1]


def test_the_oldest_link_is_there_while_a_page_lies_beyond_the_next(client, known, monkeypatch):
    monkeypatch.setattr("companion.routes.history.PAGE", 2)  # 6 finished games: 3 pages
    first = client.get(f"{known.base}/").text
    assert _link(first, "oldest") is not None and _link(first, "newer") is None
    second = client.get(_link(first, "older")).text
    assert _link(second, "oldest") is None and _link(second, "older") is not None
    last = client.get(_link(first, "oldest")).text
    assert _link(last, "older") is None and 'data-page="3"' in last
    assert _codes(last) == _codes(client.get(f"{known.base}/?page=3").text)
    assert len(listed(last)) == 2


@pytest.mark.parametrize("key", [
    "x", "~", "2026-13-40T00:00:00~5", "2026-11-29T00:00:00~0", "2026-11-29T00:00:00~-1",
    "2026-11-29T00:00:00~99999999999", "2026-11-29T00:00:00~5~6", "a" * 200,
    "2026-11-29T00:00:00+99:00~5", "%00", "2026-11-29T00:00:00~1e3"])
@pytest.mark.parametrize("which", ["older", "newer"])
def test_a_malformed_key_shows_the_first_page(client, known, key, which):
    first = client.get(f"{known.base}/")
    page = client.get(f"{known.base}/", query_string={which: key, "page": "1"})
    assert page.status_code == 200
    assert _codes(page.text) == _codes(first.text)


def test_a_key_with_a_time_zone_is_the_same_key_in_utc(client, known, monkeypatch):
    monkeypatch.setattr("companion.routes.history.PAGE", 2)
    first = client.get(f"{known.base}/").text
    older = _link(first, "older")
    key = re.search(r"older=([^&]+)", older).group(1)
    when, game = key.replace("%3A", ":").replace("%7E", "~").split("~")
    shifted = when.replace("T", " ")  # the same instant written another way
    page = client.get(f"{known.base}/", query_string={"older": f"{shifted}+00:00~{game}",
                                                       "page": "2"})
    assert _codes(page.text) == _codes(client.get(older).text)


def test_oldest_with_a_filter_that_matches_nothing_is_an_empty_first_page(client, known):
    page = client.get(f"{known.base}/?oldest=1&player=999999")
    assert page.status_code == 200 and _codes(page.text) == []
