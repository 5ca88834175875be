#!/usr/bin/env bash
# Debian's Caddy for the Caddy test (tests/ops/test_caddy.py runs the shipped Caddyfile with it,
# as its own process from a folder of its own): installed with apt the first time, without starting
# the package's service (policy-rc.d says no while it installs: nothing listens on ports 80/443).
# Idempotent; prints the path of the caddy binary on stdout, and nothing else.
set -euo pipefail
{
found=$(command -v caddy || ls /usr/bin/caddy 2>/dev/null || true)
if [ -z "$found" ]; then
  echo "Installing Caddy from Debian's packages (once per machine)..." >&2
  SUDO=$( [ "$(id -u)" = 0 ] || echo sudo )
  policy=/usr/sbin/policy-rc.d
  placed=no
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' | $SUDO tee "$policy" >/dev/null
    $SUDO chmod 755 "$policy"
    placed=yes
  fi
  $SUDO apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq caddy >/dev/null || status=$?
  [ "$placed" = yes ] && $SUDO rm -f "$policy"
  [ "${status:-0}" = 0 ] || { echo "caddy did not install" >&2; exit 1; }
  found=$(command -v caddy || ls /usr/bin/caddy)
fi
} >&2
echo "$found"
