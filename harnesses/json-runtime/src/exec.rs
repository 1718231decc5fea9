//! Running a definition: steps in order over a context of inputs and step
//! outputs; agents, capabilities, branches and pipelines through the host.

use crate::hermes::workflow::host;
use crate::hermes::workflow::types::{AgentRequest, BranchCall, CallError, CapabilityRequest, Task};
use serde_json::{Map, Value, json};

fn err_text(e: CallError) -> String {
    match e {
        CallError::Denied(m)
        | CallError::BudgetExhausted(m)
        | CallError::SchemaMismatch(m)
        | CallError::Failed(m)
        | CallError::TimedOut(m)
        | CallError::Cancelled(m)
        | CallError::ApprovalRequired(m) => m,
    }
}

/// The values `$ref:` strings resolve against.
struct Ctx {
    scope: Map<String, Value>,
}

impl Ctx {
    fn lookup(&self, path: &str) -> Value {
        let mut parts = path.split('.');
        let mut cur = match parts.next() {
            Some(head) => self.scope.get(head).cloned().unwrap_or(Value::Null),
            None => return Value::Null,
        };
        for p in parts {
            cur = match &cur {
                Value::Object(m) => m.get(p).cloned().unwrap_or(Value::Null),
                Value::Array(a) => p
                    .parse::<usize>()
                    .ok()
                    .and_then(|i| a.get(i).cloned())
                    .unwrap_or(Value::Null),
                _ => Value::Null,
            };
        }
        cur
    }

    /// Replace every `"$ref:…"` string in `v`.
    fn resolve(&self, v: &Value) -> Value {
        match v {
            Value::String(s) => match s.strip_prefix("$ref:") {
                Some(path) => self.lookup(path),
                None => v.clone(),
            },
            Value::Array(items) => Value::Array(items.iter().map(|x| self.resolve(x)).collect()),
            Value::Object(m) => Value::Object(m.iter().map(|(k, x)| (k.clone(), self.resolve(x))).collect()),
            other => other.clone(),
        }
    }

    fn set_output(&mut self, id: &str, output: Value) {
        self.scope.insert(id.to_owned(), json!({"output": output}));
    }
}

fn text(v: Option<&Value>) -> Option<String> {
    v.and_then(Value::as_str).map(str::to_owned)
}

/// An agent request from a step (refs resolved).
fn agent_request(step: &Value, ctx: &Ctx) -> AgentRequest {
    let id = step.get("id").and_then(Value::as_str).unwrap_or("agent");
    let json_field = |k: &str| step.get(k).map(|v| ctx.resolve(v).to_string());
    let prompt = step.get("prompt").map(|p| match ctx.resolve(p) {
        Value::String(s) => s,
        other => other.to_string(),
    });
    AgentRequest {
        agent: text(step.get("agent")),
        prompt,
        input: json_field("input"),
        label: text(step.get("label")).or_else(|| Some(id.to_owned())),
        phase: text(step.get("phase")),
        schema: step.get("output_schema").map(Value::to_string),
        model: text(step.get("model")),
        effort: text(step.get("effort")),
        agent_type: text(step.get("agent_type")).or_else(|| text(step.get("profile"))),
        tools: None,
        context: json_field("context"),
        isolation: None,
        fresh: None,
    }
}

fn parse(raw: &str) -> Value {
    serde_json::from_str(raw).unwrap_or(Value::Null)
}

fn truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(m) => !m.is_empty(),
    }
}

struct Runner {
    agent_calls: u64,
    max_agent_calls: u64,
}

impl Runner {
    fn steps(&mut self, steps: &Value, path: &str, ctx: &mut Ctx) -> Result<Value, String> {
        let mut last = Value::Null;
        for (i, step) in steps.as_array().into_iter().flatten().enumerate() {
            last = self.step(step, &format!("{path}/{i}"), ctx)?;
        }
        Ok(last)
    }

    fn step(&mut self, step: &Value, path: &str, ctx: &mut Ctx) -> Result<Value, String> {
        let id = step.get("id").and_then(Value::as_str).unwrap_or("");
        let ty = step.get("type").and_then(Value::as_str).unwrap_or("");
        let out = match ty {
            "phase" => {
                host::phase(step.get("title").and_then(Value::as_str).unwrap_or(""));
                return Ok(Value::Null);
            }
            "agent" => {
                self.agent_calls += 1;
                if self.agent_calls > self.max_agent_calls {
                    return Err(format!(
                        "policy_limit: step {id:?} would exceed policy.max_agent_calls ({})",
                        self.max_agent_calls
                    ));
                }
                let raw =
                    host::agent(&agent_request(step, ctx)).map_err(|e| format!("step {id:?}: {}", err_text(e)))?;
                parse(&raw)
            }
            "kanban_agent" => {
                let input = json!({
                    "profile": step.get("profile"),
                    "title": ctx.resolve(step.get("prompt").unwrap_or(&Value::Null)),
                    "input": ctx.resolve(step.get("input").unwrap_or(&Value::Null)),
                });
                let req = CapabilityRequest {
                    name: "kanban.task".into(),
                    input: input.to_string(),
                    label: Some(id.to_owned()),
                    approval_id: None,
                };
                let raw = host::capability(&req).map_err(|e| format!("step {id:?}: {}", err_text(e)))?;
                parse(&raw)
            }
            "if" => {
                let cond = step.get("condition").cloned().unwrap_or(Value::Null);
                let value = ctx.resolve(cond.get("ref").unwrap_or(&Value::Null));
                let want = cond.get("value").map(|v| ctx.resolve(v)).unwrap_or(Value::Null);
                let yes = match cond.get("op").and_then(Value::as_str) {
                    Some("exists") => !value.is_null(),
                    Some("eq") => value == want,
                    Some("ne") => value != want,
                    _ => truthy(&value),
                };
                let (branch, key) = if yes {
                    (step.get("then"), "then")
                } else {
                    (step.get("else"), "else")
                };
                match branch {
                    Some(b) => self.steps(b, &format!("{path}/{key}"), ctx)?,
                    None => Value::Null,
                }
            }
            "parallel" => {
                let branches = step
                    .get("branches")
                    .and_then(Value::as_array)
                    .cloned()
                    .unwrap_or_default();
                let snapshot = Value::Object(ctx.scope.clone());
                let tasks: Vec<Task> = (0..branches.len())
                    .map(|b| {
                        Task::Branch(BranchCall {
                            name: format!("{path}/branches/{b}"),
                            input: snapshot.to_string(),
                        })
                    })
                    .collect();
                let results = host::parallel(&tasks, false);
                let mut outs = Vec::new();
                for (b, r) in results.into_iter().enumerate() {
                    match r {
                        Ok(raw) => {
                            // A branch returns the outputs of its steps.
                            let produced = parse(&raw);
                            if let Some(m) = produced.as_object() {
                                for (k, v) in m {
                                    ctx.scope.insert(k.clone(), v.clone());
                                }
                            }
                            outs.push(produced);
                        }
                        Err(e) => return Err(format!("step {id:?} branch {b}: {}", err_text(e))),
                    }
                }
                Value::Array(outs)
            }
            "pipeline" => {
                let items = match ctx.resolve(step.get("items").unwrap_or(&Value::Null)) {
                    Value::Array(a) => a,
                    other => return Err(format!("step {id:?}: items resolved to {other}, not a list")),
                };
                let n = step.get("stages").and_then(Value::as_array).map_or(0, Vec::len);
                let stages: Vec<String> = (0..n).map(|k| format!("{path}/stages/{k}")).collect();
                let items: Vec<String> = items.iter().map(Value::to_string).collect();
                let results = host::pipeline(&items, &stages);
                Value::Array(
                    results
                        .into_iter()
                        .map(|r| r.map(|raw| parse(&raw)).unwrap_or(Value::Null))
                        .collect(),
                )
            }
            other => return Err(format!("unknown_step_type: {other:?}")),
        };
        if !id.is_empty() {
            ctx.set_output(id, out.clone());
        }
        Ok(out)
    }
}

fn load(source: &str) -> Result<Value, String> {
    if let Err(diags) = crate::check::check(source) {
        let first = diags.first().map_or(String::new(), |d| {
            format!(
                "{}: {}{}",
                d.code,
                d.message,
                d.pointer.as_deref().map(|p| format!(" (at {p})")).unwrap_or_default()
            )
        });
        return Err(format!("invalid_script: {first}"));
    }
    serde_json::from_str(source).map_err(|e| format!("invalid_script: {e}"))
}

fn runner(def: &Value) -> Runner {
    let max = def
        .pointer("/policy/max_agent_calls")
        .and_then(Value::as_u64)
        .unwrap_or(u64::MAX);
    Runner {
        agent_calls: 0,
        max_agent_calls: max,
    }
}

/// Check the output against a simple `{"field": "type"}` schema or a JSON
/// Schema's `required` / `properties.*.type`.
fn check_output(schema: &Value, out: &Value) -> Result<(), String> {
    let (required, types): (Vec<String>, Map<String, Value>) = match schema.get("properties") {
        Some(Value::Object(props)) => (
            schema
                .get("required")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect(),
            props
                .iter()
                .filter_map(|(k, v)| v.get("type").map(|t| (k.clone(), t.clone())))
                .collect(),
        ),
        _ => match schema.as_object() {
            Some(m) => (m.keys().cloned().collect(), m.clone()),
            None => return Ok(()),
        },
    };
    for field in required {
        if out.get(&field).is_none() {
            return Err(format!("output_schema_mismatch: the output has no field {field:?}"));
        }
    }
    for (field, ty) in types {
        let Some(v) = out.get(&field) else { continue };
        let ok = match ty.as_str().unwrap_or("any") {
            "string" | "str" => v.is_string(),
            "number" | "float" => v.is_number(),
            "integer" | "int" => v.is_i64() || v.is_u64(),
            "boolean" | "bool" => v.is_boolean(),
            "list" | "array" => v.is_array(),
            "object" | "dict" => v.is_object(),
            _ => true,
        };
        if !ok {
            return Err(format!("output_schema_mismatch: field {field:?} is not {ty}"));
        }
    }
    Ok(())
}

/// `run`: inputs from args (over defaults), steps, then `output`.
pub fn run(source: &str, args: &str) -> Result<String, String> {
    let def = load(source)?;
    let args: Value = serde_json::from_str(args).unwrap_or(Value::Null);
    let mut inputs = Map::new();
    for (k, spec) in def.get("inputs").and_then(Value::as_object).into_iter().flatten() {
        match args.get(k).cloned().or_else(|| spec.get("default").cloned()) {
            Some(v) => {
                inputs.insert(k.clone(), v);
            }
            None if spec.get("required").and_then(Value::as_bool) == Some(true) => {
                return Err(format!("missing_input: input {k:?} is required"));
            }
            None => {}
        }
    }
    let mut ctx = Ctx { scope: Map::new() };
    ctx.scope.insert("inputs".into(), Value::Object(inputs));
    let mut r = runner(&def);
    let last = r.steps(def.get("steps").unwrap_or(&Value::Null), "/steps", &mut ctx)?;
    let out = match def.get("output") {
        Some(o) => ctx.resolve(o),
        None => last,
    };
    if let Some(schema) = def.get("output_schema") {
        check_output(schema, &out)?;
    }
    Ok(out.to_string())
}

/// `branch`: a parallel branch (`<path>/branches/<b>`, input = the context)
/// or a pipeline stage (`<path>/stages/<k>`, input = the host's stage
/// input).
pub fn branch(source: &str, name: &str, input: &str) -> Result<String, String> {
    let def = load(source)?;
    let input: Value = serde_json::from_str(input).unwrap_or(Value::Null);
    let node = def.pointer(name).ok_or_else(|| format!("unknown_branch: {name}"))?;
    let mut r = runner(&def);
    if name.contains("/stages/") {
        let mut ctx = Ctx { scope: Map::new() };
        ctx.scope
            .insert("item".into(), input.get("item").cloned().unwrap_or(Value::Null));
        ctx.scope
            .insert("prev".into(), input.get("input").cloned().unwrap_or(Value::Null));
        ctx.scope
            .insert("index".into(), input.get("index").cloned().unwrap_or(Value::Null));
        let raw = host::agent(&agent_request(node, &ctx)).map_err(err_text)?;
        return Ok(raw);
    }
    let mut ctx = Ctx {
        scope: input.as_object().cloned().unwrap_or_default(),
    };
    let before: Vec<String> = ctx.scope.keys().cloned().collect();
    let steps = node.get("steps").unwrap_or(node);
    r.steps(steps, name, &mut ctx)?;
    // The outputs this branch produced.
    let produced: Map<String, Value> = ctx.scope.into_iter().filter(|(k, _)| !before.contains(k)).collect();
    Ok(Value::Object(produced).to_string())
}
