#!/usr/bin/env python3
"""QuickJS compiled to wasm (with hwf's fuel and epoch settings) against
hwf's Boa and Node, on the scripts of benches/js-compute/, same minutes.

Each round runs every engine once on the script, in turn (hwf, then each
QuickJS wasm build, then QuickJS native, then Node), so every engine sees
the same machine load; medians over the rounds. CPU is the process's user
+ system time (the steadier figure on a shared machine); wall is printed
too. An empty script is measured the same way first, and its median is
subtracted per engine ("net": the engine's time on the script without
process start, runtime load and, for the wasm runner, the Python
interpreter and wasmtime start-up). Every engine's result must equal
benches/js-compute/expected/NAME.json; a differing one is marked.

The engines:
  hwf        `hwf run SCRIPT --json` (Boa, in hwf's sandbox: fuel, epochs)
  qjs-wasm-* `python run-wasm.py run MODULE.cwasm SCRIPT` (QuickJS-ng in
             wasm32-wasi under wasmtime-py, fuel and epochs on as in hwf)
  qjs-native the same driver built natively (gcc -O2)
  node       benches/js-compute/node-run.mjs

Usage: bench-engines.py --hwf HWF --cwasm O2=build/qjs-run-O2.cwasm
       [--cwasm O3=...] [--cwasm O2-nofuel=build/qjs-run-O2-nofuel.cwasm,nofuel]
       [--native build/qjs-run-native] [--node node]
       [--python venv/bin/python] [--runs 3] [--only a,b] [--json OUT]
"""

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
BENCH_DIR = os.path.join(REPO, "benches", "js-compute")
EMPTY = os.path.join(HERE, "empty.js")


def timed(argv, stdin=None):
    before = os.times()
    t = time.perf_counter()
    f = open(stdin) if stdin else None
    try:
        out = subprocess.run(argv, stdin=f if f else subprocess.DEVNULL, capture_output=True, text=True)
    finally:
        if f:
            f.close()
    wall = time.perf_counter() - t
    after = os.times()
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    return out, wall, cpu


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--hwf", required=True)
    p.add_argument("--cwasm", action="append", default=[], help="LABEL=MODULE.cwasm[,nofuel] (repeatable)")
    p.add_argument("--native", default="")
    p.add_argument("--node", default=shutil.which("node") or "/usr/bin/node")
    p.add_argument("--python", default=sys.executable, help="a Python with the wasmtime package")
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--only", default="")
    p.add_argument("--cpu-limit-ms", type=int, default=600000)
    p.add_argument("--json", default="", help="write the whole report here")
    a = p.parse_args()

    names = ["crunch", "json", "map-set", "sort-numbers", "sort-objects", "strings"]
    if a.only:
        names = [n for n in names if n in a.only.split(",")]
    base = "/dev/shm" if os.path.isdir("/dev/shm") else None
    work = tempfile.mkdtemp(prefix="hwf-js-engines-", dir=base)
    state = os.path.join(work, "state")
    runner = os.path.join(HERE, "run-wasm.py")

    engines = []  # (label, argv builder, how to read the result, stdin?)

    def hwf_argv(script):
        return [a.hwf, "run", script, "--state-dir", state, "--json", "--cpu-limit-ms", str(a.cpu_limit_ms)]

    def hwf_result(out):
        return json.loads(out.stdout)["data"]["result"]

    def plain_result(out):
        return json.loads(out.stdout.strip().splitlines()[-1])

    engines.append(("hwf-boa", hwf_argv, hwf_result, False))
    for spec in a.cwasm:
        label, _, path = spec.partition("=")
        path, _, flag = path.partition(",")
        extra = ["--no-fuel"] if flag == "nofuel" else []
        engines.append(
            (
                f"qjs-wasm-{label}",
                lambda s, path=path, extra=extra: [a.python, runner, "run", path, s, "--cpu-limit-ms", str(a.cpu_limit_ms)] + extra,
                plain_result,
                False,
            )
        )
    if a.native:
        engines.append(("qjs-native", lambda s: [a.native], plain_result, True))
    engines.append(("node", lambda s: [a.node, os.path.join(BENCH_DIR, "node-run.mjs"), s], plain_result, False))

    report = {"node": subprocess.run([a.node, "--version"], capture_output=True, text=True).stdout.strip(), "runs": a.runs, "rows": []}
    empty_cpu, empty_wall = {}, {}
    try:
        for name in ["empty"] + names:
            script = EMPTY if name == "empty" else os.path.join(BENCH_DIR, f"{name}.js")
            expected = {} if name == "empty" else json.load(open(os.path.join(BENCH_DIR, "expected", f"{name}.json")))
            same, fuel = {}, {}
            for label, argv, read, use_stdin in engines:  # warm-up and check
                out, _, _ = timed(argv(script), script if use_stdin else None)
                try:
                    same[label] = read(out) == expected
                except (ValueError, KeyError, TypeError, IndexError):
                    same[label] = False
                    print(f"{name} {label} failed: {out.stdout[-300:]} {out.stderr[-300:]}", file=sys.stderr)
            cpu = {e[0]: [] for e in engines}
            wall = {e[0]: [] for e in engines}
            for _ in range(a.runs):
                for label, argv, read, use_stdin in engines:
                    out, w, c = timed(argv(script), script if use_stdin else None)
                    cpu[label].append(c)
                    wall[label].append(w)
                    m = re.search(r"fuel=(\d+)", out.stderr)
                    if m:
                        fuel[label] = int(m.group(1))
            for label, *_ in engines:
                row = {
                    "script": name,
                    "engine": label,
                    "same_result": same[label],
                    "cpu_s": round(statistics.median(cpu[label]), 3),
                    "wall_s": round(statistics.median(wall[label]), 3),
                    "cpu_all": [round(x, 3) for x in cpu[label]],
                }
                if label in fuel:
                    row["fuel"] = fuel[label]
                if name == "empty":
                    empty_cpu[label] = row["cpu_s"]
                    empty_wall[label] = row["wall_s"]
                else:
                    row["net_cpu_s"] = round(max(row["cpu_s"] - empty_cpu[label], 0.001), 3)
                report["rows"].append(row)
                print(
                    f"{name:13} {label:13} cpu {row['cpu_s']:7.3f} s (net {row.get('net_cpu_s', 0):7.3f})"
                    f" wall {row['wall_s']:7.3f} s  all {row['cpu_all']}"
                    + (f" fuel {row['fuel']:.3e}" if "fuel" in row else "")
                    + ("" if row["same_result"] else "  RESULT DIFFERS"),
                    file=sys.stderr,
                    flush=True,
                )
            if name != "empty":
                by = {r["engine"]: r for r in report["rows"] if r["script"] == name}
                node = by["node"]["net_cpu_s"]
                boa = by["hwf-boa"]["net_cpu_s"]
                for label, *_ in engines:
                    r = by[label]
                    r["x_node"] = round(r["net_cpu_s"] / node, 2)
                    r["boa_over_this"] = round(boa / r["net_cpu_s"], 2)
                print(
                    f"{name:13} net CPU / node: "
                    + ", ".join(f"{l} {by[l]['x_node']}x" for l, *_ in engines)
                    + " | boa / qjs-wasm: "
                    + ", ".join(f"{l} {by[l]['boa_over_this']}x" for l, *_ in engines if l.startswith("qjs-wasm")),
                    file=sys.stderr,
                    flush=True,
                )
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(report, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
