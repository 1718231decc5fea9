//! A run's journal as OpenTelemetry spans (the GenAI semantic conventions'
//! `invoke_workflow`, `invoke_agent`, `execute_tool`, plus hwf's own
//! executions, phases, composite calls and waits).
//!
//! Everything comes from journal entries, which are redacted when written;
//! every string is passed through [`redact_text`] once more on the way
//! out. Ids are derived, never random: the trace id is the first 16 bytes
//! of blake3(run id), and each span's id is a hash of the run id and the
//! journal position that opens it, so an execution that continues a parked
//! run adds its spans to the same trace under the same root.
//!
//! **Which spans an export holds.** A span is exported by the export whose
//! journal window holds the entry that *ends* it: the window runs from
//! just after the previous execution's `run_completed` to the current one
//! (so an execution that died without one has its spans sent by the next).
//! The root ends with the run's terminal `run_completed`; a call with its
//! `call_completed` (or the end of its execution, when it parked the run or
//! never finished); a wait with the `run_started` of the execution that
//! continued the run.
//!
//! **The tree.** `invoke_workflow` is the root (its parent is the MCP
//! client's span when the run came with a `traceparent`). A run with more
//! than one execution has an `execution N` span per execution under the
//! root; a run that ended in its first has none. Phases are spans under
//! their execution (or the root); a top-level call is a child of its
//! phase's span (the one it names, else the one the run is in), a call
//! inside a branch or nested workflow (`3.1.2`) of its enclosing call
//! (`3.1`); waits hang from the root.

use hwf_core::journal::{Entry, JournalEntry};
use hwf_core::model::{Counts, TokenUsage};
use hwf_core::redact::redact_text;
use opentelemetry_proto::tonic::common::v1::{AnyValue, KeyValue, any_value};
use opentelemetry_proto::tonic::trace::v1::{Span, Status, span, status};
use serde_json::{Value, json};
use std::collections::HashMap;

/// A W3C trace context a run continues (`traceparent`, from an MCP
/// request's `_meta`): the run's trace is the client's, and its root is a
/// child of the client's span.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TraceParent {
    /// The client's trace.
    pub trace_id: [u8; 16],
    /// The client's span (the root's parent).
    pub span_id: [u8; 8],
}

impl TraceParent {
    /// Parse `00-<32 hex>-<16 hex>-<2 hex>`; `None` for anything else
    /// (another version's longer form is read by its first four fields, as
    /// the W3C spec asks), an all-zero id included.
    pub fn parse(header: &str) -> Option<Self> {
        let mut parts = header.trim().split('-');
        let (version, trace, span, flags) = (parts.next()?, parts.next()?, parts.next()?, parts.next()?);
        if version.len() != 2 || version == "ff" || flags.len() != 2 || (version == "00" && parts.next().is_some()) {
            return None;
        }
        u8::from_str_radix(flags, 16).ok()?;
        u8::from_str_radix(version, 16).ok()?;
        let trace_id: [u8; 16] = hex(trace)?.try_into().ok()?;
        let span_id: [u8; 8] = hex(span)?.try_into().ok()?;
        if trace_id == [0; 16] || span_id == [0; 8] {
            return None;
        }
        Some(Self { trace_id, span_id })
    }

    /// The header form (`00-…-…-01`).
    pub fn to_header(&self) -> String {
        format!("00-{}-{}-01", to_hex(&self.trace_id), to_hex(&self.span_id))
    }
}

fn hex(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) || !s.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)) {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).ok())
        .collect()
}

fn to_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// What the exporter knows of a run besides its journal.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunInfo {
    /// The run id.
    pub run_id: String,
    /// The workflow's name (`meta.name`, else the saved script's name, else
    /// the file's).
    pub name: String,
    /// The run a `--resume-from` replayed (its trace is linked).
    pub resumed_from: Option<String>,
    /// The client's trace this run continues, if any.
    pub parent: Option<TraceParent>,
}

/// The trace id of a run: the first 16 bytes of blake3(run id).
pub fn trace_id(run_id: &str) -> [u8; 16] {
    let mut id = [0u8; 16];
    id.copy_from_slice(&blake3::hash(run_id.as_bytes()).as_bytes()[..16]);
    if id == [0; 16] {
        id[15] = 1;
    }
    id
}

/// A span id derived from the run id and what opens the span.
fn span_id(run_id: &str, parts: &[&str]) -> [u8; 8] {
    let mut h = blake3::Hasher::new();
    h.update(b"hwf-span\0");
    h.update(run_id.as_bytes());
    for p in parts {
        h.update(b"\0");
        h.update(p.as_bytes());
    }
    let mut id = [0u8; 8];
    id.copy_from_slice(&h.finalize().as_bytes()[..8]);
    if id == [0; 8] {
        id[7] = 1;
    }
    id
}

/// The root (`invoke_workflow`) span id of a run.
pub fn root_span_id(run_id: &str) -> [u8; 8] {
    span_id(run_id, &["root"])
}

const NS: u64 = 1_000_000;

/// The spans of `entries` (a run's journal, oldest first) that end in the
/// window closed by the entry at `upto` (see the module docs).
/// `capture`: export prompts, answers and tool payloads (redacted).
pub fn build(info: &RunInfo, entries: &[JournalEntry], upto: u64, capture: bool) -> Vec<Span> {
    let entries: Vec<&JournalEntry> = entries.iter().filter(|e| e.seq <= upto).collect();
    let starts: Vec<usize> = entries
        .iter()
        .enumerate()
        .filter(|(_, e)| matches!(e.entry, Entry::RunStarted { .. }))
        .map(|(i, _)| i)
        .collect();
    let Some(&current) = starts.last() else {
        return Vec::new();
    };
    // The window: after the last `run_completed` before the current
    // execution began.
    let lower = entries[..current]
        .iter()
        .rev()
        .find(|e| matches!(e.entry, Entry::RunCompleted { .. }))
        .map_or(0, |e| e.seq);
    let trace_id = info.parent.map_or_else(|| trace_id(&info.run_id), |p| p.trace_id);
    let mut b = Builder {
        info,
        trace_id,
        root: root_span_id(&info.run_id),
        capture,
        lower,
        upto,
        out: Vec::new(),
    };
    let execs: Vec<&[&JournalEntry]> = starts
        .iter()
        .enumerate()
        .map(|(i, &s)| &entries[s..starts.get(i + 1).copied().unwrap_or(entries.len())])
        .collect();
    let terminal = |e: &JournalEntry| match &e.entry {
        Entry::RunCompleted { state, .. } => !matches!(state.as_str(), "waiting" | "running" | "queued"),
        _ => false,
    };
    let single = execs.len() == 1 && execs[0].iter().any(|e| terminal(e));
    for (n, exec) in execs.iter().enumerate() {
        let next = execs.get(n + 1).and_then(|x| x.first().copied());
        b.execution(n + 1, exec, next, !single);
    }
    // The root, once the run has ended.
    if let Some(end) = execs.last().and_then(|x| x.iter().find(|e| terminal(e)))
        && let (
            Some(first),
            Entry::RunCompleted {
                state, error, counts, ..
            },
        ) = (entries.first(), &end.entry)
    {
        let mut attrs = vec![
            text("gen_ai.operation.name", "invoke_workflow"),
            text("gen_ai.workflow.name", &info.name),
            text("hwf.run.id", &info.run_id),
            text("hwf.run.state", state),
            int("hwf.executions", execs.len() as u64),
        ];
        if let Some(c) = counts {
            attrs.extend(totals(c));
        }
        let mut s = b.span(
            b.root,
            info.parent.map(|p| p.span_id),
            format!("invoke_workflow {}", info.name),
            first.ts_ms,
            end.ts_ms,
            attrs,
        );
        if let Some(e) = error {
            s.attributes.push(text("error.type", e.code.as_str()));
            s.status = Some(failed(&e.message));
        }
        if let Some(source) = &info.resumed_from {
            s.links.push(span::Link {
                trace_id: self::trace_id(source).to_vec(),
                span_id: root_span_id(source).to_vec(),
                attributes: vec![text("hwf.link", "resumed_from")],
                ..span::Link::default()
            });
        }
        b.emit(end.seq, s);
    }
    b.out
}

struct Builder<'a> {
    info: &'a RunInfo,
    trace_id: [u8; 16],
    root: [u8; 8],
    capture: bool,
    lower: u64,
    upto: u64,
    out: Vec<Span>,
}

/// A call started and not yet completed.
struct Open<'a> {
    start: &'a JournalEntry,
    id: [u8; 8],
    parent: [u8; 8],
    attempts: Vec<&'a JournalEntry>,
}

/// A phase span not yet ended.
struct OpenPhase<'a> {
    id: [u8; 8],
    parent: [u8; 8],
    title: &'a str,
    ts_ms: u64,
}

impl<'a> Builder<'a> {
    fn emit(&mut self, end_seq: u64, span: Span) {
        if end_seq > self.lower && end_seq <= self.upto {
            self.out.push(span);
        }
    }

    fn span(
        &self,
        id: [u8; 8],
        parent: Option<[u8; 8]>,
        name: String,
        start_ms: u64,
        end_ms: u64,
        attributes: Vec<KeyValue>,
    ) -> Span {
        let (start, end) = (start_ms.saturating_mul(NS), end_ms.max(start_ms).saturating_mul(NS));
        Span {
            trace_id: self.trace_id.to_vec(),
            span_id: id.to_vec(),
            parent_span_id: parent.map(|p| p.to_vec()).unwrap_or_default(),
            // W3C flags: sampled.
            flags: 0x100 | 0x01,
            name: redact_text(&name).into_owned(),
            kind: span::SpanKind::Internal as i32,
            start_time_unix_nano: start,
            end_time_unix_nano: end,
            attributes,
            ..Span::default()
        }
    }

    /// The spans of one execution (`entries` from its `run_started`);
    /// `next`: the `run_started` of the execution after it.
    fn execution(&mut self, n: usize, entries: &[&'a JournalEntry], next: Option<&'a JournalEntry>, spans: bool) {
        let Some(first) = entries.first() else { return };
        let run_id = self.info.run_id.clone();
        let exec_seq = first.seq.to_string();
        let completed = entries.iter().find(|e| matches!(e.entry, Entry::RunCompleted { .. }));
        // Where the execution ended: its `run_completed`, else (it died)
        // its last line, once another execution followed it.
        let end = completed.copied().or(next.and(entries.last().copied()));
        let exec_id = span_id(&run_id, &["exec", &exec_seq]);
        let container = if spans { exec_id } else { self.root };
        if spans && let Some(end) = end {
            let state = match completed.map(|e| &e.entry) {
                Some(Entry::RunCompleted { state, .. }) => state.as_str(),
                _ => "died",
            };
            let s = self.span(
                exec_id,
                Some(self.root),
                format!("execution {n}"),
                first.ts_ms,
                end.ts_ms,
                vec![int("hwf.execution", n as u64), text("hwf.execution.state", state)],
            );
            self.emit(end.seq, s);
        }
        let mut open: HashMap<&str, Open<'a>> = HashMap::new();
        let mut started: HashMap<&str, [u8; 8]> = HashMap::new();
        let mut phases: HashMap<&str, [u8; 8]> = HashMap::new();
        let mut phase: Option<OpenPhase<'a>> = None;
        let mut parked: Vec<&str> = Vec::new();
        for &e in entries {
            match &e.entry {
                Entry::Phase { title } => {
                    if let Some(p) = phase.take() {
                        self.phase_span(p, e);
                    }
                    let id = span_id(&run_id, &["phase", &e.seq.to_string()]);
                    phases.insert(title, id);
                    phase = Some(OpenPhase {
                        id,
                        parent: container,
                        title,
                        ts_ms: e.ts_ms,
                    });
                }
                Entry::CallStarted {
                    call, phase: in_phase, ..
                } => {
                    let id = span_id(&run_id, &["call", &exec_seq, call]);
                    let mut parent = None;
                    let mut prefix = call.as_str();
                    while let Some((head, _)) = prefix.rsplit_once('.') {
                        if let Some(p) = started.get(head) {
                            parent = Some(*p);
                            break;
                        }
                        prefix = head;
                    }
                    // A top-level call: its own phase's span, else the
                    // phase the run is in.
                    let parent = parent
                        .or_else(|| in_phase.as_deref().and_then(|t| phases.get(t).copied()))
                        .or(phase.as_ref().map(|p| p.id))
                        .unwrap_or(container);
                    started.insert(call, id);
                    open.insert(
                        call,
                        Open {
                            start: e,
                            id,
                            parent,
                            attempts: Vec::new(),
                        },
                    );
                }
                Entry::CallAttempt { call, .. } => {
                    if let Some(o) = open.get_mut(call.as_str()) {
                        o.attempts.push(e);
                    }
                }
                Entry::CallCompleted { call, .. } => {
                    if let Some(o) = open.remove(call.as_str()) {
                        self.call_span(o, e, None);
                    }
                }
                Entry::WaitStarted {
                    call, kind, summary, ..
                } => {
                    parked.push(call);
                    if let Some(next) = next {
                        let mut attrs = vec![text("hwf.wait.kind", kind)];
                        if !call.is_empty() {
                            attrs.push(text("hwf.call.id", call));
                        }
                        if self.capture {
                            attrs.push(text("hwf.wait.summary", summary));
                        }
                        let s = self.span(
                            span_id(&run_id, &["wait", &e.seq.to_string()]),
                            Some(self.root),
                            format!("wait {kind}"),
                            e.ts_ms,
                            next.ts_ms,
                            attrs,
                        );
                        self.emit(next.seq, s);
                    }
                }
                _ => {}
            }
        }
        let Some(end) = end else { return };
        if let Some(p) = phase.take() {
            self.phase_span(p, end);
        }
        // Calls the execution ended without completing: parked, or cut
        // short by a dying executor.
        let mut rest: Vec<Open<'a>> = open.into_values().collect();
        rest.sort_by_key(|o| o.start.seq);
        for o in rest {
            let how = match &o.start.entry {
                Entry::CallStarted { call, .. } if parked.contains(&call.as_str()) => "parked",
                _ => "unfinished",
            };
            self.call_span(o, end, Some(how));
        }
    }

    fn phase_span(&mut self, p: OpenPhase<'a>, end: &JournalEntry) {
        let s = self.span(
            p.id,
            Some(p.parent),
            format!("phase {}", p.title),
            p.ts_ms,
            end.ts_ms,
            vec![text("hwf.phase", p.title)],
        );
        self.emit(end.seq, s);
    }

    /// A call's span, ended by its completion or (`outcome`: `parked`,
    /// `unfinished`) by the end of its execution.
    fn call_span(&mut self, o: Open<'a>, end: &JournalEntry, outcome: Option<&str>) {
        let Entry::CallStarted {
            call,
            kind,
            label,
            phase,
            request,
            ..
        } = &o.start.entry
        else {
            return;
        };
        let str_of = |k: &str| request.get(k).and_then(Value::as_str);
        let mut attrs = vec![text("hwf.call.id", call), text("hwf.call.kind", kind)];
        if let Some(l) = label {
            attrs.push(text("hwf.label", l));
        }
        if let Some(p) = phase {
            attrs.push(text("hwf.phase", p));
        }
        let mut kind_span = span::SpanKind::Internal;
        let name = match kind.as_str() {
            "agent" => {
                let agent_type = str_of("agent_type").or(str_of("agent").is_none().then_some("general-purpose"));
                let agent = str_of("agent").or(agent_type).unwrap_or("agent");
                attrs.push(text("gen_ai.operation.name", "invoke_agent"));
                attrs.push(text("gen_ai.agent.name", agent));
                if let Some(t) = agent_type {
                    attrs.push(text("hwf.agent.type", t));
                }
                if let Some(m) = str_of("model") {
                    attrs.push(text("gen_ai.request.model", m));
                }
                if self.capture {
                    let mut parts = Vec::new();
                    if let Some(p) = str_of("prompt") {
                        parts.push(json!({"type": "text", "content": p}));
                    }
                    if let Some(i) = request.get("input") {
                        parts.push(json!({"type": "text", "content": i.to_string()}));
                    }
                    attrs.push(content(
                        "gen_ai.input.messages",
                        &json!([{"role": "user", "parts": parts}]),
                    ));
                }
                kind_span = span::SpanKind::Client;
                format!("invoke_agent {agent}")
            }
            "capability" => {
                let tool = str_of("name").unwrap_or("capability");
                attrs.push(text("gen_ai.operation.name", "execute_tool"));
                attrs.push(text("gen_ai.tool.name", tool));
                if self.capture
                    && let Some(i) = request.get("input")
                {
                    attrs.push(content("gen_ai.tool.call.arguments", i));
                }
                format!("execute_tool {tool}")
            }
            "workflow" => {
                let name = str_of("name")
                    .or(str_of("scriptPath"))
                    .or(label.as_deref())
                    .unwrap_or("workflow");
                attrs.push(text("hwf.workflow.name", name));
                format!("workflow {name}")
            }
            other => match label {
                Some(l) => format!("{other} {l}"),
                None => other.to_owned(),
            },
        };
        let mut s = self.span(o.id, Some(o.parent), name, o.start.ts_ms, end.ts_ms, Vec::new());
        s.kind = kind_span as i32;
        if let Some(how) = outcome {
            attrs.push(text("hwf.call.outcome", how));
        }
        if let Entry::CallCompleted {
            ok,
            result,
            error,
            tokens,
            usage,
            cost_micro_usd,
            attempts,
            duration_us,
            replayed,
            cache_hit,
            ..
        } = &end.entry
        {
            // The journal's clock is in ms: a call that ran now is placed by
            // its measured duration, ending at its completion.
            if !replayed && !cache_hit && *duration_us > 0 {
                s.start_time_unix_nano = s
                    .end_time_unix_nano
                    .saturating_sub(duration_us.saturating_mul(1000))
                    .max(o.start.ts_ms.saturating_sub(1).saturating_mul(NS));
            }
            if *replayed {
                attrs.push(boolean("hwf.replayed", true));
            }
            if *cache_hit {
                attrs.push(boolean("hwf.cache_hit", true));
            }
            if *attempts > 0 {
                attrs.push(int("hwf.attempts", u64::from(*attempts)));
            }
            if kind == "agent" {
                attrs.extend(usage_attrs(usage, *tokens, *cost_micro_usd));
            }
            if self.capture
                && let Some(r) = result
            {
                match kind.as_str() {
                    "agent" => {
                        let answer = match r {
                            Value::String(t) => t.clone(),
                            v => v.to_string(),
                        };
                        attrs.push(content(
                            "gen_ai.output.messages",
                            &json!([{"role": "assistant", "parts": [{"type": "text", "content": answer}]}]),
                        ));
                    }
                    "capability" => attrs.push(content("gen_ai.tool.call.result", r)),
                    _ => {}
                }
            }
            if let (false, Some(f)) = (*ok, error) {
                let code = f.message.split(':').next().unwrap_or("_OTHER").trim();
                attrs.push(text("error.type", code));
                s.status = Some(failed(&f.message));
            }
        }
        for a in &o.attempts {
            if let Entry::CallAttempt {
                attempt,
                error,
                code,
                answer,
                ..
            } = &a.entry
            {
                let mut ev = vec![int("hwf.attempt", u64::from(*attempt))];
                ev.push(text("error.type", code.as_deref().unwrap_or("_OTHER")));
                if self.capture {
                    ev.push(text("hwf.reason", error));
                    if let Some(answer) = answer {
                        ev.push(text("hwf.answer", answer));
                    }
                }
                s.events.push(span::Event {
                    time_unix_nano: a.ts_ms.saturating_mul(NS),
                    name: "hwf.answer_rejected".to_owned(),
                    attributes: ev,
                    dropped_attributes_count: 0,
                });
            }
        }
        s.attributes = attrs;
        self.emit(end.seq, s);
    }
}

fn usage_attrs(u: &TokenUsage, tokens: u64, cost_micro_usd: u64) -> Vec<KeyValue> {
    let mut out = Vec::new();
    let split = u.input | u.cache_creation | u.cache_read | u.output;
    if split > 0 {
        out.push(int(
            "gen_ai.usage.input_tokens",
            u.input.saturating_add(u.cache_creation).saturating_add(u.cache_read),
        ));
        out.push(int("gen_ai.usage.output_tokens", u.output));
        if u.cache_read > 0 {
            out.push(int("gen_ai.usage.cache_read.input_tokens", u.cache_read));
        }
        if u.cache_creation > 0 {
            out.push(int("gen_ai.usage.cache_creation.input_tokens", u.cache_creation));
        }
        if u.reasoning > 0 {
            out.push(int("gen_ai.usage.reasoning.output_tokens", u.reasoning));
        }
    }
    if tokens > 0 {
        out.push(int("hwf.tokens", tokens));
    }
    if cost_micro_usd > 0 {
        out.push(double("gen_ai.usage.cost", cost_micro_usd as f64 / 1e6));
    }
    out
}

/// The run's totals on its root span.
fn totals(c: &Counts) -> Vec<KeyValue> {
    let mut out = vec![
        int("hwf.calls", c.calls),
        int("hwf.agent_calls", c.agent_calls),
        int("hwf.capability_calls", c.capability_calls),
    ];
    if c.failed > 0 {
        out.push(int("hwf.failed_calls", c.failed));
    }
    if c.replayed > 0 {
        out.push(int("hwf.replayed_calls", c.replayed));
    }
    out.extend(usage_attrs(&c.usage, c.tokens, c.cost_micro_usd));
    out
}

fn failed(message: &str) -> Status {
    Status {
        message: redact_text(message).into_owned(),
        code: status::StatusCode::Error as i32,
    }
}

fn kv(key: &str, value: any_value::Value) -> KeyValue {
    KeyValue {
        key: key.to_owned(),
        value: Some(AnyValue { value: Some(value) }),
        ..KeyValue::default()
    }
}

/// A string attribute (redacted).
fn text(key: &str, value: &str) -> KeyValue {
    kv(key, any_value::Value::StringValue(redact_text(value).into_owned()))
}

/// A JSON attribute as text (redacted value by value, then as text).
fn content(key: &str, value: &Value) -> KeyValue {
    let mut v = value.clone();
    hwf_core::redact::redact_value(&mut v);
    text(key, &v.to_string())
}

fn int(key: &str, value: u64) -> KeyValue {
    kv(
        key,
        any_value::Value::IntValue(i64::try_from(value).unwrap_or(i64::MAX)),
    )
}

fn double(key: &str, value: f64) -> KeyValue {
    kv(key, any_value::Value::DoubleValue(value))
}

fn boolean(key: &str, value: bool) -> KeyValue {
    kv(key, any_value::Value::BoolValue(value))
}

#[cfg(test)]
mod tests;
