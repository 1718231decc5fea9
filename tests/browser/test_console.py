"""The web console (`hwf serve`) driven in headless Chromium as a person
uses it: the runs list, a run's page, answering a human.ask through its
form, the review queue's schema form and approval, pause and resume, a
request without the token refused, and a run of 1,000 calls rendered in
under a second (measured and printed).

Screenshots go to ``target/browser-artifacts/`` (and to ``docs/img/`` with
``HWF_UPDATE_SCREENSHOTS=1``).
"""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess
import sys
import time
import urllib.request

import pytest

from webdriver import Browser, WebDriverError, require_browser

ROOT = pathlib.Path(__file__).resolve().parents[2]
# One rule for every Python test (HWF_BIN, CARGO_TARGET_DIR, HWF_CACHE_DIR).
sys.path.insert(0, str(ROOT / "tests" / "python"))
from hwf_paths import cache_dir, hwf_bin as _hwf_bin  # noqa: E402
ARTIFACTS = ROOT / "target" / "browser-artifacts"
TOKEN = "console-test-token-0123456789"
SECRET = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"

ASK_JS = """export const meta = { name: "ask", description: "asks, then answers", phases: [{ title: "ask" }, { title: "answer" }] };
phase("ask");
log("asking whether to ship");
const answer = await capability("human.ask", { prompt: "Ship release 1.4 to production?", choices: ["yes", "no"] });
phase("answer");
log(`the operator said ${answer.answer}`);
return { answer: answer.answer, actor: answer.actor, channel: answer.channel };
"""

NOTES_JS = """export const meta = { name: "release-notes", description: "asks for a verdict with a schema", phases: [{ title: "draft" }, { title: "review" }] };
phase("draft");
const draft = await agent("Draft the release notes", { label: "draft", schema: { text: "string" } });
phase("review");
const v = await capability("human.ask", { prompt: "Are the release notes ready?", schema: { type: "object",
  properties: { verdict: { enum: ["approve", "changes"] }, notes: { type: "string" } }, required: ["verdict"] } });
return { verdict: v.answer.verdict, notes: v.answer.notes };
"""

DEPLOY_JS = """export const meta = { name: "deploy", description: "writes a marker after an approval", phases: [{ title: "deploy" }] };
phase("deploy");
await capability("fs.write", { path: "deployed.txt", content: "release 1.4" });
return { deployed: true };
"""

SLOW_JS = """export const meta = { name: "slow", description: "five slow steps", phases: [{ title: "one" }, { title: "two" }, { title: "three" }] };
phase("one");
await agent("step 1", { label: "s1" });
await agent("step 2", { label: "s2" });
phase("two");
await agent("step 3", { label: "s3" });
await agent("step 4", { label: "s4" });
phase("three");
await agent("step 5", { label: "s5" });
return { done: 5 };
"""

FAN_JS = """export const meta = { name: "fan-out", description: "a thousand agent calls", phases: [{ title: "fan out" }] };
phase("fan out");
const r = await parallel(Array.from({ length: 1000 }, (_, i) => () => agent(`item ${i}`, { label: `item-${i}` })));
return { n: r.length };
"""

REVIEW_JS = """export const meta = { name: "review", description: "an agent that will not answer", phases: [{ title: "review" }] };
phase("review");
const v = await agent("Review the diff", { label: "review", schema: { verdict: "string" } });
if (v === null) throw new Error("the reviewer did not answer");
return { verdict: v.verdict };
"""

REFUSAL = "I'm sorry, but I can't review this diff."

FIXTURE = {
    "responses": [
        {"match": {"label": "review"}, "sequence": [
            {"output": "Let me look at the diff first."},
            {"error": f"the agent refused: {REFUSAL}", "code": "agent_refused", "answer": REFUSAL},
        ]},
        *[{"match": {"label": f"s{i}"}, "output": {"ok": i}, "delay_ms": 700} for i in range(1, 6)],
        {"match": {"label": "draft"}, "output": {"text": f"1.4: faster runs (reviewed with {SECRET})"}, "tokens": 120},
        {"match": {}, "output": {"ok": True}, "tokens": 3},
    ]
}


def hwf_bin() -> str:
    return _hwf_bin()


class Env:
    def __init__(self, tmp: pathlib.Path):
        self.tmp = tmp
        self.state = tmp / "state"
        self.fixture = tmp / "fixture.json"
        self.fixture.write_text(json.dumps(FIXTURE))
        self.env = {
            **os.environ,
            "HWF_STATE_DIR": str(self.state),
            "HWF_CACHE_DIR": cache_dir(),
            "HOME": str(tmp),
        }
        self.env.pop("HWF_TOKEN", None)
        for name, text in [("ask.js", ASK_JS), ("release-notes.js", NOTES_JS), ("deploy.js", DEPLOY_JS),
                           ("slow.js", SLOW_JS), ("fan-out.js", FAN_JS), ("review.js", REVIEW_JS)]:
            (tmp / name).write_text(text)

    def hwf(self, *args: str, check_codes=(0,)) -> subprocess.CompletedProcess:
        p = subprocess.run([hwf_bin(), *args], env=self.env, cwd=self.tmp, capture_output=True, text=True, timeout=600)
        assert p.returncode in check_codes, (args, p.returncode, p.stdout, p.stderr)
        return p

    def run(self, script: str, *extra: str, code: int = 3) -> str:
        p = self.hwf("run", script, "--agents", str(self.fixture), "--json", *extra, check_codes=(code,))
        return json.loads(p.stdout)["data"]["run_id"]


def api(base: str, path: str, token: str | None = None, body=None):
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(base + path, data=data, headers=headers, method="POST" if body is not None else "GET")
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"{}")


@pytest.fixture
def console(tmp_path):
    chromium, driver = require_browser()
    env = Env(tmp_path)
    ids = {
        # A run whose args hold a credential cannot be continued (the value
        # was never stored): the one planted in args finishes at once.
        "fan": env.run("fan-out.js", "--args", json.dumps({"api_token": SECRET, "note": f"key {SECRET}"}), code=0),
        "deploy": env.run("deploy.js", "--allow-class", "external_write", "--workspace", str(tmp_path)),
        "notes": env.run("release-notes.js", "--args", json.dumps({"ticket": "REL-14"})),
        "ask": env.run("ask.js"),
        "review": env.run("review.js", code=1),
    }
    server = subprocess.Popen(
        [hwf_bin(), "serve", "--port", "0", "--token", TOKEN, "--agents", str(env.fixture)],
        env=env.env, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        line = server.stdout.readline()
        assert "listening on http://" in line, (line, server.stderr.read() if server.poll() is not None else "")
        base = line.split("listening on ")[1].strip().rstrip("/")
        browser = Browser(chromium, driver)
        try:
            yield {"env": env, "base": base, "browser": browser, "ids": ids, "server": server}
        finally:
            browser.close()
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()


def shot(browser: Browser, name: str) -> None:
    path = ARTIFACTS / name
    browser.screenshot(path)
    if os.environ.get("HWF_UPDATE_SCREENSHOTS") == "1":
        dst = ROOT / "docs" / "img" / name
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, dst)


def page_text(b: Browser) -> str:
    return b.run("return document.documentElement.outerHTML")


def run_state(b: Browser) -> str:
    return b.run("const e = document.querySelector('#run-state'); return e ? e.dataset.state : ''")


def test_console_in_a_real_browser(console):
    b, base, ids, env = console["browser"], console["base"], console["ids"], console["env"]
    seen_html = []

    # The runs list, with the token taken from the URL fragment.
    b.get(f"{base}/#token={TOKEN}")
    b.wait_for(f'#runs tr[data-run="{ids["ask"]}"]')
    assert b.run("return location.hash") == "#/", "the token leaves the address bar"
    for run in ids.values():
        b.wait_for(f'#runs tr[data-run="{run}"]')
    b.wait_until("return document.querySelector('#review-count').textContent === '3'")
    assert "fan-out" in b.text("#runs") and "release-notes" in b.text("#runs")
    shot(b, "console-runs.png")
    seen_html.append(page_text(b))

    # Filter by state.
    b.get(f"{base}/#/?state=succeeded")
    b.wait_for(f'#runs tr[data-run="{ids["fan"]}"]')
    b.wait_until("return document.querySelectorAll('#runs tbody tr[data-run]').length === 1")

    # Open a run; answer its human.ask through the form.
    b.get(f"{base}/#/")
    b.click(f'#runs tr[data-run="{ids["ask"]}"] a.run-link')
    b.wait_for('#run-waits .wait-card[data-kind="human"] button.answer')
    assert "Ship release 1.4 to production?" in b.text("#run-waits")
    assert "hwf control decide" in b.text("#run-waits")
    shot(b, "console-run-waiting.png")
    t0 = time.monotonic()
    b.click('#run-waits button.answer[data-value=\'"yes"\']')
    b.wait_until("const e = document.querySelector('#run-state'); return e && e.dataset.state === 'succeeded'", 5)
    answered_in = time.monotonic() - t0
    print(f"\nhuman.ask answered in the browser -> run succeeded on the page in {answered_in:.3f} s")
    assert answered_in < 2.0, answered_in
    b.wait_until("return document.querySelector('#timeline').innerText.includes('via web')")
    _, s = api(base, f"/api/runs/{ids['ask']}")
    assert s["data"]["result"]["answer"] == "yes"
    assert s["data"]["result"]["channel"] == "web"
    decision = [c for c in s["data"]["controls"] if c["action"] == "decide"][0]
    assert decision["channel"] == "web" and decision["actor"] == "web" and decision["message_id"].startswith("w")
    journal = (env.state / "runs" / ids["ask"] / "journal.jsonl").read_text()
    answered = [json.loads(l) for l in journal.splitlines() if '"call_completed"' in l and '"call":"1"' in l]
    assert answered[-1]["result"]["channel"] == "web", answered
    assert answered[-1]["result"]["message_id"] == decision["message_id"]
    shot(b, "console-run.png")
    seen_html.append(page_text(b))

    # The review queue: a schema form and an approval.
    b.get(f"{base}/#/review")
    b.wait_for(f'.wait-card[data-run="{ids["notes"]}"] form.schema-form')
    b.wait_for(f'.wait-card[data-run="{ids["deploy"]}"] button.approve')
    assert "fs.write" in b.text("#review") and "deployed.txt" in b.text("#review")
    shot(b, "console-review.png")
    seen_html.append(page_text(b))
    card = f'.wait-card[data-run="{ids["notes"]}"]'
    # A sent answer's card keeps its values until the redraw that removes
    # it; a live update arriving before that (forced) redraw ran once
    # downgraded it and the filled-in card then held every redraw back,
    # so the card never went (a flake of this test under load). Staged:
    # the card marked sent, a forced redraw, then a live update at once.
    b.click(f'{card} button.enum[data-value=\'"changes"\']')
    b.type(f'{card} .field[data-field="notes"] input', "draft")
    b.run(f"document.querySelector('{card}').classList.add('decided'); refresh(true); refresh(false);")
    b.wait_until(f"const c = document.querySelector('{card}'); return c && !c.classList.contains('decided') && !c.querySelector('button.enum.selected')", 5)
    b.click(f'{card} button.enum[data-value=\'"approve"\']')
    b.type(f'{card} .field[data-field="notes"] input', "ship it")
    b.click(f"{card} button.submit")
    b.wait_until(f"return !document.querySelector('{card}')", 10)
    b.click(f'.wait-card[data-run="{ids["deploy"]}"] button.approve')
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        states = {k: api(base, f"/api/runs/{ids[k]}")[1]["data"]["state"] for k in ("notes", "deploy")}
        if states == {"notes": "succeeded", "deploy": "succeeded"}:
            break
        time.sleep(0.05)
    assert states == {"notes": "succeeded", "deploy": "succeeded"}, states
    _, notes = api(base, f"/api/runs/{ids['notes']}")
    assert notes["data"]["result"] == {"verdict": "approve", "notes": "ship it"}
    assert (env.tmp / "deployed.txt").read_text() == "release 1.4"
    b.wait_until("return document.querySelector('#review').innerText.includes('Nothing is waiting')")

    # Pause and resume a run that the console's runner executes.
    slow = json.loads(env.hwf("run", "slow.js", "--agents", str(env.fixture), "--background", "--queue-only", "--json").stdout)["data"]["run_id"]
    b.get(f"{base}/#/runs/{slow}")
    b.wait_until("const e = document.querySelector('#run-state'); return e && e.dataset.state === 'running'", 10)
    b.click("#btn-pause")
    b.wait_until("return !!document.querySelector('#run-waits .wait-card[data-kind=\"pause\"]')", 10)
    assert run_state(b) == "waiting"
    calls_at_pause = api(base, f"/api/runs/{slow}")[1]["data"]["counts"]["agent_calls"]
    assert calls_at_pause < 5
    b.click("#btn-resume")
    b.wait_until("const e = document.querySelector('#run-state'); return e && e.dataset.state === 'succeeded'", 15)
    _, s = api(base, f"/api/runs/{slow}")
    actions = [c["action"] for c in s["data"]["controls"]]
    assert actions == ["pause", "resume"], actions
    # Its waterfall: the calls before the pause replayed (hatched), the rest
    # where they ran, each phase with its totals.
    b.wait_until("return document.querySelectorAll('#calls .wf-bar').length === 5")
    assert b.run("return document.querySelectorAll('#calls .wf-bar.replayed').length") >= 1
    b.wait_until("const r = document.querySelector('#calls tr.phase-row[data-phase=\"one\"]'); return !!r && r.innerText.includes('2 calls')")
    shot(b, "console-waterfall.png")
    # The "Recorded: resume" note stays on the page it was recorded on.
    b.get(f"{base}/#/review")
    b.wait_until("return document.body.dataset.rendered === 'review'")
    assert b.run("return document.querySelector('#flash').classList.contains('hidden')"), "a stale note followed"

    # A request without the token is refused (and with it, accepted).
    status = b.run_async(
        "const done = arguments[arguments.length - 1];"
        "fetch('/api/runs/' + arguments[0] + '/controls', {method: 'POST', headers: {'Content-Type': 'application/json'},"
        " body: JSON.stringify({action: 'pause'})}).then(r => done(r.status), e => done(String(e)));",
        slow,
    )
    assert status == 401, status
    assert api(base, f"/api/runs/{slow}/controls", None, {"action": "pause"})[0] == 401

    # A run of 1,000 calls renders its page in under a second: a fresh load
    # (navigation start to the rendered page, the browser's own clock) and
    # navigations inside the console (hash change to rendered: header,
    # filters, waterfall and the first screen of calls), five times; every
    # row is in soon after (measured to the last row, printed).
    complete = "return document.body.dataset.calls === 'run:' + arguments[0]"
    fresh = []
    for i in range(3):
        # A new document each time (another query string), not a hash change.
        b.get(f"{base}/?load={i}#/runs/{ids['fan']}")
        b.wait_until("return document.body.dataset.rendered === 'run:' + arguments[0]", 10, ids["fan"])
        fresh.append(b.run("return [window.hwfFirstRenderAt, performance.getEntriesByType('navigation')[0].domContentLoadedEventStart]"))
        b.wait_until(complete, 10, ids["fan"])
    fresh_ms = sorted(f[0] for f in fresh)[1]
    page_load_ms = sorted(f[1] for f in fresh)[1]
    rows = b.run("return document.querySelectorAll('#calls tr.call-row').length")
    assert rows >= 1000, rows
    nav = []
    for _ in range(5):
        b.get(f"{base}/#/")
        b.wait_until("return document.body.dataset.rendered === 'runs'")
        nav.append(b.run_async(
            "const [id, done] = [arguments[0], arguments[arguments.length - 1]];"
            "const t0 = performance.now(); let shown = 0; location.hash = '#/runs/' + id;"
            "const tick = () => {"
            "  if (!shown && document.body.dataset.rendered === 'run:' + id) shown = performance.now() - t0;"
            "  if (shown && document.body.dataset.calls === 'run:' + id) done([shown, performance.now() - t0, window.hwfTimes]);"
            "  else setTimeout(tick, 2); };"
            "tick();",
            ids["fan"],
        ))
    shown_ms = sorted(n[0] for n in nav)
    all_ms = sorted(n[1] for n in nav)
    fetch_ms = sorted(n[2]["fetch_ms"] for n in nav)
    draw_ms = sorted(n[2]["draw_ms"] for n in nav)
    print(f"1,000-call run page ({rows} call rows): fresh load x3 median {fresh_ms:.0f} ms (the document and its script loaded: {page_load_ms:.0f} ms); in-console navigation x5: "
          f"shown median {shown_ms[2]:.0f} ms (max {shown_ms[-1]:.0f}), every row in median {all_ms[2]:.0f} ms (max {all_ms[-1]:.0f}); "
          f"API median {fetch_ms[2]:.0f} ms, first draw median {draw_ms[2]:.0f} ms")
    (ARTIFACTS / "render-times.json").write_text(json.dumps({
        "calls": rows, "fresh_load_ms": fresh_ms, "page_load_ms": page_load_ms, "navigation_shown_ms": shown_ms, "navigation_all_rows_ms": all_ms,
        "api_ms": fetch_ms, "first_draw_ms": draw_ms}))
    assert fresh_ms < 1000, fresh_ms
    assert shown_ms[2] < 1000 and shown_ms[-1] < 1500, shown_ms
    shot(b, "console-fan-out.png")

    # The waterfall: a bar per call, the phase's totals, the filter, the
    # collapse (issue 31).
    b.wait_until(complete, 10, ids["fan"])
    bars = b.run("return document.querySelectorAll('#calls tr.call-row .wf-bar').length")
    assert bars >= 1000, bars
    b.wait_until("const r = document.querySelector('#calls tr.phase-row[data-phase=\"fan out\"]');"
                 "return !!r && r.innerText.includes('1000 calls') && r.innerText.includes('3000 tokens')")
    b.type("#cf-text", "item-7")
    b.wait_until("return document.querySelector('#calls-shown').textContent === '111 shown'")
    b.run("const s = document.querySelector('#cf-state'); s.value = 'failed'; s.dispatchEvent(new Event('change'));")
    b.wait_until("return document.querySelector('#calls-shown').textContent === '0 shown'")
    b.run("const s = document.querySelector('#cf-state'); s.value = ''; s.dispatchEvent(new Event('change'));"
          "const t = document.querySelector('#cf-text'); t.value = ''; t.dispatchEvent(new Event('input'));")
    b.click('#calls a.collapse[data-phase="fan out"]')
    b.wait_until("return document.querySelectorAll('#calls tr.call-row').length === 0 && !!document.querySelector('#calls tr.phase-row.collapsed')")
    b.click('#calls a.collapse[data-phase="fan out"]')
    b.wait_until("return document.querySelectorAll('#calls tr.call-row').length >= 1000", 10)

    # Tables fit: at 1,280 px the calls table (its row buttons included)
    # fits its box; at 420 px the page does not scroll sideways, the table
    # scrolls inside its own box.
    fits = ("const t = document.querySelector('#calls'); const box = t.parentElement;"
            "return [t.scrollWidth, box.clientWidth, document.documentElement.scrollWidth, window.innerWidth];")
    b.window(1280, 900)
    b.wait_until("return window.innerWidth <= 1280")
    table_w, box_w, page_w, win_w = b.run(fits)
    assert table_w <= box_w + 1 and page_w <= win_w + 1, (table_w, box_w, page_w, win_w)
    b.window(420, 860)
    b.wait_until("return window.innerWidth <= 420")
    table_w, box_w, page_w, win_w = b.run(fits)
    assert page_w <= win_w + 1, f"the page scrolls sideways at {win_w} px: {page_w}"
    shot(b, "console-narrow.png")
    b.get(f"{base}/#/")
    b.wait_until("return document.body.dataset.rendered === 'runs'")
    page_w, win_w = b.run("return [document.documentElement.scrollWidth, window.innerWidth]")
    assert page_w <= win_w + 1, f"the runs list scrolls sideways at {win_w} px: {page_w}"
    b.window(1366, 900)
    b.get(f"{base}/#/runs/{ids['fan']}")
    b.wait_until("return document.body.dataset.rendered === 'run:' + arguments[0]", 10, ids["fan"])
    b.click('#calls a.toggle[data-call="1"]')
    b.wait_until("return document.querySelector('tr[data-detail=\"1\"]').innerText.includes('item 0')")
    seen_html.append(page_text(b))

    # A call whose answers were rejected shows what the agent said, and why.
    b.get(f"{base}/#/runs/{ids['review']}")
    b.wait_until("return document.body.dataset.rendered === 'run:' + arguments[0]", 10, ids["review"])
    b.wait_for('#calls a.toggle[data-call="1"]')
    # An ended run takes no retry (no execution would take it); the page
    # says how to run it again instead.
    assert b.run("return document.querySelectorAll('#calls button.retry').length") == 0
    assert f"hwf run --resume-from {ids['review']}" in b.text("#rerun")
    b.click('#calls a.toggle[data-call="1"]')
    b.wait_until("return document.querySelector('tr[data-detail=\"1\"]').innerText.includes('What the agent answered')")
    detail = b.text('tr[data-detail="1"]')
    assert "Let me look at the diff first." in detail and "schema_mismatch" in detail, detail
    assert REFUSAL in detail and "agent_refused" in detail, detail
    shot(b, "console-rejected-answers.png")
    seen_html.append(page_text(b))
    # "Run again from here": first the plan (what would replay, what would
    # run live, and why; no run is created), then a new run resuming this
    # one, and its page.
    runs_before = api(base, "/api/runs?limit=1000")[1]["data"]["total"]
    b.click("#btn-rerun")
    b.wait_for("#plan tr.plan-step")
    assert b.text("#plan-live") == "1", b.text("#plan")
    assert b.run("return document.querySelector('#plan tr.plan-step[data-call=\"1\"]').dataset.outcome") == "live"
    assert "it failed" in b.text("#plan"), b.text("#plan")
    assert api(base, "/api/runs?limit=1000")[1]["data"]["total"] == runs_before, "a plan creates no run"
    shot(b, "console-plan.png")
    moved = "return location.hash.startsWith('#/runs/') && !location.hash.includes(arguments[0])"
    b.click("#btn-rerun-go")
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and not b.run(moved, ids["review"]):
        time.sleep(0.1)
    assert b.run(moved, ids["review"]), "Run it did not open a new run: " + str(b.run("return document.querySelector('#flash').textContent"))
    b.wait_until("const s = document.querySelector('.summary');"
                 "return (document.body.dataset.rendered || '').startsWith('run:') && !!s && s.innerText.includes('resumed from')", 30)
    rerun = b.run("return decodeURIComponent(location.hash.slice('#/runs/'.length))")
    assert api(base, f"/api/runs/{rerun}")[1]["data"]["resumed_from"] == ids["review"]

    # "Fork with this output" on the answered question of the ask run: an
    # edit box filled with what the call answered; the new run carries the
    # edited answer, and its timeline says who replaced it.
    b.get(f"{base}/#/runs/{ids['ask']}")
    b.wait_until("return document.body.dataset.rendered === 'run:' + arguments[0]", 10, ids["ask"])
    b.wait_for('#calls button.fork[data-call="1"]')
    b.click('#calls button.fork[data-call="1"]')
    b.wait_until("const t = document.querySelector('tr[data-fork=\"1\"] textarea.fork-output'); return !!t && t.value.includes('yes')")
    b.run("document.querySelector('tr[data-fork=\"1\"] textarea.fork-output').value = JSON.stringify({answer: 'no', actor: 'ana', channel: 'web'});")
    b.type('tr[data-fork="1"] input.fork-reason', "we are not ready")
    shot(b, "console-fork.png")
    b.click('tr[data-fork="1"] button.fork-go')
    b.wait_until(moved, 10, ids["ask"])
    forked = b.run("return decodeURIComponent(location.hash.slice('#/runs/'.length))")
    b.wait_until("const e = document.querySelector('#run-state'); return e && e.dataset.state === 'succeeded'", 20)
    b.wait_until("return document.querySelector('#timeline').innerText.includes('replaced')")
    assert "by web" in b.text("#timeline") and "we are not ready" in b.text("#timeline"), b.text("#timeline")
    fs = api(base, f"/api/runs/{forked}")[1]["data"]
    assert fs["result"]["answer"] == "no" and fs["resumed_from"] == ids["ask"], fs
    seen_html.append(page_text(b))

    # Planted secrets appear on no page.
    for html in seen_html:
        assert SECRET not in html
    assert SECRET not in page_text(b)
    for path in ["/api/runs", f"/api/runs/{ids['fan']}", f"/api/runs/{ids['notes']}", f"/api/runs/{ids['notes']}/journal", "/api/waits",
                 f"/api/runs/{ids['notes']}/calls/1"]:
        assert SECRET not in json.dumps(api(base, path)[1]), path


TRIAGE_JS = """export const meta = {{ name: "triage", description: "three reviews and a summary" }};
const prompts = {{ security: "Review the change for security holes.", speed: "{speed}", style: "Review the change for style." }};
const reviews = await parallel(Object.keys(prompts).map((t) => () => agent(prompts[t], {{ label: `review:${{t}}` }})));
const summary = await agent(`Summarize: ${{JSON.stringify(reviews)}}`, {{ label: "summary" }});
return {{ reviews, summary }};
"""


@pytest.fixture
def drift_console(tmp_path):
    """Two finished runs of a file script, then the file changed (one
    prompt, now holding a credential), then `hwf serve`."""
    chromium, driver = require_browser()
    env = Env(tmp_path)
    script = tmp_path / "triage.js"
    script.write_text(TRIAGE_JS.format(speed="Review the change for speed."))
    ids = [env.run("triage.js", code=0) for _ in range(2)]
    script.write_text(TRIAGE_JS.format(speed=f"Review the change for speed with {SECRET}."))
    server = subprocess.Popen(
        [hwf_bin(), "serve", "--port", "0", "--token", TOKEN, "--agents", str(env.fixture)],
        env=env.env, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        line = server.stdout.readline()
        assert "listening on http://" in line, (line, server.stderr.read() if server.poll() is not None else "")
        base = line.split("listening on ")[1].strip().rstrip("/")
        browser = Browser(chromium, driver)
        try:
            yield {"base": base, "browser": browser, "ids": ids}
        finally:
            browser.close()
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()


def test_drift_report_in_a_real_browser(drift_console):
    """A run's page links to the drift report of its workflow: each stored
    run walked against the current script, offline — replays, would run
    live, diverges at the changed call, with its changed field (redacted)."""
    b, base, ids = drift_console["browser"], drift_console["base"], drift_console["ids"]
    runs_before = api(base, "/api/runs?limit=1000")[1]["data"]["total"]
    b.get(f"{base}/#token={TOKEN}")
    b.get(f"{base}/#/runs/{ids[0]}")
    b.wait_until(f"return document.body.dataset.rendered === 'run:{ids[0]}'")
    b.click("#drift-link")
    b.wait_until(f"return document.body.dataset.rendered === 'drift:{ids[0]}'", timeout=30)
    assert b.run("return location.hash") == f"#/drift/{ids[0]}"
    assert b.text("#drift-count") == "2", b.text("#drift")
    assert b.text("#drift-diverging") == "2", b.text("#drift")
    for run in ids:
        row = f'#drift tr.drift-run[data-run="{run}"]'
        b.wait_for(row)
        # The changed review runs live (and the summary, when its prompt
        # over the reviews changes too); the unchanged reviews replay.
        replays, live = int(b.text(row + " td.replays")), int(b.text(row + " td.live").split()[0])
        assert replays + live == 4 and live in (1, 2) and replays >= 2, b.text(row)
        diverges = b.text(row + " td.diverges")
        assert "call 2 " in diverges and "review:speed" in diverges, diverges
        assert "its request changed" in diverges and "/prompt" in diverges, diverges
        assert "Review the change for speed." in diverges, diverges
    html = page_text(b)
    assert SECRET not in html, "the credential in the changed prompt reached the page"
    assert "[REDACTED]" in b.text("#drift"), b.text("#drift")
    shot(b, "console-drift.png")
    # Nothing ran, nothing was created.
    assert api(base, "/api/runs?limit=1000")[1]["data"]["total"] == runs_before
    # The run's id links back to its page.
    b.click(f'#drift tr.drift-run[data-run="{ids[1]}"] a')
    b.wait_until(f"return document.body.dataset.rendered === 'run:{ids[1]}'")


FORKS_JS = """export const meta = { name: "forks", description: "a draft, an agent that checks it, a question" };
const d = await agent("Draft the release notes", { label: "draft" });
const c = await agent("Check the draft", { label: "check", input: { draft: d.text, audience: "users" } });
const a = await capability("human.ask", { prompt: "Ship it?", choices: ["yes", "no"] });
return { check: c, answer: a.answer };
"""

GATED_JS = """export const meta = { name: "gated", description: "a write behind an approval" };
await capability("fs.write", { path: "gated.txt", content: "approved in a fork" });
return { written: true };
"""


@pytest.fixture
def fork_console(tmp_path):
    """A finished run whose second agent call's input holds a credential
    (the first agent's answer, redacted in the journal) and whose question
    was answered; a run whose gated write was refused (approval denied);
    then `hwf serve`."""
    chromium, driver = require_browser()
    env = Env(tmp_path)
    (tmp_path / "forks.js").write_text(FORKS_JS)
    (tmp_path / "gated.js").write_text(GATED_JS)
    ws = tmp_path / "ws"
    ws.mkdir()
    # Writes are allowed behind an approval, for the CLI's runs and the
    # server's alike (a fork, like any run the server starts, runs with the
    # server's policy, not with the flags its source was started with).
    gate = tmp_path / "gate.toml"
    gate.write_text('[policy]\nallowed_classes = ["read_only", "external_write"]\napproval_classes = ["external_write"]\n\n'
                    f'[capabilities]\nworkspace = "{ws}"\n')
    forks = env.run("forks.js")
    gated = env.run("gated.js", "--config", str(gate))
    server = subprocess.Popen(
        [hwf_bin(), "serve", "--config", str(gate), "--port", "0", "--token", TOKEN, "--agents", str(env.fixture)],
        env=env.env, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        line = server.stdout.readline()
        assert "listening on http://" in line, (line, server.stderr.read() if server.poll() is not None else "")
        base = line.split("listening on ")[1].strip().rstrip("/")
        # The question answered "yes"; the write refused.
        assert api(base, f"/api/runs/{forks}/decisions", TOKEN, {"call": "3", "decision": "respond", "value": "yes"})[0] == 200
        assert api(base, f"/api/runs/{gated}/decisions", TOKEN, {"call": "1", "decision": "reject", "reason": "not today"})[0] == 200
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            states = (api(base, f"/api/runs/{forks}")[1]["data"]["state"], api(base, f"/api/runs/{gated}")[1]["data"]["state"])
            if states == ("succeeded", "failed"):
                break
            time.sleep(0.05)
        assert states == ("succeeded", "failed"), states
        browser = Browser(chromium, driver)
        try:
            yield {"env": env, "base": base, "browser": browser, "ids": {"forks": forks, "gated": gated}, "ws": ws}
        finally:
            browser.close()
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()


def journal_lines(env: Env, run: str) -> list[dict]:
    return [json.loads(l) for l in (env.state / "runs" / run / "journal.jsonl").read_text().splitlines() if l.strip()]


def wait_page_state(b: Browser, run: str, want: str, timeout: float = 20) -> None:
    """Wait until the page shows `run` (not the page it came from) in state
    `want`."""
    b.wait_until("const e = document.querySelector('#run-state');"
                 "return document.body.dataset.rendered === 'run:' + arguments[0] && !!e && e.dataset.state === arguments[1]",
                 timeout, run, want)


def open_fork(b, call: str, mode: str) -> str:
    """Open call `call`'s fork box in `mode`; returns the box's selector.
    The run page may redraw once more after it rendered (fresh data after a
    navigation), which closes a box opened just before: open it again."""
    box = f'tr[data-fork="{call}"] .fork-box'
    button = f'{box} button.fork-mode[data-mode="{mode}"]'
    for _ in range(5):
        b.click(f'#calls button.fork[data-call="{call}"]')
        try:
            b.wait_for(button, 2.0)
            break
        except WebDriverError:
            continue
    b.click(button)
    return box


def test_fork_by_input_answer_and_decision_in_a_real_browser(fork_console):
    """The fork box on a call offers what the call takes: its input (with
    the redacted values named, and refused until given again), a
    question's answer (checked against its choices), an approval gate's
    decision; each forks a new run through the token-guarded endpoint,
    journaled by "web"; the server's typed errors show in the form."""
    b, base, ids, env, ws = (fork_console[k] for k in ("browser", "base", "ids", "env", "ws"))
    total = lambda: api(base, "/api/runs?limit=1000")[1]["data"]["total"]
    moved = "return location.hash.startsWith('#/runs/') && !location.hash.includes(arguments[0])"
    b.get(f"{base}/#token={TOKEN}")
    b.wait_until("return !!sessionStorage.getItem('hwf-token') && document.body.dataset.rendered === 'runs'")
    b.get(f"{base}/#/runs/{ids['forks']}")
    b.wait_until("return document.body.dataset.rendered === 'run:' + arguments[0]", 10, ids["forks"])

    # By input: the check agent's input, prefilled redacted, with the
    # redacted field named; sent as it is, the server refuses it
    # (invalid_args, shown in the form) and creates nothing.
    box = open_fork(b, "2", "input")
    assert not b.run(f"return !!document.querySelector('{box} button.fork-mode[data-mode=\"decision\"]')"), "an agent call takes no decision"
    b.wait_until(f"return !document.querySelector('{box} .fork-pane[data-pane=\"input\"]').classList.contains('hidden')")
    assert "[REDACTED]" in b.run(f"return document.querySelector('{box} textarea.fork-input').value")
    assert "/draft" in b.text(f"{box} .fork-redacted") and "never stored" in b.text(f"{box} .fork-redacted")
    assert SECRET not in page_text(b)
    before = total()
    b.click(f"{box} button.fork-go")
    b.wait_until(f"const e = document.querySelector('{box} .fork-error'); return !!e && !e.classList.contains('hidden')")
    assert b.run(f"return document.querySelector('{box} .fork-error').dataset.code") == "invalid_args"
    assert "[REDACTED]" in b.text(f"{box} .fork-error") and "/draft" in b.text(f"{box} .fork-error"), b.text(f"{box} .fork-error")
    assert total() == before, "a refused fork creates no run"
    shot(b, "console-fork-input.png")
    b.run(f"document.querySelector('{box} textarea.fork-input').value = JSON.stringify({{draft: '1.4: faster runs', audience: 'operators'}});")
    b.type(f"{box} input.fork-reason", "for operators")
    b.click(f"{box} button.fork-go")
    b.wait_until(moved, 10, ids["forks"])
    by_input = b.run("return decodeURIComponent(location.hash.slice('#/runs/'.length))")
    wait_page_state(b, by_input, "succeeded")
    s = api(base, f"/api/runs/{by_input}")[1]["data"]
    # The draft and the question replay; the check runs live with the new input.
    assert s["resumed_from"] == ids["forks"] and s["counts"]["replayed"] == 2 and s["result"]["answer"] == "yes", s
    edit = [l for l in journal_lines(env, by_input) if l["type"] == "call_edited"]
    assert [(e["call"], e["field"], e["actor"], e["reason"]) for e in edit] == [("2", "input", "web", "for operators")], edit
    assert edit[0]["value"] == {"draft": "1.4: faster runs", "audience": "operators"}, edit
    started = [l for l in journal_lines(env, by_input) if l["type"] == "call_started" and l.get("call") == "2"]
    assert started and started[-1]["request"]["input"]["audience"] == "operators", started

    # By answer: the question's choices; an answer they refuse is
    # invalid_args in the form; a choice forks.
    b.get(f"{base}/#/runs/{ids['forks']}")
    b.wait_until("return document.body.dataset.rendered === 'run:' + arguments[0]", 10, ids["forks"])
    box = open_fork(b, "3", "answer")
    assert "Ship it?" in b.text(f'{box} .fork-pane[data-pane="answer"]')
    b.run(f"document.querySelector('{box} textarea.fork-answer').value = 'maybe';")
    b.click(f"{box} button.fork-go")
    b.wait_until(f"const e = document.querySelector('{box} .fork-error'); return !!e && !e.classList.contains('hidden')")
    assert b.run(f"return document.querySelector('{box} .fork-error').dataset.code") == "invalid_args", b.text(f"{box} .fork-error")
    b.click(f'{box} button.fork-choice[data-value=\'"no"\']')
    assert json.loads(b.run(f"return document.querySelector('{box} textarea.fork-answer').value")) == "no"
    b.click(f"{box} button.fork-go")
    b.wait_until(moved, 10, ids["forks"])
    by_answer = b.run("return decodeURIComponent(location.hash.slice('#/runs/'.length))")
    wait_page_state(b, by_answer, "succeeded")
    s = api(base, f"/api/runs/{by_answer}")[1]["data"]
    # Every call replays: the question answers with the edit.
    assert s["result"]["answer"] == "no" and s["counts"]["replayed"] == 3, s
    edit = [l for l in journal_lines(env, by_answer) if l["type"] == "call_edited"]
    assert [(e["call"], e["field"], e["value"]["answer"], e["value"]["channel"]) for e in edit] == [("3", "output", "no", "fork")], edit

    # By decision: the refused write, approved in a fork, runs (through the
    # broker) and writes its file; the edit is journaled as a decision.
    assert not (ws / "gated.txt").exists()
    b.get(f"{base}/#/runs/{ids['gated']}")
    b.wait_until("return document.body.dataset.rendered === 'run:' + arguments[0]", 10, ids["gated"])
    box = open_fork(b, "1", "decision")
    assert b.run(f"return Array.from(document.querySelectorAll('{box} input.fork-decision')).map(i => i.value)") == ["approve", "deny"]
    b.click(f'{box} input.fork-decision[value="approve"]')
    shot(b, "console-fork-decision.png")
    b.click(f"{box} button.fork-go")
    b.wait_until(moved, 10, ids["gated"])
    by_decision = b.run("return decodeURIComponent(location.hash.slice('#/runs/'.length))")
    wait_page_state(b, by_decision, "succeeded")
    assert (ws / "gated.txt").read_text() == "approved in a fork"
    edit = [l for l in journal_lines(env, by_decision) if l["type"] == "call_edited"]
    assert [(e["field"], e["value"], e["actor"]) for e in edit] == [("decision", "approve", "web")], edit
    b.wait_until("return document.querySelector('#timeline').innerText.includes('set to approve')")
    assert SECRET not in page_text(b)
