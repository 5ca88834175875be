#!/usr/bin/env bash
# Debian's nginx for the proxy test (tests/ops/test_proxy.py runs the shipped site with it, as
# its own process from a folder of its own): installed with apt the first time, without starting
# the package's service (policy-rc.d says no while it installs: nothing listens on port 80).
# Idempotent; prints the path of the nginx binary on stdout, and nothing else.
set -euo pipefail
{
found=$(command -v nginx || ls /usr/sbin/nginx 2>/dev/null || true)
if [ -z "$found" ]; then
  echo "Installing nginx from Debian's packages (once per machine)..." >&2
  SUDO=$( [ "$(id -u)" = 0 ] || echo sudo )
  policy=/usr/sbin/policy-rc.d
  placed=no
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' | $SUDO tee "$policy" >/dev/null
    $SUDO chmod 755 "$policy"
    placed=yes
  fi
  $SUDO apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq nginx >/dev/null || status=$?
  [ "$placed" = yes ] && $SUDO rm -f "$policy"
  [ "${status:-0}" = 0 ] || { echo "nginx did not install" >&2; exit 1; }
  found=$(command -v nginx || ls /usr/sbin/nginx)
fi
} >&2
echo "$found"
