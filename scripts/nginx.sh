#!/usr/bin/env bash
# Debian's nginx for the proxy test (tests/ops/test_proxy.py runs the shipped site with it, as
# its own process from a folder of its own), installed once per machine without starting its
# service, with its Nchan module (libnginx-mod-nchan: live updates pushed by nginx,
# tests/ops/test_push.py); prints the path of the nginx binary (scripts/debian-package.sh).
set -euo pipefail
"$(dirname "$0")/debian-package.sh" libnginx-mod-nchan /usr/lib/nginx/modules/ngx_nchan_module.so >/dev/null
exec "$(dirname "$0")/debian-package.sh" nginx /usr/sbin/nginx
