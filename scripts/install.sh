#!/usr/bin/env bash
# Install hwf for this user: the binary (`cargo install --path cli`, on
# PATH as ~/.cargo/bin/hwf) and the JS, Python and JSON runtime components it runs
# scripts in, into ${XDG_DATA_HOME:-~/.local/share}/hwf/runtimes, where any
# copy of the binary finds them.
#
#   scripts/install.sh                 # both
#   scripts/install.sh --runtimes-only # just the runtimes (the binary is elsewhere)
#
# HWF_RUNTIME_INSTALL_DIR overrides where the runtimes go.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" != "--runtimes-only" ]; then
  cargo install --locked --path cli
fi
if [ ! -f target/harnesses/js-runtime.wasm ] || [ ! -f target/harnesses/python-runtime.wasm ] || [ ! -f target/harnesses/json-runtime.wasm ]; then
  # tests/build.rs builds every guest, the runtimes among them.
  rustup target add wasm32-wasip2 >/dev/null 2>&1 || true
  cargo build -j2 -p hwf-tests
fi
dest="${HWF_RUNTIME_INSTALL_DIR:-${XDG_DATA_HOME:-$HOME/.local/share}/hwf/runtimes}"
mkdir -p "$dest"
for rt in js-runtime python-runtime json-runtime; do
  # Atomic: a running hwf never sees half a file.
  cp target/harnesses/$rt.wasm "$dest/.$rt.wasm.tmp"
  mv "$dest/.$rt.wasm.tmp" "$dest/$rt.wasm"
done
echo "hwf runtimes installed in $dest"
