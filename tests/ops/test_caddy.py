"""The shipped Caddyfile (deploy/Caddyfile) in front of two app servers started with the shipped
gunicorn settings, as a host runs them: HTTPS on a port that is not 443, HTTP/2, HSTS, static
files served by Caddy, the body limit, the phone's own address seen by the app.

The Caddyfile is used as shipped; only its address, ports, certificate (``tls`` with a
self-signed one, so no ACME) and static folder are replaced, and a few global options keep this
Caddy to itself: no admin endpoint, loopback only, nothing installed in the trust store. A phone
plays a whole Rebel Princess game through it (the servers, the phone and its helpers are the
nginx test's: tests/ops/test_proxy.py). Debian's Caddy is installed by ``make test``
(scripts/caddy.sh) when missing; without it the tests skip, except in CI (``CI`` set), where
they fail.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
from pathlib import Path

import pytest

from companion.ops import audit

from .test_proxy import (
    ROOT,
    STATIC,
    Phone,
    _free_port,
    answering,
    app_servers,
    check_a_whole_game_through_the_proxy,
    check_http2_and_the_redirect_to_https,
    check_static_files_answered_by_the_proxy,
    new_game,
    self_signed,
)

CADDYFILE = ROOT / "deploy" / "Caddyfile"
CADDY = shutil.which("caddy") or next(
    (p for p in ("/usr/bin/caddy", "/usr/local/bin/caddy") if os.access(p, os.X_OK)), None)

pytestmark = pytest.mark.skipif(
    CADDY is None and not os.environ.get("CI"),
    reason="needs Debian's caddy (make test installs it: scripts/caddy.sh)")

def caddyfile(*, https: int, http: int, upstreams: list[int], cert: Path, key: Path) -> str:
    """The shipped Caddyfile with this machine's address, ports, certificate and static folder
    (and this test's own global options: no admin endpoint, loopback, no trust store)."""
    text = CADDYFILE.read_text(encoding="utf-8")
    replaced = [
        ("\ngames.example.org {\n", f"\n127.0.0.1:{https} {{\n\ttls {cert} {key}\n"),
        ("reverse_proxy 127.0.0.1:8001 127.0.0.1:8002 {",
         "reverse_proxy " + " ".join(f"127.0.0.1:{port}" for port in upstreams) + " {"),
        ("root * /srv/companion/companion/static\n", f"root * {STATIC}\n"),
        ("root * /srv/companion/companion/static/\n", f"root * {STATIC}/\n"),
    ]
    for old, new in replaced:
        assert text.count(old) == 1, f"the shipped Caddyfile no longer has {old!r} once"
        text = text.replace(old, new)
    own = (f"\tadmin off\n\tdefault_bind 127.0.0.1\n\thttp_port {http}\n\thttps_port {https}\n"
           "\tskip_install_trust\n")
    global_block = re.search(r"^\{\n", text, re.M)
    assert global_block is not None, "the shipped Caddyfile has no global options block"
    return text[:global_block.end()] + own + text[global_block.end():]


def start_caddy(folder: Path, text: str, https: int) -> subprocess.Popen:
    """Caddy run from ``folder`` (its config, data and log there); waits for its HTTPS port."""
    if CADDY is None:
        pytest.fail("caddy is not installed (scripts/caddy.sh installs Debian's)")
    folder.mkdir(exist_ok=True)
    config = folder / "Caddyfile"
    config.write_text(text, encoding="utf-8")
    log = folder / "caddy.log"
    environment = {**os.environ, "HOME": str(folder), "XDG_DATA_HOME": str(folder / "data"),
                   "XDG_CONFIG_HOME": str(folder / "config")}
    with log.open("wb") as output:
        process = subprocess.Popen([CADDY, "run", "--config", str(config), "--adapter",
                                    "caddyfile"], env=environment, cwd=folder,
                                   stdout=output, stderr=subprocess.STDOUT)
    if answering(process, https):
        return process
    pytest.fail("caddy did not start: " + log.read_text(errors="replace")[-3000:])


def stop(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=30)


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    """Two gunicorn servers on one database, Caddy (the shipped Caddyfile) in front."""
    folder = tmp_path_factory.mktemp("caddy")
    cert, key = self_signed(folder)
    https, http_port = _free_port(), _free_port()
    with app_servers(folder) as (ports, logs):
        proxy = start_caddy(folder / "proxy", caddyfile(
            https=https, http=http_port, upstreams=ports, cert=cert, key=key), https)
        try:
            yield {"https": https, "http": http_port, "cert": cert, "key": key,
                   "folder": folder, "logs": logs, "upstreams": ports,
                   "caddy_log": folder / "proxy" / "caddy.log"}
        finally:
            stop(proxy)


def _access_lines(stack, path: str) -> list[str]:
    return [line for log in stack["logs"]
            for line in log.read_text(errors="replace").splitlines() if f'"{path}"' in line]


def test_a_whole_game_through_caddy(stack):
    check_a_whole_game_through_the_proxy(stack)


def test_the_app_sees_the_phones_address_not_a_forged_one(stack):
    phone = Phone(stack["https"], stack["cert"], "127.0.0.3")
    status, _, _ = phone.request("GET", "/rules?forged", headers={
        "X-Forwarded-For": "203.0.113.9"})
    assert status == 200
    lines = _access_lines(stack, "GET /rules?forged")
    assert len(lines) == 1 and " 127.0.0.3 " in lines[0] and "203.0.113.9" not in lines[0]


def test_caddy_serves_the_static_files_with_a_long_cache(stack):
    check_static_files_answered_by_the_proxy(stack)


def test_http2_and_the_redirect_to_https(stack):
    check_http2_and_the_redirect_to_https(stack, redirects=(301, 308))


TOO_LARGE = 22 * 1024 * 1024  # above the Caddyfile's limit (22020096 bytes with the form)


def _post_with_curl(stack, body: Path) -> str:
    """The status curl gets for ``body`` over HTTP/1.1 (curl asks ``Expect: 100-continue``
    first: Caddy's 413 comes before the body is sent)."""
    answer = subprocess.run(
        ["curl", "-s", "--http1.1", "--cacert", str(stack["cert"]), "-o", "/dev/null", "-w",
         "%{http_code}", "-H", "Content-Type: application/x-www-form-urlencoded",
         "--data-binary", f"@{body}", f"https://127.0.0.1:{stack['https']}/import?too-large"],
        capture_output=True, text=True, timeout=120)
    return answer.stdout


def _post_with_chromium(stack, size: int) -> str:
    """The status a browser gets for a body of ``size`` bytes over HTTP/2, as a phone's upload
    is sent: Chromium, which reads Caddy's 413 (a complete answer, then RST_STREAM NO_ERROR:
    RFC 9113 §8.1). curl 7.88 drops such an answer (exit 92): not a client the app serves."""
    from playwright.sync_api import sync_playwright

    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    if not os.path.exists(chromium):
        pytest.skip("needs Chromium (make browser)")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, headless=True, args=[
            "--no-sandbox", "--disable-gpu", "--disable-quic", "--ignore-certificate-errors"])
        try:
            page = browser.new_page(ignore_https_errors=True)
            page.goto(f"https://127.0.0.1:{stack['https']}/rules?h2")
            protocol = page.evaluate(
                "performance.getEntriesByType('navigation')[0].nextHopProtocol")
            assert protocol == "h2", protocol
            status = page.evaluate("""async (size) => {
                const body = new Uint8Array(size).fill(120);
                body.set(new TextEncoder().encode("file="));
                try {
                    const answer = await fetch("/import?too-large", {method: "POST", body,
                        headers: {"Content-Type": "application/x-www-form-urlencoded"}});
                    return String(answer.status);
                } catch (error) { return String(error); }
            }""", size)
        finally:
            browser.close()
    return str(status)


@pytest.mark.parametrize("version", ["HTTP/1.1", "HTTP/2.0"])
def test_a_body_above_the_limit_is_refused_by_caddy(stack, tmp_path, version):
    """A body announced larger than the largest import gets Caddy's 413, over HTTP/1.1 (before
    it is sent, as curl asks ``Expect: 100-continue`` first) as over HTTP/2 (in a browser, which
    sends the body at once: the 413 comes as soon as the headers are read, the rest of the
    upload cut short); the app never sees it, Caddy logs it."""
    if version == "HTTP/1.1":
        body = tmp_path / "body"
        with body.open("wb") as out:
            out.write(b"file=")
            out.write(b"x" * (TOO_LARGE - 5))
        status = _post_with_curl(stack, body)
    else:
        status = _post_with_chromium(stack, TOO_LARGE)
    assert status == "413"
    assert _access_lines(stack, "POST /import?too-large") == []  # never sent on to the app
    refused = [json.loads(line) for line in stack["caddy_log"].read_text().splitlines()
               if '"status":413' in line and "too-large" in line]
    assert refused and refused[-1]["request"]["uri"] == "/import?too-large"  # Caddy logs it
    assert refused[-1]["request"]["proto"] == version
    phone = Phone(stack["https"], stack["cert"], "127.0.0.6")
    small = f"/import?small-{version[-3:]}"
    status, _, _ = phone.request("POST", small, {"file": "x"})
    assert status != 413 and len(_access_lines(stack, f"POST {small}")) == 1


def test_the_audit_passes_through_the_shipped_caddyfile(stack):
    findings = audit.audit(f"https://127.0.0.1:{stack['https']}/", check_limits=False,
                           cafile=str(stack["cert"]))
    assert [f.line() for f in findings if not f.kept] == []


def test_a_server_stopped_costs_no_request_and_caddy_logs_no_link(stack, tmp_path):
    """One upstream down (a server restarting in a rolling upgrade): every request reaches the
    other. Both down: a 502, and Caddy's error line about it has the token masked."""
    phone = Phone(stack["https"], stack["cert"], "127.0.0.7")
    game = new_game(phone)
    token = game.rsplit("/", 1)[1]
    https = _free_port()
    restarting = start_caddy(tmp_path / "one", caddyfile(
        https=https, http=_free_port(), upstreams=[_free_port(), stack["upstreams"][1]],
        cert=stack["cert"], key=stack["key"]), https)
    try:
        phone = Phone(https, stack["cert"], "127.0.0.7")
        assert [phone.request("GET", game)[0] for _ in range(4)] == [200] * 4
    finally:
        stop(restarting)
    https = _free_port()
    # The two servers' ports held bound and never listening: refused, and never taken meanwhile
    # by another test's server (a port merely free when picked can be).
    held = [socket.socket(), socket.socket()]
    for bound in held:
        bound.bind(("127.0.0.1", 0))
    down = start_caddy(tmp_path / "none", caddyfile(
        https=https, http=_free_port(), upstreams=[int(b.getsockname()[1]) for b in held],
        cert=stack["cert"], key=stack["key"]), https)
    try:
        phone = Phone(https, stack["cert"], "127.0.0.7")
        status, headers, page = phone.request("GET", game, referer=game)
        assert status == 502 and headers["Retry-After"] == "30"
        assert "Back in a moment" in page and "De retour dans un instant" in page  # the app's
    finally:
        stop(down)
        for bound in held:
            bound.close()
    logs = {folder: (tmp_path / folder / "caddy.log").read_text(errors="replace")
            for folder in ("one", "none")}
    assert f"/rebel-princess/g/…{token[-4:]}" in logs["none"]  # the error was logged, masked
    assert [json.loads(line)["status"] for line in logs["none"].splitlines()
            if '"status":502' in line] == [502]  # on Caddy's access log, once
    assert not [folder for folder, text in logs.items() if token in text], logs
