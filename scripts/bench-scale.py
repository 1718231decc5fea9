#!/usr/bin/env python3
"""Scale at agent latency, measured through the real `hwf` binary (issue 25, item 5).

    scripts/bench-scale.py [--hwf target/release/hwf] [--store both|file|postgres]
                           [--only queued,answered,background,fanout,conversation]
                           [--delay-ms 1000] [--repeat 1]
                           [--runs 200] [--calls 3] [--runners 1,4] [--concurrency N]
                           [--answered 1000] [--answer-concurrency 250]
                           [--background 40] [--background-pg 200]
                           [--fanout 10000] [--fanout-width 64]
                           [--turns 100,1000] [--base-kb 200,836] [--answer-kb 2]
                           [--hwf-config hwf.toml] [--json-out FILE] [--keep]

Small run (a couple of minutes, debug binary):
    scripts/bench-scale.py --hwf target/debug/hwf --delay-ms 200 --runs 10 --calls 2 \
        --runners 1,2 --answered 10 --answer-concurrency 4 --background 10 --background-pg 10 \
        --fanout 100 --fanout-width 16 --turns 5,20 --base-kb 20

Every agent is a fixture (`--agents FILE` on `hwf run`; the run records it
and the runners use it): label `step` answers `{"ok": true}` after
--delay-ms (default 1 s: an agent's latency, so the figures show how well
hwf overlaps waiting, not its per-call overhead, which bench-runners.py and
`hwf bench` measure). Each call of a run has its own prompt: a run answers
a repeated identical request from its cache (`cache_hit`), not the agent.
Each measurement gets a fresh state dir (file store)
or a fresh database in a throwaway cluster (PostgreSQL, via
scripts/pg-test-cluster.sh, fsync on; the state dir is then only the
machine's own). Every command gets `--state-dir DIR` (and `--store URL`)
on its command line, so the hwf processes serving one measurement are
found by scanning /proc/*/cmdline. Setup (queueing, parking, answering) is
not timed and runs 8 commands at once (--workers). Run end times are the
runs' own `finished_at_ms` (run.json, or hwf_runs on PostgreSQL), so the
poll interval does not add to a figure. Peak RSS is the process's
ru_maxrss (wait4) for processes this script starts, or the largest VmHWM
seen in /proc for the detached background runner. With --repeat > 1 the
figure is the median (each repetition is listed in the JSON).

queued: RUNS runs (default 200) of CALLS sequential `step` calls (default
  3) are queued (`hwf run --background --queue-only`), then N `hwf runner
  --idle-exit-after 1` processes start at once (--runners 1,4; --concurrency
  for their slots, else hwf's default of 64). Figure: from the runners'
  start to the last run's finish. Ideal: CALLS x delay when every run has a
  slot; with fewer slots than runs, ceil(RUNS / (N x slots)) x CALLS x delay
  (printed as "waves").

answered: RUNS runs (--answered, default 1000) of [human.ask, one `step`
  call] are queued and parked (one untimed `hwf runner --once` executes them
  to their ask: the same park as a foreground `hwf run` that exits 3, in
  one process instead of RUNS), then every ask is answered (`hwf control decide <run> 1
  respond --value '"yes"'`). Then one `hwf runner --once --concurrency K`
  (default 250) continues them all. Figure: the runner process's wall time
  (start to exit), its peak RSS, runs/s. Ideal: ceil(RUNS / K) x delay.
  Then the same with `hwf serve --port 0 --concurrency K` (its in-process
  runner) started after the answers: from its start to the last run's
  finish, and its peak RSS (the process is stopped once all are done).

background: B runs (default 40; --background-pg, default 200, on
  PostgreSQL) of two `step` calls are submitted one after another with
  `hwf run --background` (no --queue-only: each makes sure the state dir's
  background runner is alive). Figure: from the first submit to the last
  run's finish; the submits' own time; the peak number of hwf processes
  alive for the state dir (all, and runners; sampled every 20 ms); the
  runners' peak RSS; failed submits (non-zero exit) and runs that did not
  succeed (both must be 0); hwf processes still alive 10 s after the last
  finish (the background runner exits after 5 s idle, so 0 is expected).

fanout: one JavaScript run (`hwf run fanout.js --max-parallel W`, default
  W 64) makes N `step` calls (default 10000; ~157 s at 1 s and width 64)
  with parallel(); a parallel() call takes at most 4096 thunks, so the
  script makes ceil(N / 4096) parallel() calls one after another (4096 is a
  multiple of 64: no slot is lost at the seams). Figure: the `hwf run`
  process's wall time and peak RSS, the store's bytes. Ideal:
  ceil(N / W) x delay.

conversation: one JavaScript run per (K turns, B KB base) pair
  (--turns 100,1000 x --base-kb 200,836): a loop of K agent() calls whose
  prompt is the conversation so far, i.e. B KB of base text plus each
  previous answer (the fixture answers a fixed --answer-kb (2) KB string),
  so prompt k is B KB + k x 2 KB. The base text is pseudo-random words
  written into the script as a literal. The agent answers at
  --conv-delay-ms (default 0: this one measures bytes and replay, not
  waiting). Figures: the store's bytes after the run (du of the state dir;
  on PostgreSQL the database's size growth), wall time and peak RSS of the
  `hwf run`, then `hwf run --resume-from <id>` (every call replayed; the
  fixture is given too, for what a failed run left undone): its wall time
  and the bytes it added. PostgreSQL compresses (TOAST) the repetitive
  prompts, so its bytes are not comparable with the file store's. A run that fails (e.g. `journal_limit`,
  the journal's 256 MiB limit) is reported with its error code and the
  agent calls it made as the figure (--hwf-config with `[limits]
  max_journal_bytes = 1048576` shows that path at small sizes).

The probe component comes from target/harnesses/probe.wasm (built by the
e2e tests' build script: `cargo build -j2 -p hwf --tests`). One untimed
probe run and one untimed JS run first warm the compile cache
(HWF_CACHE_DIR=target/test-cache, shared by every measurement).
"""

import argparse
import concurrent.futures
import glob
import json
import math
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROBE = os.path.join(ROOT, "target", "harnesses", "probe.wasm")
CACHE = os.path.join(ROOT, "target", "test-cache")
TERMINAL = ("succeeded", "failed", "stopped", "cancelled")
SCENARIOS = ("queued", "answered", "background", "fanout", "conversation")
ARGS = None  # the parsed command line
TMP_DIRS = []  # every temp dir made, for the final clean-up


def now_ms():
    return int(time.time() * 1000)


def log(msg):
    print(f"# {msg}", file=sys.stderr, flush=True)


def median(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


# --- PostgreSQL --------------------------------------------------------------


def _bench_runners():
    """scripts/bench-runners.py as a module (its name has a hyphen)."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("bench_runners", os.path.join(ROOT, "scripts", "bench-runners.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Pg(_bench_runners().Pg):
    """bench-runners.py's throwaway cluster (one fresh database per
    measurement), whose databases are also dropped once measured."""

    def drop(self, db):
        try:
            self.sql(f"DROP DATABASE IF EXISTS {db} WITH (FORCE)")
        except RuntimeError as e:
            log(f"drop {db}: {e}")


# --- processes ---------------------------------------------------------------


def hwf_procs(state):
    """(pid, argv) of every live hwf process whose command line names `state`."""
    name = os.path.basename(ARGS.hwf).encode()
    needle = state.encode()
    out = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/cmdline", "rb") as f:
                raw = f.read()
        except OSError:
            continue
        argv = raw.split(b"\0")
        if not argv or not argv[0] or os.path.basename(argv[0]) != name or needle not in raw:
            continue
        out.append((int(d), [a.decode(errors="replace") for a in argv if a]))
    return out


def vm_hwm_kb(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return None


class Proc:
    """A child process reaped with wait4, for its exit code, wall time and
    peak RSS (ru_maxrss)."""

    def __init__(self, argv, env, stdout=None, stderr=None):
        self.out_path = stdout
        self.err_path = stderr
        so = open(stdout, "w") if stdout else subprocess.DEVNULL
        se = open(stderr, "w") if stderr else subprocess.DEVNULL
        self.t0 = time.time()
        self.p = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL, stdout=so, stderr=se)
        for f in (so, se):
            if f is not subprocess.DEVNULL:
                f.close()
        self.pid = self.p.pid
        self.rc = None
        self.t1 = None
        self.maxrss_kb = None

    def poll(self):
        if self.rc is not None:
            return self.rc
        try:
            pid, status, ru = os.wait4(self.pid, os.WNOHANG)
        except ChildProcessError:
            self.rc, self.t1 = -1, time.time()
            self.p.returncode = self.rc
            return self.rc
        if pid == 0:
            return None
        self.t1 = time.time()
        self.rc = os.waitstatus_to_exitcode(status)
        self.p.returncode = self.rc
        self.maxrss_kb = ru.ru_maxrss
        return self.rc

    def wait(self, timeout=None):
        end = None if timeout is None else time.time() + timeout
        while self.poll() is None:
            if end is not None and time.time() > end:
                return None
            time.sleep(0.02)
        return self.rc

    def stop(self, sig=signal.SIGKILL, grace=15):
        if self.poll() is None:
            try:
                os.kill(self.pid, sig)
            except ProcessLookupError:
                pass
            if self.wait(grace) is None:
                os.kill(self.pid, signal.SIGKILL)
                self.wait()
        return self.rc

    @property
    def secs(self):
        return None if self.t1 is None else self.t1 - self.t0

    def stdout(self):
        try:
            with open(self.out_path) as f:
                return f.read()
        except (OSError, TypeError):
            return ""

    def stderr(self):
        try:
            with open(self.err_path) as f:
                return f.read()
        except (OSError, TypeError):
            return ""


class Sampler(threading.Thread):
    """Counts the hwf processes of a state dir (all, and `runner` ones) and
    the runners' VmHWM, every `interval` seconds."""

    def __init__(self, state, interval=0.02):
        super().__init__(daemon=True)
        self.state = state
        self.interval = interval
        self.halt = threading.Event()
        self.peak_all = 0
        self.peak_runners = 0
        self.runner_pids = set()
        self.hwm = {}

    def run(self):
        while not self.halt.is_set():
            procs = hwf_procs(self.state)
            runners = [pid for pid, argv in procs if "runner" in argv[1:]]
            self.peak_all = max(self.peak_all, len(procs))
            self.peak_runners = max(self.peak_runners, len(runners))
            for pid in runners:
                self.runner_pids.add(pid)
                kb = vm_hwm_kb(pid)
                if kb:
                    self.hwm[pid] = max(self.hwm.get(pid, 0), kb)
            self.halt.wait(self.interval)

    def stop(self):
        self.halt.set()
        self.join()


def mib(kb):
    return None if kb is None else round(kb / 1024, 1)


# --- stores ------------------------------------------------------------------


class Store:
    """Where one measurement's runs live: a fresh state dir, and on
    PostgreSQL a fresh database."""

    def __init__(self, kind, pg, tag):
        self.kind = kind
        self.pg = pg
        self.tmp = tempfile.mkdtemp(prefix=f"hwf-bench-scale.{tag}.")
        TMP_DIRS.append(self.tmp)
        self.state = os.path.join(self.tmp, "state")
        os.makedirs(self.state)
        self.db = None
        self.url = None
        if kind == "postgres":
            self.db, self.url = pg.fresh()

    def argv(self, *args):
        out = [ARGS.hwf, "--state-dir", self.state]
        if ARGS.hwf_config:
            out += ["--config", ARGS.hwf_config]
        if self.url:
            out += ["--store", self.url]
        return out + list(args)

    def env(self):
        env = dict(os.environ)
        for k in ("RUST_LOG", "HWF_STORE", "HWF_STATE_DIR", "HWF_TOKEN", "HWF_CONFIG", "HERMES_HOME", "HWF_RUNNER_AUTOSTART"):
            env.pop(k, None)
        env["HWF_CACHE_DIR"] = CACHE
        env["HOME"] = self.tmp
        return env

    def path(self, name):
        return os.path.join(self.tmp, name)

    def hwf(self, *args, timeout=600, extra_env=None):
        """Run one hwf command to its end: (exit code, stdout, stderr, seconds)."""
        t = time.time()
        env = self.env()
        env.update(extra_env or {})
        try:
            out = subprocess.run(self.argv(*args), env=env, stdin=subprocess.DEVNULL,
                                 capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired as e:
            return -9, e.stdout or "", f"timed out after {timeout} s", time.time() - t
        return out.returncode, out.stdout, out.stderr, time.time() - t

    def spawn(self, *args, name="proc"):
        return Proc(self.argv(*args), self.env(), stdout=self.path(f"{name}.out"),
                    stderr=self.path(f"{name}.err"))

    def runs(self):
        """{run id: (state, created_at_ms, finished_at_ms, error code)}."""
        out = {}
        if self.kind == "file":
            for path in glob.glob(os.path.join(self.state, "runs", "*", "run.json")):
                try:
                    with open(path) as f:
                        v = json.load(f)
                except (OSError, ValueError):
                    continue
                err = (v.get("error") or {}).get("code")
                out[v.get("run_id")] = (v.get("state"), v.get("created_at_ms"), v.get("finished_at_ms"), err)
            return out
        rows = self.pg.sql(
            "SELECT run_id, state, created_at_ms, "
            "coalesce(CASE WHEN snapshot IS NOT NULL THEN snapshot->>'finished_at_ms' "
            "ELSE substring(snapshot_text from '\"finished_at_ms\":([0-9]+)') END, ''), "
            "coalesce(CASE WHEN snapshot IS NOT NULL THEN snapshot->'error'->>'code' "
            "ELSE substring(snapshot_text from '\"code\":\"([a-z_]+)\"') END, '') FROM hwf_runs",
            self.db)
        for r in rows:
            out[r[0]] = (r[1], int(r[2]), int(r[3]) if r[3] else None, r[4] or None)
        return out

    def bytes(self):
        """(du bytes of the state dir, apparent bytes, database bytes or None)."""
        du = size = 0
        for d, _, files in os.walk(self.state):
            for name in files:
                try:
                    st = os.lstat(os.path.join(d, name))
                except OSError:
                    continue
                du += st.st_blocks * 512
                size += st.st_size
        db = None
        if self.kind == "postgres":
            db = int(self.pg.sql("SELECT pg_database_size(current_database())", self.db)[0][0])
        return du, size, db

    def store_bytes(self):
        """The figure for "bytes in the store": du of the state dir on the
        file store, the database's size on PostgreSQL."""
        du, _, db = self.bytes()
        return db if self.kind == "postgres" else du

    def wait_runs(self, ids, timeout, states=TERMINAL, procs=()):
        """Poll until every run in `ids` is in `states`; gives up at the
        timeout, or when all of `procs` have exited and nothing moves. The
        figures come from the runs' own times, so the poll can be slow
        (and leaves the CPU to hwf): 0.25 s, 0.5 s for 1,000 runs."""
        end = time.time() + timeout
        ids = set(ids)
        interval = max(0.25, len(ids) / 2000)
        while True:
            rows = self.runs()
            if all(rows.get(i, (None,))[0] in states for i in ids):
                return rows, True
            if time.time() > end:
                return rows, False
            if procs and all(p.poll() is not None for p in procs):
                time.sleep(0.5)
                rows = self.runs()
                return rows, all(rows.get(i, (None,))[0] in states for i in ids)
            time.sleep(interval)

    def close(self):
        """Kill what is left of this state dir's hwf processes, drop the
        database, remove the temp dir."""
        left = hwf_procs(self.state)
        for pid, argv in left:
            log(f"killing leftover hwf process {pid}: {' '.join(argv[1:])}")
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        if self.db:
            self.pg.drop(self.db)
        if not ARGS.keep:
            shutil.rmtree(self.tmp, ignore_errors=True)
        return len(left)


def summarize_runs(rows, ids):
    states = {}
    errors = {}
    for i in ids:
        st, _, _, err = rows.get(i, ("missing", None, None, None))
        states[st] = states.get(st, 0) + 1
        if st != "succeeded" and err:
            errors[err] = errors.get(err, 0) + 1
    return states, errors


def last_finish(rows, ids):
    ends = [rows[i][2] for i in ids if i in rows and rows[i][2]]
    return max(ends) if ends else None


# --- fixtures and workflows ----------------------------------------------------


def fixture(store, delay_ms, default_output=None):
    path = store.path("agents.json")
    step = {"match": {"label": "step"}, "output": {"ok": True}}
    if delay_ms:
        step["delay_ms"] = delay_ms
    fallback = {"match": {}, "output": {"ok": True} if default_output is None else default_output}
    with open(path, "w") as f:
        json.dump({"responses": [step, fallback]}, f)
    return path


def step(i):
    """A probe agent call the fixture's `step` answers. Each call of a run
    has its own prompt: a run answers a repeated identical request from its
    cache (`cache_hit`) instead of asking the agent again."""
    return {"agent": "step", "prompt": f"step {i}"}


def probe_args(program):
    return json.dumps({"op": "program", "program": program})


def pool(fn, items):
    with concurrent.futures.ThreadPoolExecutor(max_workers=ARGS.workers) as ex:
        return list(ex.map(fn, items))


def queue(store, agents, program, n, prefix, queue_only=True):
    """Queue n probe runs (untimed, --workers at once); returns their ids."""
    args = probe_args(program)
    ids = [f"{prefix}{i:05d}" for i in range(n)]
    extra = ["--queue-only"] if queue_only else []

    def one(rid):
        rc, _, err, _ = store.hwf("run", PROBE, "--background", *extra, "--json", "--run-id", rid,
                                  "--args", args, "--agents", agents, timeout=300)
        return None if rc == 0 else f"{rid}: exit {rc}: {err.strip()[-300:]}"

    bad = [b for b in pool(one, ids) if b]
    if bad:
        raise RuntimeError(f"queueing failed ({len(bad)} of {n}), e.g. {bad[0]}")
    return ids


# --- scenarios -----------------------------------------------------------------


def sc_queued(kind, pg):
    out = []
    for k in [int(x) for x in ARGS.runners.split(",") if x.strip()]:
        reps = []
        for rep in range(ARGS.repeat):
            store = Store(kind, pg, "queued")
            try:
                agents = fixture(store, ARGS.delay_ms)
                program = {"seq": [step(i) for i in range(ARGS.calls)]}
                ids = queue(store, agents, program, ARGS.runs, "q")
                extra = ["--concurrency", str(ARGS.concurrency)] if ARGS.concurrency else []
                start = now_ms()
                procs = [store.spawn("runner", "--idle-exit-after", "1", *extra, name=f"runner{i}")
                         for i in range(k)]
                rows, done = store.wait_runs(ids, ARGS.timeout, procs=procs)
                for p in procs:
                    if p.wait(30) is None:
                        p.stop()
                states, errors = summarize_runs(rows, ids)
                end = last_finish(rows, ids)
                reps.append({
                    "seconds": None if end is None else (end - start) / 1000,
                    "all_finished": done,
                    "states": states,
                    "errors": errors,
                    "runner_exit_codes": [p.rc for p in procs],
                    "runners_exit_s": round(max(p.secs for p in procs), 2),
                    "runner_peak_rss_mib": mib(max((p.maxrss_kb or 0) for p in procs)),
                    "runner_stderr_tail": [p.stderr()[-300:] for p in procs if p.rc != 0],
                })
                reps[-1]["leftover_processes"] = store.close()
            except Exception as e:  # noqa: BLE001 - a failed measurement is a figure
                reps.append({"error": str(e)})
                store.close()
        slots = ARGS.concurrency or 64
        waves = math.ceil(ARGS.runs / (k * slots))
        secs = median(r.get("seconds") for r in reps)
        ok = sum(r.get("states", {}).get("succeeded", 0) for r in reps)
        out.append(row(
            "queued", kind, f"{ARGS.runs} runs x {ARGS.calls} calls, {k} runner(s) x {slots} slots",
            secs, ARGS.calls * ARGS.delay_ms / 1000,
            median(r.get("runner_peak_rss_mib") for r in reps),
            f"runs/s {fmt(ARGS.runs / secs if secs else None)}; waves ideal "
            f"{waves * ARGS.calls * ARGS.delay_ms / 1000:g} s; succeeded {ok}/{ARGS.runs * len(reps)}"
            + problems(reps),
            reps))
    return out


def park_and_answer(store, n):
    """n runs parked on human.ask and answered (untimed). Returns ids."""
    agents = fixture(store, ARGS.delay_ms)
    program = {"seq": [{"cap": {"name": "human.ask", "input": {"prompt": "Go on?"}}}, step(0)]}
    ids = queue(store, agents, program, n, "a")
    rc, _, err, secs = store.hwf("runner", "--once", "--json", "--concurrency",
                                 str(ARGS.answer_concurrency), timeout=ARGS.timeout)
    if rc != 0:
        raise RuntimeError(f"parking pass: exit {rc}: {err.strip()[-300:]}")
    rows = store.runs()
    waiting = [i for i in ids if rows.get(i, (None,))[0] == "waiting"]
    if len(waiting) != n:
        states, errors = summarize_runs(rows, ids)
        raise RuntimeError(f"parking: {len(waiting)}/{n} waiting; states {states}, errors {errors}")
    log(f"{store.kind}: parked {n} runs in {secs:.1f} s; answering")

    # Only recorded: the timed runner below continues them (a decision
    # would otherwise start the state dir's background runner at once).
    def one(rid):
        rc, _, err, _ = store.hwf("control", "decide", rid, "1", "respond", "--value", '"yes"', "--json",
                                  timeout=120, extra_env={"HWF_RUNNER_AUTOSTART": "0"})
        return None if rc == 0 else f"{rid}: exit {rc}: {err.strip()[-300:]}"

    bad = [b for b in pool(one, ids) if b]
    if bad:
        raise RuntimeError(f"answering failed ({len(bad)} of {n}), e.g. {bad[0]}")
    rows = store.runs()
    moved = [i for i in ids if rows.get(i, (None,))[0] != "waiting"]
    procs = hwf_procs(store.state)
    return ids, {"not_waiting_after_answers": len(moved), "hwf_processes_after_answers": len(procs)}


def sc_answered(kind, pg):
    n, k = ARGS.answered, ARGS.answer_concurrency
    ideal = math.ceil(n / k) * ARGS.delay_ms / 1000
    out = []
    # One `hwf runner --once`.
    reps = []
    for rep in range(ARGS.repeat):
        store = Store(kind, pg, "answered")
        try:
            ids, setup = park_and_answer(store, n)
            p = store.spawn("runner", "--once", "--json", "--concurrency", str(k), name="runner")
            if p.wait(ARGS.timeout) is None:
                p.stop()
            rows = store.runs()
            states, errors = summarize_runs(rows, ids)
            end = last_finish(rows, ids)
            reps.append({"seconds": p.secs, "to_last_finish_s": None if end is None else (end - p.t0 * 1000) / 1000,
                         "exit_code": p.rc, "peak_rss_mib": mib(p.maxrss_kb), "states": states,
                         "errors": errors, **setup,
                         "stderr_tail": p.stderr()[-300:] if p.rc != 0 else ""})
            reps[-1]["leftover_processes"] = store.close()
        except Exception as e:  # noqa: BLE001
            reps.append({"error": str(e)})
            store.close()
    secs = median(r.get("seconds") for r in reps)
    ok = sum(r.get("states", {}).get("succeeded", 0) for r in reps)
    out.append(row("answered: runner --once", kind, f"{n} answered runs, concurrency {k}", secs, ideal,
                   median(r.get("peak_rss_mib") for r in reps),
                   f"runs/s {fmt(n / secs if secs else None)}; succeeded {ok}/{n * len(reps)}" + problems(reps),
                   reps))
    # `hwf serve`.
    reps = []
    for rep in range(ARGS.repeat):
        store = Store(kind, pg, "answered-serve")
        p = None
        try:
            ids, setup = park_and_answer(store, n)
            p = store.spawn("serve", "--port", "0", "--token", "bench-scale-token-0123456789", "--concurrency", str(k),
                            name="serve")
            start = p.t0 * 1000
            rows, done = store.wait_runs(ids, ARGS.timeout, procs=[p])
            listening = "listening on" in p.stdout() + p.stderr()
            died = p.poll()
            p.stop(signal.SIGTERM)
            states, errors = summarize_runs(rows, ids)
            end = last_finish(rows, ids)
            reps.append({"seconds": None if end is None else (end - start) / 1000, "all_finished": done,
                         "listening_line": listening, "exit_code_after_sigterm": p.rc,
                         "exited_early": None if died is None else f"exit {died}: {p.stderr().strip()[-300:]}",
                         "peak_rss_mib": mib(p.maxrss_kb), "states": states, "errors": errors, **setup})
            reps[-1]["leftover_processes"] = store.close()
        except Exception as e:  # noqa: BLE001
            if p:
                p.stop()
            reps.append({"error": str(e)})
            store.close()
    secs = median(r.get("seconds") for r in reps)
    ok = sum(r.get("states", {}).get("succeeded", 0) for r in reps)
    out.append(row("answered: serve", kind, f"{n} answered runs, concurrency {k}", secs, ideal,
                   median(r.get("peak_rss_mib") for r in reps),
                   f"runs/s {fmt(n / secs if secs else None)}; succeeded {ok}/{n * len(reps)}" + problems(reps),
                   reps))
    return out


def sc_background(kind, pg):
    b = ARGS.background_pg if kind == "postgres" else ARGS.background
    reps = []
    for rep in range(ARGS.repeat):
        store = Store(kind, pg, "background")
        sampler = None
        try:
            agents = fixture(store, ARGS.delay_ms)
            args = probe_args({"seq": [step(0), step(1)]})
            sampler = Sampler(store.state)
            sampler.start()
            ids, failed_submits, submit_secs = [], [], []
            start = now_ms()
            for i in range(b):
                rid = f"g{i:05d}"
                rc, _, err, secs = store.hwf("run", PROBE, "--background", "--json", "--run-id", rid,
                                             "--args", args, "--agents", agents, timeout=120)
                submit_secs.append(secs)
                if rc == 0:
                    ids.append(rid)
                else:
                    failed_submits.append(f"{rid}: exit {rc}: {err.strip()[-300:]}")
            submitted = now_ms()
            rows, done = store.wait_runs(ids, ARGS.timeout)
            end = last_finish(rows, ids)
            # The background runner leaves after 5 s idle: wait 10 s for it.
            until = (end / 1000 if end else time.time()) + 10
            while hwf_procs(store.state) and time.time() < until:
                time.sleep(0.1)
            sampler.stop()
            left = hwf_procs(store.state)
            states, errors = summarize_runs(rows, ids)
            reps.append({
                "seconds": None if end is None else (end - start) / 1000,
                "submit_total_s": round((submitted - start) / 1000, 2),
                "submit_median_ms": round(statistics.median(submit_secs) * 1000, 1),
                "submit_max_ms": round(max(submit_secs) * 1000, 1),
                "failed_submits": len(failed_submits), "failed_submit_examples": failed_submits[:3],
                "runs_not_succeeded": len(ids) - states.get("succeeded", 0),
                "all_finished": done, "states": states, "errors": errors,
                "peak_hwf_processes": sampler.peak_all, "peak_runner_processes": sampler.peak_runners,
                "runner_processes_seen": len(sampler.runner_pids),
                "runner_peak_rss_mib": mib(max(sampler.hwm.values(), default=None)),
                "alive_10s_after_last_finish": [" ".join(a[1:]) for _, a in left],
                "runner_log_tail": tail(os.path.join(store.state, "runner.log")),
            })
            reps[-1]["leftover_processes"] = store.close()
        except Exception as e:  # noqa: BLE001
            if sampler:
                sampler.stop()
            reps.append({"error": str(e)})
            store.close()
    secs = median(r.get("seconds") for r in reps)
    r0 = reps[-1]
    figures = (f"submits {fmt(median(r.get('submit_total_s') for r in reps))} s "
               f"(median {fmt(median(r.get('submit_median_ms') for r in reps))} ms each); "
               f"peak hwf processes {max((r.get('peak_hwf_processes', 0) for r in reps), default=0)} "
               f"(runners {max((r.get('peak_runner_processes', 0) for r in reps), default=0)}, "
               f"{max((r.get('runner_processes_seen', 0) for r in reps), default=0)} seen); "
               f"failed submits {sum(r.get('failed_submits', 0) for r in reps)}, "
               f"runs not succeeded {sum(r.get('runs_not_succeeded', 0) for r in reps)}; "
               f"alive 10 s after {len(r0.get('alive_10s_after_last_finish', []))}") + problems(reps)
    # Ideal: the submits one after another, then the last run's two calls.
    ideal = (median(r.get("submit_total_s") for r in reps) or 0) + 2 * ARGS.delay_ms / 1000
    return [row("background", kind, f"{b} x `run --background`, 2 calls each", secs, ideal,
                median(r.get("runner_peak_rss_mib") for r in reps), figures, reps)]


FANOUT_JS = """export const meta = { name: "fanout", description: "n agent calls, parallel() in chunks of 4096" };
const n = args.n;
let ok = 0;
for (let start = 0; start < n; start += 4096) {
  const m = Math.min(4096, n - start);
  const r = await parallel(Array.from({ length: m }, (_, i) => () => agent(`work ${start + i}`, { label: "step" })));
  ok += r.filter((x) => x && x.ok).length;
}
return { n, ok };
"""


def run_js(store, script, args, extra, name):
    """One foreground `hwf run script.js --json`: (Proc, envelope or None)."""
    cpu = ["--cpu-limit-ms", str(ARGS.js_cpu_limit_ms)] if ARGS.js_cpu_limit_ms else []
    p = store.spawn("run", script, "--json", "--args", json.dumps(args), *cpu, *extra, name=name)
    if p.wait(ARGS.timeout) is None:
        p.stop()
    try:
        env = json.loads(p.stdout())
    except ValueError:
        env = None
    return p, env


def envelope_error(p, env):
    if env is None:
        return f"exit {p.rc}: {p.stderr().strip()[-300:]}"
    if env.get("success") is False or env.get("error"):
        e = env.get("error") or {}
        return f"{e.get('code')}: {str(e.get('message'))[:200]}"
    data = env.get("data") or {}
    if data.get("state") not in (None, "succeeded"):
        e = data.get("error") or {}
        return f"{data.get('state')}: {e.get('code')}: {str(e.get('message'))[:200]}"
    return None


def sc_fanout(kind, pg):
    n, w = ARGS.fanout, ARGS.fanout_width
    reps = []
    for rep in range(ARGS.repeat):
        store = Store(kind, pg, "fanout")
        try:
            agents = fixture(store, ARGS.delay_ms)
            script = store.path("fanout.js")
            with open(script, "w") as f:
                f.write(FANOUT_JS)
            before = store.store_bytes()
            p, env = run_js(store, script, {"n": n},
                            ["--agents", agents, "--max-parallel", str(w), "--max-agent-calls", str(n + 10),
                             "--max-calls", str(max(100_000, 3 * n + 100))], "fanout")
            err = envelope_error(p, env)
            result = ((env or {}).get("data") or {}).get("result")
            if err is None and result != {"n": n, "ok": n}:
                err = f"result {result}"
            reps.append({"seconds": p.secs, "exit_code": p.rc, "peak_rss_mib": mib(p.maxrss_kb),
                         "store_bytes": store.store_bytes() - before, "error": err})
            reps[-1]["leftover_processes"] = store.close()
        except Exception as e:  # noqa: BLE001
            reps.append({"error": str(e)})
            store.close()
    secs = median(r.get("seconds") for r in reps if not r.get("error"))
    errs = [r["error"] for r in reps if r.get("error")]
    figures = (f"calls/s {fmt(n / secs if secs else None)}; store {human_bytes(median(r.get('store_bytes') for r in reps))}"
               + (f"; FAILED {len(errs)}/{len(reps)}: {errs[0]}" if errs else ""))
    return [row("fanout", kind, f"{n} agent calls at width {w}", secs, math.ceil(n / w) * ARGS.delay_ms / 1000,
                median(r.get("peak_rss_mib") for r in reps), figures, reps)]


CONVERSATION_JS = """export const meta = { name: "conversation", description: "turns over the conversation so far" };
const BASE = __BASE__;
let convo = BASE;
for (let i = 0; i < args.turns; i++) {
  const answer = await agent(convo, { label: "turn" });
  convo += "\\n\\n" + (typeof answer === "string" ? answer : JSON.stringify(answer));
}
return { turns: args.turns, chars: convo.length };
"""

WORDS = ("agent workflow journal replay runner store lease claim branch parallel pipeline prompt answer "
         "capability approval snapshot fingerprint durable flush instance component sandbox budget limit "
         "the a of to and in is that for it with as on was be by this are or from at which have an "
         "not but they were had can all one their there been if more when will would who so no").split()


def text(n_bytes, seed):
    """n_bytes of pseudo-random words (ASCII), the same for the same seed."""
    rng = random.Random(seed)
    parts, size = [], 0
    while size < n_bytes:
        w = rng.choice(WORDS)
        if rng.random() < 0.08:
            w += "."
        parts.append(w)
        size += len(w) + 1
    return " ".join(parts)[:n_bytes]


def sc_conversation(kind, pg):
    out = []
    answer = text(ARGS.answer_kb * 1024, 2)
    for turns in [int(x) for x in ARGS.turns.split(",") if x.strip()]:
        for base_kb in [int(x) for x in ARGS.base_kb.split(",") if x.strip()]:
            reps = []
            for rep in range(ARGS.repeat):
                store = Store(kind, pg, "conversation")
                try:
                    path = store.path("agents.json")
                    turn = {"match": {"label": "turn"}, "output": answer}
                    if ARGS.conv_delay_ms:
                        turn["delay_ms"] = ARGS.conv_delay_ms
                    with open(path, "w") as f:
                        json.dump({"responses": [turn]}, f)
                    script = store.path("conversation.js")
                    with open(script, "w") as f:
                        f.write(CONVERSATION_JS.replace("__BASE__", json.dumps(text(base_kb * 1024, 1))))
                    b0 = store.store_bytes()
                    limits = ["--max-agent-calls", str(turns + 10), "--max-calls", str(max(100_000, 2 * turns + 100))]
                    p, env = run_js(store, script, {"turns": turns}, ["--agents", path, *limits], "conversation")
                    err = envelope_error(p, env)
                    run_id = ((env or {}).get("data") or {}).get("run_id")
                    if run_id is None:
                        rows = store.runs()
                        run_id = next(iter(rows), None)
                    b1 = store.store_bytes()
                    rep_row = {"seconds": p.secs, "exit_code": p.rc, "peak_rss_mib": mib(p.maxrss_kb),
                               "store_bytes": b1 - b0, "error": err, "run_id": run_id,
                               "agent_calls": (((env or {}).get("data") or {}).get("counts") or {}).get("agent_calls"),
                               "result": ((env or {}).get("data") or {}).get("result"),
                               "last_prompt_kb": round((base_kb * 1024 + (turns - 1) * (len(answer) + 2)) / 1024, 1)}
                    if run_id:
                        # Replay: a new run answered from this one's journal (the
                        # fixture is given for what a failed run left undone).
                        rp = store.spawn("run", "--resume-from", run_id, "--json", "--agents", path, *limits,
                                         name="resume")
                        if rp.wait(ARGS.timeout) is None:
                            rp.stop()
                        try:
                            renv = json.loads(rp.stdout())
                        except ValueError:
                            renv = None
                        rep_row.update({"resume_seconds": rp.secs, "resume_exit_code": rp.rc,
                                        "resume_peak_rss_mib": mib(rp.maxrss_kb),
                                        "resume_error": envelope_error(rp, renv),
                                        "resume_counts": ((renv or {}).get("data") or {}).get("counts"),
                                        "resume_added_bytes": store.store_bytes() - b1})
                    reps.append(rep_row)
                    reps[-1]["leftover_processes"] = store.close()
                except Exception as e:  # noqa: BLE001
                    reps.append({"error": str(e)})
                    store.close()
            secs = median(r.get("seconds") for r in reps)
            errs = [r["error"] for r in reps if r.get("error")]
            rerrs = [r["resume_error"] for r in reps if r.get("resume_error")]
            figures = (f"store {human_bytes(median(r.get('store_bytes') for r in reps))}; "
                       f"replay {fmt(median(r.get('resume_seconds') for r in reps))} s, "
                       f"+{human_bytes(median(r.get('resume_added_bytes') for r in reps))}"
                       + (f"; run FAILED after {reps[0].get('agent_calls')} agent calls: {errs[0]}" if errs else "")
                       + (f"; replay FAILED: {rerrs[0]}" if rerrs else ""))
            out.append(row("conversation", kind, f"{turns} turns, base {base_kb} KB + {ARGS.answer_kb} KB/answer",
                           secs, None, median(r.get("peak_rss_mib") for r in reps), figures, reps))
    return out


# --- output --------------------------------------------------------------------


def fmt(x, digits=2):
    if x is None:
        return "-"
    if isinstance(x, float):
        return f"{x:.{digits}f}"
    return str(x)


def human_bytes(n):
    if n is None:
        return "-"
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(n) < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return str(n)


def tail(path, n=300):
    try:
        with open(path, errors="replace") as f:
            return f.read()[-n:]
    except OSError:
        return ""


def problems(reps):
    """A short note on what went wrong in the repetitions, if anything."""
    notes = []
    for r in reps:
        if r.get("error") and "seconds" not in r:
            notes.append(f"ERROR: {r['error'][:200]}")
        if r.get("errors"):
            notes.append(f"run errors {r['errors']}")
        if r.get("exited_early"):
            notes.append(f"serve exited early: {r['exited_early'][:200]}")
        if r.get("all_finished") is False:
            notes.append("NOT ALL FINISHED")
        if r.get("leftover_processes"):
            notes.append(f"{r['leftover_processes']} leftover hwf process(es) killed")
        if r.get("not_waiting_after_answers"):
            notes.append(f"{r['not_waiting_after_answers']} runs moved on before the timed runner")
    seen = []
    for n in notes:
        if n not in seen:
            seen.append(n)
    return ("; " + "; ".join(seen)) if seen else ""


def row(scenario, store, sizes, secs, ideal, rss, figures, reps):
    figures = figures.replace("|", "\\|").replace("\n", " ")
    secs = None if secs is None else round(secs, 3)
    ideal = None if ideal is None else round(ideal, 3)
    r = {"scenario": scenario, "store": store, "sizes": sizes, "seconds": secs, "ideal_seconds": ideal,
         "peak_rss_mib": rss, "figures": figures, "repetitions": reps}
    print(f"| {scenario} | {store} | {sizes} | {fmt(secs)} | {fmt(ideal)} | {fmt(rss, 1)} | {figures} |",
          flush=True)
    return r


HEADER = ("| scenario | store | sizes | seconds | ideal s | peak RSS MiB | figures |\n"
          "|---|---|---|---:|---:|---:|---|")


def warm():
    """Fill the compile cache (probe and JS runtime) outside the figures."""
    store = Store("file", None, "warm")
    try:
        agents = fixture(store, 0)
        rc, _, err, secs = store.hwf("run", PROBE, "--json", "--args", probe_args({"agent": "step"}),
                                     "--agents", agents)
        if rc != 0:
            raise RuntimeError(f"warm-up probe run: exit {rc}: {err.strip()[-500:]}")
        script = store.path("warm.js")
        with open(script, "w") as f:
            f.write('export const meta = { name: "warm", description: "warm" };\n'
                    'return await agent("hi", { label: "step" });\n')
        rc2, _, err2, secs2 = store.hwf("run", script, "--json", "--agents", agents)
        if rc2 != 0:
            raise RuntimeError(f"warm-up JS run: exit {rc2}: {err2.strip()[-500:]}")
        log(f"warm-up: probe run {secs:.2f} s, JS run {secs2:.2f} s")
    finally:
        store.close()


def main():
    global ARGS
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--hwf", default=os.path.join(ROOT, "target", "release", "hwf"))
    p.add_argument("--store", default="both", choices=["both", "file", "postgres"])
    p.add_argument("--only", default=",".join(SCENARIOS), help=f"comma list of: {', '.join(SCENARIOS)}")
    p.add_argument("--delay-ms", type=int, default=1000, help="the `step` agent's latency")
    p.add_argument("--repeat", type=int, default=1, help="repetitions per figure (median)")
    p.add_argument("--workers", type=int, default=8, help="setup commands at once (untimed)")
    p.add_argument("--timeout", type=float, default=1800, help="seconds any one measurement may take")
    p.add_argument("--keep", action="store_true", help="keep the temp state dirs")
    p.add_argument("--json-out", metavar="FILE", help="also write the JSON summary here")
    p.add_argument("--hwf-config", metavar="FILE", help="an hwf.toml given to every hwf command (--config)")
    g = p.add_argument_group("queued")
    g.add_argument("--runs", type=int, default=200)
    g.add_argument("--calls", type=int, default=3)
    g.add_argument("--runners", default="1,4", help="runner process counts")
    g.add_argument("--concurrency", type=int, default=None, help="`hwf runner --concurrency` (default: hwf's)")
    g = p.add_argument_group("answered")
    g.add_argument("--answered", type=int, default=1000, help="runs parked and answered")
    g.add_argument("--answer-concurrency", type=int, default=250)
    g = p.add_argument_group("background")
    g.add_argument("--background", type=int, default=40, help="runs submitted (file store)")
    g.add_argument("--background-pg", type=int, default=200, help="runs submitted (PostgreSQL)")
    g = p.add_argument_group("fanout")
    g.add_argument("--fanout", type=int, default=10000, help="agent calls in the one run")
    g.add_argument("--fanout-width", type=int, default=64, help="--max-parallel")
    g = p.add_argument_group("conversation")
    g.add_argument("--turns", default="100,1000", help="agent calls per run (comma list)")
    g.add_argument("--base-kb", default="200,836", help="base text KB (comma list)")
    g.add_argument("--answer-kb", type=int, default=2)
    g.add_argument("--conv-delay-ms", type=int, default=0)
    g.add_argument("--js-cpu-limit-ms", type=int, default=0, help="--cpu-limit-ms for the JS runs (0: hwf's)")
    ARGS = p.parse_args()
    ARGS.hwf = os.path.abspath(ARGS.hwf)
    if ARGS.hwf_config:
        ARGS.hwf_config = os.path.abspath(ARGS.hwf_config)
    only = [s.strip() for s in ARGS.only.split(",") if s.strip()]
    for s in only:
        if s not in SCENARIOS:
            sys.exit(f"--only: unknown scenario {s!r} (one of {', '.join(SCENARIOS)})")
    if not os.access(ARGS.hwf, os.X_OK):
        sys.exit(f"{ARGS.hwf} is missing: cargo build --release -p hwf")
    if not os.path.exists(PROBE):
        sys.exit(f"{PROBE} is missing: cargo build -j2 -p hwf --tests builds it")
    kinds = ["file", "postgres"] if ARGS.store == "both" else [ARGS.store]
    pg = None
    results = []
    started = time.time()
    try:
        warm()
        pg = Pg() if "postgres" in kinds else None
        if pg:
            log(f"PostgreSQL cluster in {pg.dir} (stopped and removed at the end)")
        print(f"hwf: {ARGS.hwf}; agent latency {ARGS.delay_ms} ms; median of {ARGS.repeat}; "
              f"nproc {os.cpu_count()}\n", flush=True)
        print(HEADER, flush=True)
        fns = {"queued": sc_queued, "answered": sc_answered, "background": sc_background,
               "fanout": sc_fanout, "conversation": sc_conversation}
        for name in only:
            for kind in kinds:
                log(f"{name} on {kind}")
                try:
                    results += fns[name](kind, pg)
                except Exception as e:  # noqa: BLE001
                    results.append(row(name, kind, "-", None, None, None, f"ERROR: {e}", []))
    finally:
        if pg:
            pg.stop()
        for d in TMP_DIRS:
            for pid, argv in hwf_procs(d):
                log(f"killing leftover hwf process {pid}: {' '.join(argv[1:])}")
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            if not ARGS.keep:
                shutil.rmtree(d, ignore_errors=True)
    print("\n" + HEADER)
    for r in results:
        print(f"| {r['scenario']} | {r['store']} | {r['sizes']} | {fmt(r['seconds'])} | {fmt(r['ideal_seconds'])} "
              f"| {fmt(r['peak_rss_mib'], 1)} | {r['figures']} |")
    summary = {"hwf": ARGS.hwf, "nproc": os.cpu_count(), "delay_ms": ARGS.delay_ms, "repeat": ARGS.repeat,
               "argv": sys.argv[1:], "total_seconds": round(time.time() - started, 1), "results": results}
    text_out = json.dumps(summary, indent=1, default=str)
    if ARGS.json_out:
        with open(ARGS.json_out, "w") as f:
            f.write(text_out + "\n")
    print("\n" + text_out)


if __name__ == "__main__":
    main()
