#!/usr/bin/env bash
# A local Redis for the shared rate-limit store (two or more app servers on one machine, and
# `make test-postgres`): Debian's `redis-server`, installed with apt the first time, started on
# loopback only, keeping nothing on disk. Idempotent (a Redis already answering on the port is
# used as it is); fails loudly if it cannot start. Prints the URL to use as TEST_REDIS_URL (or
# RATELIMIT_STORAGE_URI for the app) on stdout, and nothing else.
#   scripts/redis.sh          # port 6391
#   scripts/redis.sh 6392     # another port
set -euo pipefail
port=${1:-6391}
[[ $port =~ ^[0-9]+$ ]] && ((port > 0 && port < 65536)) || { echo "not a port: $port" >&2; exit 2; }
# Everything but the URL goes to stderr (callers capture stdout). Not through a spare
# descriptor: the daemon would inherit it and the caller's $(...) would never end.
{
SUDO=$( [ "$(id -u)" = 0 ] || echo sudo )
if ! command -v redis-server >/dev/null 2>&1; then
  echo "Installing Redis from Debian's packages (once per machine)..." >&2
  $SUDO apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq redis-server >/dev/null
fi
# The package's own service (port 6379) is not needed: ours runs on its own port.
pong() { [ "$(redis-cli -h 127.0.0.1 -p "$port" ping 2>/dev/null)" = PONG ]; }
if ! pong; then
  run=${XDG_RUNTIME_DIR:-/tmp}
  redis-server --port "$port" --bind 127.0.0.1 --protected-mode yes --daemonize yes \
    --save '' --appendonly no --dir "$run" --pidfile "$run/companion-redis-$port.pid" \
    --logfile "$run/companion-redis-$port.log" </dev/null >/dev/null
  for _ in $(seq 50); do pong && break; sleep 0.1; done
fi
pong || { echo "Redis did not start on 127.0.0.1:$port (see ${XDG_RUNTIME_DIR:-/tmp}/companion-redis-$port.log)" >&2; exit 1; }
} >&2
echo "redis://127.0.0.1:$port"
