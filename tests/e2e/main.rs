//! End-to-end tests: the real `hwf` binary on real compiled components.
//!
//! One test binary (declared in `host/Cargo.toml`, so `CARGO_BIN_EXE_hwf`
//! is set). Every test gets its own state dir; guests are built once by
//! `tests/build.rs`.
//!
//! - `common`: the [`common::Ctx`] helper;
//! - `authoring`: `hwf init`'s project runs and type-checks (`tsc`), `hwf.d.ts`
//!   declares exactly the JS runtime's globals, completions, `--help`;
//! - `decision_surfaces`: who may decide what (the model's facade vs a person);
//! - `mcp_tasks`: runs as durable MCP tasks, waits as form elicitations;
//! - `durable`: resume, crash recovery, waits, controls, the runner;
//! - `embedding`: the embedding example (a custom capability) against the
//!   stock binary: `needs_host` routing, input schemas, `hwf capabilities`;
//! - `facade`: every facade action and alias via `hwf facade`, and `hwf mcp`;
//! - `finalizers`: declared resources finalized once when a run ends (also after kill -9);
//! - `flow`: parallel, pipeline, join sets, lifecycle, bundled harnesses;
//! - `grants`: actuator loops under scoped operator grants, with brakes;
//! - `hardening3`: issue 29's findings (journal damage, …), each through the binary;
//! - `hello`: the hello harness, journal and status;
//! - `hostile`: every hostile component and bad input, by error code;
//! - `idioms`: scripts written as the seed's and Claude Code's users write
//!   them (`tests/e2e/idioms/`), each compared with CPython / Node / the
//!   seed's runtime;
//! - `agent_answers`: real agents' recorded outputs replayed (banners,
//!   reconnects, not logged in, cache usage, refusals, rejected answers);
//! - `backends`: command and OpenAI-compatible agents, routing, doctor;
//! - `broker`: schema retries, typed call errors, redaction, limits;
//! - `cassettes`: journals as tests, plans and forks (`hwf test`, `hwf
//!   cassette export`, `--resume-from … --plan`, `hwf fork`; issue 30);
//! - `chaos`: the randomized durability test (kills, continuations, replays);
//! - `confinement`: `bash` under Landlock and namespaces: writes only in
//!   its workspace, no network, `setsid` children end with the call; the opt-outs;
//! - `concurrency`: many runs at once: concurrent runner passes, one
//!   background runner per state dir, graceful release on a signal;
//! - `claims`: claims nothing else proved (WASI lockdown, group commit,
//!   cancel, prompt cache, bench) and the event-driven test helpers;
//! - `console`: `hwf serve` over raw HTTP (token, CSRF, traversal, bodies,
//!   decisions, webhooks, secrets) and the terminal views (waits, overview, logs, watch);
//! - `conformance`: ported workflows run unchanged; the conformance table's tests exist;
//! - `journal_cas`: large payloads kept by content, shared between prompts,
//!   resumes and copies (the growing-conversation bound);
//! - `js`: JavaScript workflows in the QuickJS runtime;
//! - `js_semantics`: JavaScript as Node and Claude Code run it (engine bugs
//!   found in Boa and kept as tests, numbers, pipeline nulls, `scriptPath`, phase forms);
//! - `js_hostile`: hostile JavaScript the QuickJS runtime once let through
//!   (call sites giving away `Date`, a body closing its function, lone
//!   surrogates and deep data as silent nulls, replaced builtins);
//! - `js_compute`: the JS compute benchmarks return Node's results within the
//!   default CPU limit; `JSON.parse` agrees with what Node reads;
//! - `json_workflows`: declarative JSON workflows in the JSON runtime;
//! - `json_semantics`: JSON workflows as the seed runs them (sibling
//!   branches ordered by references, cycles refused, validate's warnings);
//! - `python`, `python_language`: Python workflows in the Monty runtime (the
//!   seed's contract; the language Monty lacked, compared with CPython);
//! - `kanban`: Kanban lanes on the built-in board and on Hermes' own board;
//! - `mcp_clients`: `hwf mcp` as long-lived clients use it (in-process runner,
//!   `wait_seconds`, progress, `isError`, resources, checked decisions);
//! - `otel`: OpenTelemetry export to an OTLP/HTTP receiver on loopback
//!   (protobuf and JSON: one trace per run, one tree, no secret; a receiver
//!   down or silent never fails or holds a run; a parked run's trace goes on);
//! - `numbers`: numbers from input out of range are typed `invalid_*` errors;
//!   numbers keep their digits through every runtime;
//! - `policy`: capability policy, built-ins, budgets, agent types, secrets;
//! - `run_views`: `status` after a continuation, `logs` of a failed run, `--help`;
//! - `scripts`: save / list / inspect / validate, running by name;
//! - `secrets`: the secret corpus (40+ formats) planted in every channel;
//! - `shared_lanes`: grant uses and agent-call transcripts on PostgreSQL
//!   with two state dirs (a takeover on another machine);
//! - `doctor`: `hwf doctor` names missing agent credentials (a program not
//!   on PATH, an unset `api_key_env`, Claude Code not logged in);
//! - `triggers`: event-triggered and cron starts of saved workflows;
//! - `wake`: a decision, resume or event from the CLI continues a parked run
//!   at once (the background runner, or a long-lived runner already
//!   serving), and only records with runner autostart off.

mod agent_answers;
mod answer_rules;
mod authoring;
mod backends;
mod broker;
mod cassettes;
mod chaos;
mod claims;
mod common;
mod concurrency;
mod confinement;
mod conformance;
mod console;
mod decision_surfaces;
mod doctor;
mod durability_modes;
mod durable;
mod embedding;
mod facade;
mod finalizers;
mod fixture_order;
mod flow;
mod forks;
mod fuzz;
mod grants;
mod hardening;
mod hardening3;
mod hello;
mod hostile;
mod idioms;
mod journal_cas;
mod js;
mod js_compute;
mod js_hostile;
mod js_semantics;
mod json_semantics;
mod json_workflows;
mod kanban;
mod key_order;
mod mcp_clients;
mod mcp_tasks;
mod numbers;
mod otel;
mod pg_fault;
mod policy;
mod policy_gaps;
mod py_compute;
mod python;
mod python_language;
mod run_views;
mod runtime_limits;
mod scripts;
mod seams;
mod secrets;
mod shared_lanes;
mod shared_store;
mod store_transfer;
mod triggers;
mod wake;
