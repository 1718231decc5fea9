#!/usr/bin/env bash
# Build hwf and the bundled harnesses, then run the hello workflow on the
# embedded defaults: the file store (under target/demo-state) and the
# fixture agents of harnesses/hello/fixture.json.
set -euo pipefail
cd "$(dirname "$0")/.."
rustup target add wasm32-wasip2 >/dev/null 2>&1 || true
cargo build --release -p hwf -p hwf-tests
# Compile the bundled JS, Python and JSON runtimes once for this user (into
# the per-user compile cache, as scripts/install.sh does), so that no first
# script run waits seconds for it; each compile prints one line on stderr.
# Cached: a second demo compiles nothing.
scratch="$(mktemp -d)"
for script in harnesses/loop-until-dry.js harnesses/loop-until-dry.py harnesses/hello.workflow.json; do
  ./target/release/hwf validate "$script" --state-dir "$scratch" >/dev/null
done
rm -rf "$scratch"
state=target/demo-state
./target/release/hwf run target/harnesses/hello.wasm \
  --args '{"name":"world"}' \
  --agents harnesses/hello/fixture.json \
  --state-dir "$state"
run_id=$(./target/release/hwf overview --json --state-dir "$state" | python3 -c 'import json,sys; print(json.load(sys.stdin)["data"]["runs"][0]["run_id"])')
./target/release/hwf status "$run_id" --state-dir "$state"
