#!/usr/bin/env bash
# Debian's Caddy for the Caddy test (tests/ops/test_caddy.py runs the shipped Caddyfile with it,
# as its own process from a folder of its own), installed once per machine without starting its
# service; prints the path of the caddy binary (scripts/debian-package.sh).
exec "$(dirname "$0")/debian-package.sh" caddy /usr/bin/caddy
