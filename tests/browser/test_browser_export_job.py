"""A group's export as a job (issue 36) on phones: a tap on "Export everything (JSON)" opens
the job's progress page, whose bar fills and gives way to the download without a reload (the
page polls its bar), or by the page's own reload without JavaScript; the page while it waits
and when it is done, at 390×844 and 360×740, light and dark, English and French: 44-px
targets, nothing scrolls sideways. Screenshots land in tests/artifacts/ (``export-job-*``)."""

from __future__ import annotations

import json
import shutil

import pytest
from playwright.sync_api import Browser, expect

from companion import create_app
from companion.ops import jobs

from ..history.test_history_page_cost import known_group
from .conftest import LANGUAGES, PHONES, no_horizontal_scroll, start_server

pytestmark = pytest.mark.browser


@pytest.fixture
def held(tmp_path, monkeypatch):
    """A server whose group holds 24 finished games, its export jobs held until the test lets
    them run: the app, its history's address, and the jobs held."""
    app = create_app({"SECRET_KEY": "browser-tests", "DATABASE": str(tmp_path / "e.sqlite"),
                      "RATELIMIT_ENABLED": False})  # (16 exports in a minute, by design)
    group_id, token = known_group(app, 3)
    waiting: list[str] = []
    monkeypatch.setattr(jobs, "start_export", waiting.append)
    url, stop = start_server(app)
    yield app, f"{url}/group/{token}/history/", waiting
    stop()


def targets_are_44_px(page) -> None:  # type: ignore[no-untyped-def]
    for box in page.locator("main a.btn").evaluate_all(
            "links => links.map(a => a.getBoundingClientRect().height)"):
        assert box >= 44, box


def test_the_progress_page_then_the_download_on_phones(browser: Browser, browser_context_args,
                                                       held, artifacts, tmp_path):
    app, history, waiting = held
    for size in PHONES:
        for lang, locale in LANGUAGES.items():
            for scheme in ("light", "dark"):
                name = f"{size['width']}-{lang}-{scheme}"
                context = browser.new_context(**{**browser_context_args, "viewport": size},
                                              locale=locale, color_scheme=scheme)
                page = context.new_page()
                shutil.rmtree(app.config["EXPORT_DIR"], ignore_errors=True)  # (a new job)
                page.goto(history)
                page.locator("[data-action=export-json]").scroll_into_view_if_needed()
                page.screenshot(path=str(artifacts / f"export-job-{name}-buttons.png"))
                page.locator("[data-action=export-json]").click()
                expect(page.locator("#export-progress")).to_have_attribute("data-state",
                                                                           "waiting")
                expect(page.locator("progress")).to_be_visible()
                assert no_horizontal_scroll(page), name
                targets_are_44_px(page)
                page.screenshot(path=str(artifacts / f"export-job-{name}-waiting.png"))
                jobs.run_export(app, waiting.pop())  # the job runs: the bar gives way
                download = page.locator("[data-action=download]")
                expect(download).to_be_visible(timeout=10_000)
                assert no_horizontal_scroll(page), name
                targets_are_44_px(page)
                page.screenshot(path=str(artifacts / f"export-job-{name}-done.png"))
                with page.expect_download() as found:
                    download.click()
                path = tmp_path / f"{name}.json"
                found.value.save_as(path)
                assert len(json.loads(path.read_text(encoding="utf-8"))["games"]) == 24
                context.close()
    assert not waiting


def test_without_javascript_the_page_reloads_itself(browser: Browser, browser_context_args,
                                                    held):
    app, history, waiting = held
    context = browser.new_context(**browser_context_args, java_script_enabled=False)
    page = context.new_page()
    page.goto(history)
    page.locator("[data-action=export-csv]").click()
    expect(page.locator("#export-progress")).to_have_attribute("data-state", "waiting")
    jobs.run_export(app, waiting.pop())
    expect(page.locator("[data-action=download]")).to_be_visible(timeout=10_000)  # reloaded
    with page.expect_download() as found:
        page.locator("[data-action=download]").click()
    assert found.value.suggested_filename.endswith(".csv")
    context.close()
