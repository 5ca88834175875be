"""History's pager by key (issue 36) on phones: a group of 66 finished games, walked Older →
Oldest → Newer → the first page by the links, each page as the numbered pages list it; the
pager's buttons are 44 px targets, nothing scrolls sideways at 390 and 360 px, in light and
dark, English and French; and "Export everything (JSON)", a job for a group this size, leads
to its progress page whose download is the whole group. Screenshots land in tests/artifacts/
(``history-pager-*.png``)."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import Browser, Page, expect

from companion import create_app

from ..history.test_history_page_cost import known_group
from .conftest import LANGUAGES, no_horizontal_scroll, start_server

pytestmark = pytest.mark.browser


@pytest.fixture
def big_group(tmp_path):
    """A server whose one group holds 66 finished games (the known games, 11 times): its
    history's address."""
    app = create_app({"SECRET_KEY": "browser-tests", "DATABASE": str(tmp_path / "b.sqlite")})
    group_id, token = known_group(app, 10)
    url, stop = start_server(app)
    yield f"{url}/group/{token}/history/"
    stop()


def shown(page: Page) -> list[str]:
    return page.locator("[data-list=history] li[data-game]").evaluate_all(
        "items => items.map(li => li.dataset.game)")


def targets_are_44_px(page: Page) -> None:
    for box in page.locator("[data-pager] a.btn").evaluate_all(
            "links => links.map(a => a.getBoundingClientRect().height)"):
        assert box >= 44, box


def test_the_pager_walks_by_key_on_phones(browser: Browser, browser_context_args, big_group,
                                          artifacts):
    numbered = []
    for size in ({"width": 390, "height": 844}, {"width": 360, "height": 740}):
        for lang, locale in LANGUAGES.items():
            for scheme in ("light", "dark"):
                context = browser.new_context(**{**browser_context_args, "viewport": size},
                                              locale=locale, color_scheme=scheme)
                page = context.new_page()
                if not numbered:
                    for number in (1, 2, 3):
                        page.goto(f"{big_group}?page={number}")
                        numbered.append(shown(page))
                page.goto(big_group)
                assert shown(page) == numbered[0]
                expect(page.locator("[data-action=newer]")).to_have_count(0)
                targets_are_44_px(page)
                name = f"{size['width']}-{lang}-{scheme}"
                assert no_horizontal_scroll(page), name
                page.locator("[data-pager]").scroll_into_view_if_needed()
                page.screenshot(path=str(artifacts / f"history-pager-{name}-first.png"))
                page.locator("[data-action=older]").click()
                expect(page.locator("[data-pager]")).to_have_attribute("data-page", "2")
                assert shown(page) == numbered[1]
                page.goto(big_group)
                page.locator("[data-action=oldest]").click()
                expect(page.locator("[data-pager]")).to_have_attribute("data-page", "3")
                assert shown(page) == numbered[2]
                expect(page.locator("[data-action=older]")).to_have_count(0)
                assert no_horizontal_scroll(page), name
                targets_are_44_px(page)
                page.locator("[data-pager]").scroll_into_view_if_needed()
                page.screenshot(path=str(artifacts / f"history-pager-{name}-last.png"))
                page.locator("[data-action=newer]").click()
                expect(page.locator("[data-pager]")).to_have_attribute("data-page", "2")
                assert shown(page) == numbered[1]
                page.locator("[data-action=newer]").click()
                expect(page.locator("[data-pager]")).to_have_attribute("data-page", "1")
                assert shown(page) == numbered[0] and "newer=" not in page.url
                context.close()
    assert sum(len(codes) for codes in numbered) == 66


def test_export_everything_downloads_the_whole_group(page: Page, big_group, tmp_path):
    page.goto(big_group)
    page.locator("[data-action=export-json]").click()
    with page.expect_download() as waiting:
        page.locator("[data-action=download]").click()  # (shown once the job is done)
    path = tmp_path / "export.json"
    waiting.value.save_as(path)
    document = json.loads(path.read_text(encoding="utf-8"))
    assert len(document["games"]) == 66 and document["players"]
