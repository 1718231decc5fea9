#!/usr/bin/env bash
# Build qjs-run (benches/js-engines/qjs-run.c over QuickJS-ng) for
# wasm32-wasi at -O2 and -O3, precompile both for hwf's engine settings,
# and build the same driver natively. Everything comes from registries:
# the C toolchain is the `ziglang` wheel (zig's clang and its own
# wasi-libc), the QuickJS-ng C sources are the `quickjs-ng` sdist
# (upstream-quickjs/), and the runtime is the `wasmtime` wheel. Nothing is
# written into the repository.
#
# Usage: benches/js-engines/build.sh WORKDIR
#   WORKDIR/venv   the Python environment (ziglang, wasmtime)
#   WORKDIR/src    the quickjs-ng sdist, unpacked
#   WORKDIR/build  qjs-run-O2.wasm/.cwasm, qjs-run-O3.wasm/.cwasm,
#                  qjs-run-native
# Versions used for docs/BENCHMARKS.md: ziglang 0.15.2 (clang 20),
# quickjs-ng 0.17.0.2 (QuickJS-ng 0.17.0), wasmtime 48.0.0 (hwf: 48.0.8).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
WORK="${1:?usage: build.sh WORKDIR}"
ZIG_VERSION="${ZIG_VERSION:-0.15.2}"
QJS_VERSION="${QJS_VERSION:-0.17.0.2}"
WASMTIME_VERSION="${WASMTIME_VERSION:-48.0.0}"
JOBS_NOTE="(one compiler process at a time: the machine is shared)"

mkdir -p "$WORK/src" "$WORK/build"
WORK="$(cd "$WORK" && pwd)"
if [[ ! -x "$WORK/venv/bin/python" ]]; then
  python3 -m venv "$WORK/venv"
fi
PY="$WORK/venv/bin/python"
"$PY" -m pip install -q "ziglang==$ZIG_VERSION" "wasmtime==$WASMTIME_VERSION"

SDIST="$WORK/src/quickjs_ng-$QJS_VERSION"
if [[ ! -d "$SDIST" ]]; then
  "$PY" -m pip download -q --no-binary :all: --no-deps -d "$WORK/src" "quickjs-ng==$QJS_VERSION"
  tar -xzf "$WORK/src/quickjs_ng-$QJS_VERSION.tar.gz" -C "$WORK/src"
fi
Q="$SDIST/upstream-quickjs"
SRCS=("$HERE/qjs-run.c" "$Q/quickjs.c" "$Q/libregexp.c" "$Q/libunicode.c" "$Q/dtoa.c")
COMMON=(-std=gnu11 -D_GNU_SOURCE -I"$Q")

echo "building $JOBS_NOTE" >&2
# `zig cc` passes -O2 to clang for any of -O2/-O3 (both are its ReleaseFast);
# -Xclang -O3 makes the -O3 build a real clang -O3. The wasm shadow stack
# is 1 MiB (wasm-ld's default is 64 KiB); the driver lets QuickJS use 768 KiB.
for opt in O2 O3; do
  extra=()
  [[ "$opt" == O3 ]] && extra=(-Xclang -O3)
  "$PY" -m ziglang cc -target wasm32-wasi "-$opt" "${extra[@]}" -s "${COMMON[@]}" "${SRCS[@]}" -lm \
    -Wl,-z,stack-size=1048576 -o "$WORK/build/qjs-run-$opt.wasm" 2> >(grep -v "warning" >&2 || true)
  "$PY" "$HERE/run-wasm.py" compile "$WORK/build/qjs-run-$opt.wasm" "$WORK/build/qjs-run-$opt.cwasm"
done
# The same -O2 module without fuel, only to measure what fuel costs.
"$PY" "$HERE/run-wasm.py" compile --no-fuel "$WORK/build/qjs-run-O2.wasm" "$WORK/build/qjs-run-O2-nofuel.cwasm"
gcc -O2 "${COMMON[@]}" "${SRCS[@]}" -lm -o "$WORK/build/qjs-run-native" 2> >(grep -v "warning" >&2 || true)
ls -l "$WORK/build" >&2
