//! A guest that exercises the host interface for tests and benchmarks;
//! `args.op` picks what it does.

use hwf_guest::{
    Harness, JoinSet, Level, Meta, Result, Task, Value, agent, branch, budget, capability, json, log, parallel, phase,
    pipeline, prompt,
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
                let out = prompt("Give me a verdict")
                    .label("verdict")
                    .schema(json!({"verdict": "string"}))
                    .call();
                match out {
                    Ok(v) => Ok(json!({"ok": v})),
                    Err(e) => Ok(
                        json!({"error": {"code": e.code(), "kind": format!("{:?}", e.kind()), "message": e.message()}}),
                    ),
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
            "print" => {
                // Raw text to stdout and stderr (output across lines).
                print!("{}", args["stdout"].as_str().unwrap_or(""));
                eprint!("{}", args["stderr"].as_str().unwrap_or(""));
                Ok(json!({"printed": true}))
            }
            "fan_agents" => {
                let label = args["label"].as_str().unwrap_or("slow").to_owned();
                let tasks: Vec<Task> = (0..n)
                    .map(|i| prompt(format!("task {i}")).label(label.clone()).task())
                    .collect();
                Ok(summary(parallel(tasks, false)))
            }
            "fan_branches" => {
                let name = args["branch"].as_str().unwrap_or("slow").to_owned();
                let tasks: Vec<Task> = (0..n).map(|i| branch(name.clone(), json!({"i": i}))).collect();
                Ok(summary(parallel(tasks, false)))
            }
            "mixed" => {
                let slots = parallel(
                    [
                        prompt("quick").label("quick").task(),
                        branch("echo", json!({"x": 1})),
                        branch("trap", json!({})),
                        branch("spin", json!({})),
                        capability("fs.list", json!({})).task(),
                        branch("nested", json!({})),
                        branch("nope", json!({})),
                    ],
                    false,
                );
                Ok(Value::Array(slots.into_iter().map(outcome).collect()))
            }
            "fail_fast" => {
                let mut tasks = vec![branch("fail", json!({}))];
                tasks.extend((0..3).map(|i| branch("slow_then_log", json!({"i": i}))));
                Ok(Value::Array(parallel(tasks, true).into_iter().map(outcome).collect()))
            }
            "pipeline" => {
                let items: Vec<Value> = args["items"].as_array().cloned().unwrap_or_default();
                let stages: Vec<String> = args["stages"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|s| s.as_str().map(str::to_owned))
                    .collect();
                Ok(Value::Array(
                    pipeline(items, &stages).into_iter().map(outcome).collect(),
                ))
            }
            "join_order" => {
                let mut set = JoinSet::new();
                for l in args["labels"].as_array().into_iter().flatten() {
                    set.spawn(prompt("race").label(l.as_str().unwrap_or("")));
                }
                let mut order = Vec::new();
                for (_, r) in set {
                    order.push(r.map(|v| v["label"].clone()).unwrap_or(Value::Null));
                }
                Ok(json!({"order": order}))
            }
            "workflow" => {
                let r = parallel(
                    [hwf_guest::workflow(
                        args["name"].as_str().unwrap_or(""),
                        args["args"].clone(),
                    )],
                    false,
                );
                Ok(Value::Array(r.into_iter().map(outcome).collect()))
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
            "program" => program(&args["program"]),
            "wasi" => wasi_report(),
            "cancel" => {
                // Two tasks; take the first to finish, cancel the other,
                // then make one more call (the run goes on).
                let mut set = JoinSet::new();
                set.spawn(prompt("never finishes").label(args["slow"].as_str().unwrap_or("slow")));
                set.spawn(prompt("finishes").label(args["quick"].as_str().unwrap_or("quick")));
                let first = set.next().map(|(call, r)| json!({"call": call, "outcome": outcome(r)}));
                set.cancel_all();
                let after = prompt("after the cancel")
                    .label(args["after"].as_str().unwrap_or("quick"))
                    .call();
                Ok(json!({"first": first, "left": set.len(), "after": outcome(after)}))
            }
            "prompts" => {
                // Agent calls in order: `{"prompt"?, "label"?, "agent"?, "fresh"?}`.
                let calls = args["calls"].as_array().cloned().unwrap_or_default();
                let out = calls
                    .iter()
                    .map(|c| {
                        let mut a = match c["agent"].as_str() {
                            Some(id) => agent(id).input(json!({"p": c["prompt"]})),
                            None => prompt(c["prompt"].as_str().unwrap_or("same question")),
                        };
                        if let Some(l) = c["label"].as_str() {
                            a = a.label(l);
                        }
                        if let Some(f) = c["fresh"].as_bool() {
                            a = a.fresh(f);
                        }
                        outcome(a.call())
                    })
                    .collect();
                Ok(Value::Array(out))
            }
            other => Err(hwf_guest::Error::msg(format!("unknown op {other:?}"))),
        }
    }

    fn branch(name: &str, input: Value) -> Result<Value> {
        match name {
            "echo" => Ok(input),
            "slow" => prompt(format!("slow work {}", input["i"])).label("slow").call(),
            "trap" => panic!("branch trapped on purpose"),
            "spin" => {
                let mut x: u64 = 0;
                loop {
                    x = std::hint::black_box(x.wrapping_add(1));
                }
            }
            "fail" => Err(hwf_guest::Error::msg("branch_error: failed on purpose")),
            "slow_then_log" => {
                let r = prompt("slow work").label("slow").call();
                log(Level::Info, format!("late log from branch {}", input["i"]));
                r
            }
            "nested" => {
                let r = parallel(
                    [
                        prompt("inner a").label("quick").task(),
                        prompt("inner b").label("quick").task(),
                    ],
                    false,
                );
                Ok(summary(r))
            }
            "double" => Ok(json!(input["input"].as_i64().unwrap_or(0) * 2)),
            "add_one" => Ok(json!(input["input"].as_i64().unwrap_or(0) + 1)),
            "slow_stage" => {
                let label = if input["index"] == 0 { "quick" } else { "slower" };
                prompt("stage work").label(label).call()?;
                log(
                    Level::Info,
                    format!("item {} finished stage {}", input["index"], input["stage"]),
                );
                Ok(input["input"].clone())
            }
            "program" => program(&input),
            // A pipeline stage of a program: item `{"stages": [node, …]}`,
            // stage `s` runs node `s` (with the previous stage's output
            // available as `$prev` to agent prompts).
            "program_stage" => {
                let s = input["stage"].as_u64().unwrap_or(0) as usize;
                match &input["item"]["stages"][s] {
                    // An item with fewer stages passes its value on.
                    Value::Null => Ok(input["input"].clone()),
                    node => program(node),
                }
            }
            other => Err(hwf_guest::Error::msg(format!("unknown_branch: {other}"))),
        }
    }
}

/// Interpret a program tree (tests build arbitrary call trees with it):
///
/// - `{"agent": label, "prompt"?: text, "entropy"?: true}`: a prompt agent
///   call (`entropy` adds the wall clock and random bytes to the prompt);
/// - `{"cap": {name, input, label?, approval_id?}}`: a capability call;
/// - `{"seq": [node, …]}`: in order, results as an array;
/// - `{"par": [node, …]}`: each node in its own branch instance, at once;
/// - `{"pipe": [{"stages": [node, …]}, …]}`: a pipeline, one item per entry;
/// - `{"workflow": name, "args"?: …}`: a saved workflow, nested;
/// - `{"try": node}`: `{"ok": …}` or `{"error": {code, …}}` instead of failing;
/// - `{"log": text}`: a log line.
///
/// Failures propagate (a failing branch is an error slot of its `par`).
fn program(node: &Value) -> Result<Value> {
    if let Some(label) = node.get("agent").and_then(Value::as_str) {
        let mut text = node["prompt"]
            .as_str()
            .map_or_else(|| format!("work for {label}"), str::to_owned);
        if node["entropy"] == true {
            // The clock and randomness a harness may (unwisely) put into a
            // prompt: virtual and seeded, so a replay sees the same values.
            use std::hash::BuildHasher as _;
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_millis());
            let random = std::collections::hash_map::RandomState::new().hash_one(label);
            text = format!("{text} at {now} nonce {random}");
        }
        return prompt(text).label(label).call();
    }
    if let Some(spec) = node.get("cap") {
        return cap_call(spec);
    }
    if let Some(nodes) = node.get("seq").and_then(Value::as_array) {
        return nodes.iter().map(program).collect::<Result<Vec<_>>>().map(Value::Array);
    }
    if let Some(nodes) = node.get("par").and_then(Value::as_array) {
        let tasks: Vec<Task> = nodes.iter().map(|n| branch("program", n.clone())).collect();
        return Ok(Value::Array(parallel(tasks, false).into_iter().map(outcome).collect()));
    }
    if let Some(items) = node.get("pipe").and_then(Value::as_array) {
        let stages = items
            .iter()
            .map(|i| i["stages"].as_array().map_or(0, Vec::len))
            .max()
            .unwrap_or(0);
        let names = vec!["program_stage".to_owned(); stages];
        return Ok(Value::Array(
            pipeline(items.clone(), &names).into_iter().map(outcome).collect(),
        ));
    }
    if let Some(name) = node.get("workflow").and_then(Value::as_str) {
        let args = node.get("args").cloned().unwrap_or(json!({}));
        let mut slots = parallel([hwf_guest::workflow(name, args)], false);
        return slots.pop().unwrap_or_else(|| Err(hwf_guest::Error::msg("no slot")));
    }
    if let Some(inner) = node.get("try") {
        return Ok(outcome(program(inner)));
    }
    if let Some(text) = node.get("log").and_then(Value::as_str) {
        log(Level::Info, text);
        return Ok(Value::Null);
    }
    Err(hwf_guest::Error::msg(format!("bad_program: {node}")))
}

/// Everything the locked-down WASI gives a guest: args, env, stdin,
/// three readings of each clock, two hashes keyed by std's random seed;
/// then one agent call whose prompt carries the clock and random values
/// (so a replay that saw different values would diverge and run live).
fn wasi_report() -> Result<Value> {
    use std::hash::BuildHasher as _;
    use std::io::Read as _;
    let args: Vec<String> = std::env::args().collect();
    let env: Vec<(String, String)> = std::env::vars().collect();
    let mut buf = Vec::new();
    let stdin = std::io::stdin().read_to_end(&mut buf);
    let wall: Vec<u64> = (0..3)
        .map(|_| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_millis() as u64)
        })
        .collect();
    let t0 = std::time::Instant::now();
    let t1 = std::time::Instant::now();
    let t2 = std::time::Instant::now();
    let mono_ns = [
        t1.duration_since(t0).as_nanos() as u64,
        t2.duration_since(t1).as_nanos() as u64,
    ];
    // Each RandomState is keyed from the seed std drew from wasi:random.
    let random: Vec<String> = (0..2)
        .map(|_| format!("{:016x}", std::hash::RandomState::new().hash_one(42u64)))
        .collect();
    let answer = prompt(format!("clock {wall:?} random {random:?}"))
        .label("wasi")
        .call()?;
    Ok(json!({
        "args": args,
        "env": env,
        "stdin": stdin.map_err(|e| e.to_string()),
        "stdin_bytes": buf.len(),
        "wall_ms": wall,
        "monotonic_step_ns": mono_ns,
        "random": random,
        "answer": answer,
    }))
}

fn summary(slots: Vec<Result<Value>>) -> Value {
    let errors: Vec<String> = slots
        .iter()
        .filter_map(|s| s.as_ref().err().map(|e| e.code().to_owned()))
        .collect();
    json!({"ok": slots.len() - errors.len(), "errors": errors})
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
#[allow(clippy::needless_pass_by_value, reason = "used with map")]
fn outcome(r: Result<Value>) -> Value {
    match r {
        Ok(v) => json!({"ok": v}),
        Err(e) => json!({"error": {"code": e.code(), "kind": format!("{:?}", e.kind()), "message": e.message()}}),
    }
}

hwf_guest::export_harness!(Probe);
