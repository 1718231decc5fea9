//! The broker's call, concurrency and replay rules, tested without a
//! sandbox: agent calls go to a fixture runner, branches to a fake
//! [`Instances`] that answers from a table. No wasm is compiled; each test
//! takes milliseconds.

use super::children::{Child, Instances, Started};
use super::instances::InstanceOutput;
use super::replay::ReplayIndex;
use super::{
    AgentRequest, CallErrorKind, CallFailure, InstanceBroker, Journal, RunContext, RunContextBuilder, Services,
    TaskSpec,
};
use crate::agents::{AgentBackend, AgentCall, AgentError, AgentReply, FixtureRunner};
use crate::store::FileStore;
use crate::vm::Limits;
use hwf_core::BoxFuture;
use hwf_core::fingerprint::Fingerprint;
use hwf_core::ids::RunId;
use hwf_core::journal::{Entry, JournalEntry};
use serde_json::{Value, json};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// A fixture runner that counts the calls it answers.
struct Counting {
    inner: FixtureRunner,
    calls: AtomicUsize,
}

impl AgentBackend for Counting {
    fn call<'a>(&'a self, call: AgentCall<'a>) -> BoxFuture<'a, Result<AgentReply, AgentError>> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        self.inner.call(call)
    }
}

const FIXTURE: &str = r#"{"responses": [
    {"match": {"label": "greet"}, "output": {"greeting": "hello"}, "tokens": 3}
]}"#;

/// A branch of the fake component: how long it takes and what it answers
/// for an input.
struct Branch {
    delay_ms: u64,
    answer: fn(&Value) -> Result<Value, String>,
}

/// Answers branches from a table, and records how many ran at once and in
/// which order they were started.
#[derive(Default)]
struct Table {
    branches: HashMap<&'static str, Branch>,
    live: AtomicUsize,
    peak: AtomicUsize,
    started: std::sync::Mutex<Vec<String>>,
}

impl Table {
    fn with(mut self, name: &'static str, delay_ms: u64, answer: fn(&Value) -> Result<Value, String>) -> Self {
        self.branches.insert(name, Branch { delay_ms, answer });
        self
    }

    fn started(&self) -> Vec<String> {
        super::lock(&self.started).clone()
    }
}

/// Leaves the live count when the branch ends or is aborted.
struct Live<'a>(&'a AtomicUsize);

impl Drop for Live<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Instances for Table {
    fn branch<'a>(&'a self, child: Child, name: &'a str, input: &'a Value) -> BoxFuture<'a, Started> {
        Box::pin(async move {
            super::lock(&self.started).push(child.call_id().to_owned());
            let Some(branch) = self.branches.get(name) else {
                return Ok((Ok(Err(format!("no branch {name}"))), InstanceOutput::default()));
            };
            let now = self.live.fetch_add(1, Ordering::SeqCst) + 1;
            let _live = Live(&self.live);
            self.peak.fetch_max(now, Ordering::SeqCst);
            tokio::time::sleep(Duration::from_millis(branch.delay_ms)).await;
            let answer = (branch.answer)(input).map(|v| v.to_string());
            Ok((Ok(answer), InstanceOutput::default()))
        })
    }

    fn workflow<'a>(&'a self, _child: Child, name: &'a str, _args: &'a Value) -> BoxFuture<'a, Started> {
        Box::pin(async move { Ok((Ok(Err(format!("no workflow {name}"))), InstanceOutput::default())) })
    }
}

/// A run with a journal in a temporary store.
struct Fixture {
    store: Arc<FileStore>,
    agents: Arc<Counting>,
    _dir: tempfile::TempDir,
}

impl Fixture {
    fn new() -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        let store = Arc::new(FileStore::open(dir.path()).expect("store"));
        let agents = Arc::new(Counting {
            inner: FixtureRunner::from_json(FIXTURE).expect("fixture"),
            calls: AtomicUsize::new(0),
        });
        Self {
            store,
            agents,
            _dir: dir,
        }
    }

    fn run(&self, limits: Limits) -> (RunId, Arc<RunContext>) {
        let (id, builder) = self.context(limits);
        (id, builder.build())
    }

    /// A run's context still to be built (to give it a replay index or
    /// child instances).
    fn context(&self, limits: Limits) -> (RunId, RunContextBuilder) {
        let id = RunId::generate();
        self.store.create_run(&id).expect("create run");
        let journal = Journal::new(self.store.open_journal(&id).expect("journal"), 0);
        let mut services = Services::new(self.agents.clone());
        services.limits = limits;
        services.store = Some(Arc::new(crate::store::Store::file(self.store.clone())));
        (id.clone(), RunContext::builder(id, services).journal(journal))
    }

    fn journal(&self, id: &RunId) -> Vec<JournalEntry> {
        self.store.read_entries(id).expect("read journal")
    }
}

fn greet() -> AgentRequest {
    AgentRequest {
        prompt: Some("say hello".into()),
        label: Some("greet".into()),
        ..AgentRequest::default()
    }
}

/// The stable code a failure's message starts with.
fn code(f: &CallFailure) -> &str {
    f.message.split(':').next().unwrap_or("")
}

fn started(entries: &[JournalEntry]) -> Vec<(String, String)> {
    entries
        .iter()
        .filter_map(|e| match &e.entry {
            Entry::CallStarted { call, kind, .. } => Some((call.clone(), kind.clone())),
            _ => None,
        })
        .collect()
}

/// `(call, ok, replayed)` of every completion.
fn completed(entries: &[JournalEntry]) -> Vec<(String, bool, bool)> {
    entries
        .iter()
        .filter_map(|e| match &e.entry {
            Entry::CallCompleted { call, ok, replayed, .. } => Some((call.clone(), *ok, *replayed)),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn run_call_journals_the_start_and_the_completion() {
    let f = Fixture::new();
    let (id, run) = f.run(Limits::default());
    let mut broker = InstanceBroker::root(run, None);
    let out = broker.agent(greet()).await.expect("no trap");
    assert_eq!(out.expect("answered"), json!({"greeting": "hello"}));
    let entries = f.journal(&id);
    assert_eq!(started(&entries), vec![("1".to_owned(), "agent".to_owned())]);
    assert_eq!(completed(&entries), vec![("1".to_owned(), true, false)]);
    let request = entries.iter().find_map(|e| match &e.entry {
        Entry::CallStarted { request, label, .. } => Some((request.clone(), label.clone())),
        _ => None,
    });
    assert_eq!(
        request,
        Some((
            json!({"prompt": "say hello", "label": "greet"}),
            Some("greet".to_owned())
        ))
    );
    assert_eq!(f.agents.calls.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn replay_answers_a_recorded_call_without_running_it() {
    let f = Fixture::new();
    let (first, run) = f.run(Limits::default());
    InstanceBroker::root(run, None)
        .agent(greet())
        .await
        .expect("no trap")
        .expect("answered");
    assert_eq!(f.agents.calls.load(Ordering::SeqCst), 1);

    let (second, run) = f.context(Limits::default());
    let run = run
        .replay(ReplayIndex::from_journal(&f.journal(&first), &HashSet::new()))
        .build();
    let out = InstanceBroker::root(run.clone(), None)
        .agent(greet())
        .await
        .expect("no trap");
    assert_eq!(out.expect("answered"), json!({"greeting": "hello"}));
    assert_eq!(
        f.agents.calls.load(Ordering::SeqCst),
        1,
        "the agent was not asked again"
    );
    // The replayed call's lines wait for the run's next write.
    assert_eq!(completed(&f.journal(&second)), vec![]);
    run.flush_deferred().expect("flush");
    assert_eq!(completed(&f.journal(&second)), vec![("1".to_owned(), true, true)]);
    assert_eq!(run.counts().replayed, 1);

    // A changed request at the same call id runs.
    let (_, run) = f.context(Limits::default());
    let run = run
        .replay(ReplayIndex::from_journal(&f.journal(&first), &HashSet::new()))
        .build();
    let other = AgentRequest {
        prompt: Some("say hello twice".into()),
        ..greet()
    };
    InstanceBroker::root(run, None)
        .agent(other)
        .await
        .expect("no trap")
        .expect("answered");
    assert_eq!(f.agents.calls.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn a_context_is_built_with_its_lineage_and_what_its_replay_charged() {
    let f = Fixture::new();
    let (first, run) = f.run(Limits::default());
    assert_eq!(run.idempotency_key("1"), format!("{first}:1"));
    InstanceBroker::root(run, None)
        .agent(greet())
        .await
        .expect("no trap")
        .expect("answered");

    // A continuation of `first` under another id: keys and seed from the
    // lineage's first run, budgets starting from what its journal spent.
    let (second, run) = f.context(Limits {
        max_agent_calls: 1,
        ..Limits::default()
    });
    let run = run
        .root_run_id(first.clone())
        .replay(ReplayIndex::from_journal(&f.journal(&first), &HashSet::new()))
        .build();
    assert_eq!(run.run_id(), &second);
    assert_eq!(
        (run.seed_run_id(), run.idempotency_key("2")),
        (&first, format!("{first}:2"))
    );
    assert_eq!((run.counts().agent_calls, run.counts().tokens), (1, 3));
    let mut broker = InstanceBroker::root(run.clone(), None);
    broker.agent(greet()).await.expect("no trap").expect("replayed");
    let other = AgentRequest {
        prompt: Some("say hello twice".into()),
        ..greet()
    };
    let refused = broker.agent(other).await.expect("no trap").expect_err("over budget");
    assert_eq!(refused.kind, CallErrorKind::BudgetExhausted);
    assert!(refused.message.starts_with("limit_agent:"), "{}", refused.message);
    assert_eq!(f.agents.calls.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_refused_call_is_journaled_with_its_failure() {
    let f = Fixture::new();
    let (id, run) = f.run(Limits {
        max_agent_calls: 0,
        ..Limits::default()
    });
    let out = InstanceBroker::root(run.clone(), None)
        .agent(greet())
        .await
        .expect("no trap");
    let failure = out.expect_err("refused");
    assert_eq!(failure.kind, CallErrorKind::BudgetExhausted);
    assert_eq!(code(&failure), "limit_agent");
    assert_eq!(f.agents.calls.load(Ordering::SeqCst), 0);
    let entries = f.journal(&id);
    assert_eq!(started(&entries), vec![("1".to_owned(), "agent".to_owned())]);
    let error = entries.iter().find_map(|e| match &e.entry {
        Entry::CallCompleted { ok: false, error, .. } => error.clone(),
        _ => None,
    });
    assert_eq!(error.as_ref().map(code), Some("limit_agent"));
    assert_eq!(run.counts().failed, 1);
}

#[tokio::test]
async fn a_bad_json_field_fails_the_call_before_the_agent_runs() {
    let f = Fixture::new();
    let (id, run) = f.run(Limits::default());
    let bad = AgentRequest {
        input: Some(Value::String("{oops".into())),
        invalid: Some(("invalid_json", "`input` is not valid JSON".into())),
        ..greet()
    };
    let out = InstanceBroker::root(run, None).agent(bad).await.expect("no trap");
    assert_eq!(code(&out.expect_err("refused")), "invalid_json");
    assert_eq!(f.agents.calls.load(Ordering::SeqCst), 0);
    assert_eq!(completed(&f.journal(&id)), vec![("1".to_owned(), false, false)]);
}

fn echo(input: &Value) -> Result<Value, String> {
    Ok(input.clone())
}

fn fail(_: &Value) -> Result<Value, String> {
    Err("no luck".into())
}

fn branch(name: &str, input: Value) -> TaskSpec {
    TaskSpec::Branch {
        name: name.to_owned(),
        input,
    }
}

#[tokio::test]
async fn parallel_is_bounded_by_max_parallel_and_answers_in_input_order() {
    let f = Fixture::new();
    let (id, run) = f.context(Limits {
        max_parallel: 2,
        ..Limits::default()
    });
    let table = Arc::new(Table::default().with("slow", 30, echo).with("fast", 5, echo));
    let run = run.instances(table.clone()).build();
    // The first slots take longest: completion order is not input order.
    let tasks = (0..6)
        .map(|i| branch(if i < 2 { "slow" } else { "fast" }, json!(i)))
        .collect();
    let slots = InstanceBroker::root(run, None)
        .parallel(tasks, false)
        .await
        .expect("no trap");
    let values: Vec<Value> = slots.into_iter().map(|s| s.expect("ok")).collect();
    assert_eq!(values, (0..6).map(|i| json!(i)).collect::<Vec<_>>());
    assert_eq!(
        table.peak.load(Ordering::SeqCst),
        2,
        "at most max_parallel branches at once"
    );
    let entries = f.journal(&id);
    let calls: Vec<String> = started(&entries).into_iter().map(|(c, _)| c).collect();
    assert_eq!(calls[0], "1", "the composite starts first");
    let mut slots: Vec<String> = calls[1..].to_vec();
    slots.sort();
    assert_eq!(slots, ["1.0", "1.1", "1.2", "1.3", "1.4", "1.5"]);
    assert!(completed(&entries).iter().all(|(_, ok, _)| *ok));
}

#[tokio::test]
async fn parallel_fail_fast_cancels_the_rest() {
    let f = Fixture::new();
    let (id, run) = f.context(Limits {
        max_parallel: 4,
        ..Limits::default()
    });
    let run = run
        .instances(Arc::new(
            Table::default().with("fail", 1, fail).with("hang", 60_000, echo),
        ))
        .build();
    let tasks = vec![
        branch("hang", json!(0)),
        branch("fail", json!(1)),
        branch("hang", json!(2)),
    ];
    let t0 = std::time::Instant::now();
    let slots = InstanceBroker::root(run, None)
        .parallel(tasks, true)
        .await
        .expect("no trap");
    assert!(t0.elapsed() < Duration::from_secs(10), "the hanging slots were aborted");
    assert_eq!(code(slots[1].as_ref().expect_err("failed")), "branch_failed");
    for i in [0, 2] {
        let f = slots[i].as_ref().expect_err("cancelled");
        assert_eq!(f.kind, CallErrorKind::Cancelled);
        assert!(f.message.contains("fail-fast: slot 1 failed"), "{}", f.message);
    }
    // Every slot's call is closed in the journal, the cancelled ones too.
    let done: Vec<String> = completed(&f.journal(&id)).into_iter().map(|(c, _, _)| c).collect();
    for call in ["1.0", "1.1", "1.2", "1"] {
        assert!(done.iter().any(|c| c == call), "{call} completed: {done:?}");
    }
}

fn double(input: &Value) -> Result<Value, String> {
    input["input"]
        .as_i64()
        .map(|n| json!(n * 2))
        .ok_or("not a number".into())
}

fn inc(input: &Value) -> Result<Value, String> {
    input["input"]
        .as_i64()
        .map(|n| json!(n + 1))
        .ok_or("not a number".into())
}

fn odd_fails(input: &Value) -> Result<Value, String> {
    match input["input"].as_i64() {
        Some(n) if n % 2 == 1 => Err(format!("{n} is odd")),
        _ => Ok(input["input"].clone()),
    }
}

#[tokio::test]
async fn pipeline_runs_each_item_through_the_stages_in_order() {
    let f = Fixture::new();
    let (_, run) = f.context(Limits::default());
    let table = Arc::new(Table::default().with("double", 1, double).with("inc", 1, inc));
    let run = run.instances(table.clone()).build();
    let slots = InstanceBroker::root(run, None)
        .pipeline(vec![json!(1), json!(2), json!(3)], vec!["double".into(), "inc".into()])
        .await
        .expect("no trap");
    let values: Vec<Value> = slots.into_iter().map(|s| s.expect("ok")).collect();
    assert_eq!(
        values,
        vec![json!(3), json!(5), json!(7)],
        "inc(double(x)), not double(inc(x))"
    );
    let started = table.started();
    for i in 0..3 {
        let first = started.iter().position(|c| *c == format!("1.{i}.0"));
        let second = started.iter().position(|c| *c == format!("1.{i}.1"));
        assert!(
            first.is_some() && first < second,
            "item {i}: stage 0 before stage 1 in {started:?}"
        );
    }
}

#[tokio::test]
async fn a_failed_stage_ends_its_item_and_the_others_go_on() {
    let f = Fixture::new();
    let (_, run) = f.context(Limits::default());
    let table = Arc::new(Table::default().with("odd_fails", 1, odd_fails).with("inc", 1, inc));
    let run = run.instances(table.clone()).build();
    let slots = InstanceBroker::root(run, None)
        .pipeline(vec![json!(1), json!(2)], vec!["odd_fails".into(), "inc".into()])
        .await
        .expect("no trap");
    let failure = slots[0].as_ref().expect_err("item 0 failed");
    assert_eq!(code(failure), "stage_failed");
    assert!(
        failure.message.contains("item 0 stage 0 (odd_fails)"),
        "{}",
        failure.message
    );
    assert_eq!(slots[1].as_ref().expect("item 1 ran on"), &json!(3));
    assert!(
        !table.started().contains(&"1.0.1".to_owned()),
        "item 0 never reached stage 1"
    );
}

#[tokio::test]
async fn next_delivers_in_completion_order_and_journals_each_delivery() {
    let f = Fixture::new();
    let (id, run) = f.context(Limits::default());
    let run = run
        .instances(Arc::new(
            Table::default()
                .with("late", 60, echo)
                .with("early", 1, echo)
                .with("middle", 25, echo),
        ))
        .build();
    let mut broker = InstanceBroker::root(run.clone(), None);
    let mut pending = vec![
        broker.submit(branch("late", json!("late"))).expect("submit"),
        broker.submit(branch("early", json!("early"))).expect("submit"),
        broker.submit(branch("middle", json!("middle"))).expect("submit"),
    ];
    assert_eq!(pending, [1, 2, 3]);
    let mut order = Vec::new();
    while !pending.is_empty() {
        let (n, slot) = broker.next(&pending).await.expect("no trap");
        order.push((n, slot.expect("ok")));
        pending.retain(|p| *p != n);
    }
    assert_eq!(
        order,
        vec![(2, json!("early")), (3, json!("middle")), (1, json!("late"))]
    );
    let delivered = |f: &Fixture| -> Vec<String> {
        f.journal(&id)
            .iter()
            .filter_map(|e| match &e.entry {
                Entry::Delivered { call } => Some(call.clone()),
                _ => None,
            })
            .collect()
    };
    // The first two were written before `next` waited again; the last
    // goes with the run's next write (here: the flush a run's end makes).
    assert_eq!(delivered(&f), ["2", "3"]);
    run.flush_deferred().expect("flush");
    assert_eq!(delivered(&f), ["2", "3", "1"]);
}

/// The prompt cache answers only a call under the same answer rules: a
/// result a lenient call took must not answer a stricter one (the
/// fingerprint leaves the rules out).
#[test]
fn the_prompt_cache_keeps_the_rules_a_result_met() {
    let f = Fixture::new();
    let (_, run) = f.run(Limits::default());
    let fp = Fingerprint::of("agent", &json!({"prompt": "count"}));
    let lenient = hwf_core::schema::AnswerRules::default();
    let strict = hwf_core::schema::AnswerRules {
        whole_integers: true,
        ..lenient
    };
    run.remember(&fp, &lenient, &json!({"n": 4.0}));
    assert_eq!(run.cached(&fp, &lenient), Some(json!({"n": 4.0})));
    assert_eq!(run.cached(&fp, &strict), None);
    // Fewer attempts check the same way.
    let once = hwf_core::schema::AnswerRules {
        attempts: Some(1),
        ..lenient
    };
    assert_eq!(run.cached(&fp, &once), Some(json!({"n": 4.0})));
}

/// A cancelled call is no longer pending: `next(&[])` (every call not yet
/// delivered or cancelled) delivers the others and never the cancelled
/// one, whether it was still running or had already finished.
#[tokio::test]
async fn next_never_delivers_a_cancelled_call() {
    let f = Fixture::new();
    let (_, run) = f.context(Limits::default());
    let run = run
        .instances(Arc::new(
            Table::default()
                .with("slow", 80, echo)
                .with("quick", 1, echo)
                .with("middle", 20, echo),
        ))
        .build();
    let mut broker = InstanceBroker::root(run, None);
    let slow = broker.submit(branch("slow", json!("s"))).expect("submit");
    let quick = broker.submit(branch("quick", json!("q"))).expect("submit");
    let middle = broker.submit(branch("middle", json!("m"))).expect("submit");
    // `quick` finishes first and is cancelled after it finished; `slow`
    // is cancelled while it runs.
    tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    broker.cancel(&[slow, quick]).expect("cancel");
    let (n, slot) = broker.next(&[]).await.expect("no trap");
    assert_eq!((n, slot.expect("ok")), (middle, json!("m")));
    let (_, last) = broker.next(&[]).await.expect("no trap");
    assert_eq!(
        code(&last.expect_err("nothing is pending")),
        "unknown_call",
        "a cancelled call is never delivered"
    );
}

#[tokio::test]
async fn on_replay_next_delivers_in_the_recorded_order() {
    let f = Fixture::new();
    let (first, run) = f.context(Limits::default());
    let run = run
        .instances(Arc::new(Table::default().with("late", 40, echo).with("early", 1, echo)))
        .build();
    let mut broker = InstanceBroker::root(run, None);
    let a = broker.submit(branch("late", json!("a"))).expect("submit");
    let b = broker.submit(branch("early", json!("b"))).expect("submit");
    assert_eq!(broker.next(&[a, b]).await.expect("no trap").0, b);
    assert_eq!(broker.next(&[a]).await.expect("no trap").0, a);

    // The replay's branches finish the other way round; `next` still
    // delivers b first, as recorded.
    let (_, run) = f.context(Limits::default());
    let run = run
        .replay(ReplayIndex::from_journal(&f.journal(&first), &HashSet::new()))
        .instances(Arc::new(Table::default().with("late", 1, echo).with("early", 40, echo)))
        .build();
    let mut broker = InstanceBroker::root(run, None);
    let a = broker.submit(branch("late", json!("a"))).expect("submit");
    let b = broker.submit(branch("early", json!("b"))).expect("submit");
    assert_eq!(broker.next(&[a, b]).await.expect("no trap").0, b);
}

#[tokio::test]
async fn a_submitted_call_that_replays_is_answered_at_submit_and_a_changed_one_runs() {
    let f = Fixture::new();
    let (first, run) = f.run(Limits::default());
    let ask = |prompt: &str| {
        TaskSpec::Agent(Box::new(AgentRequest {
            prompt: Some(prompt.into()),
            ..greet()
        }))
    };
    let mut broker = InstanceBroker::root(run, None);
    let a = broker.submit(ask("one")).expect("submit");
    let b = broker.submit(ask("two")).expect("submit");
    let mut pending = vec![a, b];
    while !pending.is_empty() {
        let (n, slot) = broker.next(&pending).await.expect("no trap");
        slot.expect("answered");
        pending.retain(|p| *p != n);
    }
    assert_eq!(f.agents.calls.load(Ordering::SeqCst), 2);

    // Replayed: answered on the guest's side of `submit`, no task started.
    let (second, run) = f.context(Limits::default());
    let run = run
        .replay(ReplayIndex::from_journal(&f.journal(&first), &HashSet::new()))
        .build();
    let mut broker = InstanceBroker::root(run.clone(), None);
    let a = broker.submit(ask("one")).expect("submit");
    assert!(broker.joins.ready.contains_key(&a), "answered at submit");
    assert!(broker.joins.handles.is_empty(), "no task spawned");
    // The second request changed: its fingerprint no longer matches, so it
    // is not answered from the journal; the agent runs.
    let b = broker.submit(ask("three")).expect("submit");
    let mut pending = vec![a, b];
    while !pending.is_empty() {
        let (n, slot) = broker.next(&pending).await.expect("no trap");
        slot.expect("answered");
        pending.retain(|p| *p != n);
    }
    assert_eq!(f.agents.calls.load(Ordering::SeqCst), 3, "only the changed call ran");
    assert_eq!(run.counts().replayed, 1);
    assert_eq!(
        completed(&f.journal(&second)),
        vec![("1".to_owned(), true, true), ("2".to_owned(), true, false)]
    );
}

/// A walk (`hwf test`, a plan) answers every leaf call from recorded calls:
/// nothing reaches the backend; a changed request is one live step with
/// its field-level difference, answered with the recorded result, and a
/// call after it that still matches replays.
#[tokio::test]
async fn a_walk_answers_from_recordings_and_reports_the_changed_call() {
    use super::walk::{StepOutcome, Walk, WalkMode};
    let f = Fixture::new();
    let (id, run) = f.run(Limits::default());
    let mut broker = InstanceBroker::root(run, None);
    let mut second = greet();
    second.prompt = Some("say it again".into());
    broker.agent(greet()).await.expect("no trap").expect("answered");
    broker.agent(second.clone()).await.expect("no trap").expect("answered");
    let ran = f.agents.calls.load(Ordering::SeqCst);
    let journal = f.journal(&id);
    let source = hwf_core::cassette::CassetteSource {
        run_id: id.to_string(),
        workflow: None,
        script: crate::store::ScriptRef::default(),
        args: Value::Null,
        args_redacted: false,
        seed_run: id.to_string(),
        clock_origin_ms: 0,
        state: "succeeded".into(),
        result: None,
    };
    let cassette = hwf_core::cassette::Cassette::from_journals(source, &[journal]);
    for mode in [WalkMode::Test, WalkMode::Plan] {
        let walk = Arc::new(Walk::new(mode, cassette.resolved()));
        let index = ReplayIndex::from_lineage(&[cassette.to_entries()], &[], &HashSet::new());
        let mut services = Services::new(f.agents.clone());
        services.limits = Limits::default();
        let ctx = RunContext::builder(RunId::generate(), services)
            .replay(index)
            .walk(walk.clone())
            .build();
        let mut b = InstanceBroker::root(ctx, None);
        let mut changed = greet();
        changed.prompt = Some("say hello, loudly".into());
        let first = b.agent(changed).await.expect("no trap").expect("answered");
        assert_eq!(first, json!({"greeting": "hello"}), "the closest recorded answer");
        b.agent(second.clone()).await.expect("no trap").expect("answered");
        let steps = walk.steps();
        assert_eq!(steps.len(), 2, "{steps:?}");
        assert_eq!(
            (steps[0].outcome, steps[0].reason),
            (StepOutcome::Live, Some("changed"))
        );
        assert_eq!(steps[0].diff.len(), 1, "{:?}", steps[0].diff);
        assert_eq!(steps[0].diff[0].path, "/prompt");
        assert_eq!(steps[0].tokens, 3, "estimated from the recorded call");
        assert_eq!(steps[1].outcome, StepOutcome::Replay, "{:?}", steps[1]);
    }
    assert_eq!(
        f.agents.calls.load(Ordering::SeqCst),
        ran,
        "no walk reached the backend"
    );
}
