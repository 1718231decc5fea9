#!/usr/bin/env bash
# Every test: Rust unit, doc and end-to-end tests (real binary, real
# components), then the Hermes plugin shim's pytest suite against the
# binary the Rust tests built.
set -euo pipefail
cd "$(dirname "$0")/.."
rustup target add wasm32-wasip2 >/dev/null 2>&1 || true
cargo test -j2 -p hwf-host -p hwf-tests -p hwf-guest
# API docs must build without warnings (broken links fail).
RUSTDOCFLAGS="-D warnings" cargo doc -j2 --no-deps -p hwf-host -p hwf-guest
python3 -m pytest --version >/dev/null 2>&1 || python3 -m pip install --quiet pytest
HWF_BIN="$PWD/target/debug/hwf" python3 -m pytest -q integrations/hermes
