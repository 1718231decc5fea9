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

hwf_guest::export_harness!(Probe);
