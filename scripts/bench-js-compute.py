#!/usr/bin/env python3
"""JavaScript compute in hwf against Node, same machine, same run.

Runs each script of benches/js-compute/ (sorting, JSON, string building,
Map/Set, the 200k data crunch) as an hwf JavaScript workflow (`hwf run`,
whole process, warm compile cache, state on /dev/shm when it exists) and
under Node (`benches/js-compute/node-run.mjs`: the same file, its body run
as an async function of `args`, as hwf runs it), alternating hwf and Node
run by run. Both must return the same result. Prints one line per script
(medians of wall time and of the process's user + system CPU, and the
hwf / Node ratios) and, with --json, the whole report.

The loop is `compute_bench.py`, shared with `bench-py-compute.py`.

Usage: scripts/bench-js-compute.py [--hwf target/release/hwf] [--node node]
       [--runs 5] [--only crunch,json] [--json] [--runtime-dir DIR ...]
With --runtime-dir (repeatable), hwf runs each script with each of those
JS runtimes (HWF_RUNTIME_DIR) in turn, alternating with Node, so a runtime
before and after a change is measured in the same minutes.
The scripts need more guest CPU than the 5 s default limit before the
speed work; the bench passes --cpu-limit-ms (default 600000).
"""

import json
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compute_bench  # noqa: E402

BENCH_DIR = os.path.join(compute_bench.ROOT, "benches", "js-compute")

JS = compute_bench.Lang(
    ext="js",
    bench_dir=BENCH_DIR,
    reference="node",
    default_reference=lambda: shutil.which("node") or "/usr/bin/node",
    reference_argv=lambda node, script: [node, os.path.join(BENCH_DIR, "node-run.mjs"), script],
    reference_result=json.loads,
)

if __name__ == "__main__":
    sys.exit(compute_bench.main(JS, __doc__))
