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
  # The socket, and (when openssl is there) TLS on 127.0.0.1 with a
  # throwaway CA: $dir/tls/ca.pem, the port in the printed string; plain
  # TCP is refused. fsync stays on (the benchmark measures real commits).
  local port=5432 listen="''" ssl=""
  if command -v openssl >/dev/null && command -v python3 >/dev/null; then
    port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
    tls_files "$dir/tls" >"$dir/tls.log" 2>&1 || { cat "$dir/tls.log" >&2; exit 1; }
    [ "$(id -u)" = 0 ] && chown -R "$OWNER" "$dir/tls"
    chmod 600 "$dir/tls/server.key"
    { echo "hostnossl all all 127.0.0.1/32 reject"; cat "$dir/data/pg_hba.conf"; } >"$dir/pg_hba.conf"
    cp "$dir/pg_hba.conf" "$dir/data/pg_hba.conf"
    listen="'127.0.0.1'"
    ssl="-c ssl=on -c ssl_cert_file=$dir/tls/server.pem -c ssl_key_file=$dir/tls/server.key"
  fi
  as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
    -o "-c listen_addresses=$listen -p $port -k $dir -c max_connections=300 $ssl" start >/dev/null || {
    cat "$dir/server.log" >&2
    exit 1
  }
  echo "host=$dir port=$port user=hwf dbname=postgres"
}

# A CA and a server certificate for localhost / 127.0.0.1 signed by it.
tls_files() {
  local d="$1"
  mkdir -p "$d"
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 3 \
    -subj "/CN=hwf test CA" -keyout "$d/ca.key" -out "$d/ca.pem" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign"
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
    -subj "/CN=localhost" -keyout "$d/server.key" -out "$d/server.csr"
  printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n' >"$d/server.ext"
  openssl x509 -req -in "$d/server.csr" -CA "$d/ca.pem" -CAkey "$d/ca.key" -CAcreateserial \
    -days 3 -out "$d/server.pem" -extfile "$d/server.ext"
  chmod 644 "$d/ca.pem"
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
