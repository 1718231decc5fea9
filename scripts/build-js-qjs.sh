#!/bin/bash
# Build the QuickJS JavaScript runtime (harnesses/js-runtime-qjs, issue 28)
# to target/js-qjs/js-runtime.wasm, the name hwf loads from
# HWF_RUNTIME_DIR:
#
#   scripts/build-js-qjs.sh
#   HWF_RUNTIME_DIR=target/js-qjs hwf run script.js
#
# QuickJS-ng's C (in the rquickjs-sys crate) is compiled by zig's clang and
# wasi-libc, from the PyPI wheel `ziglang`, installed into target/py/zig
# when missing. CARGO_TARGET_DIR (default: target/js-qjs/cargo) and
# CARGO_BUILD_JOBS are honoured.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
crate=$root/harnesses/js-runtime-qjs
venv=$root/target/py/zig
zig_version=0.15.2

if ! "$venv/bin/python" -c "import ziglang" 2>/dev/null; then
  echo "installing ziglang==$zig_version into $venv" >&2
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet "ziglang==$zig_version"
fi
export ZIG_PYTHON=$venv/bin/python
# rquickjs-sys would otherwise download wasi-sdk from GitHub.
export RQUICKJS_SYS_NO_WASI_SDK=1
export CC_wasm32_wasip2=$crate/zig/cc.sh
export AR_wasm32_wasip2=$crate/zig/ar.sh
# QuickJS at -O3 (zig cc maps -O3 to clang -O2; -Xclang -O3 is the real one).
export CFLAGS_wasm32_wasip2="-Xclang -O3"
target_dir=${CARGO_TARGET_DIR:-$root/target/js-qjs/cargo}

cargo build --manifest-path "$crate/Cargo.toml" --target wasm32-wasip2 --profile guest \
  --target-dir "$target_dir" -j "${CARGO_BUILD_JOBS:-2}"
mkdir -p "$root/target/js-qjs"
cp "$target_dir/wasm32-wasip2/guest/js_runtime_qjs.wasm" "$root/target/js-qjs/js-runtime.wasm"
ls -l "$root/target/js-qjs/js-runtime.wasm" >&2
