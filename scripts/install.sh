#!/usr/bin/env bash
# Install hwf for this user: `cargo install --path cli` is the whole install.
# The binary (~/.cargo/bin/hwf) carries its JS, Python and JSON runtimes,
# precompiled for this machine, so any copy of it runs scripts at once.
#
# Building needs the wasm32-wasip2 target (the runtimes are WebAssembly):
# rust-toolchain.toml names it, and this script adds it when missing.
set -euo pipefail
cd "$(dirname "$0")/.."
if command -v rustup >/dev/null; then
  rustup target add wasm32-wasip2 >/dev/null 2>&1 || true
fi
cargo install --locked --path cli "$@"
