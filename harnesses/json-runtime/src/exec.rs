//! Running a definition the way the seed's runtime does: steps in
//! declaration order over `inputs` and the step outputs recorded so far,
//! every effect through the host's broker.
//!
//! - `agent` → one agent call; its output must be an object.
//! - `kanban_agent` → an agent call to the reserved id `kanban.<profile>`
//!   with `{profile, task, input, wait, durable}` (as the seed does).
//! - `if` → `{"branch": "then"|"else", "output": <last output of the
//!   branch or {}>}`; the branch's own step outputs are dropped afterwards.
//! - `parallel` → each branch (one step) runs in its own host branch
//!   instance, all at once — in waves when a branch reads a sibling's
//!   output (`order.rs`), as the seed's in-order join allows; output
//!   `{"branches": {id: output}}`, and every branch id stays referenceable.
//! - `phase` → a container: `host.phase(label)`, its steps, output
//!   `{"completed": [ids]}`.
//! - `pipeline` → its steps in order (chained by `$ref`); output = the last
//!   output.
//!
//! The run's result is the seed's envelope `{"outputs": {id: output},
//! "last": output}` (plus `output` when the definition declares one).
//! `policy.max_agent_calls` and `max_kanban_cards` count across the whole
//! run (branches included; a fan-out that could overrun them runs its
//! branches one after another, in the seed's order), and `max_parallel`
//! bounds a parallel step's fan-out and the calls nested fan-outs have in
//! flight.

use crate::check::phase_title;
use crate::py::{repr, repr_str};
use crate::refs::{self, Ref};
use crate::schema;
use hwf_guest::ErrorKind;
use hwf_guest::runtime::{self, python, wit};
use serde_json::{Map, Value, json};
use wit::{BranchCall, CallError, Task, host};

/// A failed call's text (the SDK's) and whether it was a cancellation.
fn err_text(e: &CallError) -> (bool, String) {
    (
        runtime::call_error_kind(e) == ErrorKind::Cancelled,
        runtime::call_error_text(e).to_owned(),
    )
}

/// The agent request for a step's options, by the SDK's agent-option
/// table (`hwf_guest::runtime::AGENT_OPTIONS`), after the JSON format's
/// own rules: `input` as resolved, the enclosing phase when the step names
/// none, and the seed's `output_schema` (either form) as the JSON Schema
/// the agent gets. With `once` the broker checks an agent step's answer
/// once, as the seed's runtime does (no retry), taking an `integer` as
/// Python does (`x-hwf`: `attempts: 1`, `whole_integers`); its refusal is
/// a failed call (a resume asks the agent again) reworded in the seed's
/// words ([`agent_error_text`]), and an answer it accepts is checked again
/// by the seed's own rules ([`seed_check`]). A kanban card's outcome is
/// checked by the broker (retried) and then by the runtime, which a
/// `blocked` / `failed` card skips.
fn request(mut opts: Map<String, Value>, ctx: &Ctx, input: Value, once: bool) -> Result<wit::AgentRequest, String> {
    opts.insert("input".into(), input);
    if !opts.get("phase").is_some_and(Value::is_string)
        && let Some(p) = &ctx.phase
    {
        opts.insert("phase".into(), Value::String(p.clone()));
    }
    if let Some(s) = opts.remove("output_schema") {
        match schema::to_json_schema(&s) {
            Some(mut js) => {
                if let Value::Object(root) = &mut js
                    && once
                {
                    root.insert("x-hwf".into(), json!({"attempts": 1, "whole_integers": true}));
                }
                opts.insert("schema".into(), js)
            }
            None => opts.remove("schema"),
        };
    }
    runtime::agent_request_from_json(&Value::Object(opts)).map_err(|e| e.to_string())
}

/// Whether a failed call is the broker's refusal of an agent type it does
/// not have (`invalid_agent_type: unknown agent type …`, or a name no type
/// file can have); a malformed type file still fails the call.
fn unknown_agent_type(e: &CallError) -> bool {
    let text = runtime::call_error_text(e);
    text.strip_prefix("invalid_agent_type: ")
        .is_some_and(|m| m.starts_with("unknown agent type") || m.ends_with("is not allowed"))
}

/// The seed's own check of an effect step's output against its
/// `output_schema` (`schema::validate`), after the broker's.
fn seed_check(out: &Value, step: &Value) -> Result<(), String> {
    match step.get("output_schema") {
        Some(s) => schema::validate(out, s).map_err(|m| format!("schema_mismatch: {m}")),
        None => Ok(()),
    }
}

/// A failed agent call's text; an answer that failed its `output_schema`
/// after the broker's retries as the seed's own check words it
/// (`schema_mismatch: output.findings[1].score expected number, got str`,
/// [`python::schema_reason`]), the broker's reason where the seed has no
/// words for it.
fn agent_error_text(e: &CallError) -> String {
    let text = runtime::call_error_text(e);
    match text.strip_prefix("schema_mismatch: ") {
        Some(rest) => format!(
            "schema_mismatch: {}",
            python::schema_reason(python::schema_refusal(rest).0)
        ),
        None => text.to_owned(),
    }
}

/// An agent step's failed call as the seed's runtime words it: an answer
/// that is not a dict (text without JSON, a list under the schema's object
/// root) is `agent_output_invalid: agent 'x' returned str, expected dict`,
/// one that misses its schema `step 'id' (agent 'x'): schema_mismatch:
/// output.a expected string, got int` ([`agent_error_text`]).
fn agent_step_error(e: &CallError, id: &str, who: &str) -> String {
    let text = runtime::call_error_text(e);
    if let Some(rest) = text.strip_prefix("schema_mismatch: ") {
        if let Some(got) = python::not_a_dict(python::schema_refusal(rest).0) {
            return format!(
                "agent_output_invalid: agent {} returned {got}, expected dict",
                repr_str(who)
            );
        }
    }
    format!(
        "step {} (agent {}): {}",
        repr_str(id),
        repr_str(who),
        agent_error_text(e)
    )
}

/// A host call's answer as a value. The host sends JSON text; anything
/// else is its fault, and is named rather than read as `null`.
fn host_answer(raw: &str) -> Result<Value, String> {
    serde_json::from_str(raw).map_err(|e| format!("internal: the host's answer is not JSON: {e}"))
}

/// The failure of an effect step whose answer is not an object, with the
/// seed's message: the answer named by its Python type (`int`, `float`,
/// `NoneType`, `str`, `list`, `bool`).
fn not_an_object(what: &str, out: &Value) -> String {
    format!(
        "agent_output_invalid: {what} returned {}, expected dict",
        crate::py::type_name(out)
    )
}

fn text(v: Option<&Value>) -> Option<String> {
    v.and_then(Value::as_str).map(str::to_owned)
}

/// Python-style truthiness (the seed evaluates conditions in Python).
/// A number is falsy only when it is zero as Python reads it (`0`, `-0`,
/// `0.0`, `1e-400`); a float past f64's range (`1e400`, `-1e400`) is
/// Python's `inf`, truthy, where serde's `as_f64` has no value for it.
fn truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.to_string().parse::<f64>().ok().is_none_or(|f| f != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(m) => !m.is_empty(),
    }
}

/// What steps see: inputs, recorded outputs, the last output and the
/// enclosing phase.
struct Ctx {
    inputs: Map<String, Value>,
    outputs: Map<String, Value>,
    last: Value,
    phase: Option<String>,
}

impl Ctx {
    /// Resolve every `"$ref:…"` string in `v`.
    fn resolve(&self, v: &Value) -> Result<Value, String> {
        Ok(match v {
            Value::String(s) => match refs::parse(s) {
                None => v.clone(),
                Some(Ref::Invalid) => return Err(format!("bad_ref: malformed reference {}", repr_str(s))),
                Some(Ref::Input(key)) => self.inputs.get(key).cloned().unwrap_or(Value::Null),
                Some(Ref::Step { step, field }) => {
                    let Some(out) = self.outputs.get(step) else {
                        return Err(format!(
                            "unresolved_ref: step output reference {} is not available",
                            repr_str(s)
                        ));
                    };
                    let mut cur = out.clone();
                    for part in field.into_iter().flat_map(|f| f.split('.')) {
                        cur = match cur {
                            Value::Object(mut m) => m.remove(part).unwrap_or(Value::Null),
                            _ => return Ok(Value::Null),
                        };
                    }
                    cur
                }
            },
            Value::Array(items) => Value::Array(items.iter().map(|x| self.resolve(x)).collect::<Result<_, _>>()?),
            Value::Object(m) => Value::Object(
                m.iter()
                    .map(|(k, x)| Ok((k.clone(), self.resolve(x)?)))
                    .collect::<Result<_, String>>()?,
            ),
            other => other.clone(),
        })
    }

    /// Resolve the `"$ref:…"` strings in a value the seed does not read
    /// (an agent step's `prompt` and `context`, the top-level `output`):
    /// a reference that cannot be resolved — to a step that runs later or
    /// inside an `if` branch, or malformed — is null instead of failing
    /// the run, since the seed runs such a definition (validation warns,
    /// `unavailable_ref`).
    fn resolve_soft(&self, v: &Value) -> Value {
        match v {
            Value::String(_) => self.resolve(v).unwrap_or(Value::Null),
            Value::Array(items) => Value::Array(items.iter().map(|x| self.resolve_soft(x)).collect()),
            Value::Object(m) => Value::Object(m.iter().map(|(k, x)| (k.clone(), self.resolve_soft(x))).collect()),
            other => other.clone(),
        }
    }

    fn record(&mut self, id: &str, output: Value) {
        self.outputs.insert(id.to_owned(), output.clone());
        self.last = output;
    }
}

/// Run-wide policy counters.
struct Runner<'d> {
    def: &'d Value,
    max_parallel: u64,
    /// Agent calls left on the host when the run started (the host counts
    /// agent calls across every branch instance).
    agent_calls_at_start: Option<u32>,
    /// Kanban cards started before this instance began (by the parent).
    kanban_before: u64,
    /// Kanban cards started by this instance and its finished branches.
    kanban_here: u64,
}

impl Runner<'_> {
    fn policy(&self, key: &str) -> Option<u64> {
        crate::check::policy_count(self.def, key)
    }

    /// Agent and kanban calls the whole run has made so far (the host
    /// counts agent calls across every instance).
    fn effects_used(&self) -> u64 {
        // Kanban cards are agent calls too (`kanban.<profile>`).
        self.agent_calls_at_start.map_or(0, |start| {
            u64::from(start.saturating_sub(hwf_guest::budget().agent_calls_left))
        })
    }

    /// The seed's effect budget: `max_agent_calls` counts agent and kanban
    /// calls of the whole run; `max_kanban_cards` counts cards.
    fn check_budget(&self, kanban: bool) -> Result<(), String> {
        if let Some(max) = self.policy("max_agent_calls")
            && self.effects_used() >= max
        {
            return Err(format!(
                "policy_limit: agent call budget exceeded: max_agent_calls={max}"
            ));
        }
        if kanban
            && let Some(max) = self.policy("max_kanban_cards")
            && self.kanban_before + self.kanban_here >= max
        {
            return Err(format!(
                "policy_limit: kanban card budget exceeded: max_kanban_cards={max}"
            ));
        }
        Ok(())
    }

    fn steps(&mut self, steps: &Value, path: &str, ctx: &mut Ctx) -> Result<(), String> {
        for (i, step) in steps.as_array().into_iter().flatten().enumerate() {
            self.step(step, &format!("{path}/{i}"), ctx)?;
        }
        Ok(())
    }

    fn step(&mut self, step: &Value, path: &str, ctx: &mut Ctx) -> Result<Value, String> {
        let id = step.get("id").and_then(Value::as_str).unwrap_or("");
        // The seed skips a dependency that is not a string and names a step
        // without an id `'<unknown>'`.
        for dep in step.get("depends_on").and_then(Value::as_array).into_iter().flatten() {
            let Some(dep) = dep.as_str() else { continue };
            if !ctx.outputs.contains_key(dep) {
                let named = step.get("id").map_or_else(|| repr_str("<unknown>"), repr);
                return Err(format!(
                    "unresolved_dependency: step {named} depends on {}, but that output is not available",
                    repr_str(dep)
                ));
            }
        }
        let kind = step.get("kind").and_then(Value::as_str).unwrap_or("");
        let out = match kind {
            "agent" => self.agent(step, id, path, ctx)?,
            "kanban_agent" => self.kanban(step, id, ctx)?,
            "parallel" => self.parallel(step, id, path, ctx)?,
            "pipeline" => {
                self.steps(&step["steps"], &format!("{path}/steps"), ctx)?;
                let out = if ctx.last.is_null() {
                    json!({})
                } else {
                    ctx.last.clone()
                };
                ctx.outputs.insert(id.to_owned(), out.clone());
                return Ok(out);
            }
            "phase" => {
                let title = phase_title(step);
                host::phase(&title);
                let outer = ctx.phase.replace(title);
                let ran = self.steps(&step["steps"], &format!("{path}/steps"), ctx);
                ctx.phase = outer;
                ran?;
                let ids: Vec<Value> = step["steps"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter(|s| s.is_object())
                    .map(|s| s.get("id").cloned().unwrap_or(Value::Null))
                    .collect();
                json!({"completed": ids})
            }
            "if" => self.branch_if(step, path, ctx)?,
            _ => {
                return Err(format!(
                    "unknown_step_kind: unsupported step kind at runtime: {}",
                    repr(step.get("kind").unwrap_or(&Value::Null))
                ));
            }
        };
        ctx.record(id, out.clone());
        Ok(out)
    }

    fn agent(&mut self, step: &Value, id: &str, path: &str, ctx: &Ctx) -> Result<Value, String> {
        self.check_budget(false)?;
        let input = match ctx.resolve(step.get("input").unwrap_or(&json!({})))? {
            Value::Object(m) => Value::Object(m),
            other => json!({"value": other}),
        };
        // `prompt` and `context` are hwf's: the seed does not read them, so
        // a reference there that is not available reads as null.
        let prompt = match step.get("prompt").map(|p| ctx.resolve_soft(p)) {
            Some(Value::String(s)) => Some(s),
            Some(other) => Some(other.to_string()),
            None => None,
        };
        let context = step.get("context").map(|c| ctx.resolve_soft(c));
        // The step's agent options: the seed's keys and hwf's documented
        // extensions only; any other key is ignored, as the seed ignores it.
        let mut opts: Map<String, Value> = crate::check::AGENT_STEP_OPTIONS
            .iter()
            .filter_map(|k| step.get(*k).map(|v| ((*k).to_owned(), v.clone())))
            .collect();
        for (key, value) in [("prompt", prompt.map(Value::String)), ("context", context)] {
            match value {
                Some(v) => opts.insert(key.into(), v),
                None => opts.remove(key),
            };
        }
        let mut req = request(opts, ctx, input, true)?;
        let who = req.agent.clone().unwrap_or_else(|| "prompt".into());
        let raw = match host::agent(&req) {
            Err(e) if req.agent_type.is_some() && unknown_agent_type(&e) => {
                // The seed ignores `agent_type`: a type hwf does not have is
                // dropped and the call made without it.
                let ty = req.agent_type.take().unwrap_or_default();
                let key = if step.get("agentType").is_some() {
                    "agentType"
                } else {
                    "agent_type"
                };
                host::log(
                    wit::LogLevel::Warn,
                    &format!(
                        "unknown_agent_type: step {}: hwf has no agent type {} (.hermes/agents/<name>.md); \
                         the key is ignored, as the seed ignores it (at {path}/{key})",
                        repr_str(id),
                        repr_str(&ty)
                    ),
                );
                host::agent(&req)
            }
            r => r,
        }
        .map_err(|e| agent_step_error(&e, id, &who))?;
        let out = host_answer(&raw)?;
        if !out.is_object() {
            return Err(not_an_object(&format!("agent {}", repr_str(&who)), &out));
        }
        seed_check(&out, step).map_err(|e| format!("step {} (agent {}): {e}", repr_str(id), repr_str(&who)))?;
        Ok(out)
    }

    fn kanban(&mut self, step: &Value, id: &str, ctx: &Ctx) -> Result<Value, String> {
        let profile = step.get("profile").and_then(Value::as_str).unwrap_or("");
        if let Some(allowed) = self.def.pointer("/policy/allowed_profiles").and_then(Value::as_array)
            && !allowed.iter().any(|a| a == profile)
        {
            return Err(format!(
                "policy_limit: kanban profile {} is not allowed by workflow policy",
                repr_str(profile)
            ));
        }
        self.check_budget(true)?;
        self.kanban_here += 1;
        let input = match ctx.resolve(step.get("input").unwrap_or(&json!({})))? {
            Value::Object(m) => Value::Object(m),
            other => json!({"value": other}),
        };
        let payload = json!({
            "profile": profile,
            "task": ctx.resolve(step.get("task").unwrap_or(&json!({})))?,
            "input": input,
            "wait": step.get("wait").cloned().unwrap_or(Value::Bool(true)),
            "durable": true,
        });
        // Like the seed's runtime: a call to the reserved agent id
        // `kanban.<profile>`, which a deployment binds to its Kanban backend
        // (an agent route) and a fixture answers like any agent.
        // A kanban card takes the seed's label keys and output schema only.
        let mut opts: Map<String, Value> = ["title", "task_title", "id", "output_schema"]
            .iter()
            .filter_map(|k| step.get(*k).map(|v| ((*k).to_owned(), v.clone())))
            .collect();
        opts.insert("agent".into(), Value::String(format!("kanban.{profile}")));
        let req = request(opts, ctx, payload, false)?;
        let raw = host::agent(&req).map_err(|e| {
            format!(
                "step {} (kanban {}): {}",
                repr_str(id),
                repr_str(profile),
                agent_error_text(&e)
            )
        })?;
        let out = host_answer(&raw)?;
        if !out.is_object() {
            return Err(not_an_object(&format!("kanban agent {}", repr_str(profile)), &out));
        }
        // As the host's board checks a card: only a completed card's outcome
        // meets the schema; a blocked or failed one (the board's canonical
        // statuses) is the step's output. Any other answer is checked, as
        // the seed checks every answer whatever its `status` says
        // (`approved`, `done`, `queued`: before, those skipped the check).
        let settled_otherwise = out
            .get("status")
            .and_then(Value::as_str)
            .is_some_and(|s| s == "blocked" || s == "failed");
        if !settled_otherwise {
            seed_check(&out, step).map_err(|e| format!("step {} (kanban {}): {e}", repr_str(id), repr_str(profile)))?;
        }
        Ok(out)
    }

    fn parallel(&mut self, step: &Value, id: &str, path: &str, ctx: &mut Ctx) -> Result<Value, String> {
        let branches = step["branches"].as_array().cloned().unwrap_or_default();
        if let Some(max) = self.policy("max_active_awaits") {
            let awaits: u64 = branches.iter().map(waiting_cards).sum();
            if awaits > max {
                return Err(format!(
                    "policy_limit: active await budget exceeded: {awaits} waits exceeds max_active_awaits={max}"
                ));
            }
        }
        if branches.len() as u64 > self.max_parallel {
            return Err(format!(
                "policy_limit: parallel step {} fan-out {} exceeds max_parallel={}",
                repr_str(id),
                branches.len(),
                self.max_parallel
            ));
        }
        // A branch that reads a sibling runs in a later wave than it.
        let waves = crate::order::waves(&branches).map_err(|cycle| {
            format!(
                "reference_cycle: parallel branches read each other's outputs in a cycle: {}",
                cycle.join(" → ")
            )
        })?;
        // When the branches together could overrun `max_agent_calls` or
        // `max_kanban_cards`, they run one after another in the seed's
        // order (declaration order), so the seed's calls are made and the
        // same one is refused; otherwise in waves, each at once.
        let all: Vec<usize> = (0..branches.len()).collect();
        let waves = if self.could_overrun(&branches, &all) {
            crate::order::one_by_one(&branches)
                .into_iter()
                .map(|b| vec![b])
                .collect()
        } else {
            waves
        };
        let reads = crate::order::sibling_reads(&branches);
        let mut done = vec![false; branches.len()];
        let mut joined = Map::new();
        // The seed runs the branches one after another and fails on the
        // first that fails, in declaration order, having run every branch
        // before it. So once a branch failed, the later waves still run the
        // branches declared before it (whose siblings all succeeded), and
        // the run's error is that of the first failing branch, whichever
        // wave it ran in: `(branch, cancelled, message)`.
        let mut failure: Option<(usize, bool, String)> = None;
        let fail = |b: usize, cancelled: bool, msg: String, failure: &mut Option<(usize, bool, String)>| {
            let better = failure
                .as_ref()
                .is_none_or(|(f, c, _)| (*c && !cancelled) || (*c == cancelled && b < *f));
            if better {
                *failure = Some((b, cancelled, msg));
            }
        };
        for wave in waves {
            let wave: Vec<usize> = wave
                .into_iter()
                // Branches cancelled with no failure among them (the run
                // was cancelled): nothing more starts.
                .filter(|&b| {
                    failure.as_ref().is_none_or(|(f, cancelled, _)| !cancelled && b < *f)
                        && reads[b].iter().all(|&j| done[j])
                })
                .collect();
            if wave.is_empty() {
                continue;
            }
            let bid = |b: usize| branches[b].get("id").and_then(Value::as_str).unwrap_or("").to_owned();
            let results = self.wave(&branches, &wave, path, ctx);
            // Past the host's instance nesting limit (`limits.max_depth`)
            // every branch call is refused (`nesting_too_deep`) before it
            // starts: the branches run here instead, one after another, as
            // the seed runs every parallel step.
            let too_deep = |r: &Result<String, CallError>| {
                r.as_ref()
                    .err()
                    .is_some_and(|e| runtime::call_error_text(e).starts_with("nesting_too_deep"))
            };
            if results.iter().any(too_deep) && results.iter().all(Result::is_err) {
                for &b in &wave {
                    match self.step(&branches[b], &format!("{path}/branches/{b}"), ctx) {
                        Ok(out) => {
                            done[b] = true;
                            joined.insert(bid(b), out);
                        }
                        Err(e) => {
                            let msg = format!("step {} branch {}: {e}", repr_str(id), repr_str(&bid(b)));
                            fail(b, false, msg, &mut failure);
                            break;
                        }
                    }
                }
                continue;
            }
            for (&b, r) in wave.iter().zip(results) {
                match r {
                    Ok(raw) => {
                        let out = match host_answer(&raw) {
                            Ok(out) => out,
                            Err(msg) => {
                                let msg = format!("step {} branch {}: {msg}", repr_str(id), repr_str(&bid(b)));
                                fail(b, false, msg, &mut failure);
                                continue;
                            }
                        };
                        for (k, v) in out["outputs"].as_object().into_iter().flatten() {
                            ctx.outputs.insert(k.clone(), v.clone());
                        }
                        self.kanban_here += out["kanban"].as_u64().unwrap_or(0);
                        done[b] = true;
                        joined.insert(bid(b), out["output"].clone());
                    }
                    Err(e) => {
                        let (cancelled, msg) = err_text(&e);
                        let msg = format!("step {} branch {}: {msg}", repr_str(id), repr_str(&bid(b)));
                        fail(b, cancelled, msg, &mut failure);
                    }
                }
            }
        }
        if let Some((.., msg)) = failure {
            return Err(msg);
        }
        // Branches in declaration order, as the seed joins them.
        let mut ordered = Map::new();
        for b in &branches {
            let key = b.get("id").and_then(Value::as_str).unwrap_or("");
            if let Some(v) = joined.remove(key) {
                ordered.insert(key.to_owned(), v);
            }
        }
        Ok(json!({"branches": ordered}))
    }

    /// Whether the given branches, all run, could make more agent calls
    /// than `max_agent_calls` or start more cards than `max_kanban_cards`
    /// allow from here (an `if` counts its larger branch).
    fn could_overrun(&self, branches: &[Value], which: &[usize]) -> bool {
        let most = |cards_only| {
            which
                .iter()
                .map(|&b| most_effects(&branches[b], cards_only))
                .sum::<u64>()
        };
        self.policy("max_agent_calls")
            .is_some_and(|max| self.effects_used() + most(false) > max)
            || self
                .policy("max_kanban_cards")
                .is_some_and(|max| self.kanban_before + self.kanban_here + most(true) > max)
    }

    /// Run one wave of a parallel step's branches (indices into
    /// `branches`); results in the wave's order, shorter when a branch run
    /// one after another failed.
    fn wave(&self, branches: &[Value], wave: &[usize], path: &str, ctx: &Ctx) -> Vec<Result<String, CallError>> {
        let task = |b: usize, kanban_before: u64| {
            Task::Branch(BranchCall {
                name: format!("{path}/branches/{b}"),
                input: json!({
                    "inputs": ctx.inputs,
                    "outputs": ctx.outputs,
                    "last": ctx.last,
                    "phase": ctx.phase,
                    "agent_calls_at_start": self.agent_calls_at_start,
                    "kanban_before": kanban_before,
                })
                .to_string(),
            })
        };
        // When the branches together could overrun `max_agent_calls` or
        // `max_kanban_cards`, run them one after another, as the seed does,
        // so the same call is the one refused; otherwise all at once
        // (nothing can overrun).
        let kanban_at_fork = self.kanban_before + self.kanban_here;
        if self.could_overrun(branches, wave) {
            let mut out = Vec::new();
            let mut kanban = kanban_at_fork;
            for &b in wave {
                let r = host::parallel(&[task(b, kanban)], true)
                    .pop()
                    .unwrap_or_else(|| Err(CallError::Failed(format!("internal: branch {b} returned nothing"))));
                let failed = r.is_err();
                if let Ok(raw) = &r {
                    let done: Value = serde_json::from_str(raw).unwrap_or(Value::Null);
                    kanban += done["kanban"].as_u64().unwrap_or(0);
                }
                out.push(r);
                if failed {
                    break;
                }
            }
            return out;
        }
        let max = self.max_parallel;
        let widths: Vec<u64> = wave.iter().map(|&b| width(&branches[b]).clamp(1, max)).collect();
        // All at once when the calls they can have in flight fit in
        // max_parallel; nested fan-outs start in order while they fit. A
        // failure cancels the branches after it only, so the error is the
        // seed's: that of the first failing branch in declaration order.
        windowed(&widths, max, |i| task(wave[i], kanban_at_fork))
    }

    fn branch_if(&mut self, step: &Value, path: &str, ctx: &mut Ctx) -> Result<Value, String> {
        let cond = &step["condition"];
        let op = cond.get("op").and_then(Value::as_str).unwrap_or("");
        let value = match ctx.resolve(cond.get("ref").unwrap_or(&Value::Null)) {
            Ok(v) => v,
            Err(_) if op == "exists" => Value::Null,
            Err(e) => return Err(e),
        };
        let want = cond.get("value").cloned().unwrap_or(Value::Null);
        let yes = match op {
            "truthy" => truthy(&value),
            "exists" => !value.is_null(),
            "eq" => crate::py::eq(&value, &want),
            "ne" => !crate::py::eq(&value, &want),
            _ => {
                return Err(format!(
                    "invalid_condition: unsupported if condition op {}",
                    repr(cond.get("op").unwrap_or(&Value::Null))
                ));
            }
        };
        let key = if yes { "then" } else { "else" };
        let before: Vec<String> = ctx.outputs.keys().cloned().collect();
        let branch_steps = step.get(key).and_then(Value::as_array).filter(|s| !s.is_empty());
        let output = match branch_steps {
            Some(_) => {
                self.steps(&step[key], &format!("{path}/{key}"), ctx)?;
                if ctx.last.is_null() {
                    json!({})
                } else {
                    ctx.last.clone()
                }
            }
            None => json!({}),
        };
        // Steps inside the branch are local to it.
        ctx.outputs.retain(|k, _| before.contains(k));
        Ok(json!({"branch": key, "output": output}))
    }
}

/// The most calls a step can have in flight at once: a parallel step adds
/// its branches up, everything else runs its children one at a time.
fn width(step: &Value) -> u64 {
    let kind = step.get("kind").and_then(Value::as_str).unwrap_or("");
    let kids = |k: &str| step.get(k).and_then(Value::as_array).into_iter().flatten().map(width);
    match kind {
        "agent" | "kanban_agent" => 1,
        "parallel" => kids("branches").sum(),
        "pipeline" | "phase" => kids("steps").max().unwrap_or(0),
        "if" => kids("then").chain(kids("else")).max().unwrap_or(0),
        _ => 0,
    }
}

/// Run branches through the host's join set, starting them in declaration
/// order while the widths of those running fit in `max` (one always runs).
/// A failure starts no more branches and cancels the running ones after it;
/// those before it run on, since the seed, running branches one after
/// another, would have finished them first and failed on the earliest
/// failing one (a later branch failing first must not hide it). Results
/// come back in branch order (branches never started are `cancelled`).
fn windowed(widths: &[u64], max: u64, task: impl Fn(usize) -> Task) -> Vec<Result<String, CallError>> {
    let mut results: Vec<Option<Result<String, CallError>>> = widths.iter().map(|_| None).collect();
    let mut running: Vec<(u64, usize)> = Vec::new();
    let mut used = 0;
    let mut next = 0;
    loop {
        while next < widths.len() && (running.is_empty() || used + widths[next] <= max) {
            running.push((host::submit(&task(next)), next));
            used += widths[next];
            next += 1;
        }
        if running.is_empty() {
            break;
        }
        let pending: Vec<u64> = running.iter().map(|(call, _)| *call).collect();
        let done = host::next(&pending);
        let Some(at) = running.iter().position(|(call, _)| *call == done.call) else {
            break;
        };
        let (_, b) = running.remove(at);
        used -= widths[b];
        let failed = done.outcome.is_err();
        results[b] = Some(done.outcome);
        if failed {
            let later: Vec<u64> = running.iter().filter(|(_, i)| *i > b).map(|(call, _)| *call).collect();
            host::cancel(&later);
            next = widths.len();
            running.retain(|(_, i)| *i < b);
        }
    }
    results
        .into_iter()
        .map(|r| r.unwrap_or_else(|| Err(CallError::Cancelled("not started: a sibling branch failed".into()))))
        .collect()
}

/// The most agent and kanban calls (or, with `cards_only`, kanban cards) a
/// step can make; an `if` counts its larger branch.
fn most_effects(step: &Value, cards_only: bool) -> u64 {
    let kind = step.get("kind").and_then(Value::as_str).unwrap_or("");
    let kids = |k: &str| -> u64 {
        let list = step.get(k).and_then(Value::as_array);
        list.into_iter().flatten().map(|s| most_effects(s, cards_only)).sum()
    };
    match kind {
        "kanban_agent" => 1,
        "agent" => u64::from(!cards_only),
        "parallel" => kids("branches"),
        "pipeline" | "phase" => kids("steps"),
        "if" => kids("then").max(kids("else")),
        _ => 0,
    }
}

/// Kanban cards a step waits on at once (the seed's `max_active_awaits`
/// count).
fn waiting_cards(step: &Value) -> u64 {
    let kind = step.get("kind").and_then(Value::as_str).unwrap_or("");
    let kids = |k: &str| step.get(k).and_then(Value::as_array).cloned().unwrap_or_default();
    match kind {
        "kanban_agent" => u64::from(step.get("wait").and_then(Value::as_bool).unwrap_or(true)),
        "parallel" => kids("branches").iter().map(waiting_cards).sum(),
        "pipeline" | "phase" => kids("steps").iter().map(waiting_cards).max().unwrap_or(0),
        "if" => {
            let t = kids("then").iter().map(waiting_cards).max().unwrap_or(0);
            let e = kids("else").iter().map(waiting_cards).max().unwrap_or(0);
            t.max(e)
        }
        _ => 0,
    }
}

fn load(source: &str) -> Result<Value, String> {
    if let Err(diags) = crate::check::check(source) {
        let first = diags
            .iter()
            .find(|d| matches!(d.severity, wit::Severity::Error))
            .map_or(String::new(), |d| {
                format!(
                    "{}: {}{}",
                    d.code,
                    d.message,
                    d.pointer.as_deref().map(|p| format!(" (at {p})")).unwrap_or_default()
                )
            });
        return Err(format!("invalid_script: {first}"));
    }
    crate::check::parse_definition(source).map_err(|e| format!("invalid_script: {e}"))
}

/// The fan-out bound: `policy.max_parallel` (any positive integer, at
/// most hwf's ceiling of 64), else the seed's default 8. The seed also caps
/// it at its runner's `max_parallel` (8 unless raised); hwf lets a policy
/// raise it, as `--max-parallel` does (the script-runtime world does not
/// tell a runtime the run's own value), and the broker's `max_parallel`
/// bounds the calls in flight whatever the fan-out.
fn max_parallel(def: &Value) -> u64 {
    crate::check::policy_count(def, "max_parallel")
        .filter(|n| *n > 0)
        .map_or(8, |n| n.min(crate::check::MAX_PARALLEL))
}

/// Check the declared `output` against a simple `{"field": "type"}` schema
/// or a JSON Schema's `required` / `properties.*.type` (hwf extension).
fn check_output(schema: &Value, out: &Value) -> Result<(), String> {
    let Some(json_schema) = schema::to_json_schema(schema) else {
        return Ok(());
    };
    for field in json_schema["required"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        if out.get(field).is_none() {
            return Err(format!(
                "output_schema_mismatch: the output has no field {}",
                repr_str(field)
            ));
        }
    }
    for (field, sub) in json_schema["properties"].as_object().into_iter().flatten() {
        let (Some(v), Some(ty)) = (out.get(field), sub.get("type").and_then(Value::as_str)) else {
            continue;
        };
        let ok = match ty {
            "string" => v.is_string(),
            "number" => v.is_number(),
            // An integer past 2^64 keeps its digits (`arbitrary_precision`).
            "integer" => v.as_number().is_some_and(|n| {
                n.is_i64()
                    || n.is_u64()
                    || n.to_string()
                        .trim_start_matches('-')
                        .bytes()
                        .all(|b| b.is_ascii_digit())
            }),
            "boolean" => v.is_boolean(),
            "array" => v.is_array(),
            "object" => v.is_object(),
            "null" => v.is_null(),
            _ => true,
        };
        if !ok {
            return Err(format!("output_schema_mismatch: field {} is not {ty}", repr_str(field)));
        }
    }
    Ok(())
}

/// `run`: inputs (args over declared defaults), steps, then the envelope.
pub fn run(source: &str, args: &str) -> Result<String, String> {
    let def = load(source)?;
    let args: Value = serde_json::from_str(args).unwrap_or(Value::Null);
    // The seed passes the caller's inputs through as they are.
    let mut inputs = args.as_object().cloned().unwrap_or_default();
    for (k, spec) in def.get("inputs").and_then(Value::as_object).into_iter().flatten() {
        if inputs.contains_key(k) {
            continue;
        }
        match spec.get("default") {
            Some(v) => {
                inputs.insert(k.clone(), v.clone());
            }
            None if spec.get("required").and_then(Value::as_bool) == Some(true) => {
                return Err(format!("missing_input: input {} is required", repr_str(k)));
            }
            None => {}
        }
    }
    let mut ctx = Ctx {
        inputs,
        outputs: Map::new(),
        last: Value::Null,
        phase: None,
    };
    let mut r = Runner {
        def: &def,
        max_parallel: max_parallel(&def),
        agent_calls_at_start: def
            .pointer("/policy/max_agent_calls")
            .map(|_| hwf_guest::budget().agent_calls_left),
        kanban_before: 0,
        kanban_here: 0,
    };
    r.steps(&def["steps"], "/steps", &mut ctx)?;
    let mut result = json!({"outputs": ctx.outputs, "last": ctx.last});
    if let Some(o) = def.get("output") {
        let out = ctx.resolve_soft(o);
        if let Some(schema) = def.get("output_schema") {
            check_output(schema, &out)?;
        }
        result["output"] = out;
    }
    Ok(result.to_string())
}

/// `branch`: one `parallel` branch (`<path>/branches/<b>`), with the
/// parent's context as input; returns the branch step's output, every step
/// output it recorded, and the kanban cards it started.
pub fn branch(source: &str, name: &str, input: &str) -> Result<String, String> {
    let def = load(source)?;
    let input: Value = serde_json::from_str(input).unwrap_or(Value::Null);
    let node = def.pointer(name).ok_or_else(|| format!("unknown_branch: {name}"))?;
    if name.rsplit('/').nth(1).is_none_or(|k| k != "branches") {
        return Err(format!("unknown_branch: {name} is not a parallel branch"));
    }
    let mut ctx = Ctx {
        inputs: input["inputs"].as_object().cloned().unwrap_or_default(),
        outputs: input["outputs"].as_object().cloned().unwrap_or_default(),
        last: input["last"].clone(),
        phase: text(input.get("phase")),
    };
    let mut r = Runner {
        def: &def,
        max_parallel: max_parallel(&def),
        agent_calls_at_start: input["agent_calls_at_start"]
            .as_u64()
            .and_then(|n| u32::try_from(n).ok()),
        kanban_before: input["kanban_before"].as_u64().unwrap_or(0),
        kanban_here: 0,
    };
    let before: Vec<String> = ctx.outputs.keys().cloned().collect();
    let output = r.step(node, name, &mut ctx)?;
    let produced: Map<String, Value> = ctx.outputs.into_iter().filter(|(k, _)| !before.contains(k)).collect();
    Ok(json!({"output": output, "outputs": produced, "kanban": r.kanban_here}).to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `type(output).__name__`, as the seed's `SandboxPolicyError` says.
    #[test]
    fn an_answer_that_is_not_an_object_is_named_by_its_python_type() {
        for (answer, name) in [
            (json!(3), "int"),
            (json!(2.5), "float"),
            (Value::Null, "NoneType"),
            (json!("x"), "str"),
            (json!([1]), "list"),
            (json!(true), "bool"),
        ] {
            assert_eq!(
                not_an_object("agent 'a'", &answer),
                format!("agent_output_invalid: agent 'a' returned {name}, expected dict")
            );
        }
    }

    /// Python's `bool()` of a number: zero in any form is falsy, an
    /// infinity (`1e400`, which serde's `as_f64` refuses) and a big int
    /// truthy.
    #[test]
    fn numbers_are_truthy_as_python_reads_them() {
        let num = |t: &str| serde_json::from_str::<Value>(t).expect("json");
        for t in [
            "1e400",
            "-1e400",
            "5e-324",
            "100000000000000000000000000000000000000000",
            "-1",
            "0.5",
        ] {
            assert!(truthy(&num(t)), "{t}");
        }
        for t in ["0", "-0", "0.0", "-0.0", "1e-400", "0e10", "0E-5"] {
            assert!(!truthy(&num(t)), "{t}");
        }
    }

    /// The seed's `_resolve` texts, its names quoted by Python's `repr`.
    #[test]
    fn an_unresolvable_reference_fails_with_the_seeds_text() {
        let ctx = Ctx {
            inputs: Map::new(),
            outputs: Map::new(),
            last: Value::Null,
            phase: None,
        };
        assert_eq!(
            ctx.resolve(&json!({"x": ["$ref:later.output.v"]})),
            Err("unresolved_ref: step output reference '$ref:later.output.v' is not available".into())
        );
        assert_eq!(
            ctx.resolve(&json!("$ref:9bad")),
            Err("bad_ref: malformed reference '$ref:9bad'".into())
        );
        assert_eq!(
            ctx.resolve(&json!("$ref:it's.output")),
            Err("bad_ref: malformed reference \"$ref:it's.output\"".into())
        );
    }
}
