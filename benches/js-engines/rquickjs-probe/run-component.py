#!/usr/bin/env python3
"""Run a wasm32-wasip2 command component (the probe) under wasmtime-py
with fuel and epoch interruption on and hwf's 1 MiB max wasm stack, and
print what it printed and the fuel it used.

Usage: run-component.py COMPONENT.wasm
"""

import sys

import wasmtime
import wasmtime.component as component


def main() -> int:
    cfg = wasmtime.Config()
    cfg.consume_fuel = True
    cfg.epoch_interruption = True
    cfg.max_wasm_stack = 1 << 20
    engine = wasmtime.Engine(cfg)
    comp = component.Component.from_file(engine, sys.argv[1])
    store = wasmtime.Store(engine)
    fuel = 10**10
    store.set_fuel(fuel)
    store.set_epoch_deadline(1 << 40)
    wasi = wasmtime.WasiConfig()
    wasi.inherit_stdout()
    wasi.inherit_stderr()
    store.set_wasi(wasi)
    linker = component.Linker(engine)
    linker.add_wasip2()
    instance = linker.instantiate(store, comp)
    iface = instance.get_export_index(store, "wasi:cli/run@0.2.0")
    run = instance.get_func(store, instance.get_export_index(store, "run", iface))
    outcome = run(store)
    print(f"run -> {outcome}, fuel used {fuel - store.get_fuel()}", file=sys.stderr)
    return 0 if getattr(outcome, "tag", "ok") == "ok" else 1


if __name__ == "__main__":
    sys.exit(main())
