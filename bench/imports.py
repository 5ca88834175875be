"""Imports that never stop the others, and restores that outlast any worker timeout (issue 28).

Two runs, each against ``gunicorn -w 2 --timeout 30`` (gunicorn's default timeout) serving
``bench.wsgi:app`` on a SQLite file, on 127.0.0.1:

- **4,000 games while tables save**: a restore of a 4,000-game backup (finished games of the four
  kinds, as ``bench/stats.py`` makes them, repeated under new codes) is sent; meanwhile three
  tables each save one Réveillez action after another (the page read for its version, then the
  POST timed) until the import has ended. Reported: the import's wall time, the saves made, how
  many failed (anything but 303), the median and slowest save.
- **12,000 games, gzip**: the same backup at 12,000 games, compressed, restored alone; reported:
  wall time, its size sent and unpacked, the result, and the peak memory (VmHWM) of the
  gunicorn workers.
- **Hostile files** (``--hostile``): the issue's two, sent to the restore that needs no link —
  a gzip bomb (0.25 MB sent, 250 MB of spaces unpacked) and a million players (gzip) — each
  on a fresh server; reported: the time from the upload to the refusal shown, the problem, and
  the workers' peak memory against the same server's before the file (the anchor).

Run: ``python -m bench.imports [--games 4000] [--large 12000] [--hostile] [--port 18150]``
(``make bench-imports``); the servers listen on 127.0.0.1, on ``--port`` and the two after it.
"""

from __future__ import annotations

import argparse
import copy
import gzip
import http.client
import json
import os
import re
import signal
import statistics
import struct
import subprocess
import tempfile
import threading
import time
import uuid
import zlib
from pathlib import Path

from . import PYTHON, ROOT, wait_http
from .stats import fill
from .wsgi_note import NOT_AS_SHIPPED

PORTS = [18150, 18151, 18152]
MB = 2**20


def backup(games: int, base: dict) -> bytes:
    """``base``'s games repeated under new codes until there are ``games``."""
    found = []
    while len(found) < games:
        for game in base["games"]:
            if len(found) == games:
                break
            twin = copy.deepcopy(game)
            twin["code"] = f"b{len(found):07d}"
            found.append(twin)
    return json.dumps({**base, "games": found}, ensure_ascii=False, indent=1).encode()


def base_export(folder: Path) -> dict:
    from companion import create_app

    app = create_app({"DATABASE": str(folder / "source.sqlite"), "SECRET_KEY": "bench",
                      "WTF_CSRF_ENABLED": False, "RATELIMIT_ENABLED": False})
    _, token = fill(app, 200)
    document = json.loads(app.test_client().get(f"/group/{token}/history/export.json").text)
    app.extensions["companion.engine"].dispose()
    return document


class Server:
    def __init__(self, folder: Path, port: int) -> None:
        from companion import create_app

        self.db = str(folder / f"server{port}.sqlite")
        create_app({"DATABASE": self.db, "SECRET_KEY": "bench"}) \
            .extensions["companion.engine"].dispose()  # migrated before the workers start
        self.port = port
        self.proc = subprocess.Popen(
            [PYTHON, "-m", "gunicorn", "-w", "2", "--timeout", "30", "--no-control-socket",
             "-b", f"127.0.0.1:{port}", "--log-level", "warning", "bench.wsgi:app"],
            cwd=ROOT, env={**os.environ, "COMPANION_BENCH_DB": self.db}, start_new_session=True)
        try:
            wait_http(f"http://127.0.0.1:{port}/", timeout=180, proc=self.proc)
        except Exception:
            self.stop()
            raise

    def request(self, method: str, path: str, body: bytes | None = None,
                headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], str]:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
        try:
            connection.request(method, path, body=body, headers=headers or {})
            answer = connection.getresponse()
            return answer.status, dict(answer.getheaders()), answer.read().decode()
        finally:
            connection.close()

    def upload(self, path: str, content: bytes, name: str) -> tuple[int, dict[str, str], str]:
        boundary = uuid.uuid4().hex
        body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; "
                f"filename=\"{name}\"\r\nContent-Type: application/octet-stream\r\n\r\n"
                ).encode() + content + f"\r\n--{boundary}--\r\n".encode()
        return self.request("POST", path, body,
                            {"Content-Type": f"multipart/form-data; boundary={boundary}"})

    def peak_memory_kb(self) -> int:
        """The largest VmHWM of the gunicorn workers (children of the master)."""
        children = Path(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children").read_text()
        peaks = []
        for pid in children.split():
            status = Path(f"/proc/{pid}/status").read_text()
            peaks.append(int(re.search(r"VmHWM:\s+(\d+)", status)[1]))
        return max(peaks)

    def stop(self) -> None:
        os.killpg(self.proc.pid, signal.SIGTERM)
        self.proc.wait(timeout=30)


def follow(server: Server, location: str) -> tuple[str, float]:
    """Poll the job's progress until it ends; its final state and when it ended."""
    while True:
        status, _, text = server.request("GET", location + "/progress")
        state = re.search(r'data-state="(\w+)"', text)[1] if status == 200 else f"HTTP {status}"
        if state in ("done", "refused", "abandoned") or status != 200:
            return state, time.monotonic()
        time.sleep(0.5)


def saves_during_import(folder: Path, content: bytes | None,
                        seconds: float = 0) -> dict[str, object]:
    """Three tables saving while ``content`` is restored — or, with ``content`` None, for
    ``seconds`` with no import (the anchor: the machine's own save times, same run)."""
    server = Server(folder, PORTS[0])
    try:
        tables = []
        for n in range(3):
            status, headers, _ = server.request(
                "POST", "/reveillez/new", f"names-0=A{n}&names-1=B{n}&first=0".encode(),
                {"Content-Type": "application/x-www-form-urlencoded"})
            assert status == 303, status
            tables.append(headers["Location"].replace("http://127.0.0.1", "")
                          .split(f":{PORTS[0]}", 1)[-1])
        started = time.monotonic()
        location = ""
        if content is not None:
            status, headers, _ = server.upload("/import", content, "backup.json")
            assert status == 303, status
            location = headers["Location"].split(f":{PORTS[0]}", 1)[-1]
        ended: list[float] = []
        timings: list[float] = []
        failures: list[int] = []

        def table(game: str) -> None:
            while not ended:
                _, _, page = server.request("GET", game)
                version = int(re.search(r'data-version="(\d+)"', page)[1])
                form = (f"do=wake&slot=0&value=5&version={version}&key=k{uuid.uuid4().hex[:12]}"
                        if version % 2 == 0 else f"version={version}&key=k{uuid.uuid4().hex[:12]}")
                path = f"{game}/act" if version % 2 == 0 else f"{game}/undo"
                begun = time.perf_counter()
                status, _, _ = server.request(
                    "POST", path, form.encode(),
                    {"Content-Type": "application/x-www-form-urlencoded"})
                timings.append(time.perf_counter() - begun)
                if status != 303:
                    failures.append(status)

        threads = [threading.Thread(target=table, args=(game,)) for game in tables]
        for thread in threads:
            thread.start()
        if location:
            state, end = follow(server, location)
        else:
            time.sleep(seconds)
            state, end = "no import", time.monotonic()
        ended.append(end)
        for thread in threads:
            thread.join()
        return {"state": state, "seconds": end - started, "saves": len(timings),
                "failed": len(failures), "median_ms": statistics.median(timings) * 1000,
                "slowest_ms": max(timings) * 1000}
    finally:
        server.stop()


def large_restore(folder: Path, content: bytes) -> dict[str, object]:
    server = Server(folder, PORTS[1])
    try:
        packed = gzip.compress(content, 6)
        started = time.monotonic()
        status, headers, _ = server.upload("/import", packed, "backup.json.gz")
        assert status == 303, status
        state, end = follow(server, headers["Location"].split(f":{PORTS[1]}", 1)[-1])
        return {"state": state, "seconds": end - started, "sent_mb": len(packed) / 2**20,
                "unpacked_mb": len(content) / 2**20, "peak_mb": server.peak_memory_kb() / 1024}
    finally:
        server.stop()


def packed(parts: list[bytes]) -> bytes:
    """``parts`` as one gzip file, each distinct part compressed once however often it comes
    (a full flush after each makes its bytes the same every time): 250 MB unpacked in 0.25 MB."""
    out, done, crc, size = [b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"], {}, 0, 0
    for part in parts:
        if part not in done:
            deflate = zlib.compressobj(9, zlib.DEFLATED, -15)
            done[part] = deflate.compress(part) + deflate.flush(zlib.Z_FULL_FLUSH)
        out.append(done[part])
        crc, size = zlib.crc32(part, crc), size + len(part)
    out.append(zlib.compressobj(9, zlib.DEFLATED, -15).flush())
    return b"".join(out) + struct.pack("<II", crc, size & 0xFFFFFFFF)


HEAD = b'{"format": "princess-table-export", "version": 1, '
PLAYER = b'{"id": %d, "name": "P%d", "created_at": "2026-01-01T00:00:00Z"}'


def hostile_files() -> dict[str, bytes]:
    thousand = b", ".join(PLAYER % (n, n) for n in range(1, 1001)) + b", "
    return {
        "gzip bomb (250 MB of spaces)": packed([HEAD, b'"players": ', *([b" " * MB] * 250),
                                                b"[]}"]),
        "a million players": packed([HEAD, b'"players": [', *([thousand] * 1000), b"]}"]),
    }


def hostile_restore(folder: Path, name: str, content: bytes) -> dict[str, object]:
    server = Server(folder, PORTS[2])
    try:
        server.request("GET", "/")
        before = server.peak_memory_kb()
        started = time.monotonic()
        status, headers, _ = server.upload("/import", content, "backup.json.gz")
        assert status == 303, status
        state, end = follow(server, headers["Location"].split(f":{PORTS[2]}", 1)[-1])
        _, _, page = server.request("GET", headers["Location"].split(f":{PORTS[2]}", 1)[-1])
        problem = re.search(r'data-problem="([\w-]+)"', page)
        return {"name": name, "state": state, "seconds": end - started,
                "problem": problem[1] if problem else "?", "sent_mb": len(content) / MB,
                "before_mb": before / 1024, "peak_mb": server.peak_memory_kb() / 1024}
    finally:
        server.stop()
        Path(server.db).unlink(missing_ok=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=4000)
    parser.add_argument("--large", type=int, default=12000)
    parser.add_argument("--hostile", action="store_true", help="the hostile files only")
    parser.add_argument("--port", type=int, default=PORTS[0])
    args = parser.parse_args()
    PORTS[:] = [args.port, args.port + 1, args.port + 2]
    if args.hostile:
        args.games = args.large = 0
    load = "/".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"Date: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; load average {load} "
          "(1/5/15 min) at the start")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        base = base_export(folder) if args.games or args.large else {}
        if args.games:
            found = saves_during_import(folder, backup(args.games, base))
            anchor = saves_during_import(folder, None, float(found["seconds"]))  # type: ignore[arg-type]
            print(f"- The anchor, same run: three tables saving {anchor['seconds']:.0f} s with no "
                  f"import: {anchor['saves']} saves, {anchor['failed']} failed; median "
                  f"{anchor['median_ms']:.0f} ms, slowest {anchor['slowest_ms']:.0f} ms")
            print(f"- {args.games:,}-game restore on SQLite, three tables saving meanwhile: "
                  f"{found['state']} in {found['seconds']:.0f} s; {found['saves']} saves, "
                  f"{found['failed']} failed; median {found['median_ms']:.0f} ms, slowest "
                  f"{found['slowest_ms']:.0f} ms")
        if args.hostile:
            for name, content in hostile_files().items():
                found = hostile_restore(folder, name, content)
                print(f"- {name}: {found['sent_mb']:.2f} MB sent; {found['state']} "
                      f"({found['problem']}) {found['seconds']:.1f} s after the upload; worker "
                      f"peak memory {found['peak_mb']:.0f} MB (before the file: "
                      f"{found['before_mb']:.0f} MB)")
        if args.large:
            found = large_restore(folder, backup(args.large, base))
            print(f"- {args.large:,}-game restore (gzip, {found['sent_mb']:.1f} MB sent, "
                  f"{found['unpacked_mb']:.1f} MB unpacked) through gunicorn --timeout 30: "
                  f"{found['state']} in {found['seconds']:.0f} s; worker peak memory "
                  f"{found['peak_mb']:.0f} MB")
    load = "/".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"Load average {load} at the end.")
    print(NOT_AS_SHIPPED)


if __name__ == "__main__":
    main()
