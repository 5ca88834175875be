"""Bytes a phone downloads: to open a game's score pad, and on a first visit (service worker too).

The real app (CSRF on) is served on a free 127.0.0.1 port with a temporary database holding a
6-player Deluxe game with 2 of its 5 rounds saved.

**The score pad.** The bench fetches the pad (through the game's scorer link) with
``Accept-Encoding: gzip``, parses the HTML for every ``<link href>``, ``<script src>`` and
``<img src>`` (and ``url(...)`` in the CSS), fetches each, and counts what a phone would receive:
the compressed size when the server compresses, else the body compressed with gzip -6 (what a
gzip-ing reverse proxy would send). HTTP headers are not counted. Target: <= 25 kB in all.

**A first visit.** Headless Chromium (a phone: 390x844, touch) with a cold cache and service
workers allowed opens one page and stays on it until the service worker, registered once the
page is idle, has stored the page's own files (``<html data-offline-assets>``, set by app.js; no
timing). The offline copy of the rulings is not part of it: app.js asks for it from the next
page on (a page the worker controls), so the bench then opens the same page once more and waits
for the copy (``<html data-offline-rulings>``), counted apart as "the next page". The server
counts every request it answers, the page's and the service worker's alike, and the bytes it
sends: status line and header fields as the app writes them, and the body as sent (compressed
with what Chromium accepts: zstd, br or gzip). The first visits: the home page, a game's viewer
link (a phone at the table scanning the QR code; its live poll, ``/live/<token>``, once a
second, is counted apart), the Rebel Princess set-up page (htmx), a round by cards and by
tricks (the scorer's link: htmx, drafts.js and the trick screen's own script and style) and the
rulings index. Target: <= 100 kB each.

Run: ``python -m bench.page_weight``.
"""

from __future__ import annotations

import contextlib
import gzip
import logging
import re
import shutil
import tempfile
import threading
import time
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

from . import NAMES6, table

TARGET_BYTES = 25 * 1000  # kB = 1,000 bytes
FIRST_VISIT_TARGET = 100 * 1000


CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
LAUNCH_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
               "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"]
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True,
         "device_scale_factor": 2}


@dataclass
class Resource:
    url: str
    kind: str
    raw: int
    sent: int  # bytes on the wire (compressed)
    server_gzip: bool
    cache_control: str


class _Refs(HTMLParser):
    """Collects the URLs of stylesheets, icons, scripts and images a page makes the browser load."""

    def __init__(self) -> None:
        super().__init__()
        self.refs: list[tuple[str, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "link" and a.get("href"):
            rel = a.get("rel", "").lower()
            if any(r in rel.split() for r in ("stylesheet", "icon", "preload", "modulepreload",
                                               "manifest", "apple-touch-icon")):
                self.refs.append((rel, a["href"]))
        elif tag == "script" and a.get("src"):
            self.refs.append(("script", a["src"]))
        elif tag in ("img", "source") and (a.get("src") or a.get("srcset")):
            self.refs.append((tag, a.get("src") or a["srcset"].split()[0]))


def fetch(url: str) -> tuple[bytes, int, bool, str]:
    """(body, bytes sent, compressed by the server?, Cache-Control) for ``url``."""
    request = urllib.request.Request(url, headers={
        "Accept-Encoding": "gzip", "User-Agent": "Mozilla/5.0 (Linux; Android 14) bench"})
    with urllib.request.urlopen(request, timeout=10) as response:
        wire = response.read()
        encoding = response.headers.get("Content-Encoding", "")
        cache = response.headers.get("Cache-Control", "") or "(none)"
    if encoding == "gzip":
        return gzip.decompress(wire), len(wire), True, cache
    return wire, len(gzip.compress(wire, compresslevel=6)), False, cache


def make_game(app) -> dict[str, str]:  # type: ignore[no-untyped-def]
    """A 6-player Deluxe game (Round cards a-e) with rounds 1 and 2 saved by cards; the token
    of each of its links (``scorer``, ``viewer``)."""
    from sqlmodel import Session

    from companion.db import get_engine
    from companion.play import rebel_princess as play
    from companion.play import store
    from companion.scoring.rebel_princess import Edition, PlayedRound, RebelCard

    def played(spread: list[list[str]]) -> PlayedRound:
        return PlayedRound(taken=tuple(frozenset(RebelCard.from_code(c) for c in seat)
                                       for seat in spread))

    with app.app_context(), Session(get_engine(), expire_on_commit=False) as session:
        game = play.create_game(session=session, edition=Edition.DELUXE, names=NAMES6,
                                first_leader=0, round_cards=list("abcde"))
        rounds = [
            [["P1", "P7"], ["P2", "P12", "A8"], ["P3"], ["P4", "P8", "P9"], ["P5"], ["P6", "P10",
                                                                                    "P11"]],
            [["P3", "P9", "P10"], ["P1"], ["P2", "P5", "P6"], ["A8"], ["P4", "P7", "P11"],
             ["P8", "P12"]],
        ]
        for number, spread in enumerate(rounds, start=1):
            play.save_round(session=session, game=game, number=number, played=played(spread),
                            mode="cards", base_id=None)
        return {role: link.token for role, link in store.links_of(session, game).items()}


@dataclass
class Hit:
    """One request the server answered, and what it sent back."""

    method: str
    path: str
    status: int = 0
    header_bytes: int = 0  # status line and header fields, as the app writes them
    body_bytes: int = 0  # as sent: compressed when the server compressed
    encoding: str = ""

    @property
    def sent(self) -> int:
        return self.header_bytes + self.body_bytes


@dataclass
class Meter:
    """WSGI middleware counting every request the app answers (a browser's, its service
    worker's) and the bytes of each answer."""

    hits: list[Hit] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def wrap(self, app: Callable) -> Callable:  # type: ignore[type-arg]
        def metered(environ: dict, start_response: Callable) -> Iterable[bytes]:  # type: ignore[type-arg]
            query = environ.get("QUERY_STRING", "")
            hit = Hit(environ["REQUEST_METHOD"], environ.get("PATH_INFO", "")
                      + (f"?{query}" if query else ""))

            def start(status: str, headers: list[tuple[str, str]], exc_info=None):  # type: ignore[no-untyped-def]
                hit.status = int(status.split()[0])
                hit.header_bytes = len(f"HTTP/1.1 {status}\r\n\r\n") + sum(
                    len(f"{name}: {value}\r\n") for name, value in headers)
                hit.encoding = next((v for k, v in headers if k.lower() == "content-encoding"), "")
                return start_response(status, headers, exc_info)

            body = app(environ, start)
            try:
                for chunk in body:
                    hit.body_bytes += len(chunk)
                    yield chunk
            finally:
                if hasattr(body, "close"):
                    body.close()
                with self._lock:
                    self.hits.append(hit)

        return metered

    def take(self) -> list[Hit]:
        """The requests counted so far, forgetting them."""
        with self._lock:
            hits, self.hits = self.hits, []
        return hits


@contextlib.contextmanager
def serve(db: Path, meter: Meter | None = None) -> Iterator[tuple[str, object]]:
    """The real app (CSRF on) on a free loopback port, in a thread; yields (base URL, app).
    With a ``meter``, every answer is counted."""
    from werkzeug.serving import make_server

    from companion import create_app

    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # no access log in the report
    app = create_app({"DATABASE": str(db), "SECRET_KEY": "bench-page-weight"})
    served = meter.wrap(app) if meter is not None else app
    server = make_server("127.0.0.1", 0, served, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}", app
    finally:
        server.shutdown()
        thread.join(timeout=5)


def weigh(page_url: str) -> list[Resource]:
    """The page and everything it references, once each, in document order."""
    body, sent, server_gzip, cache = fetch(page_url)
    resources = [Resource(page_url, "html", len(body), sent, server_gzip, cache)]
    parser = _Refs()
    parser.feed(body.decode("utf-8"))
    queue = list(parser.refs)
    seen = {page_url}
    while queue:
        kind, ref = queue.pop(0)
        if ref.startswith("data:"):
            continue  # inline: already counted in the HTML
        url = urllib.parse.urljoin(page_url, ref)
        if url in seen:
            continue
        seen.add(url)
        body, sent, server_gzip, cache = fetch(url)
        resources.append(Resource(url, kind, len(body), sent, server_gzip, cache))
        if url.endswith(".css"):
            for css_ref in re.findall(r"url\(\s*['\"]?([^'\")]+)['\"]?\s*\)", body.decode()):
                queue.append(("css url()", urllib.parse.urljoin(url, css_ref)))
    return resources


# --- a first visit, service worker included ---------------------------------------------------

def by_worker(hit: Hit) -> bool:
    """Whether the service worker fetched it once the page was idle (the rest is the page's)."""
    return hit.path == "/sw.js" or hit.path.startswith("/offline/")


@dataclass
class Visit:
    """A first visit to one page: every request until the worker stored the page's files; and
    the same page opened next, until the rulings were stored (``next_hits``)."""

    name: str
    path: str
    hits: list[Hit]
    stored: str  # the language of the rulings stored by the next page, "" if they were not
    next_hits: list[Hit] = field(default_factory=list)

    @property
    def next_sent(self) -> int:
        return sum(h.sent for h in self.next_hits if not h.path.startswith("/live/"))

    @property
    def counted(self) -> list[Hit]:
        return [h for h in self.hits if not h.path.startswith("/live/")]

    @property
    def polls(self) -> list[Hit]:
        return [h for h in self.hits if h.path.startswith("/live/")]

    @property
    def sent(self) -> int:
        return sum(h.sent for h in self.counted)

    def part(self, worker: bool) -> list[Hit]:
        return [h for h in self.counted if by_worker(h) == worker]


def first_visit(browser, base: str, name: str, path: str, meter: Meter) -> Visit:  # type: ignore[no-untyped-def]
    """Open ``path`` in a new phone context (cold cache, service workers allowed) and wait until
    app.js says the worker stored the page's files; every request the server answered
    meanwhile. Then the same page once more, until app.js says the rulings are stored."""
    context = browser.new_context(**PHONE, service_workers="allow")
    meter.take()
    try:
        page = context.new_page()
        page.goto(base + path)
        page.wait_for_selector("html[data-offline-assets]", state="attached", timeout=120_000)
        page.wait_for_function("navigator.serviceWorker.controller !== null", timeout=120_000)
        time.sleep(0.5)  # let the server's threads finish counting their last answers
        hits = meter.take()
        page.goto(base + path)
        page.wait_for_selector("html[data-offline-rulings]", state="attached", timeout=120_000)
        stored = page.get_attribute("html", "data-offline-rulings") or ""
    finally:
        context.close()
    time.sleep(0.5)
    return Visit(name, path, hits, stored, meter.take())


def first_visits(base: str, tokens: dict[str, str], meter: Meter) -> list[Visit]:
    from playwright.sync_api import sync_playwright

    pages = [("home page", "/"),
             ("a game's viewer link (score pad)", f"/rebel-princess/g/{tokens['viewer']}"),
             ("Rebel Princess set-up (htmx)", "/rebel-princess/new"),
             ("a round by cards (scorer)", f"/rebel-princess/g/{tokens['scorer']}/round/3/cards"),
             ("a round trick by trick (scorer)",
              f"/rebel-princess/g/{tokens['scorer']}/round/3/tricks"),
             ("the rulings", "/rules")]
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=LAUNCH_ARGS)
        try:
            return [first_visit(browser, base, name, path, meter) for name, path in pages]
        finally:
            browser.close()


def report_first_visits(visits: list[Visit], tokens: dict[str, str],
                        say: Callable[[str], None]) -> None:
    def show(path: str) -> str:
        for role, token in tokens.items():
            path = path.replace(token, f"<{role} token>")
        return path

    say("First visit: a phone with a cold cache (service worker included) opens one page and "
        "stays until the worker has stored the page's files; the rulings' offline copy comes "
        "with the next page (the same page opened again, counted apart); headless Chromium, "
        "390x844.")
    say()
    rows = []
    for v in visits:
        page, worker = v.part(worker=False), v.part(worker=True)
        rows.append([f"{v.name} `{show(v.path)}`", len(v.counted),
                     f"{sum(h.sent for h in page):,}", f"{sum(h.sent for h in worker):,}",
                     f"**{v.sent:,}**", f"{v.next_sent:,}", v.stored or "NOT stored"])
    say(table(["first visit", "requests", "page bytes", "service worker bytes (idle)",
               "total bytes", "next page bytes", "rulings stored (next page)"], rows,
              align="lrrrrrl"))
    say()
    home = visits[0]
    say(f"Every request of the first visit to {show(home.path)}, in the order answered:")
    say()
    rows = [[show(h.path), h.status, h.encoding or "-", f"{h.header_bytes:,}", f"{h.body_bytes:,}",
             "service worker" if by_worker(h) else "page"] for h in home.counted]
    say(table(["request", "status", "encoding", "header bytes", "body bytes", "by"], rows,
              align="lrlrrl"))
    say()
    worst = max(visits, key=lambda v: v.sent)
    verdict = "within" if worst.sent <= FIRST_VISIT_TARGET else "OVER"
    say(f"- Heaviest first visit: {worst.name}, {worst.sent:,} bytes in {len(worst.counted)} "
        f"requests: {verdict} the 100 kB ({FIRST_VISIT_TARGET:,} bytes) target.")
    say("- Bytes: the status line and header fields as the app writes them plus the body as "
        "sent (the server compresses with what Chromium accepts); TCP and TLS are not counted.")
    polls = [h for v in visits for h in v.polls]
    if polls:
        say(f"- Not counted above: the viewer page's live poll ({len(polls)} "
            f"answer{'s' if len(polls) != 1 else ''}, "
            f"{sum(h.sent for h in polls):,} bytes while the visit lasted), which goes on as "
            f"long as the page is open.")
    early = [v.name for v in visits if any(h.path.startswith("/offline/pages-")
                                           for h in v.counted)]
    if early:
        say(f"- The offline copy came with the first visit of: {', '.join(early)}.")
    copy = [h for h in home.next_hits if h.path.startswith("/offline/pages-")]
    if copy:
        say(f"- The offline copy (the offline pages and every rulings page of every game) in "
            f"one answer, with the next page: {copy[0].body_bytes:,} bytes "
            f"({copy[0].encoding or 'uncompressed'}).")


def run(out: list[str] | None = None) -> tuple[int, str]:
    lines: list[str] = []

    def say(text: str = "") -> None:
        print(text, flush=True)
        lines.append(text)

    meter = Meter()
    with tempfile.TemporaryDirectory(prefix="companion-bench-weight-") as tmp:
        with serve(Path(tmp) / "weight.sqlite", meter) as (base, app):
            tokens = make_game(app)
            code = tokens["scorer"]
            pad = weigh(f"{base}/rebel-princess/g/{code}")
            pad_html = fetch(f"{base}/rebel-princess/g/{code}")[0].decode("utf-8")
            entry_html = fetch(f"{base}/rebel-princess/g/{code}/round/3/cards")
            visits = first_visits(base, tokens, meter)

    total = sum(r.sent for r in pad)
    server_gzip = any(r.server_gzip for r in pad)
    say("Page weight: open the score pad /rebel-princess/g/<code> of a 6-player Deluxe game, "
        "2 rounds played (cold cache).")
    say()
    pad_path = f"/rebel-princess/g/{code}"
    rows = [[urllib.parse.urlsplit(r.url).path.replace(pad_path, "/rebel-princess/g/<code>"),
             r.kind,
             f"{r.raw:,}", f"{r.sent:,}", r.cache_control] for r in pad]
    rows.append(["**total**", "", f"{sum(r.raw for r in pad):,}", f"**{total:,}**", ""])
    say(table(["resource", "type", "raw bytes", "gzip bytes", "Cache-Control"], rows,
              align="llrrl"))
    say()
    verdict = "within" if total <= TARGET_BYTES else "OVER"
    how = ("compressed by the server" if server_gzip else "the server sends no "
           "Content-Encoding: sizes are gzip -6 of each body, as a gzip-ing proxy would send")
    say(f"- Total {total:,} bytes gzip: {verdict} the 25 kB ({TARGET_BYTES:,} bytes) target "
        f"({how}).")
    if not server_gzip:
        say(f"- Served as `make run` serves it (gunicorn straight to the phone, no compression), "
            f"a phone really receives the raw {sum(r.raw for r in pad) / 1000:.1f} kB.")
    html = pad[0]
    say(f"- The HTML alone is {html.raw:,} bytes ({html.sent:,} gzip). For comparison, the round "
        f"entry page /rebel-princess/g/<code>/round/3/cards is {len(entry_html[0]):,} bytes "
        f"({entry_html[1]:,} gzip), with the same CSS and htmx from cache.")
    for label, block in inline_blocks(pad_html):
        without = gzip_size(pad_html.replace(block, ""))
        say(f"- Inline in the HTML, {label}: {len(block.encode()):,} bytes raw, "
            f"{gzip_size(pad_html) - without:,} bytes of the page's gzip size.")
    biggest = max(pad[1:], key=lambda r: r.sent, default=None)
    if biggest is not None:
        say(f"- Largest single resource: {urllib.parse.urlsplit(biggest.url).path} "
            f"({biggest.sent / total:.0%} of the total).")
    say()
    report_first_visits(visits, tokens, say)
    if out is not None:
        out.extend(lines)
    return total, "\n".join(lines)


def gzip_size(text: str) -> int:
    return len(gzip.compress(text.encode("utf-8"), compresslevel=6))


def inline_blocks(html: str) -> list[tuple[str, str]]:
    """Big inline pieces worth knowing about: the share QR code and the SVG icon sprite."""
    found = []
    qr = re.search(r'<div class="qr">.*?</svg>\s*</div>', html, re.S)
    if qr:
        found.append(("the share QR code (SVG)", qr.group(0)))
    sprite = re.search(r"<svg[^>]*>\s*<symbol.*?</svg>", html, re.S)
    if sprite:
        found.append(("the SVG icon sprite", sprite.group(0)))
    return found


def main() -> None:
    run()


if __name__ == "__main__":
    main()
