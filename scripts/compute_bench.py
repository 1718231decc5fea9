"""Compute in hwf against a reference interpreter, same machine, same run.

The engine of `bench-js-compute.py` (Node) and `bench-py-compute.py`
(CPython running the script as the seed does, `tests/e2e/idioms/seed_ref.py`):
each script of the language's bench directory runs as an hwf workflow
(`hwf run`, whole process, warm compile cache, state on /dev/shm when it
exists) and under the reference, alternating run by run. Both must return
the same result. Prints one line per script (medians of wall time and of
the process's user + system CPU, and the hwf / reference ratios) and, with
--json, the whole report. Ratios are reported as medians, since these
machines are noisy.
"""

import argparse
import glob
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from typing import Callable

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


@dataclass
class Lang:
    """One language's bench: where its scripts are and how its reference runs one."""

    ext: str
    bench_dir: str
    reference: str
    default_reference: Callable[[], str]
    reference_argv: Callable[[str, str], list]
    reference_result: Callable[[str], object]


def timed(argv, env=None):
    before = os.times()
    t = time.perf_counter()
    out = subprocess.run(argv, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - t
    after = os.times()
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    return out, wall, cpu


def main(lang: Lang, doc: str) -> int:
    p = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    p.add_argument("--hwf", default="target/release/hwf")
    p.add_argument(f"--{lang.reference}", default=lang.default_reference())
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--only", default="", help="comma-separated script names (without .js)")
    p.add_argument("--cpu-limit-ms", type=int, default=600000)
    p.add_argument("--json", action="store_true", help="print the whole report as JSON")
    p.add_argument("--runtime-dir", action="append", default=[], help="a directory holding js-runtime.wasm (repeatable)")
    a = p.parse_args()

    ext = "." + lang.ext
    scripts = sorted(glob.glob(os.path.join(lang.bench_dir, "*" + ext)))
    if a.only:
        want = set(a.only.split(","))
        scripts = [s for s in scripts if os.path.basename(s)[: -len(ext)] in want]
    reference = getattr(a, lang.reference)
    base = "/dev/shm" if os.path.isdir("/dev/shm") else None
    work = tempfile.mkdtemp(prefix="hwf-js-compute-", dir=base)
    state = os.path.join(work, "state")
    version = subprocess.run([reference, "--version"], capture_output=True, text=True)
    report = {lang.reference: (version.stdout or version.stderr).strip(), "runs": a.runs, "scripts": []}
    try:
        runtimes = a.runtime_dir or [None]
        for script in scripts:
            name = os.path.basename(script)[: -len(ext)]
            hwf_argv = [a.hwf, "run", script, "--state-dir", state, "--json", "--cpu-limit-ms", str(a.cpu_limit_ms)]
            ref_argv = lang.reference_argv(reference, script)

            def env_for(rt):
                return dict(os.environ, HWF_RUNTIME_DIR=rt) if rt else None

            # Warm-up: the compile cache, the page cache, and the results.
            out, _, _ = timed(ref_argv)
            ref_result = lang.reference_result(out.stdout)
            results = {}
            for rt in runtimes:
                out, _, _ = timed(hwf_argv, env_for(rt))
                try:
                    results[rt] = json.loads(out.stdout)["data"]["result"]
                except (ValueError, KeyError, TypeError):
                    print(f"{name}: hwf failed: {out.stdout.strip()[:400]} {out.stderr.strip()[:400]}", file=sys.stderr)
                    results[rt] = None
            hw = {rt: [] for rt in runtimes}
            hc = {rt: [] for rt in runtimes}
            nw, nc = [], []
            for _ in range(a.runs):
                for rt in runtimes:
                    if results[rt] is None:
                        continue
                    _, w, c = timed(hwf_argv, env_for(rt))
                    hw[rt].append(w)
                    hc[rt].append(c)
                _, w, c = timed(ref_argv)
                nw.append(w)
                nc.append(c)
            for rt in runtimes:
                if results[rt] is None:
                    report["scripts"].append({"name": name, "runtime": rt, "error": "hwf failed"})
                    continue
                same = results[rt] == ref_result
                row = {
                    "name": name,
                    "runtime": rt,
                    "same_result": same,
                    "hwf_wall_s": round(statistics.median(hw[rt]), 3),
                    "ref_wall_s": round(statistics.median(nw), 3),
                    "hwf_cpu_s": round(statistics.median(hc[rt]), 3),
                    "ref_cpu_s": round(statistics.median(nc), 3),
                    "hwf_wall_all": [round(x, 3) for x in hw[rt]],
                    "ref_wall_all": [round(x, 3) for x in nw],
                }
                row["wall_ratio"] = round(row["hwf_wall_s"] / row["ref_wall_s"], 2)
                row["cpu_ratio"] = round(row["hwf_cpu_s"] / max(row["ref_cpu_s"], 1e-3), 2)
                report["scripts"].append(row)
                label = f"{name} [{os.path.basename(os.path.normpath(rt))}]" if rt else name
                print(
                    f"{label:22} hwf {row['hwf_wall_s']:7.3f} s wall {row['hwf_cpu_s']:7.3f} s cpu | "
                    f"{lang.reference} {row['ref_wall_s']:6.3f} s wall {row['ref_cpu_s']:6.3f} s cpu | "
                    f"ratio wall {row['wall_ratio']:6.2f}x cpu {row['cpu_ratio']:6.2f}x"
                    + ("" if same else "  RESULTS DIFFER"),
                    file=sys.stderr,
                    flush=True,
                )
                if not same:
                    row["hwf_result"] = results[rt]
                    row["ref_result"] = ref_result
        for rt in runtimes:
            rows = [r for r in report["scripts"] if "wall_ratio" in r and r["runtime"] == rt]
            if rows:
                g = round(statistics.geometric_mean([r["wall_ratio"] for r in rows]), 2)
                worst = max(r["wall_ratio"] for r in rows)
                report.setdefault("summary", []).append({"runtime": rt, "geomean_wall_ratio": g, "max_wall_ratio": worst})
                print(f"{rt or 'hwf'}: geometric mean wall ratio {g}x, worst {worst}x", file=sys.stderr)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if a.json:
        print(json.dumps(report, indent=2))
    return 0
