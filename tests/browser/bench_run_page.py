"""Where the console's 1,000-call run page spends its time, in headless
Chromium: the API (server build + transfer + JSON parse, as the page sees
it), the first draw, the page shown (header, filters, waterfall and the
first screen of calls) and every row in — medians of N in-console
navigations, optionally under CPU load (busy processes, as on a shared
machine). Also the server alone: the endpoints the page reads, timed with
urllib (median of N).

    python tests/browser/bench_run_page.py --hwf target/debug/hwf [--runs 15] [--load 4]

Prints one JSON object. Not a test (no assertion): docs/BENCHMARKS.md
quotes its figures.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from webdriver import Browser, require_browser  # noqa: E402

FAN_JS = """export const meta = { name: "fan-out", description: "a thousand agent calls", phases: [{ title: "fan out" }] };
phase("fan out");
const r = await parallel(Array.from({ length: 1000 }, (_, i) => () => agent(`item ${i}`, { label: `item-${i}` })));
return { n: r.length };
"""
FIXTURE = {"responses": [{"match": {}, "output": {"ok": True}, "tokens": 3}]}
TOKEN = "bench-console-token-0123456789"


def spin(stop_at: float) -> None:
    while time.time() < stop_at:
        pass


def timed_get(url: str) -> tuple[float, int]:
    t0 = time.perf_counter()
    with urllib.request.urlopen(url, timeout=60) as r:
        body = r.read()
    return (time.perf_counter() - t0) * 1000, len(body)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--hwf", required=True)
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--load", type=int, default=0, help="busy processes running meanwhile")
    a = ap.parse_args()
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="hwf-bench-page-"))
    env = {**os.environ, "HWF_STATE_DIR": str(tmp / "state"), "HOME": str(tmp)}
    env.pop("HWF_TOKEN", None)
    (tmp / "fan-out.js").write_text(FAN_JS)
    (tmp / "f.json").write_text(json.dumps(FIXTURE))
    out = subprocess.run([a.hwf, "run", "fan-out.js", "--agents", "f.json", "--json"], cwd=tmp, env=env,
                         capture_output=True, text=True, timeout=600, check=True)
    run = json.loads(out.stdout)["data"]["run_id"]
    server = subprocess.Popen([a.hwf, "serve", "--port", "0", "--token", TOKEN], cwd=tmp, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    load = []
    try:
        base = server.stdout.readline().split("listening on ")[1].strip().rstrip("/")
        if a.load:
            stop_at = time.time() + 3600
            load = [multiprocessing.Process(target=spin, args=(stop_at,), daemon=True) for _ in range(a.load)]
            for p in load:
                p.start()
        api = {}
        for path in [f"/api/runs/{run}", f"/api/runs/{run}/journal", f"/api/runs/{run}/page"]:
            times, size = [], 0
            try:
                for _ in range(a.runs):
                    ms, size = timed_get(base + path)
                    times.append(ms)
            except urllib.error.HTTPError as e:  # an older binary without this endpoint
                api[path.replace(run, "{id}")] = {"status": e.code}
                continue
            api[path.replace(run, "{id}")] = {"median_ms": round(statistics.median(times), 1), "bytes": size}
        chromium, driver = require_browser()
        b = Browser(chromium, driver)
        try:
            b.get(f"{base}/#token={TOKEN}")
            b.wait_until("return document.body.dataset.rendered === 'runs'", 30)
            samples = []
            for _ in range(a.runs):
                b.run("location.hash = '#/'")
                b.wait_until("return document.body.dataset.rendered === 'runs'", 30)
                samples.append(b.run_async(
                    "const [id, done] = [arguments[0], arguments[arguments.length - 1]];"
                    "const t0 = performance.now(); let shown = 0; location.hash = '#/runs/' + id;"
                    "const tick = () => {"
                    "  if (!shown && document.body.dataset.rendered === 'run:' + id) shown = performance.now() - t0;"
                    "  const all = document.body.dataset.calls === 'run:' + id || (shown && !('calls' in window.hwfTimes) && document.querySelectorAll('#calls tr.call-row').length >= 1000);"
                    "  if (shown && all) done([shown, performance.now() - t0, window.hwfTimes]);"
                    "  else setTimeout(tick, 2); };"
                    "tick();",
                    run,
                ))
        finally:
            b.close()
        med = lambda xs: round(statistics.median(xs), 1)  # noqa: E731
        print(json.dumps({
            "hwf": a.hwf, "load": a.load, "runs": a.runs,
            "api": api,
            "page": {
                "api_ms": med([s[2]["fetch_ms"] for s in samples]),
                "first_draw_ms": med([s[2]["draw_ms"] for s in samples]),
                "shown_ms": med([s[0] for s in samples]),
                "shown_max_ms": round(max(s[0] for s in samples), 1),
                "all_rows_ms": med([s[1] for s in samples]),
                "all_rows_max_ms": round(max(s[1] for s in samples), 1),
            },
        }, indent=1))
    finally:
        for p in load:
            p.terminate()
        server.terminate()
        server.wait(timeout=10)


if __name__ == "__main__":
    main()
