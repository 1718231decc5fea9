#!/usr/bin/env bash
# Build hwf (with its JS, Python and JSON runtimes embedded, precompiled for
# this machine) and the bundled harnesses, then run the hello workflow on the
# embedded defaults: the file store (under target/demo-state) and the
# fixture agents of harnesses/hello/fixture.json.
set -euo pipefail
cd "$(dirname "$0")/.."
rustup target add wasm32-wasip2 >/dev/null 2>&1 || true
cargo build --release -p hwf -p hwf-tests
state=target/demo-state
./target/release/hwf run target/harnesses/hello.wasm \
  --args '{"name":"world"}' \
  --agents harnesses/hello/fixture.json \
  --state-dir "$state"
run_id=$(./target/release/hwf overview --json --state-dir "$state" | python3 -c 'import json,sys; print(json.load(sys.stdin)["data"]["runs"][0]["run_id"])')
./target/release/hwf status "$run_id" --state-dir "$state"
