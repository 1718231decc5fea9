#!/usr/bin/env bash
# Every test: Rust unit, doc and end-to-end tests (real binary, real
# components; the PostgreSQL store's against the cluster HWF_TEST_POSTGRES
# names, which .ci/run starts with scripts/pg-test-cluster.sh), then the
# Python suites against the binary the Rust tests built: the Hermes plugin
# shim, and real clients (the Python MCP SDK, Hermes Agent's plugin loader
# and MCP client, the real Claude Code / Codex / Hermes CLIs against loopback
# mocks of their APIs, the official MCP conformance suite over HTTP) in
# tests/python.
#
# The agent CLIs come from scripts/install-agent-clis.sh, the conformance
# suite from scripts/mcp-conformance.sh --install, and TypeScript's tsc (the
# e2e type checks of hwf.d.ts, tests/e2e/authoring.rs) from
# `npm install --prefix target/tsc typescript@5.9.3` (all npm; .ci/run runs
# them).
#
# Python clients come from the venvs .ci/run makes (target/py/hermes:
# hermes-agent[mcp] with the MCP SDK 1.26; target/py/mcp2: the MCP SDK 2.x),
# else from python3. Tests whose client is not installed are skipped,
# unless HWF_REQUIRE_CLIENTS=1 (CI), which makes them fail.
set -euo pipefail
cd "$(dirname "$0")/.."
rustup target add wasm32-wasip2 >/dev/null 2>&1 || true
# The PostgreSQL store's tests run against a real server: when no cluster
# is named, start a throwaway one (scripts/pg-test-cluster.sh, stopped on
# exit) so they run instead of reporting "skipped"; without PostgreSQL
# installed they skip, and fail under HWF_REQUIRE_CLIENTS=1.
if [ -z "${HWF_TEST_POSTGRES:-}" ] && { command -v initdb >/dev/null || ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; }; then
  HWF_TEST_POSTGRES="$(./scripts/pg-test-cluster.sh start)"
  export HWF_TEST_POSTGRES
  trap './scripts/pg-test-cluster.sh stop "$HWF_TEST_POSTGRES"' EXIT
fi
# Bun, pinned, into target/bun (~3 s, 100 MB, from npm; nothing when
# present): Claude Code is a Bun executable, and the idiom scripts that use
# builtins Node 20 lacks take their reference from it
# (tests/e2e/idioms.rs; $HWF_BUN overrides).
if [ -z "${HWF_BUN:-}" ] && [ "$(uname -sm)" = "Linux x86_64" ] && command -v npm >/dev/null \
  && [ "$(target/bun/node_modules/@oven/bun-linux-x64/bin/bun --version 2>/dev/null)" != "1.4.5" ]; then
  npm install --prefix target/bun --no-audit --no-fund --no-update-notifier --loglevel=error @oven/bun-linux-x64@1.4.5 >/dev/null
fi
cargo test -j2 -p hwf-core -p hwf-engine -p hwf-host -p hwf -p hwf-tests -p hwf-guest -p hwf-store-conformance -p hwf-store-postgres -p hwf-sort
# The script runtimes' own unit tests, natively (QuickJS's C by the system
# compiler): a separate invocation, so their dependencies' features never
# touch the host's build above.
cargo test -j2 -p js-runtime -p json-runtime
# The vendored Python interpreter's own unit tests (hwf's patches to its
# sets, dicts and dump format among them).
cargo test -j2 -p monty --lib
# API docs must build without warnings (broken links fail).
RUSTDOCFLAGS="-D warnings" cargo doc -j2 --no-deps -p hwf-core -p hwf-host -p hwf-guest -p hwf-store-postgres
target_dir="${CARGO_TARGET_DIR:-$PWD/target}"
export HWF_BIN="$target_dir/debug/hwf"  # the binary this script just built
# The compile cache the Rust tests filled: the JS runtime compiles once.
export HWF_CACHE_DIR="${HWF_CACHE_DIR:-$target_dir/test-cache}"
py=python3
[ -x target/py/hermes/bin/python ] && py=target/py/hermes/bin/python
"$py" -m pytest --version >/dev/null 2>&1 || "$py" -m pip install --quiet pytest
"$py" -m pytest -q integrations/hermes tests/python
if [ -x target/py/mcp2/bin/python ]; then
  target/py/mcp2/bin/python -m pytest -q tests/python/test_mcp_sdk.py tests/python/test_mcp_http.py
fi
# The web console in headless Chromium (skipped without chromium and
# chromedriver unless HWF_REQUIRE_CLIENTS=1).
"$py" -m pytest -q tests/browser
