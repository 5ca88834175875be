#!/usr/bin/env bash
# A local PostgreSQL for the database tests: Debian's package, started on loopback, with a
# `companion` role and a database (`companion_test`, or the name given: `scripts/postgres.sh
# companion_bench`, so a benchmark never empties the tests' one). Idempotent; fails loudly if it
# cannot start. Prints the URL to use as TEST_DATABASE_URL (or DATABASE_URL for the app).
set -euo pipefail
db=${1:-companion_test}
[[ $db =~ ^[a-z_]+$ ]] || { echo "not a database name: $db" >&2; exit 2; }
# Only the URL goes to stdout (callers capture it); everything else, even pg_ctlcluster's
# "Removed stale pid file.", goes to stderr. (Not through a spare descriptor: the server would
# inherit it and the caller's $(...) would never end.)
{
SUDO=$( [ "$(id -u)" = 0 ] || echo sudo )
if ! command -v pg_ctlcluster >/dev/null 2>&1; then
  echo "Installing PostgreSQL from Debian's packages (once per machine)..." >&2
  $SUDO apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq postgresql >/dev/null
fi
version=$(ls /etc/postgresql | sort -n | tail -n 1)
[ -n "$version" ] || { echo "no PostgreSQL cluster found in /etc/postgresql" >&2; exit 1; }
$SUDO pg_ctlcluster "$version" main status >/dev/null 2>&1 || $SUDO pg_ctlcluster "$version" main start
ready() { for _ in $(seq "$1"); do pg_isready -q -h 127.0.0.1 && return 0; sleep 1; done; return 1; }
# A server killed without a clean stop can look alive to `status`: restart it once.
ready 15 || { $SUDO pg_ctlcluster "$version" main restart || true; ready 30; } || true
pg_isready -q -h 127.0.0.1 || { echo "PostgreSQL did not start on 127.0.0.1" >&2; exit 1; }
as_postgres() { $SUDO su postgres -c "$1"; }
as_postgres "psql -qtAc \"SELECT 1 FROM pg_roles WHERE rolname = 'companion'\"" | grep -q 1 \
  || as_postgres "psql -qc \"CREATE ROLE companion LOGIN CREATEDB PASSWORD 'companion'\"" >&2
as_postgres "psql -qtAc \"SELECT 1 FROM pg_database WHERE datname = '$db'\"" | grep -q 1 \
  || as_postgres "createdb -O companion $db" >&2
} >&2
echo "postgresql://companion:companion@127.0.0.1:5432/$db"

