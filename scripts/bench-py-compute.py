#!/usr/bin/env python3
"""Python compute in hwf against CPython, same machine, same run.

Runs each script of benches/py-compute/ (sorting, json, string building,
dict/set, the 200k data crunch: the JS set's work, written as seed-style
Python) as an hwf Python workflow and under CPython as the seed runs it
(`tests/e2e/idioms/seed_ref.py`: the body wrapped into the seed's async
entry function), alternating hwf and CPython run by run. Both must return
the same result. The loop is `compute_bench.py`, shared with
`bench-js-compute.py`.

Usage: scripts/bench-py-compute.py [--hwf target/release/hwf] [--python python3]
       [--runs 5] [--only crunch,json] [--json] [--runtime-dir DIR ...]
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compute_bench  # noqa: E402

BENCH_DIR = os.path.join(compute_bench.ROOT, "benches", "py-compute")
SEED_REF = os.path.join(compute_bench.ROOT, "tests", "e2e", "idioms", "seed_ref.py")
NO_AGENTS = os.path.join(BENCH_DIR, "no-agents.fixture.json")

PY = compute_bench.Lang(
    ext="py",
    bench_dir=BENCH_DIR,
    reference="python",
    default_reference=lambda: sys.executable or "python3",
    reference_argv=lambda python, script: [python, SEED_REF, script, NO_AGENTS, "null"],
    reference_result=lambda out: json.loads(out)["result"],
)

if __name__ == "__main__":
    sys.exit(compute_bench.main(PY, __doc__))
