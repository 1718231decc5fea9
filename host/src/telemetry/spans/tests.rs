use super::*;
use hwf_core::journal::sketch::entries;
use serde_json::json;
use std::collections::HashSet;

fn info() -> RunInfo {
    RunInfo {
        run_id: "r1".into(),
        name: "triage".into(),
        ..RunInfo::default()
    }
}

fn attr<'a>(s: &'a Span, key: &str) -> Option<&'a any_value::Value> {
    s.attributes
        .iter()
        .find(|kv| kv.key == key)
        .and_then(|kv| kv.value.as_ref())
        .and_then(|v| v.value.as_ref())
}

fn str_attr<'a>(s: &'a Span, key: &str) -> Option<&'a str> {
    match attr(s, key) {
        Some(any_value::Value::StringValue(v)) => Some(v),
        _ => None,
    }
}

fn named<'a>(spans: &'a [Span], name: &str) -> &'a Span {
    spans.iter().find(|s| s.name == name).unwrap_or_else(|| {
        panic!(
            "no span {name:?} in {:?}",
            spans.iter().map(|s| &s.name).collect::<Vec<_>>()
        )
    })
}

#[test]
fn one_execution_is_one_tree_under_invoke_workflow() {
    let journal = entries(vec![
        json!({"type": "run_started"}),
        json!({"type": "phase", "title": "Build"}),
        json!({"type": "call_started", "call": "1", "kind": "agent", "phase": "Build",
               "request": {"prompt": "fix it", "model": "m-1", "agent_type": "coder"}}),
        json!({"type": "call_completed", "call": "1", "kind": "agent", "ok": true, "result": "done",
               "tokens": 15, "usage": {"input": 3, "cache_read": 10, "output": 2}, "cost_micro_usd": 1500,
               "attempts": 1, "duration_us": 300}),
        json!({"type": "call_started", "call": "2", "kind": "capability", "request": {"name": "fs.list", "input": {}}}),
        json!({"type": "call_completed", "call": "2", "kind": "capability", "ok": false,
               "error": {"kind": "denied", "message": "side_effect_denied: no"}}),
        json!({"type": "call_started", "call": "3", "kind": "parallel"}),
        json!({"type": "call_started", "call": "3.1", "kind": "branch", "label": "left"}),
        json!({"type": "call_started", "call": "3.1.1", "kind": "agent", "request": {"agent": "hermes.greeter"}}),
        json!({"type": "call_completed", "call": "3.1.1", "kind": "agent", "ok": true, "replayed": true}),
        json!({"type": "call_completed", "call": "3.1", "kind": "branch", "ok": true}),
        json!({"type": "call_completed", "call": "3", "kind": "parallel", "ok": true}),
        json!({"type": "run_completed", "state": "succeeded", "counts": {"calls": 5, "agent_calls": 2, "capability_calls": 1, "failed": 1, "tokens": 15}}),
    ]);
    let spans = build(&info(), &journal, 13, false);
    let root = named(&spans, "invoke_workflow triage");
    assert_eq!(root.span_id, root_span_id("r1").to_vec());
    assert!(root.parent_span_id.is_empty());
    assert_eq!(str_attr(root, "gen_ai.operation.name"), Some("invoke_workflow"));
    assert_eq!(str_attr(root, "gen_ai.workflow.name"), Some("triage"));
    assert!(spans.iter().all(|s| s.trace_id == trace_id("r1").to_vec()));
    assert!(
        !spans.iter().any(|s| s.name.starts_with("execution")),
        "one execution: no execution span"
    );
    let phase = named(&spans, "phase Build");
    assert_eq!(phase.parent_span_id, root.span_id);
    let agent = named(&spans, "invoke_agent coder");
    assert_eq!(
        agent.parent_span_id, phase.span_id,
        "a call in a phase is the phase's child"
    );
    assert_eq!(str_attr(agent, "gen_ai.request.model"), Some("m-1"));
    assert_eq!(
        attr(agent, "gen_ai.usage.input_tokens"),
        Some(&any_value::Value::IntValue(13))
    );
    assert_eq!(
        attr(agent, "gen_ai.usage.output_tokens"),
        Some(&any_value::Value::IntValue(2))
    );
    assert_eq!(
        attr(agent, "gen_ai.usage.cache_read.input_tokens"),
        Some(&any_value::Value::IntValue(10))
    );
    assert_eq!(
        attr(agent, "gen_ai.usage.cost"),
        Some(&any_value::Value::DoubleValue(0.0015))
    );
    assert_eq!(agent.kind, span::SpanKind::Client as i32);
    assert!(
        agent.end_time_unix_nano - agent.start_time_unix_nano == 300_000,
        "placed by its measured duration"
    );
    assert_eq!(
        str_attr(agent, "gen_ai.input.messages"),
        None,
        "no content unless asked"
    );
    let tool = named(&spans, "execute_tool fs.list");
    assert_eq!(
        tool.parent_span_id, phase.span_id,
        "a call after phase() is in that phase"
    );
    assert_eq!(str_attr(tool, "error.type"), Some("side_effect_denied"));
    assert_eq!(
        tool.status.as_ref().map(|s| s.code),
        Some(status::StatusCode::Error as i32)
    );
    let (par, branch) = (named(&spans, "parallel"), named(&spans, "branch left"));
    let nested = named(&spans, "invoke_agent hermes.greeter");
    assert_eq!(branch.parent_span_id, par.span_id);
    assert_eq!(nested.parent_span_id, branch.span_id);
    assert_eq!(attr(nested, "hwf.replayed"), Some(&any_value::Value::BoolValue(true)));
    let ids: HashSet<&Vec<u8>> = spans.iter().map(|s| &s.span_id).collect();
    assert_eq!(ids.len(), spans.len(), "ids are unique");
    assert!(
        spans
            .iter()
            .all(|s| s.parent_span_id.is_empty() || ids.contains(&s.parent_span_id)),
        "one tree"
    );
}

#[test]
fn a_parked_run_continues_its_trace_and_each_span_is_sent_once() {
    let journal = entries(vec![
        json!({"type": "run_started"}),
        json!({"type": "call_started", "call": "1", "kind": "agent", "request": {"prompt": "a"}}),
        json!({"type": "call_completed", "call": "1", "kind": "agent", "ok": true, "attempts": 1}),
        json!({"type": "call_started", "call": "2", "kind": "capability", "request": {"name": "human.ask"}}),
        json!({"type": "wait_started", "call": "2", "kind": "human", "summary": "ok?"}),
        json!({"type": "run_completed", "state": "waiting"}),
        json!({"type": "run_started"}),
        json!({"type": "call_started", "call": "1", "kind": "agent", "request": {"prompt": "a"}}),
        json!({"type": "call_completed", "call": "1", "kind": "agent", "ok": true, "replayed": true}),
        json!({"type": "call_started", "call": "2", "kind": "capability", "request": {"name": "human.ask"}}),
        json!({"type": "wait_resolved", "call": "2"}),
        json!({"type": "call_completed", "call": "2", "kind": "capability", "ok": true}),
        json!({"type": "run_completed", "state": "succeeded"}),
    ]);
    let first = build(&info(), &journal, 6, false);
    assert!(
        !first.iter().any(|s| s.name.starts_with("invoke_workflow")),
        "no root while parked"
    );
    let exec1 = named(&first, "execution 1");
    assert_eq!(exec1.parent_span_id, root_span_id("r1").to_vec());
    let ask = named(&first, "execute_tool human.ask");
    assert_eq!(str_attr(ask, "hwf.call.outcome"), Some("parked"));
    assert_eq!(
        first.len(),
        3,
        "{:?}",
        first.iter().map(|s| &s.name).collect::<Vec<_>>()
    );
    let second = build(&info(), &journal, 13, false);
    let names: Vec<&str> = second.iter().map(|s| s.name.as_str()).collect();
    assert!(!names.contains(&"execution 1"), "sent once: {names:?}");
    named(&second, "execution 2");
    named(&second, "wait human");
    named(&second, "invoke_workflow triage");
    let all: Vec<&Span> = first.iter().chain(&second).collect();
    let ids: HashSet<&Vec<u8>> = all.iter().map(|s| &s.span_id).collect();
    assert_eq!(ids.len(), all.len(), "no span twice");
    assert!(
        all.iter()
            .all(|s| s.parent_span_id.is_empty() || ids.contains(&s.parent_span_id))
    );
    assert_eq!(all.iter().filter(|s| s.name.starts_with("invoke_workflow")).count(), 1);
}

#[test]
fn content_is_exported_only_when_asked_and_redacted() {
    let secret = format!("ghp_{}", "a1B2".repeat(9));
    let journal = entries(vec![
        json!({"type": "run_started"}),
        json!({"type": "call_started", "call": "1", "kind": "agent", "request": {"prompt": format!("use {secret}")}}),
        json!({"type": "call_completed", "call": "1", "kind": "agent", "ok": true, "result": {"echo": secret}}),
        json!({"type": "run_completed", "state": "succeeded"}),
    ]);
    let off = build(&info(), &journal, 4, false);
    assert!(str_attr(named(&off, "invoke_agent general-purpose"), "gen_ai.input.messages").is_none());
    let on = build(&info(), &journal, 4, true);
    let agent = named(&on, "invoke_agent general-purpose");
    let input = str_attr(agent, "gen_ai.input.messages").expect("captured");
    let output = str_attr(agent, "gen_ai.output.messages").expect("captured");
    assert!(input.contains("use ") && !input.contains(&secret), "{input}");
    assert!(!output.contains(&secret), "{output}");
    assert!(input.contains("[REDACTED"), "{input}");
}

#[test]
fn a_traceparent_makes_the_run_part_of_the_clients_trace() {
    let header = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    let parent = TraceParent::parse(header).expect("valid");
    assert_eq!(parent.to_header(), header);
    for bad in [
        "",
        "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",
        "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
    ] {
        assert_eq!(TraceParent::parse(bad), None, "{bad}");
    }
    let journal = entries(vec![
        json!({"type": "run_started"}),
        json!({"type": "run_completed", "state": "failed", "error": {"code": "cpu_limit", "message": "cpu"}}),
    ]);
    let run = RunInfo {
        parent: Some(parent),
        resumed_from: Some("r0".into()),
        ..info()
    };
    let spans = build(&run, &journal, 2, false);
    let root = named(&spans, "invoke_workflow triage");
    assert_eq!(root.trace_id, parent.trace_id.to_vec());
    assert_eq!(root.parent_span_id, parent.span_id.to_vec());
    assert_eq!(str_attr(root, "error.type"), Some("cpu_limit"));
    assert_eq!(
        root.links.first().map(|l| l.trace_id.clone()),
        Some(trace_id("r0").to_vec())
    );
}

#[test]
fn an_execution_that_died_is_sent_by_the_next() {
    let journal = entries(vec![
        json!({"type": "run_started"}),
        json!({"type": "call_started", "call": "1", "kind": "agent", "request": {"agent": "a"}}),
        json!({"type": "call_completed", "call": "1", "kind": "agent", "ok": true}),
        json!({"type": "call_started", "call": "2", "kind": "agent", "request": {"agent": "b"}}),
        // The executor died here; a runner continued the run.
        json!({"type": "run_started"}),
        json!({"type": "call_started", "call": "1", "kind": "agent", "request": {"agent": "a"}}),
        json!({"type": "call_completed", "call": "1", "kind": "agent", "ok": true, "replayed": true}),
        json!({"type": "call_started", "call": "2", "kind": "agent", "request": {"agent": "b"}}),
        json!({"type": "call_completed", "call": "2", "kind": "agent", "ok": true}),
        json!({"type": "run_completed", "state": "succeeded"}),
    ]);
    let spans = build(&info(), &journal, 10, false);
    let exec1 = named(&spans, "execution 1");
    assert_eq!(str_attr(exec1, "hwf.execution.state"), Some("died"));
    let cut = spans
        .iter()
        .filter(|s| s.parent_span_id == exec1.span_id)
        .map(|s| (s.name.as_str(), str_attr(s, "hwf.call.outcome")))
        .collect::<Vec<_>>();
    assert_eq!(cut, [("invoke_agent a", None), ("invoke_agent b", Some("unfinished"))]);
    assert_eq!(
        spans.iter().filter(|s| s.name.starts_with("invoke_workflow")).count(),
        1
    );
}

/// A quarantined run (`crash_loop`): its final record follows the last
/// execution that died, with no `run_started` of its own.
#[test]
fn a_quarantined_run_ends_its_trace() {
    let journal = entries(vec![
        json!({"type": "run_started"}),
        json!({"type": "call_started", "call": "1", "kind": "agent", "request": {"agent": "a"}}),
        json!({"type": "run_started"}),
        json!({"type": "call_started", "call": "1", "kind": "agent", "request": {"agent": "a"}}),
        json!({"type": "run_completed", "state": "failed", "error": {"code": "crash_loop", "message": "died"}}),
    ]);
    let spans = build(&info(), &journal, 5, false);
    let root = named(&spans, "invoke_workflow triage");
    assert_eq!(str_attr(root, "error.type"), Some("crash_loop"));
    assert_eq!(
        str_attr(named(&spans, "execution 1"), "hwf.execution.state"),
        Some("died")
    );
    assert_eq!(
        str_attr(named(&spans, "execution 2"), "hwf.execution.state"),
        Some("failed")
    );
    let unfinished = spans
        .iter()
        .filter(|s| str_attr(s, "hwf.call.outcome") == Some("unfinished"))
        .count();
    assert_eq!(unfinished, 2, "both executions' calls are cut short");
}
