#!/usr/bin/env bash
# Install hwf for this user: the binary (`cargo install --path cli`, on
# PATH as ~/.cargo/bin/hwf) and the JS, Python and JSON runtime components it runs
# scripts in, into ${XDG_DATA_HOME:-~/.local/share}/hwf/runtimes, where any
# copy of the binary finds them; then the runtimes are compiled once into
# the user's compile cache.
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
# Compile them once for this user now (into the shared compile cache,
# ${HWF_CACHE_DIR:-${XDG_CACHE_HOME:-~/.cache}/hwf}), so that no first run
# waits seconds for it. HWF_INSTALL_NO_PRECOMPILE=1 skips it.
hwf_bin="$(command -v hwf || echo "${CARGO_HOME:-$HOME/.cargo}/bin/hwf")"
if [ -z "${HWF_INSTALL_NO_PRECOMPILE:-}" ] && [ -x "$hwf_bin" ]; then
  state="$(mktemp -d)"
  for script in harnesses/loop-until-dry.js harnesses/loop-until-dry.py harnesses/hello.workflow.json; do
    HWF_RUNTIME_DIR="$dest" "$hwf_bin" validate "$script" --state-dir "$state" >/dev/null ||
      echo "hwf: could not precompile the runtime for $script (its first run compiles it)" >&2
  done
  rm -rf "$state"
fi
