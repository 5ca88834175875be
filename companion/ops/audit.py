"""Check a running companion against what the README promises about its safety, from outside,
as any browser or script would see it:

- every page (and the API) carries the Content-Security-Policy (scripts and styles from this site
  only, no framing), ``nosniff``, a same-origin referrer policy and ``X-Frame-Options: DENY``;
- the session and language cookies are HttpOnly and SameSite=Lax, and Secure exactly when the
  address is ``https://``;
- a form sent from one of its pages passes the CSRF check (a proxy that drops the port from the
  Host breaks every form over HTTPS);
- a request body over 64 kB is refused (413, in the API's JSON error shape); a 405 says which
  methods are allowed;
- the rate limits: 120 writes a minute from one address, all routes together; 600 JSON API
  requests a minute, refused as a JSON 429 with ``Retry-After``; and, with ``--create-games``,
  30 new games an hour from one address.

The limit checks use up this machine's own allowance on that server for the next minute
(writes, API); the writes they send are refused before they reach a game, so nothing is stored
— except with ``--create-games``, which starts 30 Rebel Princess games (players "Audit 1" to
"Audit 3") and uses up the hour's new games. Run against a server you run::

    python -m companion.ops.audit https://games.example.org/
    python -m companion.ops.audit http://127.0.0.1:5000/ --no-limits

It prints one line per promise and exits 1 if any is not kept.
"""

from __future__ import annotations

import argparse
import http.client
import json
import re
import ssl
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode, urlsplit

from ..web.security import API_LIMIT, CREATE_LIMIT, WRITE_LIMITS, limit_figures

BODY_LIMIT = 64 * 1024
PAGES = ("/", "/new", "/rules", "/rebel-princess/new", "/api/v1/openapi.json")
API_WRITE = "/api/v1/rebel-princess/standings"
NEW_GAME = "/rebel-princess/new"
NEW_GAME_FORM = {"edition": "deluxe", "length": "5", "first_leader": "0", "create": "1",
                 "names-0": "Audit 1", "names-1": "Audit 2", "names-2": "Audit 3",
                 **{f"cards-{i}": card for i, card in enumerate("abcde")}}
FORM = "application/x-www-form-urlencoded"
PAGE_WRITES = ("/", "/rules")  # a POST to a page that takes none: refused (405), and counted


@dataclass(frozen=True)
class Finding:
    promise: str
    kept: bool
    detail: str = ""

    def line(self) -> str:
        return f"{'ok  ' if self.kept else 'FAIL'}  {self.promise}" + (
            f" — {self.detail}" if self.detail else "")


@dataclass
class Answer:
    status: int
    headers: http.client.HTTPMessage
    body: bytes

    def header(self, name: str) -> str:
        return self.headers.get(name) or ""

    def cookies(self) -> dict[str, list[str]]:
        """Each cookie set, by name: its attributes, lower-cased."""
        found = {}
        for value in self.headers.get_all("Set-Cookie") or []:
            name, _, rest = value.partition("=")
            found[name.strip()] = [part.strip().lower() for part in rest.split(";")[1:]]
        return found

    def json(self) -> object:
        try:
            return json.loads(self.body)
        except ValueError:
            return None


class Server:
    def __init__(self, base: str, https: bool | None = None, cafile: str | None = None) -> None:
        parts = urlsplit(base)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"not an http(s) address: {base!r}")
        self.tls = parts.scheme == "https"
        self.https = self.tls if https is None else https  # what the phones see
        self.host = parts.hostname
        self.port = parts.port
        self.prefix = parts.path.rstrip("/")
        self.sent = {"api": 0, "writes": 0}  # what this audit has sent, as the limits count
        self.session = ""  # the session cookie, once ``remember`` is used
        # A certificate to trust besides the system's (a test proxy's self-signed one).
        self.context = ssl.create_default_context(cafile=cafile) if cafile else None

    def base(self) -> str:
        """The address as a phone has it (the Referer its forms send)."""
        port = f":{self.port}" if self.port else ""
        return f"{'https' if self.https else 'http'}://{self.host}{port}{self.prefix}"

    def request(self, method: str, path: str, body: bytes | None = None,
                content_type: str | None = None, remember: bool = False,
                referer: str | None = None) -> Answer:
        connection = (http.client.HTTPSConnection(self.host, self.port, timeout=30,
                                                  context=self.context) if self.tls
                      else http.client.HTTPConnection(self.host, self.port, timeout=30))
        if path.startswith("/api/"):
            self.sent["api"] += 1
        elif method not in ("GET", "HEAD", "OPTIONS"):
            self.sent["writes"] += 1
        try:
            headers = {"Content-Type": content_type} if content_type else {}
            if remember and self.session:
                headers["Cookie"] = f"session={self.session}"
            if referer:
                headers["Referer"] = referer
            connection.request(method, self.prefix + path, body=body, headers=headers)
            response = connection.getresponse()
            answer = Answer(response.status, response.headers, response.read())
            if remember:
                for cookie in answer.headers.get_all("Set-Cookie") or []:
                    if cookie.startswith("session="):
                        self.session = cookie.partition("=")[2].partition(";")[0]
            return answer
        finally:
            connection.close()


def _check(promise: str, kept: bool, detail: str = "") -> Finding:
    return Finding(promise, bool(kept), "" if kept else detail)


def headers(server: Server) -> list[Finding]:
    findings = []
    for path in PAGES:
        answer = server.request("GET", path)
        csp = {d.strip().partition(" ")[0]: d.strip().partition(" ")[2]
               for d in answer.header("Content-Security-Policy").split(";") if d.strip()}
        findings += [
            _check(f"{path}: answers", answer.status == 200, f"status {answer.status}"),
            _check(f"{path}: scripts from this site only (CSP script-src 'self')",
                   csp.get("script-src") == "'self'", f"script-src {csp.get('script-src')!r}"),
            _check(f"{path}: styles from this site only (CSP style-src 'self', no inline style)",
                   csp.get("style-src") == "'self'", f"style-src {csp.get('style-src')!r}"),
            _check(f"{path}: no plugins, no <base> (CSP object-src, base-uri)",
                   csp.get("object-src") == "'none'" and csp.get("base-uri") == "'none'",
                   repr(csp)),
            _check(f"{path}: never inside another site's frame",
                   csp.get("frame-ancestors") == "'none'"
                   and answer.header("X-Frame-Options") == "DENY",
                   f"frame-ancestors {csp.get('frame-ancestors')!r}, X-Frame-Options "
                   f"{answer.header('X-Frame-Options')!r}"),
            _check(f"{path}: nosniff", answer.header("X-Content-Type-Options") == "nosniff",
                   answer.header("X-Content-Type-Options")),
            _check(f"{path}: no link sent to another site (Referrer-Policy same-origin)",
                   answer.header("Referrer-Policy") == "same-origin",
                   answer.header("Referrer-Policy")),
        ]
    return findings


def cookies(server: Server) -> list[Finding]:
    findings = []
    for path, name in (("/", "session"), ("/lang/fr?next=/", "lang")):
        flags = server.request("GET", path).cookies().get(name)
        if flags is None:
            findings.append(_check(f"the {name} cookie is set by {path}", False, "not set"))
            continue
        findings += [
            _check(f"the {name} cookie is HttpOnly", "httponly" in flags, str(flags)),
            _check(f"the {name} cookie is SameSite=Lax", "samesite=lax" in flags, str(flags)),
            _check(f"the {name} cookie is Secure " + (
                "(HTTPS)" if server.https else "only over HTTPS (here plain HTTP: not Secure)"),
                ("secure" in flags) == server.https, str(flags)),
        ]
    return findings


def bodies(server: Server) -> list[Finding]:
    """The body limit and the 405's Allow header."""
    big = server.request("POST", API_WRITE, b"[" + b" " * BODY_LIMIT + b"]", "application/json")
    fits = server.request("POST", API_WRITE, b"{}" + b" " * (BODY_LIMIT - 4096),
                          "application/json")
    wrong = server.request("GET", API_WRITE)
    shape = big.json()
    return [
        _check(f"a body over {BODY_LIMIT // 1024} kB is refused with 413 in the JSON shape",
               big.status == 413 and isinstance(shape, dict) and "problems" in shape,
               f"status {big.status}"),
        _check("a body under the limit is read", fits.status not in (413, 500),
               f"status {fits.status}"),
        _check("a 405 says which methods are allowed",
               wrong.status == 405 and "POST" in wrong.header("Allow"),
               f"status {wrong.status}, Allow {wrong.header('Allow')!r}"),
    ]


def forms(server: Server) -> list[Finding]:
    """A form sent as a phone sends it (its CSRF token, its Referer) passes the CSRF check: a
    proxy that passes the Host without its port (nginx's ``$host``) breaks every form over
    HTTPS on any port but 443. The form is incomplete on purpose: refused (422), nothing is
    stored."""
    page = server.request("GET", NEW_GAME, remember=True).body.decode(errors="replace")
    token = re.search(r'name="csrf_token"[^>]*value="([^"]+)"', page)
    form = {"csrf_token": token[1] if token else "", "create": "1"}
    answer = server.request("POST", NEW_GAME, urlencode(form).encode(), FORM, remember=True,
                            referer=server.base() + NEW_GAME)
    return [_check("a form sent from a page of this address passes the CSRF check (the proxy "
                   "passes the Host with its port)", answer.status == 422,
                   f"status {answer.status}" + (" (refused as a forgery: does the proxy pass "
                                                "the Host without its port?)"
                                                if answer.status == 400 else ""))]


def _until_refused(server: Server, scope: str, send: Callable[[int], Any], most: int) -> int:
    """Send requests until the first 429; how many of ``scope`` this audit had sent before it
    (``most`` more at most)."""
    for number in range(most):
        if send(number).status == 429:
            return server.sent[scope] - 1
    return server.sent[scope]


def _start_game(server: Server) -> Answer:
    """Start a Rebel Princess game as a phone does: the set-up page (for its CSRF token), then
    the form."""
    page = server.request("GET", NEW_GAME, remember=True).body.decode(errors="replace")
    token = re.search(r'name="csrf_token"[^>]*value="([^"]+)"', page)
    form = {**NEW_GAME_FORM, "csrf_token": token[1] if token else ""}
    return server.request("POST", NEW_GAME, urlencode(form).encode(), FORM, remember=True,
                          referer=server.base() + NEW_GAME)


def limits(server: Server, create_games: bool = False) -> list[Finding]:
    findings = []
    new_games = limit_figures(CREATE_LIMIT)[0][0]
    writes = next(count for count, seconds in limit_figures(WRITE_LIMITS) if seconds == 60)
    api = next(count for count, seconds in limit_figures(API_LIMIT) if seconds == 60)

    if create_games:
        started = 0
        for _ in range(new_games + 2):
            answer = _start_game(server)
            if answer.status not in (302, 303):
                break
            started += 1
        findings.append(_check(f"{new_games} new games an hour from one address",
                               started == new_games and answer.status == 429,
                               f"{started} started, then status {answer.status}"))
    # Writes, every route together (the games started above counted too, and so did the
    # refused one: the minute's count is taken before the hour's).
    written = _until_refused(
        server, "writes",
        lambda n: server.request("POST", PAGE_WRITES[n % 2], b"", FORM), writes + 5)
    findings.append(_check(f"{writes} writes a minute from one address, every route together",
                           written == writes, f"the 429 came after {written}"))
    refused = server.request("POST", "/rules", b"", FORM)
    findings.append(_check("a limited write gets a page saying to wait, with Retry-After",
                           refused.status == 429 and refused.header("Retry-After").isdigit()
                           and b"<html" in refused.body.lower(),
                           f"status {refused.status}"))
    # The JSON API: its own, generous count; refusals in its error shape.
    calls = _until_refused(server, "api", lambda n: server.request(
        "POST", API_WRITE, b"{}", "application/json"), api + 5)
    findings.append(_check(f"{api} JSON API requests a minute from one address",
                           calls == api, f"the 429 came after {calls}"))
    limited = server.request("GET", "/api/v1/openapi.json")
    shape = limited.json()
    findings.append(_check(
        "a limited API request gets a JSON 429 (too-many-requests) with Retry-After",
        limited.status == 429 and isinstance(shape, dict)
        and shape.get("problems", [{}])[0].get("code") == "too-many-requests"
        and limited.header("Retry-After").isdigit(), f"status {limited.status}, {shape!r}"))
    return findings


def audit(base: str, *, check_limits: bool = True, create_games: bool = False,
          https: bool | None = None, cafile: str | None = None) -> list[Finding]:
    """Every check against the server at ``base``; ``https`` says the phones reach it over
    HTTPS (a proxy's address given as ``http://`` from behind it), by default as ``base`` says."""
    server = Server(base, https, cafile)
    findings = headers(server) + cookies(server) + bodies(server) + forms(server)
    if check_limits:
        findings += limits(server, create_games)
    return findings


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("address", help="the server's address, e.g. https://games.example.org/")
    parser.add_argument("--no-limits", action="store_true",
                        help="skip the rate-limit checks (they use up this address's allowance)")
    parser.add_argument("--create-games", action="store_true",
                        help="also check the new-games limit (starts 30 games on the server)")
    parser.add_argument("--https", action="store_true",
                        help="the phones reach it over HTTPS (auditing from behind the proxy)")
    parser.add_argument("--cafile", help="a certificate to trust (a self-signed test proxy)")
    args = parser.parse_args(argv)
    findings = audit(args.address, check_limits=not args.no_limits,
                     create_games=args.create_games, https=True if args.https else None,
                     cafile=args.cafile)
    for finding in findings:
        print(finding.line())
    failed = [f for f in findings if not f.kept]
    print(f"\n{len(findings) - len(failed)} of {len(findings)} promises kept.")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
