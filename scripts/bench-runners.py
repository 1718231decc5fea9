#!/usr/bin/env python3
"""Runners on one store, measured through the real `hwf` binary (issue 16).

    scripts/bench-runners.py [--hwf target/release/hwf] [--store both|file|postgres]
                             [--runs 200] [--calls 3] [--runners 1,2,4] [--repeat 3]
                             [--lease-ms 2000] [--takeovers 5]

Throughput: RUNS runs are queued (`hwf run --background --queue-only`, not
timed), then N `hwf runner` processes start at once; the time is from their
start to the last run's `finished_at_ms`. Each run is the probe's `program` op
with CALLS fixture agent calls in order (no delay: the figure is the host's and
the store's overhead, not an agent's). runs/s = RUNS / time, calls/s = RUNS x
CALLS / time. Every repetition gets a fresh state dir (file) or a fresh
database (postgres); the figure is the median of the repetitions.

Takeover latency: one run whose second call takes 3 s is executed by runner A
while runner B idles; A is killed with SIGKILL mid-call; the latency is from
the kill to B's `run_started` line in the run's journal. On PostgreSQL that is
the rest of A's lease (renewed every third of it, so 2/3 to 3/3 of
--lease-ms) plus B's poll; on the file store A's flock is freed by its death.
Median of --takeovers kills.

PostgreSQL: a throwaway cluster of its own (scripts/pg-test-cluster.sh,
fsync on); runners get HWF_STORE=postgres://... and HWF_LEASE_MS. The probe
component comes from target/harnesses/probe.wasm (built by the e2e tests'
build script: `cargo build -j2 -p hwf --tests`).
"""

import argparse
import glob
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROBE = os.path.join(ROOT, "target", "harnesses", "probe.wasm")
TERMINAL = ("succeeded", "failed", "stopped", "cancelled")


def now_ms():
    return int(time.time() * 1000)


class Pg:
    """A throwaway cluster; one fresh database per use."""

    def __init__(self):
        out = subprocess.run(
            [os.path.join(ROOT, "scripts", "pg-test-cluster.sh"), "start"],
            check=True, capture_output=True, text=True,
        )
        self.conn = out.stdout.strip()
        self.dir = next(kv[5:] for kv in self.conn.split() if kv.startswith("host="))
        self.port = next((kv[5:] for kv in self.conn.split() if kv.startswith("port=")), "5432")
        bins = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda d: int(d.split("/")[-2]))
        self.psql = os.path.join(bins[-1], "psql") if bins else "psql"
        self.n = 0

    def sql(self, query, db="postgres"):
        out = subprocess.run(
            [self.psql, "-X", "-q", "-At", "-F", "\t", "-v", "ON_ERROR_STOP=1",
             "-c", query, f"host={self.dir} port={self.port} user=hwf dbname={db}"],
            capture_output=True, text=True,
        )
        if out.returncode != 0:
            raise RuntimeError(f"psql ({db}): {out.stderr.strip()}")
        return [line.split("\t") for line in out.stdout.splitlines() if line]

    def fresh(self):
        self.n += 1
        db = f"bench{self.n}"
        self.sql(f"CREATE DATABASE {db}")
        host = urllib.parse.quote(self.dir, safe="")
        return db, f"postgres://hwf@{host}:{self.port}/{db}"

    def stop(self):
        subprocess.run([os.path.join(ROOT, "scripts", "pg-test-cluster.sh"), "stop", self.dir],
                       capture_output=True)


class Store:
    """Where one measurement's runs live."""

    def __init__(self, kind, pg, tmp):
        self.kind = kind
        self.pg = pg
        self.state = os.path.join(tmp, "state")
        self.db = None
        self.url = None
        if kind == "postgres":
            self.db, self.url = pg.fresh()

    def env(self, args):
        env = dict(os.environ)
        env.pop("RUST_LOG", None)
        env["HWF_STATE_DIR"] = self.state
        env["HWF_CACHE_DIR"] = os.path.join(ROOT, "target", "test-cache")
        env["HOME"] = os.path.dirname(self.state)
        if self.url:
            env["HWF_STORE"] = self.url
            env["HWF_LEASE_MS"] = str(args.lease_ms)
        return env

    def runs(self):
        """(run id, state, finished_at_ms) of every run."""
        if self.kind == "file":
            out = []
            for path in glob.glob(os.path.join(self.state, "runs", "*", "run.json")):
                try:
                    with open(path) as f:
                        v = json.load(f)
                except (OSError, ValueError):
                    continue
                out.append((v.get("run_id"), v.get("state"), v.get("finished_at_ms")))
            return out
        rows = self.pg.sql(
            "SELECT run_id, state, coalesce(snapshot->>'finished_at_ms', '') FROM hwf_runs", self.db)
        return [(r[0], r[1], int(r[2]) if r[2] else None) for r in rows]

    def journal(self, run):
        if self.kind == "file":
            try:
                with open(os.path.join(self.state, "runs", run, "journal.jsonl")) as f:
                    text = f.read()
            except OSError:
                return []
            out = []
            for line in text.splitlines():
                try:
                    out.append(json.loads(line))
                except ValueError:
                    pass
            return out
        rows = self.pg.sql(f"SELECT line FROM hwf_journal WHERE run_id = '{run}' ORDER BY seq", self.db)
        return [json.loads(r[0]) for r in rows]


def fixture(tmp, slow_ms):
    path = os.path.join(tmp, "fixture.json")
    with open(path, "w") as f:
        json.dump({"responses": [
            {"match": {"label": "slow"}, "output": {"slow": True}, "delay_ms": slow_ms},
            {"output": {"ok": 1}},
        ]}, f)
    return path


def queue(args, store, agents, labels, n, prefix):
    program = {"seq": [{"agent": label} for label in labels]}
    run_args = json.dumps({"op": "program", "program": program})
    env = store.env(args)
    ids = []
    pending = []
    for i in range(n):
        rid = f"{prefix}{i:05d}"
        ids.append(rid)
        pending.append(subprocess.Popen(
            [args.hwf, "run", PROBE, "--background", "--queue-only", "--json", "--run-id", rid,
             "--args", run_args, "--agents", agents],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True))
        if len(pending) >= 8:
            for p in pending:
                if p.wait() != 0:
                    sys.exit(f"queueing failed: {p.stderr.read()}")
            pending = []
    for p in pending:
        if p.wait() != 0:
            sys.exit(f"queueing failed: {p.stderr.read()}")
    return ids


def runner(args, store, agents, log):
    return subprocess.Popen(
        [args.hwf, "runner", "--idle-exit-after", "300", "--agents", agents],
        env=store.env(args), stdout=subprocess.DEVNULL, stderr=log)


def throughput(args, kind, pg, k):
    tmp = tempfile.mkdtemp(prefix="hwf-bench-runners.")
    try:
        store = Store(kind, pg, tmp)
        agents = fixture(tmp, 0)
        labels = [f"c{i}" for i in range(args.calls)]
        queue(args, store, agents, labels, args.runs, "b")
        log = open(os.path.join(tmp, "runners.log"), "w")
        start = now_ms()
        procs = [runner(args, store, agents, log) for _ in range(k)]
        deadline = time.time() + 600
        try:
            while True:
                rows = store.runs()
                if sum(1 for r in rows if r[1] in TERMINAL) >= args.runs:
                    break
                if time.time() > deadline:
                    sys.exit(f"{kind} x{k}: not finished in 600 s")
                time.sleep(0.05)
        finally:
            for p in procs:
                p.kill()
                p.wait()
            log.close()
        bad = [r for r in rows if r[1] != "succeeded"]
        if bad:
            sys.exit(f"{kind} x{k}: {len(bad)} runs did not succeed, e.g. {bad[:3]}")
        end = max(r[2] for r in rows)
        return (end - start) / 1000.0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def takeover(args, kind, pg):
    tmp = tempfile.mkdtemp(prefix="hwf-bench-takeover.")
    out = []
    try:
        store = Store(kind, pg, tmp)
        agents = fixture(tmp, 3000)
        log = open(os.path.join(tmp, "runners.log"), "w")
        b = runner(args, store, agents, log)
        try:
            for i in range(args.takeovers):
                # A must win the run: B is stopped before the run is queued
                # and until A reached the slow call.
                b.send_signal(signal.SIGSTOP)
                rid = queue(args, store, agents, ["a", "slow", "b"], 1, f"t{i}-")[0]
                a = runner(args, store, agents, log)
                t = time.time()
                while True:
                    j = store.journal(rid)
                    if any(e.get("type") == "call_started" and e.get("call") == "2" for e in j):
                        break
                    if time.time() - t > 60:
                        sys.exit(f"{kind}: run {rid} never reached its slow call")
                    time.sleep(0.005)
                b.send_signal(signal.SIGCONT)
                lines = len(j)
                at = now_ms()
                a.kill()
                a.wait()
                t = time.time()
                while True:
                    j = store.journal(rid)
                    starts = [e for e in j[lines:] if e.get("type") == "run_started"]
                    if starts:
                        out.append(starts[0]["ts_ms"] - at)
                        break
                    if time.time() - t > 120:
                        sys.exit(f"{kind}: run {rid} never taken over")
                    time.sleep(0.005)
                while not any(r[0] == rid and r[1] in TERMINAL for r in store.runs()):
                    time.sleep(0.05)
        finally:
            b.send_signal(signal.SIGCONT)
            b.kill()
            b.wait()
            log.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--hwf", default=os.path.join(ROOT, "target", "release", "hwf"))
    p.add_argument("--store", default="both", choices=["both", "file", "postgres"])
    p.add_argument("--runs", type=int, default=200)
    p.add_argument("--calls", type=int, default=3)
    p.add_argument("--runners", default="1,2,4", help="runner counts to measure ('none': takeovers only)")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--lease-ms", type=int, default=2000)
    p.add_argument("--takeovers", type=int, default=5)
    args = p.parse_args()
    if not os.path.exists(PROBE):
        sys.exit(f"{PROBE} is missing: cargo build -j2 -p hwf --tests builds it")
    kinds = ["file", "postgres"] if args.store == "both" else [args.store]
    pg = Pg() if "postgres" in kinds else None
    try:
        print(f"hwf: {args.hwf}; {args.runs} runs x {args.calls} fixture agent calls; "
              f"median of {args.repeat}; nproc {os.cpu_count()}")
        print(f"{'store':<9} {'runners':>7} {'seconds':>8} {'runs/s':>8} {'calls/s':>8}")
        for kind in kinds:
            for k in [int(x) for x in args.runners.split(",") if x.strip() not in ("", "none")]:
                each = [throughput(args, kind, pg, k) for _ in range(args.repeat)]
                secs = statistics.median(each)
                print(f"{kind:<9} {k:>7} {secs:>8.2f} {args.runs / secs:>8.1f} "
                      f"{args.runs * args.calls / secs:>8.1f}   (each: {', '.join(f'{x:.2f}' for x in each)} s)",
                      flush=True)
        for kind in kinds:
            if args.takeovers <= 0:
                break
            lat = takeover(args, kind, pg)
            lease = f"lease {args.lease_ms} ms" if kind == "postgres" else "flock"
            print(f"takeover after kill -9, {kind} ({lease}): median {statistics.median(lat):.0f} ms, "
                  f"min {min(lat)} ms, max {max(lat)} ms, n={len(lat)}", flush=True)
    finally:
        if pg:
            pg.stop()


if __name__ == "__main__":
    main()
