//! A guest that exercises the host interface for tests and benchmarks;
//! `args.op` picks what it does.

use hwf_guest::{
    agent, budget, capability, json, log, parallel, phase, prompt, Harness, JoinSet, Level, Meta, Result, Value,
};

struct Probe;

impl Harness for Probe {
    fn meta() -> Meta {
        Meta::new("probe", "Exercises host calls (tests and benchmarks).").phase("probe")
    }

    fn run(args: Value) -> Result<Value> {
        let n = args["n"].as_u64().unwrap_or(1);
        match args["op"].as_str().unwrap_or("noop") {
            "noop" => Ok(json!({"ok": true})),
            "log" => {
                for i in 0..n {
                    log(Level::Info, format!("line {i}"));
                }
                Ok(json!({"logged": n}))
            }
            "agent" => {
                let mut last = Value::Null;
                for i in 0..n {
                    last = agent("bench.echo").input(json!({"i": i})).label("echo").call()?;
                }
                Ok(json!({"calls": n, "last": last}))
            }
            "schema" => {
                // Fixture answers decide how many attempts this takes.
                let out = prompt("Give me a verdict").label("verdict").schema(json!({"verdict": "string"})).call();
                match out {
                    Ok(v) => Ok(json!({"ok": v})),
                    Err(e) => Ok(json!({"error": {"code": e.code(), "kind": format!("{:?}", e.kind()), "message": e.message()}})),
                }
            }
            "catch" => {
                // Every call here fails in a typed way the harness can catch.
                let cap = capability("bash", json!({"argv": ["ls"]})).label("ls").call();
                let par = parallel([prompt("a").task(), prompt("b").task()], false);
                let mut set = JoinSet::new();
                set.spawn(prompt("c"));
                let next = set.next();
                let missing = prompt("nobody answers this").label("missing").call();
                let b = budget();
                Ok(json!({
                    "capability": cap.err().map(|e| e.code().to_owned()),
                    "parallel": par.iter().map(|r| r.as_ref().err().map(|e| e.code().to_owned())).collect::<Vec<_>>(),
                    "next": next.and_then(|(_, r)| r.err()).map(|e| e.code().to_owned()),
                    "missing": missing.err().map(|e| e.message().to_owned()),
                    "calls_left": b.calls_left,
                    "agent_calls_left": b.agent_calls_left,
                }))
            }
            "cap" => Ok(outcome(cap_call(&args))),
            "caps" => {
                let calls = args["calls"].as_array().cloned().unwrap_or_default();
                Ok(Value::Array(calls.iter().map(|c| outcome(cap_call(c))).collect()))
            }
            "agents_until_exhausted" => {
                let mut done = 0u64;
                loop {
                    match prompt(format!("work item {done}")).label("work").call() {
                        Ok(_) => done += 1,
                        Err(e) => {
                            let b = budget();
                            return Ok(json!({
                                "done": done,
                                "error": e.code(),
                                "kind": format!("{:?}", e.kind()),
                                "tokens_spent": b.tokens_spent,
                                "token_total": b.token_total,
                                "agent_calls_left": b.agent_calls_left,
                            }));
                        }
                    }
                    if done > 10_000 {
                        return Ok(json!({"done": done}));
                    }
                }
            }
            "typed_agent" => {
                let mut a = prompt("Review this").label("typed");
                if let Some(t) = args["agent_type"].as_str() {
                    a = a.agent_type(t);
                }
                Ok(outcome(a.call()))
            }
            "leak" => {
                // Echo every secret it can reach into every channel it has.
                let a = prompt("give me the token").label("leaky").call()?;
                log(Level::Info, format!("agent said {a}"));
                let b = cap_call(&args["bash"]);
                log(Level::Warn, format!("bash said {b:?}"));
                phase(format!("phase with {}", args["note"]));
                println!("stdout: {a} {b:?}");
                eprintln!("stderr: {args}");
                Err(hwf_guest::Error::msg(format!("failing with {a} and {b:?} and {args}")))
            }
            "phases" => {
                for p in ["one", "two", "three"] {
                    phase(p);
                }
                Ok(json!({"phases": 3}))
            }
            "echo_args" => {
                log(Level::Info, format!("args: {args}"));
                Ok(args)
            }
            "fail" => Err(hwf_guest::Error::msg("harness_error: the probe failed on purpose")),
            other => Err(hwf_guest::Error::msg(format!("unknown op {other:?}"))),
        }
    }
}

fn cap_call(spec: &Value) -> Result<Value> {
    let mut c = capability(spec["name"].as_str().unwrap_or(""), spec["input"].clone());
    if let Some(id) = spec["approval_id"].as_str() {
        c = c.approval_id(id);
    }
    if let Some(l) = spec["label"].as_str() {
        c = c.label(l);
    }
    c.call()
}

/// `{"ok": value}` or `{"error": {"code", "kind", "message"}}`.
fn outcome(r: Result<Value>) -> Value {
    match r {
        Ok(v) => json!({"ok": v}),
        Err(e) => json!({"error": {"code": e.code(), "kind": format!("{:?}", e.kind()), "message": e.message()}}),
    }
}

hwf_guest::export_harness!(Probe);
