"""The shipped nginx site (deploy/nginx/companion.conf) in front of two app servers started with
the shipped gunicorn settings (deploy/gunicorn.conf.py), as a host runs them: HTTPS with a
self-signed certificate on a port that is not 443, HTTP/2, HSTS, static files served by nginx.

The site file is used as shipped; only its addresses, ports, certificate paths, static folder and
log folder are replaced. A phone plays a whole Rebel Princess game through it (forms with their
CSRF token and Referer over HTTPS, Secure cookies), from an address of its own (127.0.0.2: the
app sees it, through ProxyFix, in its access lines and its rate limits). ``companion.ops.audit``
passes against it, and fails against the same site passing ``Host $host`` (the port dropped).
With one server stopped no request is lost, and no line of nginx's names a link token.

On SQLite (one file both servers share) in ``make test``; on PostgreSQL and Redis in ``make
test-postgres`` (there the rate limits are one count across both servers, and checked).
Debian's nginx is installed by ``make test`` (scripts/nginx.sh) when missing.
"""

from __future__ import annotations

import contextlib
import http.client
import os
import re
import secrets
import shutil
import socket
import ssl
import subprocess
import sys
import time
import urllib.parse
from collections.abc import Iterator
from pathlib import Path

import pytest

from companion import create_app
from companion.ops import audit
from companion.web.security import WRITE_LIMITS, limit_figures

from ..conftest import POSTGRES_URL, REDIS_URL, empty_tables

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "deploy" / "nginx" / "companion.conf"
PUSH_SITE = ROOT / "deploy" / "nginx" / "companion-push.conf"
PUSH_SUBSCRIBER = ROOT / "deploy" / "nginx" / "companion-push-subscriber.conf"
NCHAN = Path("/usr/lib/nginx/modules/ngx_nchan_module.so")
GUNICORN_CONF = ROOT / "deploy" / "gunicorn.conf.py"
STATIC = ROOT / "companion" / "static"
NGINX = shutil.which("nginx") or next(
    (p for p in ("/usr/sbin/nginx", "/usr/local/sbin/nginx") if os.access(p, os.X_OK)), None)

pytestmark = pytest.mark.skipif(
    NGINX is None and not os.environ.get("CI"),
    reason="needs Debian's nginx (make test installs it: scripts/nginx.sh)")

PER_MINUTE = next(count for count, seconds in limit_figures(WRITE_LIMITS) if seconds == 60)
NEW_GAME = {"edition": "deluxe", "length": "5", "first_leader": "0", "create": "1",
            **{f"names-{s}": n for s, n in enumerate(["Ana", "Ben", "Cy", "Di"])},
            **{f"cards-{i}": c for i, c in enumerate("abcde")}}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def push_site(*, publisher: int, redis: int, logs: Path) -> str:
    """The shipped publisher site (deploy/nginx/companion-push.conf), with this machine's ports."""
    text = PUSH_SITE.read_text(encoding="utf-8")
    for old, new in (("listen 127.0.0.1:8090;", f"listen 127.0.0.1:{publisher};"),
                     ("redis://127.0.0.1:6379", f"redis://127.0.0.1:{redis}"),
                     ("/var/log/nginx/", f"{logs}/")):
        assert old in text, f"the shipped push site no longer has {old!r}"
        text = text.replace(old, new)
    return text


def site(*, https: int, http: int, upstreams: list[int], cert: Path, key: Path, logs: Path,
         host_header: str = "$http_host", publisher: int | None = None,
         redis: int = 6379) -> str:
    """The shipped site, with this machine's addresses, ports, certificate, static folder and
    log folder; and the shipped push site (Nchan's publisher, on port ``publisher``, through the
    Redis on port ``redis``) before it."""
    text = SITE.read_text(encoding="utf-8")
    replaced = [
        ("/etc/nginx/snippets/companion-push-subscriber.conf", str(PUSH_SUBSCRIBER)),
        ("    server 127.0.0.1:8001;\n    server 127.0.0.1:8002;\n",
         "".join(f"    server 127.0.0.1:{port};\n" for port in upstreams)),
        ("listen 443 ssl http2;", f"listen 127.0.0.1:{https} ssl http2;"),
        ("listen 80;", f"listen 127.0.0.1:{http};"),
        ("/etc/letsencrypt/live/games.example.org/fullchain.pem", str(cert)),
        ("/etc/letsencrypt/live/games.example.org/privkey.pem", str(key)),
        ("/srv/companion/companion/static/", f"{STATIC}/"),
        ("/var/log/nginx/", f"{logs}/"),
    ]
    for old, new in replaced:
        assert old in text, f"the shipped site no longer has {old!r}"
        text = text.replace(old, new)
    text = "".join(line for line in text.splitlines(keepends=True)
                   if not line.strip().startswith("listen [::]"))  # (no IPv6 here)
    if host_header != "$http_host":
        text = text.replace("proxy_set_header Host $http_host;",
                            f"proxy_set_header Host {host_header};")
    return push_site(publisher=publisher or _free_port(), redis=redis, logs=logs) + text


def nginx_conf(folder: Path, site_text: str) -> Path:
    """A main nginx.conf for a proxy run from ``folder`` (no service, nothing outside it)."""
    for name in ("logs", "tmp"):
        (folder / name).mkdir(exist_ok=True)
    (folder / "site.conf").write_text(site_text, encoding="utf-8")
    user = "user root;\n" if os.geteuid() == 0 else ""  # (its workers read our files)
    conf = folder / "nginx.conf"
    conf.write_text(f"""load_module {NCHAN};
{user}worker_processes 1;
pid {folder}/nginx.pid;
error_log {folder}/logs/error.log;
events {{ worker_connections 256; }}
http {{
    include /etc/nginx/mime.types;
    default_type application/octet-stream;
    access_log {folder}/logs/access.log;
    client_body_temp_path {folder}/tmp/body;
    proxy_temp_path {folder}/tmp/proxy;
    fastcgi_temp_path {folder}/tmp/fastcgi;
    uwsgi_temp_path {folder}/tmp/uwsgi;
    scgi_temp_path {folder}/tmp/scgi;
    include {folder}/site.conf;
}}
""", encoding="utf-8")
    return conf


def _wait(url_port: int, path: str, deadline: float, process: subprocess.Popen,
          log: Path) -> None:
    while time.monotonic() < deadline:
        if process.poll() is not None:
            break
        connection = http.client.HTTPConnection("127.0.0.1", url_port, timeout=5)
        try:
            connection.request("GET", path)
            if connection.getresponse().status == 200:
                return
        except OSError:
            time.sleep(0.2)
        finally:
            connection.close()
    pytest.fail(f"{log.name} did not start: " + log.read_text(errors="replace")[-3000:])


def answering(process: subprocess.Popen, port: int, seconds: float = 30) -> bool:
    """Whether ``process`` (a proxy just started) answers on ``port`` within ``seconds``; if it
    does not (it exited, or it is too slow), it is killed and waited for."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and process.poll() is None:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return True
        except OSError:
            time.sleep(0.1)
    process.kill()
    process.wait(timeout=30)
    return False


TAKEN = "Address already in use"
"""nginx's words when a port it was given is bound by another socket: a port picked free
(:func:`_free_port`) can be taken as the kernel's next ephemeral port by another test's
outgoing connection before nginx binds it (once in CI: that connection soon ends)."""


def start_nginx(folder: Path, site_text: str, https: int) -> subprocess.Popen:
    """nginx serving ``site_text`` from ``folder``, once it answers on ``https``; started again
    (up to five times, half a second apart) while one of its ports is taken (:data:`TAKEN`)."""
    if NGINX is None:
        pytest.fail("nginx is not installed (scripts/nginx.sh installs Debian's)")
    conf = nginx_conf(folder, site_text)
    log = folder / "logs" / "error.log"
    for _ in range(5):
        process = subprocess.Popen(
            [NGINX, "-p", str(folder), "-c", str(conf), "-g", "daemon off;"],
            stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        if answering(process, https):
            return process
        said = log.read_text() if log.exists() else ""
        if TAKEN not in said:
            break
        log.write_text("")  # (what the next start says, alone)
        time.sleep(0.5)
    pytest.fail("nginx did not start: " + said)


def self_signed(folder: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 and localhost, and its key, made in ``folder``."""
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout",
                    str(key), "-out", str(cert), "-days", "2", "-subj", "/CN=localhost",
                    "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"],
                   check=True, capture_output=True)
    return cert, key


@contextlib.contextmanager
def app_servers(folder: Path, settings: dict[str, str] | None = None
                ) -> Iterator[tuple[list[int], list[Path]]]:
    """Two gunicorn servers (the shipped settings, and ``settings`` in their environment) on one
    database, migrated first as the guide says; yields their ports and their logs, and stops
    them gracefully."""
    instance = folder / "instance"
    instance.mkdir()
    environment = {**os.environ, "COMPANION_INSTANCE": str(instance), "TRUSTED_PROXIES": "1",
                   "COMPANION_SECRET_KEY": secrets.token_hex(16), "WEB_CONCURRENCY": "2",
                   "RUNTIME_DIRECTORY": str(folder), "PYTHONUNBUFFERED": "1",
                   **(settings or {})}
    environment.pop("DATABASE_URL", None)
    environment.pop("RATELIMIT_STORAGE_URI", None)
    if POSTGRES_URL:
        environment["DATABASE_URL"] = POSTGRES_URL
        app = create_app({"TESTING": True, "SECRET_KEY": "t", "DATABASE_URL": POSTGRES_URL,
                          "DATABASE": str(folder / "unused.sqlite")})
        empty_tables(app)
        app.extensions["companion.engine"].dispose()
    if REDIS_URL:
        environment["RATELIMIT_STORAGE_URI"] = REDIS_URL
        subprocess.run([sys.executable, "-c", "import redis,sys; redis.Redis.from_url("
                        "sys.argv[1]).flushdb()", REDIS_URL], check=True)
    flask = str(Path(sys.executable).with_name("flask"))
    migrated = subprocess.run([flask, "--app", "companion", "db", "upgrade"], env=environment,
                              capture_output=True, text=True)
    assert migrated.returncode == 0, migrated.stderr  # the one step that migrates, first
    ports = [_free_port(), _free_port()]
    servers, logs = [], []
    try:
        for port in ports:
            log = folder / f"server-{port}.log"
            with log.open("wb") as output:
                servers.append(subprocess.Popen(
                    [str(Path(sys.executable).with_name("gunicorn")), "-c", str(GUNICORN_CONF)],
                    env={**environment, "COMPANION_BIND": f"127.0.0.1:{port}"}, cwd=folder,
                    stdout=output, stderr=subprocess.STDOUT))
            logs.append(log)
        deadline = time.monotonic() + 300  # (workers boot slowly on a machine at load 25+)
        for process, port, log in zip(servers, ports, logs, strict=True):
            _wait(port, "/healthz", deadline, process, log)
        yield ports, logs
    finally:
        for process in servers:
            process.terminate()  # gunicorn's graceful stop
        for process in servers:
            process.wait(timeout=60)


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    """Two gunicorn servers (the shipped settings) on one database, nginx (the shipped site) in
    front; yields the proxy's HTTPS port, the certificate, the folder and the servers' logs."""
    folder = tmp_path_factory.mktemp("proxy")
    cert, key = self_signed(folder)
    https, http_port = _free_port(), _free_port()
    with app_servers(folder) as (ports, logs):
        proxy = start_nginx(folder, site(https=https, http=http_port, upstreams=ports,
                                         cert=cert, key=key, logs=folder / "logs"), https)
        try:
            yield {"https": https, "http": http_port, "cert": cert, "key": key,
                   "folder": folder, "logs": logs, "upstreams": ports}
        finally:
            proxy.terminate()
            proxy.wait(timeout=30)


class Phone:
    """A phone's browser: HTTPS to the proxy from its own address, its cookies, its Referer."""

    def __init__(self, port: int, cert: Path, address: str) -> None:
        self.port, self.address = port, address
        self.context = ssl.create_default_context(cafile=str(cert))
        self.cookies: dict[str, str] = {}
        self.set_cookies: list[str] = []
        self.origin = f"https://127.0.0.1:{port}"

    def request(self, method: str, path: str, form: dict[str, str] | None = None,
                referer: str | None = None, headers: dict[str, str] | None = None
                ) -> tuple[int, http.client.HTTPMessage, str]:
        connection = http.client.HTTPSConnection("127.0.0.1", self.port, timeout=60,
                                                 context=self.context,
                                                 source_address=(self.address, 0))
        sent = dict(headers or {})
        if self.cookies:
            sent["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        if referer:
            sent["Referer"] = self.origin + referer
        body = None
        if form is not None:
            body = urllib.parse.urlencode(form)
            sent["Content-Type"] = "application/x-www-form-urlencoded"
        try:
            connection.request(method, path, body=body, headers=sent)
            response = connection.getresponse()
            text = response.read().decode(errors="replace")
        finally:
            connection.close()
        for cookie in response.headers.get_all("Set-Cookie") or []:
            self.set_cookies.append(cookie)
            name, _, rest = cookie.partition("=")
            self.cookies[name.strip()] = rest.partition(";")[0]
        return response.status, response.headers, text

    def submit(self, page_path: str, action: str, form: dict[str, str]
               ) -> tuple[int, http.client.HTTPMessage, str]:
        """Open ``page_path``, then send ``form`` to ``action`` with the page's CSRF token, as
        the browser does (Referer: the page)."""
        status, _, page = self.request("GET", page_path)
        assert status == 200, (page_path, status)
        token = re.search(r'name="csrf_token"[^>]*value="([^"]+)"', page)
        assert token is not None, page_path
        return self.request("POST", action, {**form, "csrf_token": token[1]}, referer=page_path)


def _path(location: str) -> str:
    parts = urllib.parse.urlsplit(location)
    return parts.path + (f"?{parts.query}" if parts.query else "")


def new_game(phone: Phone) -> str:
    """A Rebel Princess game started on ``phone``, as the page does; its scorer's path."""
    status, headers, _ = phone.submit("/rebel-princess/new", "/rebel-princess/new", NEW_GAME)
    assert status == 302, status
    return _path(headers["Location"])


def check_a_whole_game_through_the_proxy(stack) -> None:
    """A phone plays a whole Rebel Princess game through the proxy (the nginx site and the
    Caddyfile alike): CSRF and Referer pass, the answers carry HSTS and Secure cookies, and both
    app servers served the table and saw the phone's own address, the link token masked."""
    phone = Phone(stack["https"], stack["cert"], "127.0.0.2")
    game = new_game(phone)
    token = game.rsplit("/", 1)[1]
    for number in range(1, 6):
        scores = {**{f"score_{s}": v for s, v in enumerate(["3", "4", "4", "4"])},
                  "confirm": "y"}
        entry = f"/rebel-princess/g/{token}/round/{number}/numbers"
        status, _, body = phone.submit(entry, entry, scores)
        assert status == 302, (number, status, body[-500:])  # CSRF and Referer passed
    status, headers, page = phone.request("GET", game)
    assert status == 200 and 'data-winners="0"' in page  # Ana, 15 points to 20
    assert headers["Strict-Transport-Security"] == "max-age=63072000"
    # Every cookie the app set came Secure (it believes the proxy's X-Forwarded-Proto).
    assert phone.set_cookies and all("; Secure" in c for c in phone.set_cookies)
    logs = [log.read_text(errors="replace") for log in stack["logs"]]
    assert all('"GET /' in text for text in logs), "a server got no request"
    lines = [line for text in logs for line in text.splitlines() if f"…{token[-4:]}" in line]
    assert lines and all(" 127.0.0.2 " in line for line in lines)
    assert not any(token in text for text in logs)


def test_a_whole_game_through_the_proxy(stack):
    check_a_whole_game_through_the_proxy(stack)


def check_static_files_answered_by_the_proxy(stack) -> None:
    """A page's script comes from the proxy itself (no app server's request id), cached for a
    year: its address changes with its content. (The nginx site and the Caddyfile alike.)"""
    phone = Phone(stack["https"], stack["cert"], "127.0.0.2")
    _, _, page = phone.request("GET", "/")
    asset = re.search(r'src="(/static/[^"]+\.js\?v=\w+)"', page)
    assert asset is not None
    status, headers, body = phone.request("GET", asset[1])
    assert status == 200 and body
    assert headers["Cache-Control"] == "public, max-age=31536000, immutable"
    assert "X-Request-ID" not in headers  # the proxy answered it, not an app server


def check_http2_and_the_redirect_to_https(stack, redirects: tuple[int, ...]) -> None:
    """HTTP/2 on the HTTPS port (curl), and plain HTTP sent on to HTTPS with one of
    ``redirects``."""
    version = subprocess.run(
        ["curl", "-s", "--http2", "--cacert", str(stack["cert"]), "-o", "/dev/null", "-w",
         "%{http_version}", f"https://127.0.0.1:{stack['https']}/healthz"],
        capture_output=True, text=True, timeout=30)
    assert version.stdout == "2", version
    connection = http.client.HTTPConnection("127.0.0.1", stack["http"], timeout=10)
    try:
        connection.request("GET", "/rules", headers={"Host": f"127.0.0.1:{stack['http']}"})
        answer = connection.getresponse()
        assert answer.status in redirects and answer.headers["Location"].startswith("https://")
    finally:
        connection.close()


def test_the_proxy_serves_the_static_files_with_a_long_cache(stack):
    check_static_files_answered_by_the_proxy(stack)


def test_http2_and_the_redirect_to_https(stack):
    check_http2_and_the_redirect_to_https(stack, redirects=(301,))


def test_the_body_limit_is_the_apps(stack):
    phone = Phone(stack["https"], stack["cert"], "127.0.0.6")
    status, _, _ = phone.request("POST", "/import", {"file": "x" * (22 * 1024 * 1024)})
    assert status == 413  # nginx: above the largest import the app takes


@pytest.mark.skipif(not REDIS_URL, reason="per-process counts without Redis (make test)")
def test_the_rate_limits_count_each_phone_on_its_own_address(stack):
    """Writes from one phone through the proxy (both servers): 429 at the documented count; a
    header it forges changes nothing; another phone's writes still pass."""
    phone = Phone(stack["https"], stack["cert"], "127.0.0.4")
    forged = {"X-Forwarded-For": "203.0.113.1"}
    statuses = [phone.request("POST", "/rules", {}, headers=forged)[0]
                for _ in range(PER_MINUTE + 1)]
    assert statuses[:PER_MINUTE] == [405] * PER_MINUTE and statuses[-1] == 429
    other = Phone(stack["https"], stack["cert"], "127.0.0.5")
    assert other.request("POST", "/rules", {})[0] == 405


def test_the_audit_passes_through_the_shipped_site(stack):
    findings = audit.audit(f"https://127.0.0.1:{stack['https']}/", check_limits=False,
                           cafile=str(stack["cert"]))
    assert [f.line() for f in findings if not f.kept] == []


def test_the_audit_catches_a_proxy_that_drops_the_port(stack, tmp_path):
    """The README's old block (``Host $host``) on a port that is not 443: every form refused."""
    https = _free_port()
    broken = start_nginx(tmp_path, site(https=https, http=_free_port(),
                                        upstreams=stack["upstreams"], cert=stack["cert"],
                                        key=stack["key"], logs=tmp_path / "logs",
                                        host_header="$host"), https)
    try:
        findings = audit.audit(f"https://127.0.0.1:{https}/", check_limits=False,
                               cafile=str(stack["cert"]))
    finally:
        broken.terminate()
        broken.wait(timeout=30)
    failed = [f.promise for f in findings if not f.kept]
    assert len(failed) == 1 and "CSRF" in failed[0] and "port" in failed[0]


def test_a_server_stopped_costs_no_request_and_nginx_logs_no_link(stack, tmp_path):
    """One upstream down (a server restarting in a rolling upgrade): every request is answered
    by the other. Neither that, nor the redirect from port 80, nor a body too large, writes a
    link token in nginx's own logs."""
    phone = Phone(stack["https"], stack["cert"], "127.0.0.7")
    game = new_game(phone)
    token = game.rsplit("/", 1)[1]
    https, http_port = _free_port(), _free_port()
    restarting = start_nginx(tmp_path, site(https=https, http=http_port,
                                            upstreams=[_free_port(), stack["upstreams"][1]],
                                            cert=stack["cert"], key=stack["key"],
                                            logs=tmp_path / "logs"), https)
    try:
        phone = Phone(https, stack["cert"], "127.0.0.7")
        assert [phone.request("GET", game)[0] for _ in range(4)] == [200] * 4
        assert phone.request("POST", f"{game}/round/1/numbers",
                             {"x": "y" * (22 * 1024 * 1024)})[0] == 413
        connection = http.client.HTTPConnection("127.0.0.1", http_port, timeout=10)
        try:
            connection.request("GET", game, headers={"Host": f"127.0.0.1:{http_port}"})
            assert connection.getresponse().status == 301
        finally:
            connection.close()
    finally:
        restarting.terminate()
        restarting.wait(timeout=30)
    logs = {str(path): path.read_text(errors="replace") for path in
            [*(tmp_path / "logs").iterdir(), *(stack["folder"] / "logs").iterdir()]}
    assert not [name for name, text in logs.items() if token in text], logs


def test_with_no_server_answering_nginx_shows_the_apps_page_and_logs_no_link(stack, tmp_path):
    """Both app servers down: a phone gets the app's static "back in a moment" page in both
    languages with the 502, not nginx's bare one; that 502 and a 413 are logged, without the
    address asked for (no link token)."""
    token = "0123456789abcdef0123456789abcdef"
    https, http_port = _free_port(), _free_port()
    # The two servers' ports are held bound and never listening: a connection is refused, and no
    # other test's server can take one meanwhile (a port merely free when picked was, once: 404).
    held = [socket.socket(), socket.socket()]
    for bound in held:
        bound.bind(("127.0.0.1", 0))
    down = start_nginx(tmp_path, site(https=https, http=http_port,
                                      upstreams=[int(bound.getsockname()[1]) for bound in held],
                                      cert=stack["cert"], key=stack["key"],
                                      logs=tmp_path / "logs"), https)
    try:
        phone = Phone(https, stack["cert"], "127.0.0.8")
        status, _, page = phone.request("GET", f"/rebel-princess/g/{token}")
        assert status == 502
        assert "Back in a moment" in page and "De retour dans un instant" in page
        assert "nginx" not in page
        assert phone.request("POST", f"/rebel-princess/g/{token}/round/1/numbers",
                             {"x": "y" * (22 * 1024 * 1024)})[0] == 413
        # nginx logs a request when it is done with its connection: the 413's after draining
        # what the phone still sent (lingering close), which may end after its answer reached
        # the phone — stopped before, it never logged that line (seen once in CI).
        failed = tmp_path / "logs" / "companion-failures.log"
        deadline = time.monotonic() + 60
        while " 413 POST " not in (failed.read_text() if failed.exists() else "") \
                and time.monotonic() < deadline:
            time.sleep(0.1)
    finally:
        down.terminate()
        down.wait(timeout=30)
        for bound in held:
            bound.close()
    failures = (tmp_path / "logs" / "companion-failures.log").read_text().splitlines()
    assert any(" 502 GET upstream=" in line for line in failures), failures
    assert any(" 413 POST " in line for line in failures), failures
    # (nginx's own request ids, 32 random hex digits, are taken out first: they hold the
    # token's last four hex digits by chance once in a thousand runs)
    logs = {path.name: re.sub(r"rid=[0-9a-f]{32}", "rid=…", path.read_text(errors="replace"))
            for path in (tmp_path / "logs").iterdir()}
    assert not [name for name, text in logs.items() if token in text or token[-4:] in text], logs
