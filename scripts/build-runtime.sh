#!/usr/bin/env bash
# Build script runtimes (js-runtime, python-runtime, json-runtime) for
# wasm32-wasip2 without rebuilding hwf, to try a runtime change with the
# binary you have:
#
#   scripts/build-runtime.sh js-runtime [python-runtime …]   # -> target/runtimes/<name>.wasm
#   HWF_RUNTIME_DIR=target/runtimes hwf run script.js
#
# The same build as the one `cargo build` runs for the binary
# (cli/build/guest_build.rs): profile `guest`, QuickJS's C compiled by zig
# ($HWF_ZIG, else the zig the build installed under target/zig, else PyPI's
# ziglang wheel installed there now). CARGO_TARGET_DIR (default:
# target/runtimes/cargo) and CARGO_BUILD_JOBS are honoured.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
[ $# -gt 0 ] || { echo "usage: $0 js-runtime|python-runtime|json-runtime …" >&2; exit 2; }
zig_version=0.15.2
if [ -z "${HWF_ZIG:-}" ]; then
  dir=$root/target/zig/$zig_version
  if [ ! -x "$dir/ziglang/zig" ]; then
    echo "installing zig $zig_version (PyPI's ziglang wheel) into $dir" >&2
    python3 -m pip install --quiet --disable-pip-version-check --no-warn-script-location \
      --target "$dir" "ziglang==$zig_version"
  fi
  export HWF_ZIG=$dir/ziglang/zig
fi
export CC_wasm32_wasip2=$root/harnesses/js-runtime/zig/cc.sh
export AR_wasm32_wasip2=$root/harnesses/js-runtime/zig/ar.sh
export CFLAGS_wasm32_wasip2="-Xclang -O3"
export RQUICKJS_SYS_NO_WASI_SDK=1
export ZIG_GLOBAL_CACHE_DIR=$root/target/zig/cache ZIG_LOCAL_CACHE_DIR=$root/target/zig/cache
target_dir=${CARGO_TARGET_DIR:-$root/target/runtimes/cargo}
pkgs=()
for p in "$@"; do pkgs+=(-p "$p"); done
cargo build --manifest-path "$root/Cargo.toml" --target wasm32-wasip2 --profile guest \
  --target-dir "$target_dir" -j "${CARGO_BUILD_JOBS:-2}" "${pkgs[@]}"
mkdir -p "$root/target/runtimes"
for p in "$@"; do
  cp "$target_dir/wasm32-wasip2/guest/${p//-/_}.wasm" "$root/target/runtimes/$p.wasm"
  ls -l "$root/target/runtimes/$p.wasm" >&2
done
