#!/usr/bin/env bash
# Debian's nginx for the proxy test (tests/ops/test_proxy.py runs the shipped site with it, as
# its own process from a folder of its own), installed once per machine without starting its
# service; prints the path of the nginx binary (scripts/debian-package.sh).
exec "$(dirname "$0")/debian-package.sh" nginx /usr/sbin/nginx
