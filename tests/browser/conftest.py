"""Browser tests: the app served on a random loopback port, driven by Debian's headless Chromium.

Playwright cannot download its own browser here, so the tests launch /usr/bin/chromium (installed by
`make test` through `make browser`). A phone context: 390x844, touch, mobile.
"""

from __future__ import annotations

import os
import shutil
import threading
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect
from werkzeug.serving import make_server

from companion import create_app

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"


@pytest.fixture(scope="session")
def browser_type_launch_args():
    if not Path(CHROMIUM).exists():
        pytest.fail("Chromium is missing: run `make browser` (Debian package chromium).")
    return {"executable_path": CHROMIUM, "headless": True, "args": [
        "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"]}


@pytest.fixture(scope="session")
def browser_context_args():
    # Service workers are blocked except in the offline test, which opts in: otherwise the worker
    # precaches every rulings page against the test server in the middle of unrelated tests.
    return {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True,
            "device_scale_factor": 2, "service_workers": "block"}


@pytest.fixture(autouse=True)
def _no_csp_violation(monkeypatch):
    """Every browser test fails if a page breaks the Content-Security-Policy (an inline script
    or handler the browser refused): each new browser context reports its console here."""
    refused: list[str] = []
    original = Browser.new_context

    def new_context(self, *args, **kwargs):
        context = original(self, *args, **kwargs)
        context.on("console", lambda message: refused.append(message.text)
                   if "Content Security Policy" in message.text else None)
        return context

    monkeypatch.setattr(Browser, "new_context", new_context)
    yield
    assert not refused, f"Content-Security-Policy violations: {refused}"


PHONES = [{"width": 390, "height": 844}, {"width": 360, "height": 740}]
LANGUAGES = {"en": "en-GB", "fr": "fr-FR"}


@pytest.fixture(params=PHONES, ids=lambda size: f"{size['width']}x{size['height']}")
def phone(request, browser: Browser, browser_context_args):
    """A page on a phone of each size."""
    context = browser.new_context(**{**browser_context_args, "viewport": request.param})
    page = context.new_page()
    yield page
    context.close()


@pytest.fixture(params=[(size, lang) for size in PHONES for lang in LANGUAGES],
                ids=lambda p: f"{p[0]['width']}x{p[0]['height']}-{p[1]}")
def phone_in(request, browser: Browser, browser_context_args):
    """A page on a phone of each size, set to each language."""
    size, lang = request.param
    context = browser.new_context(**{**browser_context_args, "viewport": size},
                                  locale=LANGUAGES[lang])
    page = context.new_page()
    yield page
    context.close()


@pytest.fixture
def french(browser: Browser, browser_context_args):
    """A page in a phone whose language is French (navigator.language and Accept-Language)."""
    context = browser.new_context(**browser_context_args, locale="fr-FR")
    page = context.new_page()
    yield page
    context.close()


SCREENSHOTS = bool(os.environ.get("SCREENSHOTS"))
"""``make screens`` (``SCREENSHOTS=1``) keeps the screenshots the tests take for people to look
at in tests/artifacts/; ``make test`` does not take them (each costs Chromium a PNG of the whole
phone, a good part of the suite's time on two cores)."""


@pytest.fixture(scope="session", autouse=True)
def _screenshots_when_asked():
    if SCREENSHOTS:
        yield
        return
    original = Page.screenshot

    def screenshot(self, *args, **kwargs):
        path = kwargs.get("path")
        if path is not None and Path(path).resolve().is_relative_to(ARTIFACTS):
            return b""
        return original(self, *args, **kwargs)

    Page.screenshot = screenshot
    yield
    Page.screenshot = original


@pytest.fixture(scope="session", autouse=True)
def _patient_assertions():
    """A loaded CI machine can take more than the default 5 s to answer a tap."""
    expect.set_options(timeout=15_000)


def start_server(app):
    """Serve ``app`` on 127.0.0.1 and a free port; returns its base URL and a stop function."""
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    stopped: list[bool] = []

    def stop() -> None:
        if not stopped:
            server.shutdown()
            server.server_close()
            thread.join(timeout=5)
            stopped.append(True)

    return f"http://127.0.0.1:{server.server_port}", stop


@pytest.fixture
def stoppable_server(tmp_path):
    """The real app (CSRF on) on a free loopback port, and a function that stops it for good."""
    url, stop = start_server(create_app({"SECRET_KEY": "browser-tests",
                                         "DATABASE": str(tmp_path / "b.sqlite")}))
    yield url, stop
    stop()


@pytest.fixture
def live_server(stoppable_server):
    """The base URL of the real app (CSRF on) on a free loopback port."""
    return stoppable_server[0]


@pytest.fixture
def artifacts() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS


def no_horizontal_scroll(page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def give_the_rest(page, seat: int) -> None:
    """By cards: every card nobody has yet to ``seat``, through the Save bar's "The rest…"."""
    page.locator("[data-action=rest]").click()
    page.locator(f"[data-rest='{seat}']").click()


def tap_in_menu(page, selector: str) -> None:
    """Tap ``selector`` in the page's menu of secondary actions (opened first where closed)."""
    menu = page.locator("[data-menu]")
    if menu.count() and not menu.first.evaluate("m => m.open"):
        menu.locator("summary").first.click()
    page.locator(selector).first.click()


def delete_the_group(page, live_server: str) -> None:
    """From the home page, open the phone's group and delete it as a player does (its name typed
    to confirm)."""
    page.goto(live_server)
    page.locator("[data-action=group]").click()
    name = page.locator("h1[data-group-name]").inner_text()
    page.goto(page.url.rstrip("/") + "/delete")
    page.locator("[data-form=delete-group] input[name=confirm]").fill(name)
    page.locator("[data-action=delete-group]").click()
