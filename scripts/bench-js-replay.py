#!/usr/bin/env python3
"""JavaScript replay and per-call cost, measured through the `hwf` binary.

Runs a JavaScript workflow of N sequential fixture agent calls once (live),
then resumes it R times with an empty agent backend (every call replayed:
a call that ran live would fail the run), in a state dir on tmpfs
(/dev/shm when it exists) so fsync does not dominate. Prints medians as
JSON:

- replay_whole_process_ms: the whole `hwf run --resume-from` process;
- replay_in_run_ms: the resumed run's own `duration_ms` (journal
  `run_started` to `run_completed`: the script, its N replayed calls and
  the run's end, without process start and the source journal's read);
- replay_process_cpu_ms: that process's user + system CPU (steadier than
  wall time on a loaded machine);
- live_per_call_us: a live run's `duration_ms` / N (fixture agents,
  durability as given, sync by default; on tmpfs the fdatasync is cheap).

Usage: scripts/bench-js-replay.py [--hwf target/release/hwf] [--calls 1000]
       [--runs 7] [--durability sync|group|async] [--state DIR]
Nothing is fetched; the runtime must be installed (target/harnesses).
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

SCRIPT = """export const meta = { name: "replay-bench", description: "N sequential agent calls" };
let n = 0;
for (let i = 0; i < args.n; i++) {
  const r = await agent(`task ${i}`, { label: "echo" });
  if (r !== null) n++;
}
return n;
"""

FIXTURE = {"responses": [{"match": {"label": "echo"}, "output": "ok", "tokens": 1}]}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--hwf", default="target/release/hwf")
    p.add_argument("--calls", type=int, default=1000)
    p.add_argument("--runs", type=int, default=7)
    p.add_argument("--durability", default="sync")
    p.add_argument("--state", default=None, help="state dir (default: a fresh one on /dev/shm)")
    a = p.parse_args()

    base = "/dev/shm" if os.path.isdir("/dev/shm") else None
    work = tempfile.mkdtemp(prefix="hwf-js-replay-", dir=base)
    try:
        script = os.path.join(work, "calls.js")
        with open(script, "w") as f:
            f.write(SCRIPT)
        fixture = os.path.join(work, "fixture.json")
        with open(fixture, "w") as f:
            json.dump(FIXTURE, f)
        empty = os.path.join(work, "empty.json")
        with open(empty, "w") as f:
            json.dump({"responses": []}, f)
        state = a.state or os.path.join(work, "state")
        limits = ["--max-calls", str(4 * a.calls + 100), "--max-agent-calls", str(a.calls + 10)]
        common = ["--state-dir", state, "--json", *limits, "--durability", a.durability]
        runs_dir = os.path.join(state, "runs")

        def run(argv):
            before = os.times()
            t = time.perf_counter()
            out = subprocess.run([a.hwf, "run", *argv, *common], capture_output=True, text=True)
            wall = time.perf_counter() - t
            after = os.times()
            cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
            try:
                data = json.loads(out.stdout)["data"]
            except (ValueError, KeyError):
                sys.exit(f"hwf run failed ({out.returncode}): {out.stderr.strip()[-2000:]}")
            if data.get("state") != "succeeded":
                sys.exit(f"run {data.get('run_id')} ended {data.get('state')}: {data.get('error')}")
            return data, wall, cpu

        def duration_ms(run_id):
            with open(os.path.join(runs_dir, run_id, "journal.jsonl"), "rb") as f:
                f.seek(0, os.SEEK_END)
                f.seek(max(0, f.tell() - 4096))
                last = f.read().splitlines()[-1]
            return json.loads(last)["duration_ms"]

        args = ["--args", json.dumps({"n": a.calls})]
        # The first run of a language in a fresh cache compiles the runtime: warm it.
        run([script, *args, "--agents", fixture])
        lives = []
        for _ in range(max(1, a.runs // 2)):
            data, _, _ = run([script, *args, "--agents", fixture])
            lives.append(duration_ms(data["run_id"]) * 1000.0 / a.calls)
        source = data["run_id"]
        walls, inrun, cpus = [], [], []
        for _ in range(a.runs):
            data, wall, cpu = run(["--resume-from", source, "--agents", empty])
            counts = data["counts"]
            if counts["replayed"] != a.calls or counts["failed"] != 0:
                sys.exit(f"not every call replayed: {counts}")
            walls.append(wall * 1000.0)
            cpus.append(cpu * 1000.0)
            inrun.append(duration_ms(data["run_id"]))
        print(
            json.dumps(
                {
                    "hwf": a.hwf,
                    "calls": a.calls,
                    "runs": a.runs,
                    "durability": a.durability,
                    "replay_whole_process_ms": round(statistics.median(walls), 1),
                    "replay_in_run_ms": statistics.median(inrun),
                    "replay_process_cpu_ms": round(statistics.median(cpus), 1),
                    "live_per_call_us": round(statistics.median(lives), 1),
                    "all": {"replay_whole_process_ms": [round(w, 1) for w in walls], "replay_in_run_ms": inrun},
                },
                indent=2,
            )
        )
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
