#!/usr/bin/env python3
"""Issue 30's three bounds through a built `hwf`, as the commands report them.

    scripts/bench-issue30.py HWF [--runs 9] [--stored 1000] [--calls 100] [--state DIR]

- `hwf test SCRIPT --cassette RUN --json` of a 1,000-call run: `walk_us`
  (the walk alone), goal <= 50 ms;
- `hwf run SCRIPT --resume-from RUN --plan --json` of the same run:
  `plan_us` (reading, indexing, walking; `read_us`, `index_us` inside it)
  and `load_us` beside it, goal <= 50 ms;
- `hwf replay-check SCRIPT --runs all --json` over STORED runs of CALLS
  agent calls each: `check_us` and the whole process's wall time, goal
  <= 10 s for 1,000 runs of 100 calls, with the process's CPU time (load
  does not change it: CPU time / cores is the wall time on a quiet
  machine); then the same against a script changed at call 51 (every run
  should diverge there).

The workload is the e2e test's (`cassettes.rs`,
`a_thousand_call_cassette_and_plan_are_timed`): a JS loop of sequential
agent calls (`task ${i}`, label `echo`) answered by a fixture, recorded
live with `--durability async`. The 1,000-call measurements are
interleaved (test, plan, test, plan, ...) so both see the same minutes
of load; the load average is printed before and after each set. With
`--state DIR` an existing state dir (its stored runs) is reused, so the
1,000 stored runs are recorded once.
"""

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

SCRIPT = (
    'export const meta = { name: "calls", description: "n sequential agent calls" };\n'
    "let n = 0;\n"
    "for (let i = 0; i < args.n; i++) {\n"
    "  const r = await agent(`task ${i}`, { label: \"echo\" });\n"
    "  if (r !== null) n++;\n"
    "}\n"
    "return n;\n"
)
# The same workflow with call 51's prompt changed (a replay-check divergence).
CHANGED = SCRIPT.replace(
    "await agent(`task ${i}`",
    "await agent(i === 50 ? `task ${i}, carefully` : `task ${i}`",
)
FIXTURE = '{"responses": [{"match": {"label": "echo"}, "output": "ok", "tokens": 1}]}'


def load():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def hwf(bin_, state, *args, code=(0,)):
    p = subprocess.run([bin_, "--state-dir", state, *args], capture_output=True, text=True)
    if p.returncode not in code:
        sys.exit(f"hwf {' '.join(args)}: exit {p.returncode}\n{p.stdout[-2000:]}\n{p.stderr[-2000:]}")
    return p


def data(p):
    return json.loads(p.stdout)["data"]


def ms(us):
    return us / 1000.0


def summary(name, xs, unit="ms"):
    xs = sorted(xs)
    print(f"{name}: median {statistics.median(xs):.1f} {unit} (min {xs[0]:.1f}, max {xs[-1]:.1f}, n={len(xs)})")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("hwf")
    ap.add_argument("--runs", type=int, default=9, help="timed runs per figure")
    ap.add_argument("--stored", type=int, default=1000, help="stored runs for replay-check (0: skip)")
    ap.add_argument("--calls", type=int, default=100, help="agent calls per stored run")
    ap.add_argument("--checks", type=int, default=3, help="timed replay-checks per script")
    ap.add_argument("--state", help="state dir to use (kept; reused if it has the runs)")
    a = ap.parse_args()
    bin_ = os.path.abspath(a.hwf)
    work = tempfile.mkdtemp(prefix="hwf-bench30-")
    # Two state dirs: the 1,000-call run apart from the stored runs, so
    # replay-check sees only the latter.
    big_state = os.path.join(work, "big")
    state = a.state or os.path.join(work, "stored")
    os.makedirs(state, exist_ok=True)
    os.makedirs(big_state, exist_ok=True)
    script = os.path.join(work, "calls.js")
    changed = os.path.join(work, "changed", "calls.js")
    fixture = os.path.join(work, "echo.json")
    os.makedirs(os.path.dirname(changed))
    for path, text in ((script, SCRIPT), (changed, CHANGED), (fixture, FIXTURE)):
        with open(path, "w") as f:
            f.write(text)
    print(f"{hwf(bin_, state, '--version').stdout.strip()}; stored runs in {state}")

    # 1. A 1,000-call run: its cassette walk and its plan.
    out = hwf(bin_, big_state, "run", script, "--args", '{"n": 1000}', "--agents", fixture,
              "--durability", "async", "--max-agent-calls", "2000", "--json")
    big = data(out)["run_id"]
    hwf(bin_, big_state, "test", script, "--cassette", big, "--json")  # warm the caches
    walks, plans, loads, reads, indexes = [], [], [], [], []
    print(f"load before the 1,000-call set: {load()}")
    for _ in range(a.runs):
        d = data(hwf(bin_, big_state, "test", script, "--cassette", big, "--json"))
        assert d["replayed"] == 1000, d
        walks.append(ms(d["walk_us"]))
        d = data(hwf(bin_, big_state, "run", script, "--resume-from", big, "--plan", "--json"))
        assert (d["replayed"], d["live"], d["run_created"]) == (1000, 0, False), d
        plans.append(ms(d["plan_us"]))
        loads.append(ms(d["load_us"]))
        if "read_us" in d:  # binaries before the one-pass plan lack them
            reads.append(ms(d["read_us"]))
            indexes.append(ms(d["index_us"]))
    print(f"load after: {load()}")
    summary("hwf test, 1,000-call cassette (walk_us)", walks)
    summary("plan of a 1,000-call journal (plan_us)", plans)
    if reads:
        summary("  of which read_us", reads)
        summary("  of which index_us", indexes)
    summary("  load_us beside it", loads)

    # 2. replay-check over STORED runs of CALLS calls.
    if a.stored:
        have = data(hwf(bin_, state, "overview", "--state", "succeeded", "--limit", "1", "--json"))["total"]
        need = a.stored - have
        t0 = time.monotonic()
        for _ in range(max(0, need)):
            hwf(bin_, state, "run", script, "--args", json.dumps({"n": a.calls}), "--agents", fixture,
                "--durability", "async", "--json")
        if need > 0:
            print(f"recorded {need} runs of {a.calls} calls in {time.monotonic() - t0:.1f} s")
        for name, target, code in (("unchanged", script, (0,)), ("changed at call 51", changed, (1,) if a.calls > 50 else (0,))):
            checks, walls, cpus = [], [], []
            print(f"load before replay-check ({name}): {load()}")
            for _ in range(a.checks):
                t0 = time.monotonic()
                r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
                d = data(hwf(bin_, state, "replay-check", target, "--runs", "all", "--json", code=code))
                r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
                walls.append(time.monotonic() - t0)
                cpus.append(r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime)
                checks.append(d["check_us"] / 1e6)
            n = len(d["runs"])
            div = d["diverging"]
            at = sorted({r.get("diverges_at") for r in d["runs"] if r.get("diverges_at")})
            print(f"load after: {load()}")
            summary(f"replay-check {name}, {n} runs (check_us)", checks, "s")
            summary(f"  whole process", walls, "s")
            # CPU time does not grow with other processes' load: over the
            # cores the check uses, it bounds the wall time on a quiet machine.
            summary(f"  CPU (user + sys) of the process, {os.cpu_count()} cores", cpus, "s")
            print(f"  diverging {div}; diverges at {at[:5]}")


if __name__ == "__main__":
    main()
