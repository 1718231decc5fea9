#!/usr/bin/env python3
"""`hwf bench --compare`: the same workloads through the seeds' Python systems.

Run by `hwf bench --compare` once per interpreter it is given (both seeds
install a package named `hermes_workflows`, so each needs its own
environment: see docs/BENCHMARKS.md for how to install them). Detects which
system the interpreter has, runs the workloads and prints one JSON object:

- `system`: `s0` (github:donovan-yohan/hermes-plugin-dynamic-workflows,
  distribution `hermes_workflows`) or `s1` (github:skylarbpayne/hermes-workflows,
  distribution `hermes-workflows`), with its version; or `absent` with the
  reason (nothing is measured then: no figure is ever made up);
- `trivial_run_process_ms`: a whole process (interpreter start, import, one
  run of a one-agent-call workflow against a fake agent), median;
- `durable_call_us` / `async_call_us` / `no_store_call_us`: per sequential
  fake agent call, the run of N calls minus the run of 1, over N - 1
  (S0: its file store in `sync` and `async` journal durability and with no
  store; S1: its SQLite engine, which has one mode);
- `replay_calls_ms`: S0 only: a run of N calls served again from the
  source run's replay cache (`replay_from`), with an agent that refuses.

Nothing is fetched or installed: a missing package is reported as absent.
Usage: bench-compare.py [--calls N] [--runs R] [--starts S] [--quick]
"""

import argparse
import importlib.metadata as md
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

S0_SCRIPT = """meta = {"name": "bench", "description": "n sequential agent calls"}
i = 0
while i < args["n"]:
    r = await agent("hermes.bench_echo", {"i": i})
    i = i + 1
return i
"""


def which_system():
    """('s0' | 's1', version), or ('absent', why)."""
    try:
        dist = md.distribution("hermes_workflows")
    except md.PackageNotFoundError:
        return "absent", "no hermes_workflows / hermes-workflows distribution in " + sys.executable
    name = (dist.metadata.get("Name") or "").lower()
    version = dist.version
    # S0 publishes `hermes_workflows` (setuptools, src/hermes_workflows/vm.py);
    # S1 `hermes-workflows` (hatch, src/hermes_workflows/engine.py).
    try:
        if name == "hermes_workflows" or _has("hermes_workflows.vm"):
            return "s0", version
        if name == "hermes-workflows" or _has("hermes_workflows.engine"):
            return "s1", version
    except Exception as e:  # an install that does not import
        return "absent", f"{name} {version} does not import: {e}"
    return "absent", f"unrecognised distribution {name} {version}"


def _has(module):
    import importlib.util

    return importlib.util.find_spec(module) is not None


def med_ms(xs):
    return round(statistics.median(xs) * 1000.0, 3)


# -- S0: hermes-plugin-dynamic-workflows ------------------------------------


def s0_run(n, root, durability, run_id=None, replay_from=None, runner=None):
    from hermes_workflows import run_workflow_script
    from hermes_workflows.agents import register_known_agent
    from hermes_workflows.script_store import ScriptRunStore

    register_known_agent("hermes.bench_echo")

    store = None if durability is None else ScriptRunStore(root, durability=durability)
    runner = runner or (lambda agent_id, inp: {"ok": True})
    t = time.perf_counter()
    res = run_workflow_script(
        S0_SCRIPT,
        args={"n": n},
        agent_runner=runner,
        store=store,
        run_id=run_id,
        replay_from=replay_from,
        deterministic_runner=True,
    )
    d = time.perf_counter() - t
    value = getattr(res, "value", None)
    if value != n:
        raise RuntimeError(f"s0 run of {n} calls returned {value!r}: {getattr(res, 'error', None)}")
    return d, res


def s0_per_call(n, runs, tmp, durability):
    ones, ns = [], []
    for r in range(runs):
        root = os.path.join(tmp, f"s0-{durability}-{r}")
        ones.append(s0_run(1, root, durability)[0])
        ns.append(s0_run(n, root, durability)[0])
    return round((statistics.median(ns) - statistics.median(ones)) / (n - 1) * 1e6, 1)


def s0_replay(n, runs, tmp):
    root = os.path.join(tmp, "s0-replay")
    _, res = s0_run(n, root, "sync", run_id="bench-source")

    def refuse(agent_id, inp):
        raise RuntimeError("replay called the agent")

    times = []
    for r in range(runs):
        d, _ = s0_run(n, root, "sync", run_id=f"bench-replay-{r}", replay_from="bench-source", runner=refuse)
        times.append(d)
    return med_ms(times)


# -- S1: hermes-workflows ---------------------------------------------------


def s1_run(n, db, wid):
    from hermes_workflows import WorkflowEngine, agent, workflow

    @workflow
    async def bench(inputs):
        for i in range(inputs["n"]):
            await agent(f"echo{i}", prompt=f"task {i}", key=f"k{i}", mock_output={"ok": True})
        return inputs["n"]

    engine = WorkflowEngine(db)
    t = time.perf_counter()
    res = engine.run_until_idle(bench, {"n": n}, workflow_id=wid)
    d = time.perf_counter() - t
    if getattr(res, "status", None) != "completed":
        raise RuntimeError(f"s1 run of {n} calls ended {getattr(res, 'status', '?')}: {getattr(res, 'error', '')}")
    return d


def s1_per_call(n, runs, tmp):
    ones, ns = [], []
    for r in range(runs):
        db = os.path.join(tmp, f"s1-{r}.sqlite")
        ones.append(s1_run(1, db, f"one-{r}"))
        ns.append(s1_run(n, db, f"n-{r}"))
    return round((statistics.median(ns) - statistics.median(ones)) / (n - 1) * 1e6, 1)


# -- one trivial run, as its own process ------------------------------------


def trivial_child(system, tmp):
    if system == "s0":
        s0_run(1, os.path.join(tmp, "s0-trivial"), "sync")
    else:
        s1_run(1, os.path.join(tmp, "s1-trivial.sqlite"), f"t-{os.getpid()}")


def trivial_starts(starts, tmp):
    times = []
    for _ in range(starts):
        t = time.perf_counter()
        subprocess.run([sys.executable, __file__, "--trivial-child", tmp], check=True, stdout=subprocess.DEVNULL)
        times.append(time.perf_counter() - t)
    return med_ms(times)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--calls", type=int, default=200)
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--starts", type=int, default=5)
    p.add_argument("--quick", action="store_true")
    p.add_argument("--trivial-child", metavar="TMP", help=argparse.SUPPRESS)
    a = p.parse_args()
    system, version = which_system()
    if a.trivial_child:
        trivial_child(system, a.trivial_child)
        return 0
    if system == "absent":
        print(json.dumps({"system": "absent", "reason": version, "python": sys.executable}))
        return 0
    if a.quick:
        a.calls, a.runs, a.starts = 10, 1, 1
    tmp = tempfile.mkdtemp(prefix=f"hwf-compare-{system}-", dir=os.environ.get("HWF_BENCH_TMP"))
    out = {"system": system, "version": version, "python": sys.executable, "calls": a.calls}
    try:
        out["trivial_run_process_ms"] = trivial_starts(a.starts, tmp)
        if system == "s0":
            out["durable_call_us"] = s0_per_call(a.calls, a.runs, tmp, "sync")
            out["async_call_us"] = s0_per_call(a.calls, a.runs, tmp, "async")
            out["no_store_call_us"] = s0_per_call(a.calls, a.runs, tmp, None)
            out["replay_calls_ms"] = s0_replay(a.calls, a.runs, tmp)
        else:
            # Each step re-runs the workflow function from the top (replay
            # in SQLite): the cost grows with the run; fewer calls keep it
            # to seconds.
            n = min(a.calls, 50)
            out["durable_call_us"] = s1_per_call(n, a.runs, tmp)
            out["durable_call_calls"] = n
    except Exception as e:
        out["error"] = f"{type(e).__name__}: {e}"
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
