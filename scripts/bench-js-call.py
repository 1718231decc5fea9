#!/usr/bin/env python3
"""A durable (`sync`) agent call as a whole process, JS and Rust, against the disk.

Per call = (an `hwf run` of N sequential fixture agent calls - a run of 1) /
(N - 1), for the JS runtime (one or more, `--runtime-dir`) and the Rust probe
harness, alternated round by round with a raw append + fdatasync of a
200-byte line to a file on the same disk (the state dir's). Prints the
median per call and its ratio to the raw flush.

Usage: scripts/bench-js-call.py [--hwf target/release/hwf]
       [--probe target/harnesses/probe.wasm] [--calls 300] [--rounds 5]
       [--runtime-dir DIR ...] [--dir /tmp]
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

SCRIPT = """export const meta = { name: "calls", description: "N sequential agent calls" };
let n = 0;
for (let i = 0; i < args.n; i++) {
  const r = await agent(`task ${i}`, { label: "echo" });
  if (r !== null) n++;
}
return n;
"""


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--hwf", default="target/release/hwf")
    p.add_argument("--probe", default="target/harnesses/probe.wasm")
    p.add_argument("--calls", type=int, default=300)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--runtime-dir", action="append", default=[])
    p.add_argument("--dir", default=tempfile.gettempdir(), help="where the state dir and the raw file go (the disk)")
    a = p.parse_args()

    work = tempfile.mkdtemp(prefix="hwf-js-call-", dir=a.dir)
    try:
        js = os.path.join(work, "calls.js")
        with open(js, "w") as f:
            f.write(SCRIPT)
        fx = os.path.join(work, "fx.json")
        with open(fx, "w") as f:
            json.dump({"responses": [{"match": {"label": "echo"}, "output": "ok", "tokens": 1}]}, f)
        fxr = os.path.join(work, "fxr.json")
        with open(fxr, "w") as f:
            json.dump({"responses": [{"match": {"agent": "bench.echo"}, "output": {"ok": True}, "tokens": 1}]}, f)
        state = os.path.join(work, "state")
        common = ["--state-dir", state, "--durability", "sync", "--max-calls", "1000000", "--max-agent-calls", "1000000"]

        def run(argv, env=None):
            t = time.perf_counter()
            out = subprocess.run(argv, env=env, capture_output=True, text=True)
            d = time.perf_counter() - t
            if out.returncode != 0:
                sys.exit(f"failed: {' '.join(argv)}: {out.stdout[-300:]} {out.stderr[-300:]}")
            return d

        def js_run(rt, n):
            env = dict(os.environ, HWF_RUNTIME_DIR=rt) if rt else None
            return run([a.hwf, "run", js, "--args", json.dumps({"n": n}), "--agents", fx, *common], env)

        def rust_run(n):
            return run([a.hwf, "run", a.probe, "--args", json.dumps({"op": "agent", "n": n}), "--agents", fxr, *common])

        def raw(n):
            path = os.path.join(work, "raw.log")
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
            line = b"x" * 199 + b"\n"
            t = time.perf_counter()
            for _ in range(n):
                os.write(fd, line)
                os.fdatasync(fd)
            d = time.perf_counter() - t
            os.close(fd)
            os.unlink(path)
            return d / n

        runtimes = a.runtime_dir or [None]
        names = ["raw", "rust"] + [f"js {rt}" if rt else "js" for rt in runtimes]
        res = {k: [] for k in names}
        for rt in runtimes:
            js_run(rt, 2)
        rust_run(2)
        n = a.calls
        for _ in range(a.rounds):
            res["raw"].append(raw(n))
            res["rust"].append((rust_run(n) - rust_run(1)) / (n - 1))
            for rt, name in zip(runtimes, names[2:]):
                res[name].append((js_run(rt, n) - js_run(rt, 1)) / (n - 1))
            res["raw"].append(raw(n))
        floor = statistics.median(res["raw"])
        report = {}
        for k, v in res.items():
            m = statistics.median(v)
            report[k] = {"per_call_us": round(m * 1e6, 1), "ratio_to_raw": round(m / floor, 2), "all_us": [round(x * 1e6) for x in v]}
            print(f"{k:30} {m * 1e6:8.1f} us  {m / floor:5.2f}x raw", file=sys.stderr)
        print(json.dumps(report))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
