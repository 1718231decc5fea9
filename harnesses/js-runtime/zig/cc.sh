#!/bin/sh
# A C compiler for wasm32-wasip2: zig's clang and wasi-libc (HWF_ZIG is the
# zig executable; cli/build/guest_build.rs sets it). cc-rs passes
# --target=wasm32-wasip2, which zig does not parse: it is dropped.
zig=${HWF_ZIG:?HWF_ZIG names the zig executable}
for a in "$@"; do
  shift
  case "$a" in --target=*) ;; *) set -- "$@" "$a" ;; esac
done
exec "$zig" cc -target wasm32-wasi "$@"
