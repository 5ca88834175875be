"""`make run`: serve the app with gunicorn; print the address a phone on the same network opens."""

from __future__ import annotations

import argparse
import ipaddress
import os
import socket
import subprocess
import sys


def lan_addresses() -> list[str]:
    """This machine's IPv4 addresses other than loopback, found without sending any traffic."""
    found: list[str] = []
    try:
        infos = socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)
    except OSError:
        infos = []
    candidates = [str(info[4][0]) for info in infos]
    try:  # Linux: every configured address, which getaddrinfo often misses
        output = subprocess.run(["hostname", "-I"], capture_output=True, text=True, timeout=2)
        candidates += output.stdout.split()
    except (OSError, subprocess.SubprocessError):
        pass
    for address in candidates:
        if "." in address and not address.startswith("127.") and address not in found:
            found.append(address)
    return found


def phone_addresses(host: str) -> list[str] | None:
    """The addresses a phone on the same network can open for a server bound to ``host``:
    every LAN address for a wildcard, the address itself for a LAN address, and None when the
    server listens on this computer only (a loopback address or ``localhost``)."""
    if host in ("", "0.0.0.0", "::"):
        return lan_addresses()
    if host.lower() == "localhost":
        return None
    try:
        address = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return [host]  # a host name: the phone may resolve it
    return None if address.is_loopback else [host]


WORKER_TIMEOUT = 180
"""Seconds a request may take before gunicorn restarts its worker (its default is 30). No request
needs that long any more: an import runs as a job outside its request (companion/ops/jobs.py), so a
restore of any size works whatever this is; kept generous for a slow phone's upload."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--host", default="0.0.0.0")
    parser.add_argument("--port", type=int, default=5000)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    print("\n  The princess card games companion is starting.")
    addresses = phone_addresses(args.host)
    local = ("127.0.0.1" if args.host in ("", "0.0.0.0", "::", "localhost")
             else f"[{args.host}]" if ":" in args.host else args.host)
    print(f"  On this computer:      http://{local}:{args.port}/")
    if addresses is None:
        print(f"  Phones cannot open it: it listens on {args.host} only"
              " (make run HOST=0.0.0.0 lets phones on the same Wi-Fi in).")
    for address in addresses or ():
        print(f"  On a phone (same Wi-Fi): http://{address}:{args.port}/")
    if addresses == []:
        print(f"  On a phone (same Wi-Fi): http://<this computer's address>:{args.port}/"
              " (no network address found; is Wi-Fi on?)")
    print("  Stop with Ctrl+C.\n", flush=True)
    gunicorn = os.path.join(os.path.dirname(sys.executable), "gunicorn")
    os.execv(gunicorn, [gunicorn, "--workers", str(args.workers), "--no-control-socket",
                        "--bind", f"{args.host}:{args.port}", "--access-logfile", "-",
                        "--timeout", str(WORKER_TIMEOUT), "companion:create_app()"])


if __name__ == "__main__":
    main()
