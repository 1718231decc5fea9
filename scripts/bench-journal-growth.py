#!/usr/bin/env python3
"""Journal growth of a growing conversation, measured through the `hwf` binary.

A JavaScript loop of N agent calls whose prompt is the conversation so far
(a pseudo-random base of B bytes, then each ~2 KB fixture answer appended;
the script is `tests/e2e/journal_cas.rs`'s GROW_JS) runs once live, then is
resumed with `--resume-from` and an empty agent backend (every call must
replay: a live call would fail the run). Prints JSON with, for each step:

- state_bytes: every file under the state dir afterwards (no compile
  cache: it is kept elsewhere), journal_bytes (the run's journal.jsonl),
  chunk_bytes (`chunks/`);
- wall_s, peak_rss_mib (the hwf process, from /usr/bin/time -v);
- the run's state and error code (a journal_limit shows here).

Usage: scripts/bench-journal-growth.py [--hwf target/release/hwf]
       [--base 204800] [--calls 100] [--state DIR]
The runtime must be installed next to the binary (target/harnesses).
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def grow_js():
    src = open(os.path.join(HERE, "..", "tests", "e2e", "journal_cas.rs")).read()
    return re.search(r'pub const GROW_JS: &str = r#"(.*?)"#;', src, re.S).group(1)


def fixture(n):
    x, m, answers = 7, (1 << 64) - 1, []
    for i in range(n):
        s = f"answer {i}: "
        while len(s) < 2000:
            x ^= (x << 13) & m
            x ^= x >> 7
            x ^= (x << 17) & m
            s += f"{x % 1000003:x} "
        answers.append({"output": s})
    return {"responses": [{"match": {"label": "turn"}, "sequence": answers}]}


def tree_bytes(path):
    total = 0
    for root, _, files in os.walk(path):
        for f in files:
            try:
                total += os.path.getsize(os.path.join(root, f))
            except OSError:
                pass
    return total


def timed(cmd, env, cwd):
    out = subprocess.run(["/usr/bin/time", "-v"] + cmd, env=env, cwd=cwd, capture_output=True, text=True)
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", out.stderr)
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([\d.]+)", out.stderr)
    secs = None
    if wall:
        h, m, s = wall.groups()
        secs = int(h or 0) * 3600 + int(m) * 60 + float(s)
    try:
        data = json.loads(out.stdout)
    except json.JSONDecodeError:
        sys.exit(f"hwf printed no JSON (exit {out.returncode}): {out.stderr[-2000:]}")
    return data, secs, int(rss.group(1)) / 1024 if rss else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--hwf", default=os.path.join(HERE, "..", "target", "release", "hwf"))
    ap.add_argument("--base", type=int, default=204800)
    ap.add_argument("--calls", type=int, default=100)
    ap.add_argument("--state")
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="hwf-growth-")
    state = a.state or os.path.join(work, "state")
    open(os.path.join(work, "grow.js"), "w").write(grow_js())
    json.dump(fixture(a.calls), open(os.path.join(work, "grow.fixture.json"), "w"))
    json.dump({"responses": []}, open(os.path.join(work, "empty.json"), "w"))
    # The JS runtime copies the conversation into and out of the sandbox on
    # every call: long runs need more than the default 5 s of guest CPU.
    open(os.path.join(work, "hwf.toml"), "w").write("[limits]\ncpu_ms = 3600000\n")
    # Compiled runtimes: $HWF_CACHE_DIR when set (warm), else a fresh one
    # (the first run then includes compiling the JS runtime).
    env = dict(os.environ, HWF_STATE_DIR=state)
    env.setdefault("HWF_CACHE_DIR", os.path.join(work, "cache"))
    env.pop("HWF_AGENTS", None)
    args = json.dumps({"base": a.base, "calls": a.calls})
    report = {"base": a.base, "calls": a.calls}
    live, secs, rss = timed([a.hwf, "run", "grow.js", "--args", args, "--agents", "grow.fixture.json", "--json"], env, work)
    run = live["data"]["run_id"]
    journal = os.path.join(state, "runs", run, "journal.jsonl")
    report["live"] = {
        "state": live["data"].get("state"),
        "error": (live.get("error") or {}).get("code"),
        "agent_calls": live["data"].get("counts", {}).get("agent_calls"),
        "wall_s": secs,
        "peak_rss_mib": rss,
        "state_bytes": tree_bytes(state),
        "journal_bytes": os.path.getsize(journal),
        "chunk_bytes": tree_bytes(os.path.join(state, "chunks")),
    }
    before = report["live"]["state_bytes"]
    again, secs, rss = timed([a.hwf, "run", "--resume-from", run, "--agents", "empty.json", "--json"], env, work)
    report["resume"] = {
        "state": again["data"].get("state"),
        "error": (again.get("error") or {}).get("code"),
        "replayed": again["data"].get("counts", {}).get("replayed"),
        "wall_s": secs,
        "peak_rss_mib": rss,
        "added_bytes": tree_bytes(state) - before,
        "journal_bytes": os.path.getsize(os.path.join(state, "runs", again["data"]["run_id"], "journal.jsonl")),
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
