// hwf console: runs, a run's page, the review queue. Plain JS, no
// dependencies; every value from the API is escaped before it is shown.
"use strict";

const TOKEN_KEY = "hwf-token";
const state = { health: null, runsOffset: 0, opened: new Set(), timer: null, view: "", busy: false,
  collapsed: new Set(), callFilter: { state: "", text: "" } };

function esc(v) {
  return String(v ?? "").replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}
function $(sel, root) { return (root || document).querySelector(sel); }
function $all(sel, root) { return Array.from((root || document).querySelectorAll(sel)); }
function token() { return sessionStorage.getItem(TOKEN_KEY) || ""; }
function ms(n) {
  if (n == null) return "";
  if (n < 1000) return n + " ms";
  const s = n / 1000;
  if (s < 60) return s.toFixed(s < 10 ? 1 : 0) + " s";
  const m = Math.floor(s / 60);
  if (m < 60) return m + "m " + Math.floor(s % 60) + "s";
  const h = Math.floor(m / 60);
  if (h < 48) return h + "h " + (m % 60) + "m";
  return Math.floor(h / 24) + "d";
}
function clock(t) {
  const d = new Date(t);
  return d.toTimeString().slice(0, 8) + "." + String(d.getMilliseconds()).padStart(3, "0");
}
function us(n) { return n == null ? "" : n < 100000 ? (n / 1000).toFixed(n < 10000 ? 2 : 1) + " ms" : ms(Math.round(n / 1000)); }
function badge(s) { return `<span class="badge ${esc(s)}">${esc(s)}</span>`; }
function pretty(v) { return esc(JSON.stringify(v, null, 2)); }

function flash(msg, error) {
  const f = $("#flash");
  f.textContent = msg;
  f.className = "flash" + (error ? " error" : "");
  clearTimeout(flash.t);
  flash.t = setTimeout(() => f.classList.add("hidden"), 6000);
}

async function api(path) {
  const headers = {};
  if (token()) headers["Authorization"] = "Bearer " + token();
  const r = await fetch("/api/" + path, { headers });
  const body = await r.json().catch(() => ({ success: false, error: { code: "bad_response", message: "HTTP " + r.status } }));
  if (r.status === 401) showTokenBanner();
  if (!body.success) throw new Error((body.error && body.error.code ? body.error.code + ": " : "") + (body.error ? body.error.message : "HTTP " + r.status));
  return body.data;
}

async function post(path, payload) {
  const headers = { "Content-Type": "application/json" };
  if (token()) headers["Authorization"] = "Bearer " + token();
  const r = await fetch("/api/" + path, { method: "POST", headers, body: JSON.stringify(payload) });
  const body = await r.json().catch(() => ({ success: false, error: { code: "bad_response", message: "HTTP " + r.status } }));
  if (r.status === 401) showTokenBanner();
  if (!body.success) {
    const msg = (body.error && body.error.code ? body.error.code + ": " : "") + (body.error ? body.error.message : "HTTP " + r.status);
    flash(msg, true);
    const err = new Error(msg);
    err.code = body.error && body.error.code;
    throw err;
  }
  return body.data;
}

function showTokenBanner() { $("#token-banner").classList.remove("hidden"); }

// ---- runs list -------------------------------------------------------------

function filterValues() {
  const p = new URLSearchParams(location.hash.split("?")[1] || "");
  return { state: p.get("state") || "", name: p.get("name") || "", since: p.get("since") || "", offset: Number(p.get("offset") || 0) };
}

async function renderRuns() {
  const f = filterValues();
  const q = new URLSearchParams({ limit: "50", offset: String(f.offset) });
  if (f.state) q.set("state", f.state);
  if (f.name) q.set("name", f.name);
  if (f.since) q.set("since", String(Date.now() - Number(f.since) * 3600 * 1000));
  const data = await api("runs?" + q.toString());
  const states = ["", "active", "waiting", "running", "queued", "stuck", "succeeded", "failed", "stopped", "cancelled"];
  const since = [["", "any time"], ["1", "last hour"], ["24", "last day"], ["168", "last week"]];
  let rows = data.runs.map((r) => {
    const c = r.counts || {};
    return `<tr data-run="${esc(r.run_id)}" data-state="${esc(r.state)}">
      <td><a class="run-link mono" href="#/runs/${encodeURIComponent(r.run_id)}">${esc(r.run_id)}</a></td>
      <td>${esc(r.workflow)}</td><td>${badge(r.state)}</td><td>${esc(r.phase || "")}</td>
      <td>${ms(r.age_ms)} ago</td><td>${ms(r.duration_ms)}</td>
      <td>${(c.agent_calls || 0) + (c.capability_calls || 0)}${c.failed ? ` <span class="lvl-error">(${c.failed} failed)</span>` : ""}</td>
      <td>${c.tokens || 0}</td><td>${(r.waits || []).map((w) => esc(w.kind === "approval" ? w.summary.split(": ")[0] : w.summary)).join("<br>")}</td></tr>`;
  }).join("");
  if (!rows) rows = `<tr><td colspan="9" class="empty">No runs${f.state || f.name ? " match these filters" : " yet"}.</td></tr>`;
  const end = f.offset + data.runs.length;
  $("#view").innerHTML = `
    <h1>Runs</h1>
    <div class="filters">
      <label>State <select id="f-state">${states.map((s) => `<option value="${s}"${s === f.state ? " selected" : ""}>${s || "any"}</option>`).join("")}</select></label>
      <label>Workflow <input id="f-name" value="${esc(f.name)}" placeholder="name contains…"></label>
      <label>Created <select id="f-since">${since.map(([v, l]) => `<option value="${v}"${v === f.since ? " selected" : ""}>${l}</option>`).join("")}</select></label>
      <button id="f-apply" type="button">Filter</button>
      <span class="muted">${data.total} run${data.total === 1 ? "" : "s"}</span>
    </div>
    <table id="runs"><thead><tr><th>Run</th><th>Workflow</th><th>State</th><th>Phase</th><th>Age</th><th>Duration</th><th>Calls</th><th>Tokens</th><th>Waiting on</th></tr></thead>
    <tbody>${rows}</tbody></table>
    <div class="pager">
      <button id="prev" type="button"${f.offset ? "" : " disabled"}>‹ Newer</button>
      <span class="muted">${data.total ? f.offset + 1 : 0}–${end} of ${data.total}</span>
      <button id="next" type="button"${data.next_offset == null ? " disabled" : ""}>Older ›</button>
    </div>`;
  const go = (offset) => {
    const q = new URLSearchParams();
    const st = $("#f-state").value, nm = $("#f-name").value.trim(), sn = $("#f-since").value;
    if (st) q.set("state", st);
    if (nm) q.set("name", nm);
    if (sn) q.set("since", sn);
    if (offset) q.set("offset", String(offset));
    location.hash = "#/" + (q.toString() ? "?" + q.toString() : "");
  };
  $("#f-apply").addEventListener("click", () => go(0));
  $("#f-name").addEventListener("keydown", (e) => { if (e.key === "Enter") go(0); });
  $("#f-state").addEventListener("change", () => go(0));
  $("#f-since").addEventListener("change", () => go(0));
  $("#prev").addEventListener("click", () => go(Math.max(0, f.offset - 50)));
  $("#next").addEventListener("click", () => go(data.next_offset || 0));
}

// ---- review cards ------------------------------------------------------------

function fieldFor(name, schema) {
  const id = "fld-" + name.replace(/[^a-zA-Z0-9_-]/g, "_");
  if (Array.isArray(schema.enum)) {
    return `<div class="field" data-field="${esc(name)}" data-kind="enum"><label>${esc(name)}</label>${schema.enum.map((v) =>
      `<button type="button" class="choice enum" data-value="${esc(JSON.stringify(v))}">${esc(typeof v === "string" ? v : JSON.stringify(v))}</button>`).join("")}</div>`;
  }
  const t = schema.type;
  if (t === "boolean") return `<div class="field" data-field="${esc(name)}" data-kind="boolean"><label><input type="checkbox" id="${id}"> ${esc(name)}</label></div>`;
  if (t === "integer" || t === "number") return `<div class="field" data-field="${esc(name)}" data-kind="${t}"><label for="${id}">${esc(name)}</label><input type="number" id="${id}"${t === "integer" ? ' step="1"' : ' step="any"'}></div>`;
  if (t === "string") return `<div class="field" data-field="${esc(name)}" data-kind="string"><label for="${id}">${esc(name)}</label><input type="text" id="${id}"></div>`;
  return `<div class="field" data-field="${esc(name)}" data-kind="json"><label for="${id}">${esc(name)} (JSON)</label><textarea id="${id}"></textarea></div>`;
}

function waitCard(w) {
  const head = `<div class="meta"><a href="#/runs/${encodeURIComponent(w.run_id)}">${esc(w.workflow)} · ${esc(w.run_id)}</a> · call ${esc(w.call || "—")} · ${esc(w.kind)} · waiting ${ms(Date.now() - w.since_ms)}</div>`;
  const cmds = (w.commands || []).map((c) => `<div class="cmd">${esc(c)}</div>`).join("");
  const who = `<div class="meta">Who decides: ${esc(w.who || "")}</div>`;
  let body = "";
  if (w.kind === "human") {
    let form = "";
    const s = w.schema;
    if (Array.isArray(w.choices)) {
      form = `<div class="row answers">${w.choices.map((c) => `<button type="button" class="choice answer" data-value="${esc(JSON.stringify(c))}">${esc(typeof c === "string" ? c : JSON.stringify(c))}</button>`).join("")}</div>`;
    } else if (s && s.type === "object" && s.properties) {
      form = `<form class="schema-form">${Object.entries(s.properties).map(([k, v]) => fieldFor(k, v)).join("")}
        <button type="submit" class="primary submit">Send answer</button></form>`;
    } else if (s && Array.isArray(s.enum)) {
      form = `<div class="row answers">${s.enum.map((c) => `<button type="button" class="choice answer" data-value="${esc(JSON.stringify(c))}">${esc(typeof c === "string" ? c : JSON.stringify(c))}</button>`).join("")}</div>`;
    } else {
      form = `<form class="free-form row"><input type="text" class="free" placeholder="your answer (text or JSON)"><button type="submit" class="primary submit">Send answer</button></form>`;
    }
    body = `<div class="q">${esc(w.question || w.summary)}</div>${form}
      <div class="row"><input type="text" class="reason" placeholder="reason (optional)"><button type="button" class="danger reject">Reject</button></div>`;
  } else if (w.kind === "approval") {
    body = `<div class="q">Approve <span class="mono">${esc(w.capability || "")}</span>?</div>
      <div class="muted">It will run with this input (credentials redacted):</div><pre class="json">${pretty(w.input)}</pre>
      <div class="row"><button type="button" class="primary approve">Approve</button>
      <input type="text" class="reason" placeholder="reason (optional)"><button type="button" class="danger reject">Reject</button>
      <button type="button" class="edit-toggle">Edit input…</button></div>
      <div class="edit-box hidden"><textarea class="edit-input">${pretty(w.input)}</textarea><button type="button" class="primary edit">Run with this input</button></div>`;
  } else if (w.kind === "pause") {
    body = `<div class="q">Paused by an operator</div><button type="button" class="primary resume">Resume</button>`;
  } else if (w.kind === "event") {
    body = `<div class="q">${esc(w.summary)}</div><div class="muted">Waiting for an event matching:</div><pre class="json">${pretty(w.predicate)}</pre>`;
  } else {
    body = `<div class="q">${esc(w.summary)}</div>${w.wake_at_ms ? `<div class="muted">Resolves at ${esc(new Date(w.wake_at_ms).toLocaleString())}</div>` : ""}`;
  }
  return `<div class="card wait-card" data-run="${esc(w.run_id)}" data-call="${esc(w.call)}" data-kind="${esc(w.kind)}">${head}${body}${who}${cmds}</div>`;
}

async function decide(card, decision, value, reason) {
  const payload = { call: card.dataset.call, decision };
  if (value !== undefined) payload.value = value;
  if (reason) payload.reason = reason;
  $all("button", card).forEach((b) => (b.disabled = true));
  try {
    await post("runs/" + encodeURIComponent(card.dataset.run) + "/decisions", payload);
    flash(`Recorded: ${decision} on call ${card.dataset.call}`);
    card.classList.add("decided");
  } catch (e) {
    $all("button", card).forEach((b) => (b.disabled = false));
    return;
  }
  refresh(true);
}

function wireCards(root) {
  $all(".wait-card", root).forEach((card) => {
    const reason = () => ($(".reason", card) || {}).value || undefined;
    $all("button.answer", card).forEach((b) => b.addEventListener("click", () => decide(card, "respond", JSON.parse(b.dataset.value))));
    $all("button.enum", card).forEach((b) => b.addEventListener("click", () => {
      $all("button.enum", b.parentElement).forEach((x) => x.classList.remove("selected"));
      b.classList.add("selected");
    }));
    const sf = $("form.schema-form", card);
    if (sf) sf.addEventListener("submit", (e) => {
      e.preventDefault();
      const out = {};
      for (const f of $all(".field", sf)) {
        const k = f.dataset.field, kind = f.dataset.kind;
        if (kind === "enum") { const s = $("button.selected", f); if (s) out[k] = JSON.parse(s.dataset.value); continue; }
        const input = $("input, textarea", f);
        if (kind === "boolean") out[k] = input.checked;
        else if (kind === "integer" || kind === "number") { if (input.value !== "") out[k] = Number(input.value); }
        else if (kind === "json") { if (input.value.trim()) { try { out[k] = JSON.parse(input.value); } catch (_) { flash(k + " is not valid JSON", true); return; } } }
        else out[k] = input.value;
      }
      decide(card, "respond", out);
    });
    const ff = $("form.free-form", card);
    if (ff) ff.addEventListener("submit", (e) => {
      e.preventDefault();
      const t = $("input.free", ff).value;
      let v = t;
      try { v = JSON.parse(t); } catch (_) { /* plain text */ }
      decide(card, "respond", v);
    });
    const rj = $("button.reject", card);
    if (rj) rj.addEventListener("click", () => decide(card, "reject", undefined, reason()));
    const ap = $("button.approve", card);
    if (ap) ap.addEventListener("click", () => decide(card, "approve", undefined, reason()));
    const et = $("button.edit-toggle", card);
    if (et) et.addEventListener("click", () => $(".edit-box", card).classList.toggle("hidden"));
    const ed = $("button.edit", card);
    if (ed) ed.addEventListener("click", () => {
      let v;
      try { v = JSON.parse($(".edit-input", card).value); } catch (_) { flash("the edited input is not valid JSON", true); return; }
      decide(card, "edit", v, reason());
    });
    const rs = $("button.resume", card);
    if (rs) rs.addEventListener("click", () => control(card.dataset.run, "resume"));
  });
}

// A live update whose data arrived while someone started filling in a
// form does not redraw under them (it is tried again later).
function deferred() {
  // A forced redraw (a navigation, a decision) goes ahead, unless a form
  // was opened after it began: its answer may come back after the click
  // that opened a fork box, and must not wipe the box.
  if (state.forced && state.editSeq === state.routeEditSeq) return false;
  if (!editing()) return false;
  refresh();
  return true;
}

async function renderReview() {
  const data = await api("waits");
  if (deferred()) return;
  $("#view").innerHTML = `<h1>Review queue</h1><p class="muted">Every run waiting for someone, oldest first.</p>
    <div id="review">${data.waits.map(waitCard).join("") || '<div class="empty">Nothing is waiting.</div>'}</div>`;
  wireCards($("#review"));
}

// ---- a run -------------------------------------------------------------------

async function control(run, action, call) {
  const payload = { action };
  if (call) payload.call = call;
  try {
    await post("runs/" + encodeURIComponent(run) + "/controls", payload);
    flash(`Recorded: ${action}${call ? " on call " + call : ""}`);
  } catch (_) { /* flashed */ }
  refresh(true);
}

function depth(call) { return Math.min(3, (String(call).match(/\./g) || []).length); }

// The page's calls as objects: the server sends them as arrays under one
// list of column names (a 1,000-call run is a third of the bytes).
function callsFrom(table) {
  const cols = (table && table.cols) || [];
  return ((table && table.rows) || []).map((r) => {
    const o = {};
    for (let i = 0; i < cols.length; i++) if (r[i] !== null) o[cols[i]] = r[i];
    return o;
  });
}

// "$0.0123": millionths of a USD.
function usd(micro) { return micro ? "$" + (micro / 1e6).toFixed(micro < 10000 ? 4 : 2) : ""; }

// When a call ended on the waterfall: now while it runs or waits; a
// replayed call took no time in this execution.
function callEnd(c, now) {
  if (c.state === "running" || c.state === "waiting") return now;
  return c.started_ms + (c.replayed ? 0 : Math.round((c.duration_us || 0) / 1000));
}

// The waterfall's scale: the first call's start to the last end.
function waterfallScale(calls) {
  const now = Date.now();
  let t0 = Infinity, t1 = 0;
  for (const c of calls) {
    if (c.started_ms == null) continue;
    t0 = Math.min(t0, c.started_ms);
    t1 = Math.max(t1, callEnd(c, now));
  }
  return t0 === Infinity ? null : { t0, span: Math.max(1, t1 - t0), now };
}

// One call's bar: where it ran in the run, its waiting part (a parked
// call: before its continuation, or until now) and replayed calls drawn
// apart. One flex row of plain blocks: cheap to lay out 1,000 times.
function waterfallBar(c, wf) {
  if (!wf || c.started_ms == null) return "";
  const pct = (t) => Math.max(0, Math.min(100, ((t - wf.t0) / wf.span) * 100));
  const end = callEnd(c, wf.now);
  const how = c.replayed ? "replayed" : c.cache_hit ? "cached" : c.state;
  const w = c.wait_started_ms;
  const parts = w == null ? [[c.started_ms, end, how]]
    : w < c.started_ms ? [[w, c.started_ms, "wait"], [c.started_ms, end, how]]
    : [[c.started_ms, w, how], [w, end, "wait"]];
  let at = 0;
  const blocks = parts.map(([a, b, cls], i) => {
    const l = pct(a), r = Math.max(pct(b), l + 0.4);
    const html = `<i class="${cls === "wait" ? "wf-wait" : "wf-bar " + esc(cls)}"${i === 0 ? ` data-l="${l.toFixed(2)}"` : ""} data-w="${(r - Math.max(l, at)).toFixed(2)}"></i>`;
    at = r;
    return html;
  }).join("");
  const took = c.replayed ? `replayed (took ${us(c.duration_us)} when it ran)` : c.state === "running" || c.state === "waiting" ? `${c.state} for ${ms(wf.now - c.started_ms)}` : us(c.duration_us);
  return `<div class="wf" title="${esc(`+${ms(c.started_ms - wf.t0)} · ${took}`)}">${blocks}</div>`;
}

// Place the bars (the page's CSP allows no inline style attributes; the
// CSSOM is allowed).
function paintBars(bars) {
  for (const i of bars) {
    if (i.dataset.l) i.style.marginLeft = i.dataset.l + "%";
    i.style.width = i.dataset.w + "%";
  }
}

// The calls on show: kept so that the filter and the collapse redraw
// from them without asking the server again.
const shownCalls = { id: "", calls: [], wf: null, ended: false, gen: 0 };

// Whether a call passes the filter (state, and text in its id, kind,
// label, agent, capability, model or phase).
function callMatches(c, want, needle) {
  if (want && c.state !== want) return false;
  if (!needle) return true;
  if (c.text === undefined) c.text = [c.call, c.kind, c.label, c.name, c.agent_type, c.model, c.phase].filter((v) => typeof v === "string").join(" ").toLowerCase();
  return c.text.includes(needle);
}

// Calls grouped by phase (consecutive calls of one phase), each group
// headed by its totals (of all its calls); a collapsed phase shows its
// header only, and only calls the filter lets through are drawn. One
// HTML string per table row, and how many calls passed the filter.
function callRows(calls, wf, ended) {
  const groups = [];
  for (const c of calls) {
    const p = c.phase || "";
    if (!groups.length || groups[groups.length - 1].phase !== p) groups.push({ phase: p, calls: [] });
    groups[groups.length - 1].calls.push(c);
  }
  const { state: want, text } = state.callFilter;
  const needle = text.trim().toLowerCase();
  const now = wf ? wf.now : Date.now();
  const out = [];
  let shown = 0;
  for (const g of groups) {
    let tokens = 0, cost = 0, failed = 0, t0 = Infinity, t1 = 0;
    for (const c of g.calls) {
      tokens += c.tokens || 0;
      cost += c.cost_micro_usd || 0;
      if (c.state === "failed") failed++;
      if (c.started_ms != null) { t0 = Math.min(t0, c.started_ms); t1 = Math.max(t1, callEnd(c, now)); }
    }
    const collapsed = state.collapsed.has(g.phase);
    const totals = [`${g.calls.length} call${g.calls.length === 1 ? "" : "s"}`, failed ? `${failed} failed` : "",
      tokens ? `${tokens} tokens` : "", usd(cost), t0 < Infinity ? ms(t1 - t0) : ""].filter(Boolean).join(" · ");
    out.push(`<tr class="phase-row${collapsed ? " collapsed" : ""}" data-phase="${esc(g.phase)}"><td colspan="8"><a href="#" class="collapse" data-phase="${esc(g.phase)}" title="${collapsed ? "show" : "hide"} this phase's calls">${collapsed ? "▸" : "▾"} ${esc(g.phase || "(no phase)")}</a> <span class="phase-totals">${esc(totals)}</span></td></tr>`);
    for (const c of g.calls) {
      if (!callMatches(c, want, needle)) continue;
      shown++;
      if (collapsed) continue;
      const name = c.name || c.label || c.kind;
      const who = [c.agent_type, c.model].filter(Boolean).map(esc).join(" · ");
      const live = c.state === "running" || c.state === "waiting";
      const actions = live
        ? `<button type="button" class="task-stop" data-call="${esc(c.call)}">stop</button>`
        // A retry is taken by the run's next execution: an ended run has none.
        : c.state === "failed" && !ended ? `<button type="button" class="retry" data-call="${esc(c.call)}">retry</button>`
        // A fork: a new run with this call's output, input or decision
        // replaced (a failed call too once the run ended: a refused
        // approval approved, a failed call answered).
        : (c.state === "done" || (c.state === "failed" && ended)) && (c.kind === "agent" || c.kind === "capability") ? `<button type="button" class="fork" data-call="${esc(c.call)}" title="fork: a new run in which this call answers what you write, runs with another input, or is decided again">fork</button>` : "";
      const took = live && c.started_ms != null ? `<span class="elapsed">${ms(now - c.started_ms)}…</span>` : us(c.duration_us);
      out.push(`<tr class="call-row" data-call="${esc(c.call)}" data-state="${esc(c.state)}">
      <td class="call indent${depth(c.call)}"><a href="#" class="toggle" data-call="${esc(c.call)}">${esc(c.call)}</a></td>
      <td>${esc(c.kind)}</td><td>${esc(c.label || "")}${c.label && name !== c.label ? ` <span class="muted">${esc(name)}</span>` : c.label ? "" : esc(name)}${who ? ` <span class="muted who">${who}</span>` : ""}${c.replayed ? '<span class="replayed" title="answered from the journal">replayed</span>' : ""}${c.cost_micro_usd ? ` <span class="muted">${usd(c.cost_micro_usd)}</span>` : ""}</td>
      <td>${badge(c.state)}</td><td>${took}</td><td>${c.tokens || ""}</td>
      <td class="wf-cell">${waterfallBar(c, wf)}</td><td>${actions}</td></tr>`);
      if (state.opened.has(c.call)) out.push(detailRow(c.call));
    }
  }
  return { rows: out, shown, filtered: !!(want || needle) };
}

// Rows drawn before the page counts as shown (a screenful and more); the
// rest follow after the first paint, in chunks of CHUNK_ROWS (each chunk
// lays the table out again, so they are large), so a 1,000-call run shows
// its header, filters and first calls at once.
const FIRST_ROWS = 60;
const CHUNK_ROWS = 2000;

// Draw the calls table's rows from `shownCalls`: the first ones now, the
// rest after the first paint. `document.body.dataset.calls` names the
// run once every row is in; a newer draw stops an older one.
function drawCalls(run, onDone) {
  const gen = ++shownCalls.gen;
  const table = $("#calls");
  if (!table) return;
  const tbody = table.tBodies[0];
  const { rows, shown, filtered } = callRows(shownCalls.calls, shownCalls.wf, shownCalls.ended);
  const n = $("#calls-shown");
  if (n) n.textContent = filtered ? `${shown} shown` : "";
  delete document.body.dataset.calls;
  const details = () => {
    for (const call of state.opened) {
      const box = $(`tr[data-detail="${CSS.escape(call)}"] .detail-body`, tbody);
      if (box && !box.dataset.asked) { box.dataset.asked = "1"; loadDetail(run, call); }
    }
  };
  const put = (html, replace) => {
    // One insertion, then the bars placed, before the next layout.
    const t = document.createElement("template");
    t.innerHTML = html;
    const bars = $all(".wf i", t.content);
    if (replace) tbody.replaceChildren(t.content); else tbody.append(t.content);
    paintBars(bars);
  };
  if (!shownCalls.calls.length) rows.push('<tr><td colspan="8" class="muted">no calls yet</td></tr>');
  put(rows.slice(0, FIRST_ROWS).join(""), true);
  details();
  let at = FIRST_ROWS;
  const more = () => {
    if (gen !== shownCalls.gen || !tbody.isConnected) return;
    if (at >= rows.length) {
      document.body.dataset.calls = "run:" + run;
      if (onDone) onDone();
      return;
    }
    put(rows.slice(at, at + CHUNK_ROWS).join(""), false);
    at += CHUNK_ROWS;
    details();
    setTimeout(more, 0);
  };
  // After the first paint.
  requestAnimationFrame(() => setTimeout(more, 0));
}

function detailRow(call) {
  return `<tr class="detail" data-detail="${esc(call)}"><td colspan="8"><div class="detail-body muted">Loading…</div></td></tr>`;
}

function timelineRows(rows) {
  return rows.map((r) => {
    let what = "";
    switch (r.row) {
      case "call": what = `call <b class="mono">${esc(r.call)}</b> ${esc(r.kind)} ${esc(r.label || r.name || "")} ${badge(r.state)} ${us(r.duration_us)}${r.tokens ? " · " + r.tokens + " tokens" : ""}${r.replayed ? ' <span class="replayed">replayed</span>' : ""}${r.error ? ` <span class="lvl-error">${esc(r.error.message || "")}</span>` : ""}`; break;
      case "phase": what = `phase <b>${esc(r.title)}</b>`; break;
      case "log": what = `<span class="lvl-${esc(r.level)}">${esc(r.message)}</span>${r.call ? ` <span class="muted">(call ${esc(r.call)})</span>` : ""}`; break;
      case "wait": what = `waits (${esc(r.kind)}): ${esc(r.summary)}`; break;
      case "wait_resolved": what = `wait of call ${esc(r.call)} resolved`; break;
      case "edit": what = `call <b class="mono">${esc(r.call)}</b> ${esc(r.field)} ${r.decision ? "set to <b>" + esc(r.decision) + "</b>" : "replaced"} (fork of <span class="mono">${esc(r.source_run)}</span>) by <b>${esc(r.actor)}</b>${r.reason ? " — " + esc(r.reason) : ""}`; break;
      case "attempt": what = `call <b class="mono">${esc(r.call)}</b> attempt ${esc(r.attempt)} rejected <span class="mono">${esc(r.code || "")}</span> <span class="lvl-error">${esc(r.error || "")}</span>${r.answer !== undefined && r.answer !== null ? ` — answered <span class="answer">${esc(r.answer.length > 300 ? r.answer.slice(0, 300) + "…" : r.answer)}</span>` : ""}`; break;
      case "control": what = `<b>${esc(r.action)}</b>${r.call ? " call " + esc(r.call) : ""}${r.decision ? " → " + esc(r.decision) : ""}${r.value !== undefined && r.value !== null ? " " + esc(JSON.stringify(r.value)) : ""} by <b>${esc(r.actor)}</b>${r.channel ? " via " + esc(r.channel) : ""}${r.message_id ? ` <span class="mono muted">${esc(r.message_id)}</span>` : ""}${r.reason ? " — " + esc(r.reason) : ""}`; break;
      case "control_applied": what = `control ${esc(r.action)} applied${r.call ? " to call " + esc(r.call) : ""}`; break;
      case "run_started": what = "run started"; break;
      case "gap": what = `<span class="muted">… ${r.hidden} more rows …</span>`; break;
      case "run_completed": what = `run ${badge(r.state)} after ${ms(r.duration_ms)}${r.error ? ` <span class="lvl-error">${esc(r.error.code)}: ${esc(r.error.message)}</span>` : ""}`; break;
      default: what = esc(JSON.stringify(r));
    }
    const t = r.ts_ms ? clock(r.ts_ms) : "";
    return `<tr class="${esc(r.row)}" data-row="${esc(r.row)}"><td class="kind">${esc(t)}</td><td class="kind">${esc(r.row.replace("_", " "))}</td><td>${what}</td></tr>`;
  }).join("");
}

// A long timeline comes from the server as its first and last rows (a
// "gap" row between them) until asked for all (?all=true).
const TIMELINE_ROWS = 300;

// "input 4 · cache write 5123 · cache read 14200 · output 45": a token split.
function usageText(u) {
  if (!u) return "";
  const names = [["input", "input"], ["cache_creation", "cache write"], ["cache_read", "cache read"], ["output", "output"], ["reasoning", "reasoning"], ["unsplit", "unsplit"]];
  return names.filter(([k]) => u[k]).map(([k, n]) => `${n} ${u[k]}`).join(" · ");
}

async function loadDetail(run, call) {
  const box = $(`tr[data-detail="${CSS.escape(call)}"] .detail-body`);
  if (!box) return;
  try {
    const d = await api("runs/" + encodeURIComponent(run) + "/calls/" + encodeURIComponent(call));
    box.classList.remove("muted");
    const split = usageText(d.usage);
    const rejected = (d.rejected || []).map((r) => `<div class="rejected"><b>Attempt ${esc(r.attempt)} rejected</b> <span class="mono">${esc(r.code || "")}</span> <span class="lvl-error">${esc(r.error || "")}</span>
      <pre class="answer">${esc(r.answer === undefined || r.answer === null ? "(no answer)" : r.answer)}</pre></div>`).join("");
    box.innerHTML = `<div class="grid"><div><b>Request</b><pre class="json">${pretty(d.request)}</pre></div>
      <div><b>${d.ok === false ? "Error" : "Answer"}</b><pre class="json">${pretty(d.ok === false ? d.error : d.result)}</pre>${split ? `<div class="muted usage">tokens: ${esc(split)}</div>` : ""}</div></div>${rejected ? `<div class="rejected-list"><b>What the agent answered</b>${rejected}</div>` : ""}`;
  } catch (e) { box.textContent = e.message; }
}

// A fork of one call: a new run of this run's lineage with the call's
// output, input or decision replaced (through the facade, journaled as
// call_edited by "web"); every call whose request is unchanged replays.
// The box asks the server what this call takes (GET …/calls/{call}/fork:
// its recorded output and input, redacted; a question; the decisions an
// approval gate or a question takes) and offers only that.
const FORK_MODES = {
  output: "Replace its output",
  input: "Edit its input",
  answer: "Answer it differently",
  decision: "Decide again",
};

function forkExplain(o, mode) {
  const c = `call <b class="mono">${esc(o.call)}</b>`;
  switch (mode) {
    case "output": return `A new run in which ${c} answers what you write here (JSON, or else plain text). Every call whose request is unchanged replays; the calls that use this answer run live.`;
    case "input": return `A new run in which ${c} runs again, live, with this input: through the policy, its input schema, any approval, the budget and the backend. Every call whose request is unchanged replays.`
      + (o.redacted.length ? `<div class="lvl-warn fork-redacted">Values shown as <span class="mono">[REDACTED]</span> (at ${o.redacted.map((p) => `<span class="mono">${esc(p)}</span>`).join(", ")}) were never stored: type them again, or the fork is refused.</div>` : "");
    case "answer": return `A new run in which the question of ${c} is answered with this instead (checked against its choices and schema); the run goes on from there.`;
    case "decision": return o.decisions.includes("approve")
      ? `A new run in which the approval of ${c} is decided again: <b>approve</b> runs the gated call, <b>deny</b> refuses it (the script gets <span class="mono">approval_rejected</span>).`
      : `A new run in which the question of ${c} is declined.`;
    default: return "";
  }
}

async function openFork(run, call, tr) {
  if ($(`tr[data-fork="${CSS.escape(call)}"]`)) return;
  state.editSeq = (state.editSeq || 0) + 1;
  tr.insertAdjacentHTML("afterend", `<tr class="fork-row" data-fork="${esc(call)}"><td colspan="8"><div class="fork-box muted">Loading what call ${esc(call)} takes…</div></td></tr>`);
  const row = $(`tr[data-fork="${CSS.escape(call)}"]`);
  let o;
  try {
    o = await api("runs/" + encodeURIComponent(run) + "/calls/" + encodeURIComponent(call) + "/fork");
  } catch (e) {
    // Said where the box was, with a way to close it (an open box holds the
    // page's live refresh).
    $(".fork-box", row).classList.remove("muted");
    $(".fork-box", row).innerHTML = `<div class="fork-error lvl-error" role="alert">${esc(e.message)}</div><div class="row"><button type="button" class="fork-cancel" data-call="${esc(call)}">Close</button></div>`;
    return;
  }
  const modes = ["output", "input", ...(o.question ? ["answer"] : []), ...(o.decisions.length ? ["decision"] : [])];
  const json = (v) => esc(v === undefined ? "" : JSON.stringify(v, null, 2));
  const q = o.question || {};
  const choices = Array.isArray(q.choices) ? q.choices : [];
  const decisionWords = { approve: "approve", deny: o.question ? "decline" : "deny" };
  const box = $(".fork-box", row);
  box.classList.remove("muted");
  box.dataset.mode = "output";
  box.innerHTML = `<div class="row fork-modes" role="tablist">${modes.map((m, i) => `<button type="button" role="tab" class="fork-mode${i ? "" : " on"}" data-mode="${m}" aria-selected="${i ? "false" : "true"}">${esc(FORK_MODES[m])}</button>`).join("")}
      <span class="muted">call ${esc(o.call)} · ${esc(o.kind)}${o.name ? " " + esc(o.name) : ""}${o.label ? " · " + esc(o.label) : ""}</span></div>
    <div class="fork-explain muted">${forkExplain(o, "output")}</div>
    <div class="fork-pane" data-pane="output"><textarea class="fork-output" aria-label="the call's new output">${json(o.output)}</textarea></div>
    <div class="fork-pane hidden" data-pane="input"><textarea class="fork-input" aria-label="the call's new input">${json(o.input)}</textarea></div>
    <div class="fork-pane hidden" data-pane="answer">${q.prompt ? `<div class="q">${esc(q.prompt)}</div>` : ""}
      ${choices.length ? `<div class="row">${choices.map((c) => `<button type="button" class="fork-choice" data-value="${esc(JSON.stringify(c))}">${esc(typeof c === "string" ? c : JSON.stringify(c))}</button>`).join("")}</div>` : ""}
      <textarea class="fork-answer" aria-label="the new answer">${json(o.output && o.output.answer)}</textarea></div>
    <div class="fork-pane hidden" data-pane="decision"><div class="row">${o.decisions.map((d, i) => `<label><input type="radio" name="fork-decision-${esc(o.call)}" class="fork-decision" value="${esc(d)}"${i ? "" : " checked"}> ${esc(decisionWords[d] || d)}</label>`).join("")}</div></div>
    <div class="fork-error lvl-error hidden" role="alert"></div>
    <div class="row"><input type="text" class="fork-reason" placeholder="reason (journaled)"><button type="button" class="primary fork-go" data-call="${esc(call)}">Fork</button><button type="button" class="fork-cancel" data-call="${esc(call)}">Cancel</button></div>`;
  box.addEventListener("click", (e) => {
    const m = e.target.closest("button.fork-mode");
    if (m) {
      box.dataset.mode = m.dataset.mode;
      $all("button.fork-mode", box).forEach((b) => { b.classList.toggle("on", b === m); b.setAttribute("aria-selected", String(b === m)); });
      $all(".fork-pane", box).forEach((p) => p.classList.toggle("hidden", p.dataset.pane !== m.dataset.mode));
      $(".fork-explain", box).innerHTML = forkExplain(o, m.dataset.mode);
      $(".fork-error", box).classList.add("hidden");
      return;
    }
    const c = e.target.closest("button.fork-choice");
    if (c) $("textarea.fork-answer", box).value = JSON.stringify(JSON.parse(c.dataset.value), null, 2);
  });
}

// JSON, or else the text as a string.
function loose(text) {
  try { return JSON.parse(text); } catch (_) { return text; }
}

async function sendFork(run, call, tr) {
  const box = $(".fork-box", tr);
  const mode = box.dataset.mode || "output";
  const payload = { call };
  if (mode === "output") payload.output = loose($("textarea.fork-output", tr).value);
  else if (mode === "input") payload.input = loose($("textarea.fork-input", tr).value);
  else if (mode === "answer") payload.answer = loose($("textarea.fork-answer", tr).value);
  else { const d = $("input.fork-decision:checked", tr); payload.decision = d ? d.value : ""; }
  const reason = $("input.fork-reason", tr).value.trim();
  if (reason) payload.reason = reason;
  const err = $(".fork-error", box);
  err.classList.add("hidden");
  $all("button", tr).forEach((b) => (b.disabled = true));
  try {
    const r = await post("runs/" + encodeURIComponent(run) + "/fork", payload);
    location.hash = "#/runs/" + encodeURIComponent(r.run_id);
  } catch (e) {
    // The server's typed error, where the form is (fork_mismatch,
    // invalid_args, not_found, …).
    err.dataset.code = e.code || "";
    err.innerHTML = `${e.code ? `<b class="mono">${esc(e.code)}</b>: ` : ""}${esc(e.code ? e.message.slice(e.code.length + 2) : e.message)}`;
    err.classList.remove("hidden");
    $all("button", tr).forEach((b) => (b.disabled = false));
  }
}

// The plan shown before a resume ("Run again from here"): per call, what
// would replay and what would run live (why; for a changed request, which
// fields changed: the run's drift from the script it would resume with),
// with the tokens and cost of each side. It creates no run.
function planView(p) {
  const why = { changed: "its request changed", new: "new: nothing recorded is like it", failed: "it failed", unfinished: "it never completed", not_replayable: "its capability always runs", retry: "a retry was asked", content: "matched by content" };
  const steps = (p.steps || []).map((st) => {
    const diff = (st.diff || []).map((d) => `<div class="diff"><span class="mono">${esc(d.path || "(the whole request)")}</span>: <span class="was">${esc(JSON.stringify(d.recorded))}</span> → <span class="now">${esc(JSON.stringify(d.now))}</span></div>`).join("");
    return `<tr class="plan-step ${esc(st.outcome)}" data-call="${esc(st.call)}" data-outcome="${esc(st.outcome)}"><td class="mono">${esc(st.call)}</td><td>${esc(st.label || st.name || st.kind)}</td>
      <td>${st.outcome === "live" ? '<b class="lvl-warn">runs live</b>' : "replays"}${st.reason ? ` <span class="muted">(${esc(why[st.reason] || st.reason)})</span>` : ""}${diff}</td><td>${st.tokens || ""}</td></tr>`;
  }).join("");
  const cost = (n) => (n ? " · " + usd(n) : "");
  return `<div class="card plan" id="plan"><div class="q">Plan of a run again from here</div>
    <div class="summary"><span>replays <b id="plan-replayed">${p.replayed}</b> (${p.replayed_tokens} tokens${cost(p.replayed_cost_micro_usd)} not spent again)</span>
      <span>runs live <b id="plan-live">${p.live}</b> (about ${p.live_tokens} tokens${cost(p.live_cost_micro_usd)})</span></div>
    ${p.complete ? "" : `<div class="lvl-error">The walk stopped early (${esc(p.error ? p.error.code + ": " + p.error.message : "")}); calls after that point are unknown.</div>`}
    ${p.needs_allow_changed ? '<div class="lvl-warn">The script or args changed since this run: the resume needs --allow-changed.</div>' : ""}
    <table class="plan-steps"><thead><tr><th>Call</th><th>What</th><th>Then</th><th>Tokens</th></tr></thead><tbody>${steps}</tbody></table>
    <div class="row"><button type="button" id="btn-rerun-go" class="primary">Run it</button><button type="button" id="btn-plan-close">Cancel</button><span class="muted">No run was created.</span></div></div>`;
}

// The drift report of a run's workflow: every stored run of it walked,
// offline, against its current script (the newest saved version, or the
// file as it is now): per run, what would replay, what would run live,
// and the first call where it diverges with its changed fields.
function diffLines(diff) {
  return (diff || []).map((d) => `<div class="diff"><span class="mono">${esc(d.path || "(the whole request)")}</span>: <span class="was">${esc(JSON.stringify(d.recorded))}</span> → <span class="now">${esc(JSON.stringify(d.now))}</span></div>`).join("");
}

async function renderDrift(id) {
  const r = await api("runs/" + encodeURIComponent(id) + "/drift");
  if (state.view !== "drift:" + id) return;
  const why = { changed: "its request changed", new: "new: nothing recorded is like it" };
  const rows = r.runs.map((x) => `<tr class="drift-run ${x.diverges_at ? "diverges" : "clean"}" data-run="${esc(x.run_id)}">
      <td><a class="mono" href="#/runs/${encodeURIComponent(x.run_id)}">${esc(x.run_id)}</a>${x.run_id === id ? ' <span class="muted">(this run)</span>' : ""}</td><td>${badge(x.state)}</td>
      <td class="replays">${x.replayed}</td><td class="live">${x.live}${x.live_tokens ? ` <span class="muted">(about ${x.live_tokens} tokens)</span>` : ""}</td>
      <td class="diverges">${x.diverges_at ? `call <b class="mono">${esc(x.diverges_at)}</b> ${esc(x.diverges_label || "")} <span class="muted">(${esc(why[x.diverges_reason] || x.diverges_reason || "")})</span>${diffLines(x.diverges_diff)}` : '<span class="muted">nowhere</span>'}
        ${x.error ? `<div class="${x.complete ? "muted" : "lvl-error"}">${esc(x.error.code)}: ${esc(x.error.message)}</div>` : ""}</td></tr>`).join("");
  $("#view").innerHTML = `
    <div class="muted"><a href="#/">Runs</a> / <a class="mono" href="#/runs/${encodeURIComponent(id)}">${esc(id)}</a> / drift</div>
    <h1 id="drift-title">${esc(r.workflow)}: its runs against the current script</h1>
    <div class="summary"><span>runs <b id="drift-count">${r.runs.length}</b></span><span>diverging <b id="drift-diverging">${r.diverging}</b></span><span>checked in <b>${us(r.check_us)}</b></span>
      <span class="muted">Nothing ran; no run was changed. <code class="mono">hwf replay-check SCRIPT --runs all</code> reports the same.</span></div>
    <table class="drift plan-steps" id="drift"><thead><tr><th>Run</th><th>State</th><th>Replays</th><th>Would run live</th><th>Diverges at</th></tr></thead><tbody>${rows}</tbody></table>`;
  document.body.dataset.rendered = "drift:" + id;
}

async function renderRun(id) {
  const t0 = performance.now();
  // One answer: the header, the calls as compact rows, the timeline's page.
  const pg = await api("runs/" + encodeURIComponent(id) + "/page" + (state.allRows ? "?all=true" : ""));
  if (state.view !== "run:" + id || deferred()) return;
  const t1 = performance.now();
  const s = pg.run, tl = pg.timeline;
  const calls = callsFrom(pg.calls);
  const c = s.counts || {};
  const wf = waterfallScale(calls);
  const ended = ["succeeded", "failed", "stopped", "cancelled"].includes(s.state);
  const paused = (s.waits || []).some((w) => w.kind === "pause");
  const phases = (s.declared_phases || []).map((p) => `<li class="${esc(p.status)}">${esc(p.title)}</li>`).join("");
  let result = "";
  if (s.result !== undefined && s.result !== null) result = `<pre class="json" id="result">${pretty(s.result)}</pre>`;
  else if (s.result_preview) result = `<pre class="json" id="result">${esc(s.result_preview)}</pre><div class="muted">A preview: <a id="full-result" href="#">load the whole result</a> (<span class="mono">${esc(s.result_path || "")}</span>)</div>`;
  else if (s.error) result = `<div id="result" class="lvl-error">${esc(s.error.code)}: ${esc(s.error.message)}</div>`;
  // A redraw of the same run keeps the calls table's height until its rows
  // are back, so the page does not jump under someone scrolled down.
  const before = shownCalls.id === id && $("#calls") ? $("#calls").offsetHeight : 0;
  Object.assign(shownCalls, { id, calls, wf, ended });
  $("#view").innerHTML = `
    <div class="muted"><a href="#/">Runs</a> / ${esc(s.workflow)}</div>
    <h1 id="run-title">${esc(s.workflow)} <span class="mono muted">${esc(s.run_id)}</span> <span id="run-state" data-state="${esc(s.state)}">${badge(s.state)}</span></h1>
    <div class="summary"><span>phase <b>${esc(s.phase || "—")}</b></span><span>duration <b>${ms(s.duration_ms)}</b></span>
      <span>calls <b>${(c.agent_calls || 0) + (c.capability_calls || 0)}</b></span><span>failed <b>${c.failed || 0}</b></span>
      <span>tokens <b>${c.tokens || 0}</b></span>${c.cost_micro_usd ? `<span>cost <b>${usd(c.cost_micro_usd)}</b></span>` : ""}${c.replayed ? `<span>replayed <b>${c.replayed}</b></span>` : ""}
      ${s.resumed_from ? `<span>resumed from <a class="mono" href="#/runs/${encodeURIComponent(s.resumed_from)}">${esc(s.resumed_from)}</a></span>` : ""}
      <span><a id="drift-link" href="#/drift/${encodeURIComponent(s.run_id)}" title="walk this workflow's stored runs against its current script, offline: what would replay, what would run live, where each diverges">Check runs against the current script</a></span></div>
    <div class="controls">${ended ? (s.state === "failed" || s.state === "stopped" ? `<button type="button" id="btn-rerun" class="primary" title="a new run: each call that succeeded is answered from this run's journal, the rest run live">Run again from here</button><span class="muted" id="rerun">or <code class="mono">hwf run --resume-from ${esc(s.run_id)}</code></span>` : "") : `
      <button type="button" id="btn-pause"${paused ? " disabled" : ""}>Pause</button>
      <button type="button" id="btn-resume"${paused ? "" : " disabled"}>Resume</button>
      <button type="button" id="btn-stop" class="danger">Stop</button>`}
      <details class="event-form"><summary>Send an event…</summary>
        <div class="row"><input id="ev-source" placeholder="source"><input id="ev-type" placeholder="type"><input id="ev-subject" placeholder="subject (optional)"></div>
        <textarea id="ev-payload" placeholder='payload JSON, e.g. {"number": 42}'></textarea><button type="button" id="ev-send">Send event</button></details>
    </div>
    <div id="plan-box"></div>
    ${(s.needs_host || []).length && !ended ? `<div id="needs-host" class="lvl-error">needs_host: needs a host offering ${(s.needs_host).map((n) => `<span class="mono">${esc(n.name)}</span> (${esc(n.class)})`).join(", ")} — this console's runner leaves the run as it is for the host (embedder) that offers them</div>` : ""}
    <div id="run-waits">${(s.review || []).map(waitCard).join("")}</div>
    <div class="grid">
      <div><h2>Phases</h2>${phases ? `<ul class="phases" id="phases">${phases}</ul>` : '<div class="muted">none declared</div>'}
        <h2>Result</h2>${result || '<div class="muted">not yet</div>'}</div>
      <div><h2>Calls</h2>
        <div class="filters" id="call-filters"><select id="cf-state" aria-label="calls in state">${["", "running", "waiting", "failed", "done"].map((v) => `<option value="${v}"${state.callFilter.state === v ? " selected" : ""}>${v || "every state"}</option>`).join("")}</select>
          <input id="cf-text" type="search" placeholder="label, agent, model, phase…" value="${esc(state.callFilter.text)}" aria-label="filter calls">
          <button type="button" id="cf-collapse">Collapse phases</button><button type="button" id="cf-expand">Expand</button><span class="muted" id="calls-shown"></span></div>
        <div class="lazy" id="calls-box"><table class="calls" id="calls" data-count="${calls.length}"><thead><tr><th>Call</th><th>Kind</th><th>What</th><th>State</th><th>Took</th><th>Tokens</th><th>Waterfall</th><th></th></tr></thead>
        <tbody></tbody></table></div>
        <h2>Timeline</h2><div class="lazy"><table class="timeline" id="timeline" data-count="${tl.total ?? tl.rows.length}"><tbody>${timelineRows(tl.rows)}</tbody></table></div>
        ${(tl.total ?? 0) > TIMELINE_ROWS && !state.allRows ? `<button type="button" id="tl-all">Show all ${tl.total} rows</button>` : ""}</div>
    </div>`;
  wireCards($("#run-waits"));
  const box = $("#calls-box");
  if (before) box.style.minHeight = before + "px";
  drawCalls(id, () => {
    box.style.minHeight = "";
    window.hwfTimes.calls_ms = performance.now() - t0;
  });
  const b = (sel, f) => { const e = $(sel); if (e) e.addEventListener("click", f); };
  b("#tl-all", () => { state.allRows = true; route(); });
  b("#full-result", async (e) => {
    e.preventDefault();
    try { $("#result").innerHTML = pretty(await api("runs/" + encodeURIComponent(id) + "/result")); } catch (err) { flash(err.message, true); }
  });
  b("#btn-rerun", async () => {
    // First the plan (nothing runs), then "Run it".
    let p;
    try { p = await api("runs/" + encodeURIComponent(id) + "/plan"); } catch (e) { flash(e.message, true); return; }
    $("#plan-box").innerHTML = planView(p);
    b("#btn-plan-close", () => { $("#plan-box").innerHTML = ""; });
    b("#btn-rerun-go", async () => {
      $("#btn-rerun-go").disabled = true;
      try {
        const r = await post("runs/" + encodeURIComponent(id) + "/rerun", {});
        location.hash = "#/runs/" + encodeURIComponent(r.run_id);
      } catch (_) { const g = $("#btn-rerun-go"); if (g) g.disabled = false; }
    });
  });
  b("#btn-pause", () => control(id, "pause"));
  b("#btn-resume", () => control(id, "resume"));
  b("#btn-stop", () => { if (confirm("Stop this run for good?")) control(id, "stop"); });
  b("#ev-send", async () => {
    let payload = null;
    const text = $("#ev-payload").value.trim();
    if (text) { try { payload = JSON.parse(text); } catch (_) { flash("the payload is not valid JSON", true); return; } }
    const ev = { source: $("#ev-source").value.trim(), type: $("#ev-type").value.trim(), payload };
    const subject = $("#ev-subject").value.trim();
    if (subject) ev.subject = subject;
    try { const r = await post("events", ev); flash(`Event ${r.id} recorded (v${r.version})`); } catch (_) { /* flashed */ }
    refresh(true);
  });
  $("#cf-state").addEventListener("change", (e) => { state.callFilter.state = e.target.value; drawCalls(id); });
  $("#cf-text").addEventListener("input", (e) => { state.callFilter.text = e.target.value; drawCalls(id); });
  b("#cf-collapse", () => { calls.forEach((x) => state.collapsed.add(x.phase || "")); drawCalls(id); });
  b("#cf-expand", () => { state.collapsed.clear(); drawCalls(id); });
  // One listener for the whole table (a run may have thousands of calls).
  $("#calls").addEventListener("click", (e) => {
    const fold = e.target.closest("a.collapse");
    if (fold) {
      e.preventDefault();
      const p = fold.dataset.phase;
      if (state.collapsed.has(p)) state.collapsed.delete(p); else state.collapsed.add(p);
      drawCalls(id);
      return;
    }
    const t = e.target.closest("a.toggle, button.task-stop, button.retry, button.fork, button.fork-go, button.fork-cancel");
    if (!t) return;
    e.preventDefault();
    const call = t.dataset.call;
    if (t.matches("button.task-stop")) return control(id, "task_stop", call);
    if (t.matches("button.retry")) return control(id, "retry", call);
    if (t.matches("button.fork")) return openFork(id, call, t.closest("tr"));
    if (t.matches("button.fork-cancel")) { t.closest("tr").remove(); return; }
    if (t.matches("button.fork-go")) return sendFork(id, call, t.closest("tr"));
    const row = $(`tr[data-detail="${CSS.escape(call)}"]`);
    if (state.opened.has(call)) { state.opened.delete(call); if (row) row.remove(); }
    else { state.opened.add(call); t.closest("tr").insertAdjacentHTML("afterend", detailRow(call)); loadDetail(id, call); }
  });
  window.hwfRenderMs = performance.now() - t0;
  window.hwfTimes = { fetch_ms: t1 - t0, draw_ms: performance.now() - t1 };
  // Since the page's navigation started: the first render of a fresh load.
  if (window.hwfFirstRenderAt === undefined) window.hwfFirstRenderAt = performance.now();
  document.body.dataset.rendered = "run:" + id;
}

// ---- routing and live updates ------------------------------------------------

async function updateReviewCount() {
  try { const d = await api("waits"); $("#review-count").textContent = d.waits.length ? String(d.waits.length) : ""; } catch (_) { /* shown elsewhere */ }
}

async function route() {
  const h = location.hash || "#/";
  let m;
  const run = h.match(/^#\/runs\/([^/?]+)/);
  const drift = h.match(/^#\/drift\/([^/?]+)/);
  const next = run ? "run:" + decodeURIComponent(run[1]) : drift ? "drift:" + decodeURIComponent(drift[1]) : h.startsWith("#/review") ? "review" : "runs";
  // The drift report walks every run of the workflow: drawn when it is
  // opened, not again on each live update.
  if (drift && state.view === next && !state.forced) return;
  $all("header nav a").forEach((a) => a.classList.remove("active"));
  delete document.body.dataset.rendered;
  state.routeEditSeq = state.editSeq;
  // A "Recorded: …" note belongs to the page it was recorded on.
  if (state.view && state.view !== next) { clearTimeout(flash.t); $("#flash").classList.add("hidden"); }
  try {
    if ((m = h.match(/^#\/runs\/([^/?]+)/))) {
      const id = decodeURIComponent(m[1]);
      if (state.view !== "run:" + id) { state.opened.clear(); state.allRows = false; state.collapsed.clear(); state.callFilter = { state: "", text: "" }; }
      state.view = "run:" + id;
      await renderRun(id);
    } else if (drift) {
      state.view = next;
      $("#view").innerHTML = '<p class="muted" id="drift-wait">Walking the runs against the current script…</p>';
      await renderDrift(decodeURIComponent(drift[1]));
    } else if (h.startsWith("#/review")) {
      state.view = "review";
      await renderReview();
      document.body.dataset.rendered = "review";
    } else {
      state.view = "runs";
      await renderRuns();
      document.body.dataset.rendered = "runs";
    }
  } catch (e) {
    $("#view").innerHTML = `<div class="empty">${esc(e.message)}</div>`;
  }
  updateReviewCount();
}

// Whether someone is filling in a form: live updates then wait (a
// decision or control redraws at once).
function editing() {
  const a = document.activeElement;
  if (a && (a.tagName === "INPUT" || a.tagName === "TEXTAREA" || a.tagName === "SELECT") && a.value && !a.closest(".wait-card.decided")) return true;
  if ($(".fork-row, #plan")) return true;
  // A card whose answer was sent (`decided`) holds what was sent, not an
  // edit in progress: it must not hold back the redraw that removes it.
  const open = ":not(.decided)";
  return $all(`.wait-card${open} button.enum.selected, .wait-card${open} .edit-box:not(.hidden), .wait-card${open} input.reason, .wait-card${open} .field input`)
    .some((e) => e.tagName !== "INPUT" || (e.type === "checkbox" ? e.checked : e.value !== "") || e.classList.contains("selected") || e.classList.contains("edit-box"));
}

function refresh(force) {
  clearTimeout(state.timer);
  // A live update arriving before a pending forced redraw (a decision's)
  // has run keeps it forced: it replaces the timer, not the intent.
  state.pendingForce = state.pendingForce || !!force;
  state.timer = setTimeout(() => {
    const forced = state.pendingForce;
    if (!forced && editing()) { state.timer = setTimeout(() => refresh(), 1000); return; }
    state.pendingForce = false;
    state.forced = forced;
    route().finally(() => { state.forced = false; });
  }, state.pendingForce ? 0 : 120);
}

function connect() {
  const q = state.health && !state.health.loopback && token() ? "?access_token=" + encodeURIComponent(token()) : "";
  const es = new EventSource("/api/stream" + q);
  es.addEventListener("open", () => $("#live").classList.add("on"));
  es.addEventListener("change", () => refresh(false));
  es.addEventListener("error", () => $("#live").classList.remove("on"));
}

async function start() {
  const m = location.hash.match(/^#token=([^&]+)/);
  if (m) {
    sessionStorage.setItem(TOKEN_KEY, decodeURIComponent(m[1]));
    history.replaceState(null, "", location.pathname + "#/");
  }
  $("#token-save").addEventListener("click", () => {
    const v = $("#token-input").value.trim();
    if (v) { sessionStorage.setItem(TOKEN_KEY, v); $("#token-banner").classList.add("hidden"); flash("Token saved for this tab"); route(); }
  });
  if (!token()) showTokenBanner();
  window.addEventListener("hashchange", () => { state.forced = true; route().finally(() => { state.forced = false; }); });
  const health = api("health").then((h) => (state.health = h), () => (state.health = null));
  await route();
  await health;
  connect();
}

document.addEventListener("DOMContentLoaded", start);
