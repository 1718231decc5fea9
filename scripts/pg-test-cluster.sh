#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the store tests (no Docker, no
# downloads): initdb + pg_ctl in a temp dir, listening only on a Unix
# socket in that dir, trust auth, superuser `hwf`.
#
#   scripts/pg-test-cluster.sh start        # prints the connection string
#   scripts/pg-test-cluster.sh stop <dir>   # <dir>: the host= of that string
#
# Usage from a script (what .ci/run does):
#   HWF_TEST_POSTGRES="$(scripts/pg-test-cluster.sh start)"
#   trap 'scripts/pg-test-cluster.sh stop "$HWF_TEST_POSTGRES"' EXIT
#
# PostgreSQL refuses to run as root, so as root the cluster belongs to a
# non-root user (`postgres` when it exists, else `nobody`) through runuser
# (or su); the socket dir is world-searchable so root's tests connect.
# Binaries: $PG_BIN, else the newest /usr/lib/postgresql/*/bin, else PATH.
set -euo pipefail

pg_bin() {
  if [ -n "${PG_BIN:-}" ]; then echo "$PG_BIN"; return; fi
  local d
  d="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n1 || true)"
  if [ -n "$d" ] && [ -x "$d/initdb" ]; then echo "$d"; return; fi
  d="$(dirname "$(command -v initdb 2>/dev/null || echo /usr/local/bin/initdb)")"
  echo "$d"
}

# Run a command as the cluster's owner.
as_owner() {
  if [ "$(id -u)" != 0 ]; then "$@"; return; fi
  if command -v runuser >/dev/null; then
    runuser -u "$OWNER" -- "$@"
  else
    su -s /bin/sh "$OWNER" -c "$(printf '%q ' "$@")"
  fi
}

owner() {
  if [ "$(id -u)" != 0 ]; then id -un; return; fi
  if id postgres >/dev/null 2>&1; then echo postgres; else echo nobody; fi
}

start() {
  local bin dir
  bin="$(pg_bin)"
  [ -x "$bin/initdb" ] || { echo "pg-test-cluster: no initdb in $bin (install postgresql)" >&2; exit 1; }
  OWNER="$(owner)"
  dir="$(mktemp -d "${TMPDIR:-/tmp}/hwf-pg.XXXXXX")"
  chmod 755 "$dir"
  [ "$(id -u)" = 0 ] && chown "$OWNER" "$dir"
  as_owner "$bin/initdb" -D "$dir/data" -U hwf -A trust -E UTF8 --no-locale >"$dir/initdb.log" 2>&1 || {
    cat "$dir/initdb.log" >&2
    exit 1
  }
  # Only the socket; fsync stays on (the benchmark measures real commits).
  as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
    -o "-c listen_addresses='' -k $dir -c max_connections=300" start >/dev/null || {
    cat "$dir/server.log" >&2
    exit 1
  }
  echo "host=$dir user=hwf dbname=postgres"
}

stop() {
  local dir="${1:-}"
  dir="${dir#*host=}"
  dir="${dir%% *}"
  [ -n "$dir" ] && [ -d "$dir/data" ] || { echo "pg-test-cluster: no cluster at ${dir:-<none>}" >&2; exit 1; }
  OWNER="$(stat -c %U "$dir/data")"
  as_owner "$(pg_bin)/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
  rm -rf "$dir"
}

case "${1:-}" in
  start) start ;;
  stop) stop "${2:-}" ;;
  *) echo "usage: $0 start | stop <dir or connection string>" >&2; exit 2 ;;
esac
