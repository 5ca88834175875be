#!/usr/bin/env bash
# A Debian package a test needs (`scripts/debian-package.sh nginx /usr/sbin/nginx`): installed
# with apt the first time, without starting the package's service (policy-rc.d says no while it
# installs: nothing listens on ports 80/443). Idempotent; prints the path of the program on
# stdout, and nothing else. Used by scripts/nginx.sh and scripts/caddy.sh.
set -euo pipefail
package=$1
program=$2
{
found=$(command -v "$package" || ls "$program" 2>/dev/null || true)
if [ -z "$found" ]; then
  echo "Installing $package from Debian's packages (once per machine)..." >&2
  SUDO=$( [ "$(id -u)" = 0 ] || echo sudo )
  policy=/usr/sbin/policy-rc.d
  placed=no
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' | $SUDO tee "$policy" >/dev/null
    $SUDO chmod 755 "$policy"
    placed=yes
  fi
  $SUDO apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "$package" >/dev/null || status=$?
  [ "$placed" = yes ] && $SUDO rm -f "$policy"
  [ "${status:-0}" = 0 ] || { echo "$package did not install" >&2; exit 1; }
  found=$(command -v "$package" || ls "$program")
fi
} >&2
echo "$found"
