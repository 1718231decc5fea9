#!/bin/bash
# A C compiler for wasm32-wasip2 from PyPI: zig's clang and wasi-libc (the
# `ziglang` wheel, in the Python given by ZIG_PYTHON). cc-rs passes
# --target=wasm32-wasip2, which zig does not parse: it is dropped.
args=()
for a in "$@"; do
  case "$a" in --target=*) ;; *) args+=("$a") ;; esac
done
exec "${ZIG_PYTHON:?}" -m ziglang cc -target wasm32-wasi "${args[@]}"
