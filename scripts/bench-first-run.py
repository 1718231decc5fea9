#!/usr/bin/env python3
"""What a new user waits for, and what embedding the runtimes costs a cached
run (issue 32). Whole processes, medians of interleaved runs.

  scripts/bench-first-run.py --hwf target/release/hwf [--base OTHER_HWF] [--runtimes target/harnesses] [-n 15]

1. ``first js``: the first JS run with an empty HOME and an empty compile
   cache (a fresh dir each time): the embedded, precompiled runtime.
2. ``first js, compiled`` (with ``--runtimes``): the same with
   ``HWF_RUNTIME_DIR`` set, so the runtime compiles (what every first run did
   before the runtimes were precompiled); 3 runs, it is slow.
3. ``cached hello`` (and ``--version``): ``hwf run hello.wasm`` with a warm
   state dir, alternating with ``--base`` (e.g. main's binary) run for run,
   so both see the same machine load.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import shutil
import statistics
import subprocess
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
HI_JS = 'export const meta = { name: "hi", description: "greets" };\nreturn { hi: "there" };\n'


def timed(argv, env, cwd):
    t = time.perf_counter()
    out = subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True)
    took = time.perf_counter() - t
    if out.returncode != 0:
        raise SystemExit(f"{argv}: exit {out.returncode}: {out.stderr.strip()}")
    return took, out.stderr


def clean_env(home, **extra):
    env = {"PATH": "/usr/bin:/bin", "HOME": str(home), "HWF_RUNNER_AUTOSTART": "0"}
    env.update(extra)
    return env


def first_js(hwf, tmp, n, runtimes=None):
    times, compiled = [], 0
    for i in range(n):
        home = tmp / f"home-{i}-{runtimes is not None}"
        work = tmp / f"work-{i}-{runtimes is not None}"
        for d in (home, work):
            shutil.rmtree(d, ignore_errors=True)
            d.mkdir()
        (work / "hi.js").write_text(HI_JS)
        extra = {"HWF_RUNTIME_DIR": str(runtimes)} if runtimes else {}
        took, err = timed([hwf, "run", "hi.js"], clean_env(home, **extra), work)
        compiled += "compiling the" in err
        times.append(took)
    return times, compiled


def interleaved(binaries, argv_of, env, cwd, n):
    times = {b: [] for b in binaries}
    for _ in range(n):
        for b in binaries:
            times[b].append(timed(argv_of(b), env, cwd)[0])
    return times


def ms(xs):
    return round(statistics.median(xs) * 1000, 2)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--hwf", required=True)
    p.add_argument("--base", help="another hwf to compare the cached run with (e.g. main's)")
    p.add_argument("--runtimes", help="a directory of runtime .wasm files: also time the compiled first run")
    p.add_argument("--hello", default=None, help="hello.wasm (default: beside the binary's target dir)")
    p.add_argument("-n", type=int, default=15)
    a = p.parse_args()
    hwf = str(pathlib.Path(a.hwf).resolve())
    hello = a.hello or str(pathlib.Path(hwf).parent.parent / "harnesses" / "hello.wasm")
    fixture = str(ROOT / "harnesses" / "hello" / "fixture.json")
    report = {}
    with tempfile.TemporaryDirectory(prefix="hwf-bench-first-") as t:
        tmp = pathlib.Path(t)
        times, compiled = first_js(hwf, tmp, a.n)
        report["first_js_ms"] = {"median": ms(times), "min": ms([min(times)]), "max": ms([max(times)]), "n": a.n, "compiled": compiled}
        if a.runtimes:
            times, compiled = first_js(hwf, tmp, 3, pathlib.Path(a.runtimes).resolve())
            report["first_js_compiled_ms"] = {"median": ms(times), "n": 3, "compiled": compiled}
        binaries = [hwf] + ([str(pathlib.Path(a.base).resolve())] if a.base else [])
        home = tmp / "home-cached"
        home.mkdir()
        state = tmp / "state"
        env = clean_env(home, HWF_STATE_DIR=str(state))
        argv = lambda b: [b, "run", hello, "--args", '{"name":"world"}', "--agents", fixture]
        interleaved(binaries, argv, env, tmp, 3)  # warm: cache, state dir, page cache
        runs = interleaved(binaries, argv, env, tmp, a.n * 2)
        version = interleaved(binaries, lambda b: [b, "--version"], env, tmp, a.n * 2)
        report["cached_hello_ms"] = {("this" if b == hwf else "base"): ms(v) for b, v in runs.items()}
        report["version_ms"] = {("this" if b == hwf else "base"): ms(v) for b, v in version.items()}
        report["binary_mb"] = {("this" if b == hwf else "base"): round(os.path.getsize(b) / 1e6, 1) for b in binaries}
        report["loadavg"] = os.getloadavg()[0]
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
