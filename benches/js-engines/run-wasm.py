#!/usr/bin/env python3
"""Run qjs-run.wasm (QuickJS compiled to wasm32-wasi) under wasmtime with
hwf's engine settings, on one script.

The engine is configured as hwf's `hwf_engine::config()` is: epoch
interruption on, fuel on, a 1 MiB max wasm stack, multi-memory off
(Cranelift at its default `speed` level, as in hwf). The store gets the
fuel hwf gives a CPU limit (8,000,000 per ms, `FUEL_PER_CPU_MS`) and an
epoch deadline far ahead, and a thread advances the epoch every 10 ms
(`EPOCH_TICK`) as hwf's ticker does, so the epoch checks in the compiled
code see a moving counter. (hwf's deadline callback yields to its async
executor at each tick; the Python API has no callback, so the deadline
here is far enough never to be reached. The checks compiled into the code
are the same.) A store memory limit (hwf's default 256 MiB) bounds the
guest's linear memory.

Usage:
  run-wasm.py compile MODULE.wasm OUT.cwasm [--no-fuel]   # precompile once
  run-wasm.py run MODULE.cwasm SCRIPT.js [--cpu-limit-ms N] [--sloppy]
                  [--memory-mb N] [--stack-kb N] [--no-fuel] [ARGS_JSON]
--no-fuel compiles and runs without fuel (epochs stay on): only to measure
what fuel costs; hwf always meters.
Prints the script's result (one JSON line) on stdout, the driver's
`eval_ms=` line and the fuel used on stderr. Exit status 0 on a result,
1 when the guest failed or trapped (out of fuel: `cpu_limit`).
"""

import argparse
import os
import sys
import tempfile
import threading
import time

import wasmtime

MAX_WASM_STACK = 1 << 20
FUEL_PER_CPU_MS = 8_000_000
EPOCH_TICK_S = 0.010


def engine(fuel: bool = True) -> wasmtime.Engine:
    cfg = wasmtime.Config()
    cfg.epoch_interruption = True
    cfg.consume_fuel = fuel
    cfg.max_wasm_stack = MAX_WASM_STACK
    cfg.wasm_multi_memory = False
    return wasmtime.Engine(cfg)


def compile_module(src: str, out: str, fuel: bool) -> int:
    eng = engine(fuel)
    module = wasmtime.Module.from_file(eng, src)
    with open(out, "wb") as f:
        f.write(module.serialize())
    return 0


def run(a) -> int:
    eng = engine(not a.no_fuel)
    module = wasmtime.Module.deserialize_file(eng, a.module)
    store = wasmtime.Store(eng)
    store.set_limits(memory_size=a.memory_mb << 20)
    if not a.no_fuel:
        store.set_fuel(a.cpu_limit_ms * FUEL_PER_CPU_MS)
    store.set_epoch_deadline(1 << 40)
    wasi = wasmtime.WasiConfig()
    argv = ["qjs-run"]
    if a.sloppy:
        argv.append("--sloppy")
    if a.stack_kb:
        argv += ["--stack-kb", str(a.stack_kb)]
    if a.args_json is not None:
        argv.append(a.args_json)
    wasi.argv = argv
    wasi.stdin_file = a.script
    out = tempfile.NamedTemporaryFile(prefix="qjs-out-", delete=False)
    err = tempfile.NamedTemporaryFile(prefix="qjs-err-", delete=False)
    out.close()
    err.close()
    wasi.stdout_file = out.name
    wasi.stderr_file = err.name
    store.set_wasi(wasi)
    linker = wasmtime.Linker(eng)
    linker.define_wasi()
    instance = linker.instantiate(store, module)
    start = instance.exports(store)["_start"]

    stop = threading.Event()

    def tick():
        while not stop.wait(EPOCH_TICK_S):
            eng.increment_epoch()

    ticker = threading.Thread(target=tick, daemon=True)
    ticker.start()
    status = 0
    t0 = time.perf_counter()
    try:
        start(store)
    except wasmtime.ExitTrap as e:
        status = e.code
    except wasmtime.Trap as e:
        fuel_left = None if a.no_fuel else store.get_fuel()
        lines = [l.strip() for l in str(e).splitlines() if l.strip()]
        what = "cpu_limit (out of fuel)" if fuel_left == 0 else (lines[-1] if lines else "trap")
        print(f"trap: {what}", file=sys.stderr)
        status = 1
    wall = time.perf_counter() - t0
    stop.set()
    used = "off" if a.no_fuel else a.cpu_limit_ms * FUEL_PER_CPU_MS - store.get_fuel()
    with open(out.name) as f:
        sys.stdout.write(f.read())
    with open(err.name) as f:
        sys.stderr.write(f.read())
    os.unlink(out.name)
    os.unlink(err.name)
    print(f"fuel={used} guest_wall_ms={wall * 1e3:.1f}", file=sys.stderr)
    return status


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("compile")
    c.add_argument("src")
    c.add_argument("out")
    c.add_argument("--no-fuel", action="store_true", help="compile without fuel (a measurement only: hwf always meters)")
    r = sub.add_parser("run")
    r.add_argument("module")
    r.add_argument("script")
    r.add_argument("args_json", nargs="?")
    r.add_argument("--cpu-limit-ms", type=int, default=600_000)
    r.add_argument("--memory-mb", type=int, default=256)
    r.add_argument("--sloppy", action="store_true")
    r.add_argument("--stack-kb", type=int, default=0, help="the driver's JS stack limit (default: the driver's 256)")
    r.add_argument("--no-fuel", action="store_true", help="run a module compiled with --no-fuel")
    a = p.parse_args()
    if a.cmd == "compile":
        return compile_module(a.src, a.out, not a.no_fuel)
    return run(a)


if __name__ == "__main__":
    sys.exit(main())
