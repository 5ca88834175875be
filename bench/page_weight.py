"""Bytes a phone downloads to open a game's score pad, gzip-compressed.

The real app (CSRF on) is served on a free 127.0.0.1 port with a temporary database holding a
6-player Deluxe game with 2 of its 5 rounds saved. The bench fetches ``/g/<code>`` with
``Accept-Encoding: gzip``, parses the HTML for every ``<link href>``, ``<script src>`` and
``<img src>`` (and ``url(...)`` in the CSS), fetches each, and counts what a phone would receive:
the compressed size when the server compresses, else the body compressed with gzip -6 (what a
gzip-ing reverse proxy would send). HTTP headers are not counted. Target: <= 25 kB in all.

Run: ``python -m bench.page_weight``.
"""

from __future__ import annotations

import contextlib
import gzip
import logging
import re
import tempfile
import threading
import urllib.parse
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

from . import NAMES6, table

TARGET_BYTES = 25 * 1000  # kB = 1,000 bytes


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


def make_game(app) -> str:  # type: ignore[no-untyped-def]
    """A 6-player Deluxe game (Round cards a-e) with rounds 1 and 2 saved by cards."""
    from sqlmodel import Session

    from companion import play
    from companion.db import get_engine
    from companion.scoring.rebel_princess import Card, Edition, PlayedRound

    def played(spread: list[list[str]]) -> PlayedRound:
        return PlayedRound(taken=tuple(frozenset(Card.from_code(c) for c in seat)
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
        return game.code


@contextlib.contextmanager
def serve(db: Path) -> Iterator[tuple[str, object]]:
    """The real app (CSRF on) on a free loopback port, in a thread; yields (base URL, app)."""
    from werkzeug.serving import make_server

    from companion import create_app

    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # no access log in the report
    app = create_app({"DATABASE": str(db), "SECRET_KEY": "bench-page-weight"})
    server = make_server("127.0.0.1", 0, app, threaded=True)
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


def run(out: list[str] | None = None) -> tuple[int, str]:
    lines: list[str] = []

    def say(text: str = "") -> None:
        print(text, flush=True)
        lines.append(text)

    with tempfile.TemporaryDirectory(prefix="companion-bench-weight-") as tmp:
        with serve(Path(tmp) / "weight.sqlite") as (base, app):
            code = make_game(app)
            pad = weigh(f"{base}/g/{code}")
            pad_html = fetch(f"{base}/g/{code}")[0].decode("utf-8")
            entry_html = fetch(f"{base}/g/{code}/round/3/cards")

    total = sum(r.sent for r in pad)
    server_gzip = any(r.server_gzip for r in pad)
    say("Page weight: open the score pad /g/<code> of a 6-player Deluxe game, 2 rounds played "
        "(cold cache).")
    say()
    rows = [[urllib.parse.urlsplit(r.url).path.replace(f"/g/{code}", "/g/<code>"), r.kind,
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
        f"entry page /g/<code>/round/3/cards is {len(entry_html[0]):,} bytes "
        f"({entry_html[1]:,} gzip), with the same CSS and htmx from cache.")
    for label, block in inline_blocks(pad_html):
        without = gzip_size(pad_html.replace(block, ""))
        say(f"- Inline in the HTML, {label}: {len(block.encode()):,} bytes raw, "
            f"{gzip_size(pad_html) - without:,} bytes of the page's gzip size.")
    biggest = max(pad[1:], key=lambda r: r.sent, default=None)
    if biggest is not None:
        say(f"- Largest single resource: {urllib.parse.urlsplit(biggest.url).path} "
            f"({biggest.sent / total:.0%} of the total).")
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
