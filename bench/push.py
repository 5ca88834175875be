"""What nginx with Nchan costs to hold the phones of live tables, and how fast a publish reaches
them: the shipped sites (deploy/nginx/companion-push.conf and the subscriber location of
deploy/nginx/companion-push-subscriber.conf), on one nginx of its own (one worker, no Redis).

``--tables`` channels, five EventSource subscribers each (the viewers of a table), held on
plain HTTP to 127.0.0.1; nginx's memory (PSS of master and worker, :mod:`bench.procstat`) read
before and after they are held gives the **memory per held phone**. Then each table's channel
gets ``--rounds`` publishes (one every ``--every`` seconds per table, staggered across tables,
as the app's saves would come), and the time from each POST's start to each subscriber's
reading of it gives the **publish → viewer latency** p50/p95, and nginx's CPU (``/proc``) per
table-second. What this leaves out: the save itself and the app's page load that a message
triggers (the app's CPU), which bench.tables measures for polling.

Run: ``python -m bench.push [--tables 200] [--rounds 5] [--every 4]``.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import selectors
import shutil
import socket
import subprocess
import tempfile
import threading
import time
import urllib.request
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from . import table, tree_cpu_seconds
from .procstat import children, pss_mb

ROOT = Path(__file__).resolve().parents[1]
NCHAN = "/usr/lib/nginx/modules/ngx_nchan_module.so"


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _site(folder: Path, publisher: int, subscriber: int, upstreams: Sequence[str] = ()) -> Path:
    """nginx.conf for one nginx (one worker, no Redis): the shipped publisher site on port
    ``publisher`` and a plain-HTTP server on ``subscriber`` with the shipped subscriber location
    and, given app servers' base URLs, ``location /`` proxied to them as deploy/nginx/companion.conf
    does (keepalive, HTTP/1.1)."""
    push = (ROOT / "deploy/nginx/companion-push.conf").read_text()
    start = push.index("upstream companion_push_redis")
    push = push[:start] + push[push.index("server {", start):]  # one nginx: no Redis
    push = push.replace("listen 127.0.0.1:8090;", f"listen 127.0.0.1:{publisher};")
    push = push.replace("nchan_redis_pass companion_push_redis;", "")
    push = push.replace("/var/log/nginx/", f"{folder}/")
    sub = (ROOT / "deploy/nginx/companion-push-subscriber.conf").read_text()
    sub = sub.replace("nchan_redis_pass companion_push_redis;", "")
    app = ""
    if upstreams:
        servers = "".join(f"        server {base.split('//', 1)[1]};\n" for base in upstreams)
        app = f"""upstream companion {{
{servers}        keepalive 16;
    }}"""
        sub += """
        location / {
            proxy_pass http://companion;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host $http_host;
        }"""
    user = "user root;\n" if os.geteuid() == 0 else ""
    conf = folder / "nginx.conf"
    conf.write_text(f"""load_module {NCHAN};
{user}worker_processes 1;
worker_rlimit_nofile 20000;
pid {folder}/nginx.pid;
error_log {folder}/error.log crit;
events {{ worker_connections 16000; }}
http {{
    access_log off;
    client_body_temp_path {folder}/body;
    proxy_temp_path {folder}/proxy;
    fastcgi_temp_path {folder}/fastcgi;
    uwsgi_temp_path {folder}/uwsgi;
    scgi_temp_path {folder}/scgi;
    {push}
    {app}
    server {{
        listen 127.0.0.1:{subscriber};
        access_log off;
        {sub}
    }}
}}
""")
    return conf


@dataclass
class Nginx:
    """A running nginx of :func:`nginx`: its public base URL, its publisher's URL (channels are
    appended to it) and its master's pid."""

    base: str
    publish: str
    pid: int

    def cpu_seconds(self) -> float:
        return tree_cpu_seconds(self.pid)

    def pss_mb(self) -> float:
        return sum(pss_mb(p) or 0 for p in [self.pid, *children(self.pid)])


@contextlib.contextmanager
def nginx(upstreams: Sequence[str] = (), publisher: int | None = None) -> Iterator[Nginx]:
    """nginx with Nchan as deploy/ ships it (one host, no Redis), in front of ``upstreams``, its
    publisher on port ``publisher`` (a free one by default)."""
    binary = shutil.which("nginx") or "/usr/sbin/nginx"
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        publisher, subscriber = publisher or _port(), _port()
        process = subprocess.Popen([binary, "-p", str(folder), "-c",
                                    str(_site(folder, publisher, subscriber, upstreams)),
                                    "-g", "daemon off;"])
        try:
            for _ in range(100):
                try:
                    socket.create_connection(("127.0.0.1", subscriber), 1).close()
                    break
                except OSError:
                    time.sleep(0.1)
            time.sleep(0.5)
            yield Nginx(f"http://127.0.0.1:{subscriber}", f"http://127.0.0.1:{publisher}/pub/",
                        process.pid)
        finally:
            process.terminate()
            process.wait(timeout=30)


def run(tables: int, rounds: int, every: float) -> list[list[str]]:
    with nginx() as proxy:
        subscriber = int(proxy.base.rsplit(":", 1)[1])
        before = proxy.pss_mb()
        channels = [f"{i:032x}" for i in range(tables)]
        selector = selectors.DefaultSelector()
        owners: dict[socket.socket, str] = {}
        for channel in channels:
            for _ in range(5):
                s = socket.create_connection(("127.0.0.1", subscriber))
                s.sendall(f"GET /live-push/{channel} HTTP/1.1\r\nHost: x\r\n"
                          "Accept: text/event-stream\r\n\r\n".encode())
                s.setblocking(False)
                selector.register(s, selectors.EVENT_READ)
                owners[s] = channel
        time.sleep(2)
        for key, _ in selector.select(timeout=0.5):  # the headers of the answers
            try:
                key.fileobj.recv(65536)  # type: ignore[union-attr]
            except BlockingIOError:
                pass
        held = proxy.pss_mb()
        sent: dict[str, float] = {}
        latencies: list[float] = []
        done = threading.Event()

        def publish() -> None:
            for r in range(rounds):
                for i, channel in enumerate(channels):
                    due = start + r * every + i * every / tables
                    time.sleep(max(0.0, due - time.monotonic()))
                    message = f"{channel}-{r}"
                    sent[message] = time.monotonic()
                    request = urllib.request.Request(
                        proxy.publish + channel,
                        data=message.encode(), method="POST")
                    urllib.request.urlopen(request, timeout=5).read()
            done.set()

        cpu_before = proxy.cpu_seconds()
        start = time.monotonic()
        thread = threading.Thread(target=publish)
        thread.start()
        expected = tables * 5 * rounds
        while len(latencies) < expected and not (done.is_set() and
                                                 time.monotonic() > start + rounds * every + 5):
            for key, _ in selector.select(timeout=0.5):
                try:
                    data = key.fileobj.recv(65536).decode(errors="replace")  # type: ignore[union-attr]
                except BlockingIOError:
                    continue
                now = time.monotonic()
                for line in data.splitlines():
                    if line.startswith("data: ") and line[6:] in sent:
                        latencies.append(now - sent[line[6:]])
        thread.join()
        seconds = time.monotonic() - start
        cpu = proxy.cpu_seconds() - cpu_before
        for s in owners:
            s.close()
    latencies.sort()

    def q(p: float) -> str:
        return f"{latencies[min(len(latencies) - 1, int(p * len(latencies)))] * 1000:.1f} ms" \
            if latencies else "–"

    phones = tables * 5
    return [[str(tables), str(phones), f"{(held - before) * 1024 / phones:.1f} kB",
             f"{len(latencies)}/{expected}", q(0.5), q(0.95),
             f"{cpu * 1000 / (tables * seconds):.3f} ms"]]


HEADERS = ["tables", "phones held", "nginx memory per phone", "delivered", "publish→viewer p50",
           "p95", "nginx CPU per table-second"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tables", type=int, nargs="+", default=[200])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--every", type=float, default=4.0)
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()}")
    rows = [row for count in args.tables for row in run(count, args.rounds, args.every)]
    print(table(HEADERS, rows, "r" * 7))
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
