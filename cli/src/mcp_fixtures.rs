//! `hwf mcp --conformance-fixtures`: the fixture tools, resources and
//! prompts the official MCP conformance suite
//! (`@modelcontextprotocol/conformance`, docs/MCP-CONFORMANCE.md §4)
//! expects, beside hwf's own tools. Only this mode serves them.
//!
//! - **Task fixtures are real hwf runs** ([`TASK_FIXTURES`]): each is a JS
//!   workflow (its `meta.name` is the tool name) sent inline through the
//!   facade, its agent calls answered by the embedded fixture agent file
//!   ([`AGENTS`], used unless `--agents` is given): `slow_compute` is an
//!   agent call with `delay_ms`, `failing_job` an agent call that fails,
//!   `confirm_delete` / `multi_input` / `test_tool_with_task` `human.ask`
//!   questions, which hwf's task machinery (crate::mcp_tasks) turns into
//!   form elicitations keyed by call id. Task ids are run ids. A fixture
//!   run's result is passed through verbatim (the workflow returns a
//!   `CallToolResult`), not hwf's envelope; a fixture run that ended failed
//!   is `completed` with `isError: true`, except `protocol_error_job`,
//!   which is a `failed` task (-32603).
//! - **Task support** is the server's: `greet` never becomes a task,
//!   `slow_compute` / `protocol_error_job` only for a request that declares
//!   the tasks extension (else they run in the foreground), the others
//!   require it (-32021 with `requiredCapabilities` otherwise).
//! - **MRTR fixtures** (`test_input_required_result_*`, the prompt
//!   `test_input_required_result_prompt`) are static: their keys and
//!   texts are the suite's; `requestState` is sealed with a keyed BLAKE3
//!   MAC under a per-process key (a tampered one is -32602).
//!   `test_tool_with_task` runs its workflow in the foreground until it
//!   parks, answers its question as an `InputRequiredResult` (the state is
//!   the sealed run id), and on the retry records the answer as the
//!   person's decision and returns the run as a task.
//! - **Protocol fixtures** (content tools, resources, prompts) are static.

use crate::mcp::Server;
use hwf_host::facade::{self, tasks};
use hwf_host::ids::RunId;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ClientCapabilities, GetPromptRequestParams,
    GetPromptResponse, GetPromptResult, InputRequests, InputRequiredResult, ProgressNotificationParam, Prompt,
    ReadResourceResult, Resource, ResourceTemplate, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use std::time::Duration;

/// The fixture agent file the mode's runs use unless `--agents` is given.
/// `context.seconds` is matched as a string: a JS number may arrive as
/// `60.0`, which is not `60` to serde_json.
pub const AGENTS: &str = r#"{"responses": [
  {"match": {"label": "slow_compute", "context.seconds": "0"}, "output": {"done": true}},
  {"match": {"label": "slow_compute", "context.seconds": "1"}, "output": {"done": true}, "delay_ms": 1000},
  {"match": {"label": "slow_compute", "context.seconds": "2"}, "output": {"done": true}, "delay_ms": 2000},
  {"match": {"label": "slow_compute", "context.seconds": "60"}, "output": {"done": true}, "delay_ms": 60000},
  {"match": {"label": "slow_compute"}, "output": {"done": true}, "delay_ms": 1000},
  {"match": {"label": "failing_job"}, "error": "failing_job: intentional tool execution error", "delay_ms": 1000},
  {"match": {"label": "protocol_error_job"}, "error": "protocol_error_job: the job could not execute", "delay_ms": 200},
  {"match": {"label": "test_tool_with_task"}, "output": {"done": true}, "delay_ms": 200}
]}"#;

/// The task fixtures: tool, script (without its `meta` line), whether a
/// request must declare the tasks extension (`Some(true)`), may
/// (`Some(false)`: a task if it does, else run in the foreground).
const TASK_FIXTURES: &[(&str, &str, bool)] = &[
    (
        "slow_compute",
        r#"const secs = String(args.seconds ?? 1);
await agent(`compute ${args.label ?? ""}`, {label: "slow_compute", context: {seconds: secs}});
return {content: [{type: "text", text: `slow_compute(${args.label ?? "compute"}) done after ${secs}s`}]};"#,
        false,
    ),
    (
        "failing_job",
        // A failed agent call resolves to no output: the tool's error.
        r#"const r = await agent("fail", {label: "failing_job"});
if (r?.done !== true) return {isError: true, content: [{type: "text", text: "failing_job: intentional tool execution error"}]};
return {content: [{type: "text", text: "failing_job: unexpectedly succeeded"}]};"#,
        true,
    ),
    (
        "protocol_error_job",
        // The run ends failed: a protocol error, a `failed` task.
        r#"const r = await agent("protocol error", {label: "protocol_error_job"});
if (r?.done !== true) throw new Error("protocol_error_job: the job could not execute");
return {content: [{type: "text", text: "protocol_error_job: unexpectedly succeeded"}]};"#,
        false,
    ),
    (
        "confirm_delete",
        r#"const f = args.filename ?? "file.txt";
const a = await capability("human.ask", {prompt: `Delete ${f}?`, schema: {confirm: "boolean"}});
return {content: [{type: "text", text: `confirm_delete(${f}): confirmed = ${a.answer.confirm}`}]};"#,
        true,
    ),
    (
        "multi_input",
        r#"const [a, b] = await Promise.all([
  capability("human.ask", {prompt: "Provide value A", schema: {name: "string?", confirm: "boolean?"}}),
  capability("human.ask", {prompt: "Provide value B", schema: {name: "string?", confirm: "boolean?"}}),
]);
return {content: [{type: "text", text: `multi_input: a = ${a.answer.name}, b = ${b.answer.name}`}]};"#,
        true,
    ),
    (
        "test_tool_with_task",
        r#"const a = await capability("human.ask", {prompt: "What is your name?", schema: {name: "string"}});
await agent("greet", {label: "test_tool_with_task"});
return {content: [{type: "text", text: `Hello, ${a.answer.name}! (async)`}]};"#,
        true,
    ),
];

const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8/5+hHgAHggJ/PchI7wAAAABJRU5ErkJggg==";
const WAV: &str = "UklGRiQAAABXQVZFZm10IBAAAAABAAEARKwAAIhYAQACABAAZGF0YQAAAAA=";

fn de<T: DeserializeOwned>(v: Value) -> Result<T, McpError> {
    serde_json::from_value(v).map_err(|e| McpError::internal_error(format!("conformance fixture: {e}"), None))
}

/// A complete result (`resultType: "complete"`, which 2026-07-28 requires
/// and deserializing does not fill in).
fn complete<T: DeserializeOwned>(mut v: Value) -> Result<T, McpError> {
    if let Value::Object(m) = &mut v {
        m.entry("resultType").or_insert_with(|| json!("complete"));
    }
    de(v)
}

fn empty_schema() -> Value {
    json!({"type": "object", "properties": {}})
}

/// Every fixture tool: name, description, inputSchema.
fn tool_specs() -> Vec<(&'static str, &'static str, Value)> {
    let json_schema_2020_12 = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {"address": {"$anchor": "addressDef", "type": "object",
            "properties": {"street": {"type": "string"}, "city": {"type": "string"}}}},
        "properties": {
            "name": {"type": "string"},
            "address": {"$ref": "#/$defs/address"},
            "contactMethod": {"type": "string", "enum": ["phone", "email"]},
            "phone": {"type": "string"},
            "email": {"type": "string"},
        },
        "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
        "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
        "then": {"required": ["phone"]},
        "else": {"required": ["email"]},
        "additionalProperties": false,
    });
    vec![
        (
            "greet",
            "Greets by name (never a task).",
            json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}),
        ),
        (
            "slow_compute",
            "An hwf run whose agent call takes `seconds` (a task when the client declares the tasks extension).",
            json!({"type": "object", "properties": {"seconds": {"type": "number"}, "label": {"type": "string"}}}),
        ),
        (
            "failing_job",
            "An hwf run whose agent call fails (task required).",
            empty_schema(),
        ),
        (
            "protocol_error_job",
            "An hwf run that ends in a protocol error (a failed task).",
            empty_schema(),
        ),
        (
            "confirm_delete",
            "An hwf run that asks for confirmation (task required).",
            json!({"type": "object", "properties": {"filename": {"type": "string"}}}),
        ),
        (
            "multi_input",
            "An hwf run that asks two questions at once (task required).",
            empty_schema(),
        ),
        (
            "test_tool_with_task",
            "Asks a name as an InputRequiredResult, then continues as a task (an hwf run).",
            empty_schema(),
        ),
        (
            "test_input_required_result_elicitation",
            "MRTR: elicits a name.",
            empty_schema(),
        ),
        (
            "test_input_required_result_sampling",
            "MRTR: asks for a sampled message.",
            empty_schema(),
        ),
        (
            "test_input_required_result_list_roots",
            "MRTR: asks for the client's roots.",
            empty_schema(),
        ),
        (
            "test_input_required_result_request_state",
            "MRTR with a sealed requestState.",
            empty_schema(),
        ),
        (
            "test_input_required_result_multiple_inputs",
            "MRTR: three input requests at once.",
            empty_schema(),
        ),
        (
            "test_input_required_result_multi_round",
            "MRTR over two rounds.",
            empty_schema(),
        ),
        (
            "test_input_required_result_tampered_state",
            "MRTR: a tampered requestState is refused.",
            empty_schema(),
        ),
        (
            "test_input_required_result_capabilities",
            "MRTR: only what the client's capabilities allow.",
            empty_schema(),
        ),
        ("test_simple_text", "A text result.", empty_schema()),
        ("test_image_content", "An image result.", empty_schema()),
        ("test_audio_content", "An audio result.", empty_schema()),
        ("test_embedded_resource", "An embedded resource.", empty_schema()),
        (
            "test_multiple_content_types",
            "Text, image and a resource.",
            empty_schema(),
        ),
        ("test_error_handling", "A tool error (isError).", empty_schema()),
        ("test_tool_with_progress", "Progress 0, 50, 100.", empty_schema()),
        ("test_reconnection", "A text after 100 ms.", empty_schema()),
        (
            "test_missing_capability",
            "Needs the client's sampling capability.",
            empty_schema(),
        ),
        (
            "test_streaming_elicitation",
            "Elicits as an InputRequiredResult.",
            empty_schema(),
        ),
        ("test_logging_tool", "Never logs.", empty_schema()),
        (
            "test_custom_header",
            "Echoes `value` (sent as the Mcp-Param-Value header too).",
            json!({"type": "object", "properties": {"value": {"type": "string", "x-mcp-header": "Value"}}, "required": ["value"]}),
        ),
        (
            "json_schema_2020_12_tool",
            "A JSON Schema 2020-12 inputSchema.",
            json_schema_2020_12,
        ),
    ]
}

/// The fixture tools as MCP lists them.
pub fn tools() -> Vec<Tool> {
    tool_specs()
        .into_iter()
        .map(|(name, description, schema)| {
            let schema = match schema {
                Value::Object(m) => m,
                _ => serde_json::Map::new(),
            };
            Tool::new(name, description, schema)
        })
        .collect()
}

/// Whether `name` is a fixture tool.
pub fn is_tool(name: &str) -> bool {
    tool_specs().iter().any(|(n, _, _)| *n == name)
}

/// Whether a run's workflow name is a task fixture's (its result is passed
/// through verbatim).
pub fn is_task_workflow(name: &str) -> bool {
    TASK_FIXTURES.iter().any(|(n, _, _)| *n == name)
}

fn script(tool: &str) -> Option<String> {
    TASK_FIXTURES.iter().find(|(n, _, _)| *n == tool).map(|(n, body, _)| {
        format!("export const meta = {{ name: \"{n}\", description: \"MCP conformance fixture {n}\" }};\n{body}\n")
    })
}

fn text_result(text: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![rmcp::model::ContentBlock::text(text)])
}

/// The task payload of a fixture run that ended (`status` is the facade's
/// status view): its result verbatim; a failed run is a tool error, or for
/// `protocol_error_job` a `failed` task.
pub fn ended(status: &Value) -> rmcp::model::TaskPayload {
    use rmcp::model::TaskPayload;
    let message = status["error"]["message"]
        .as_str()
        .unwrap_or("the run failed")
        .to_owned();
    match status["state"].as_str() {
        Some("succeeded") => {
            let result = status["result"].clone();
            let ok = serde_json::from_value::<CallToolResult>(result.clone())
                .ok()
                .and_then(|r| serde_json::to_value(r).ok());
            let result = ok.unwrap_or_else(|| json!({"content": [{"type": "text", "text": result.to_string()}]}));
            TaskPayload::Completed {
                result: result.as_object().cloned().unwrap_or_default(),
            }
        }
        Some("failed") if status["workflow"] == "protocol_error_job" => TaskPayload::Failed {
            error: json!({"code": -32603, "message": message})
                .as_object()
                .cloned()
                .unwrap_or_default(),
        },
        Some("failed") => TaskPayload::Completed {
            result: json!({"content": [{"type": "text", "text": message}], "isError": true})
                .as_object()
                .cloned()
                .unwrap_or_default(),
        },
        _ => TaskPayload::Cancelled,
    }
}

/// Sealing and opening `requestState`: `<hex JSON>.<keyed BLAKE3 of it>`.
pub struct Sealer {
    key: [u8; 32],
}

impl Sealer {
    /// A sealer with a fresh random key (per process: a state outlives no
    /// restart, as MRTR allows).
    pub fn new() -> Self {
        let mut key = [0u8; 32];
        if let Ok(mut f) = std::fs::File::open("/dev/urandom") {
            use std::io::Read as _;
            let _ = f.read_exact(&mut key);
        }
        if key == [0u8; 32] {
            let seed = format!("{:?}{}", std::time::SystemTime::now(), std::process::id());
            key = *blake3::hash(seed.as_bytes()).as_bytes();
        }
        Self { key }
    }

    pub fn seal(&self, v: &Value) -> String {
        let bytes = v.to_string();
        let mac = blake3::keyed_hash(&self.key, bytes.as_bytes());
        let hex: String = bytes.as_bytes().iter().map(|b| format!("{b:02x}")).collect();
        format!("{hex}.{}", mac.to_hex())
    }

    /// The sealed value, or -32602 for a state that is not one of ours.
    pub fn open(&self, state: &str) -> Result<Value, McpError> {
        let bad = || McpError::invalid_params("requestState is not valid (tampered or from another server)", None);
        let (hex, mac) = state.split_once('.').ok_or_else(bad)?;
        if hex.len() % 2 != 0 || !hex.is_ascii() {
            return Err(bad());
        }
        let bytes: Vec<u8> = (0..hex.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&hex[i..i + 2], 16))
            .collect::<Result<_, _>>()
            .map_err(|_| bad())?;
        let want = blake3::Hash::from_hex(mac).map_err(|_| bad())?;
        if blake3::keyed_hash(&self.key, &bytes) != want {
            return Err(bad());
        }
        serde_json::from_slice(&bytes).map_err(|_| bad())
    }
}

impl Default for Sealer {
    fn default() -> Self {
        Self::new()
    }
}

fn elicit(message: &str, properties: Value, required: &[&str]) -> Value {
    json!({"method": "elicitation/create", "params": {"mode": "form", "message": message,
        "requestedSchema": {"type": "object", "properties": properties, "required": required}}})
}

fn sample(text: &str, max_tokens: u32) -> Value {
    json!({"method": "sampling/createMessage", "params": {
        "messages": [{"role": "user", "content": {"type": "text", "text": text}}], "maxTokens": max_tokens}})
}

fn roots() -> Value {
    json!({"method": "roots/list", "params": {}})
}

fn input_required(requests: Value, state: Option<String>) -> Result<InputRequiredResult, McpError> {
    let requests: InputRequests = de(requests)?;
    Ok(InputRequiredResult::new(Some(requests), state))
}

/// An answered input: the response object under `key`, if it is one.
fn answered<'a>(
    responses: Option<&'a rmcp::model::InputResponses>,
    key: &str,
) -> Option<&'a serde_json::Map<String, Value>> {
    responses.and_then(|r| r.get(key)).and_then(Value::as_object)
}

fn sampled_text(resp: &serde_json::Map<String, Value>) -> String {
    resp.get("content")
        .and_then(|c| c["text"].as_str())
        .unwrap_or("")
        .to_owned()
}

fn root_uris(resp: &serde_json::Map<String, Value>) -> String {
    resp.get("roots")
        .and_then(Value::as_array)
        .map(|r| {
            r.iter()
                .filter_map(|r| r["uri"].as_str())
                .collect::<Vec<_>>()
                .join(", ")
        })
        .unwrap_or_default()
}

/// The support a task fixture has for tasks: `Some(true)` required.
fn requires_task(tool: &str) -> Option<bool> {
    TASK_FIXTURES.iter().find(|(n, _, _)| *n == tool).map(|(_, _, r)| *r)
}

fn tasks_required() -> McpError {
    McpError::missing_required_client_capability(ClientCapabilities::builder().enable_tasks().build())
}

impl Server {
    /// A fixture tool's call.
    pub(crate) async fn fixture_call(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let name = request.name.to_string();
        let args = Value::Object(request.arguments.clone().unwrap_or_default());
        let caps = context.client_capabilities().unwrap_or_default();
        let tasks_declared = caps.supports_tasks();
        let responses = request.input_responses.as_ref();
        let sealer = self
            .fixtures
            .as_ref()
            .map(|f| &f.sealer)
            .ok_or_else(|| McpError::internal_error("conformance fixtures are not enabled", None))?;
        if name == "test_tool_with_task" {
            if !tasks_declared {
                return Err(tasks_required());
            }
            return self.tool_with_task(&request, sealer).await;
        }
        if let Some(required) = requires_task(&name) {
            if tasks_declared {
                return self.fixture_task(&name, &args).await;
            }
            if required {
                return Err(tasks_required());
            }
            return self.fixture_foreground(&name, &args, &context).await;
        }
        let result = match name.as_str() {
            "greet" => text_result(format!("Hello, {}!", args["name"].as_str().unwrap_or("world"))),
            "test_simple_text" => text_result("This is a simple text response for testing."),
            "test_image_content" => {
                complete(json!({"content": [{"type": "image", "data": PNG, "mimeType": "image/png"}]}))?
            }
            "test_audio_content" => {
                complete(json!({"content": [{"type": "audio", "data": WAV, "mimeType": "audio/wav"}]}))?
            }
            "test_embedded_resource" => complete(json!({"content": [{"type": "resource", "resource": {
                "uri": "test://embedded-resource", "mimeType": "text/plain",
                "text": "This is an embedded resource content."}}]}))?,
            "test_multiple_content_types" => complete(json!({"content": [
                {"type": "text", "text": "Multiple content types test:"},
                {"type": "image", "data": PNG, "mimeType": "image/png"},
                {"type": "resource", "resource": {"uri": "test://mixed-content-resource",
                    "mimeType": "application/json", "text": "{\"test\":\"data\",\"value\":123}"}}]}))?,
            "test_error_handling" => {
                let mut r = text_result("This tool intentionally returns an error for testing");
                r.is_error = Some(true);
                r
            }
            "test_tool_with_progress" => {
                if let Some(token) = context.meta.get_progress_token() {
                    for (i, p) in [0.0, 50.0, 100.0].into_iter().enumerate() {
                        if i > 0 {
                            tokio::time::sleep(Duration::from_millis(50)).await;
                        }
                        let mut param = ProgressNotificationParam::new(token.clone(), p);
                        param.total = Some(100.0);
                        let _ = context.peer.notify_progress(param).await;
                    }
                }
                text_result("Progress test completed")
            }
            "test_reconnection" => {
                tokio::time::sleep(Duration::from_millis(100)).await;
                text_result("Reconnection test completed")
            }
            "test_missing_capability" => {
                if caps.sampling.is_none() {
                    let sampling: ClientCapabilities = de(json!({"sampling": {}}))?;
                    return Err(McpError::missing_required_client_capability(sampling));
                }
                text_result("The client declares sampling.")
            }
            "test_logging_tool" => text_result("Logging test completed (nothing logged)"),
            "test_custom_header" => text_result(format!("value: {}", args["value"].as_str().unwrap_or(""))),
            "json_schema_2020_12_tool" => text_result(format!("received: {args}")),
            "test_input_required_result_elicitation" | "test_streaming_elicitation" => {
                match answered(responses, "user_name") {
                    Some(r) => text_result(format!(
                        "Hello, {}!",
                        r.get("content").and_then(|c| c["name"].as_str()).unwrap_or("unknown")
                    )),
                    None => {
                        return Ok(input_required(
                            json!({"user_name": elicit("What is your name?", json!({"name": {"type": "string"}}), &["name"])}),
                            None,
                        )?
                        .into());
                    }
                }
            }
            "test_input_required_result_sampling" => match answered(responses, "capital_question") {
                Some(r) => text_result(format!("The capital is: {}", sampled_text(r))),
                None => {
                    return Ok(input_required(
                        json!({"capital_question": sample("What is the capital of France?", 100)}),
                        None,
                    )?
                    .into());
                }
            },
            "test_input_required_result_list_roots" => match answered(responses, "client_roots") {
                Some(r) => text_result(format!("Client roots: {}", root_uris(r))),
                None => return Ok(input_required(json!({"client_roots": roots()}), None)?.into()),
            },
            "test_input_required_result_request_state" | "test_input_required_result_tampered_state" => {
                let opened = request.request_state.as_deref().map(|s| sealer.open(s)).transpose()?;
                match (opened, answered(responses, "confirm")) {
                    (Some(state), Some(_)) if state["tool"] == name => text_result("Confirmed: state-ok"),
                    _ => {
                        return Ok(input_required(
                            json!({"confirm": elicit("Confirm?", json!({"ok": {"type": "boolean"}}), &["ok"])}),
                            Some(sealer.seal(&json!({"tool": name, "round": 1}))),
                        )?
                        .into());
                    }
                }
            }
            "test_input_required_result_multiple_inputs" => {
                let opened = request.request_state.as_deref().map(|s| sealer.open(s)).transpose()?;
                let all = ["user_name", "greeting", "client_roots"]
                    .iter()
                    .all(|k| answered(responses, k).is_some());
                if opened.is_some_and(|s| s["tool"] == name) && all {
                    let name = answered(responses, "user_name")
                        .and_then(|r| r.get("content").and_then(|c| c["name"].as_str()).map(str::to_owned))
                        .unwrap_or_default();
                    let greeting = answered(responses, "greeting").map(sampled_text).unwrap_or_default();
                    let roots = answered(responses, "client_roots").map(root_uris).unwrap_or_default();
                    text_result(format!("name: {name}; greeting: {greeting}; roots: {roots}"))
                } else {
                    return Ok(input_required(
                        json!({
                            "user_name": elicit("What is your name?", json!({"name": {"type": "string"}}), &["name"]),
                            "greeting": sample("Generate a greeting", 50),
                            "client_roots": roots(),
                        }),
                        Some(sealer.seal(&json!({"tool": name, "round": 1}))),
                    )?
                    .into());
                }
            }
            "test_input_required_result_multi_round" => {
                let opened = request.request_state.as_deref().map(|s| sealer.open(s)).transpose()?;
                let round = opened
                    .as_ref()
                    .filter(|s| s["tool"] == name)
                    .and_then(|s| s["round"].as_u64())
                    .unwrap_or(0);
                let content = |k: &str| answered(responses, k).and_then(|r| r.get("content").cloned());
                match (round, content("step1"), content("step2")) {
                    (1, Some(step1), _) => {
                        let n = step1["name"].as_str().unwrap_or("").to_owned();
                        return Ok(input_required(
                            json!({"step2": elicit("What is your favourite color?", json!({"color": {"type": "string"}}), &["color"])}),
                            Some(sealer.seal(&json!({"tool": name, "round": 2, "name": n}))),
                        )?
                        .into());
                    }
                    (2, _, Some(step2)) => {
                        let n = opened
                            .as_ref()
                            .and_then(|s| s["name"].as_str())
                            .unwrap_or("")
                            .to_owned();
                        text_result(format!("name: {n}, color: {}", step2["color"].as_str().unwrap_or("")))
                    }
                    _ => {
                        return Ok(input_required(
                            json!({"step1": elicit("What is your name?", json!({"name": {"type": "string"}}), &["name"])}),
                            Some(sealer.seal(&json!({"tool": name, "round": 1}))),
                        )?
                        .into());
                    }
                }
            }
            "test_input_required_result_capabilities" => {
                let mut wanted = serde_json::Map::new();
                if caps.elicitation.is_some() {
                    wanted.insert(
                        "user_name".into(),
                        elicit("What is your name?", json!({"name": {"type": "string"}}), &["name"]),
                    );
                }
                if caps.sampling.is_some() {
                    wanted.insert("greeting".into(), sample("Generate a greeting", 50));
                }
                if caps.roots.is_some() {
                    wanted.insert("client_roots".into(), roots());
                }
                let open: Vec<String> = wanted
                    .keys()
                    .filter(|k| answered(responses, k).is_none())
                    .cloned()
                    .collect();
                if wanted.is_empty() || open.is_empty() {
                    text_result("Capabilities test completed")
                } else {
                    wanted.retain(|k, _| open.contains(k));
                    return Ok(input_required(Value::Object(wanted), None)?.into());
                }
            }
            other => {
                return Err(McpError::invalid_params(
                    format!("unknown fixture tool {other:?}"),
                    None,
                ));
            }
        };
        Ok(result.into())
    }

    /// The facade arguments of a fixture run.
    fn fixture_args(tool: &str, args: &Value, background: bool) -> Result<Value, McpError> {
        let source = script(tool).ok_or_else(|| McpError::invalid_params(format!("no fixture {tool}"), None))?;
        let mut a = json!({"action": "run", "script_source": source, "language": "js", "args": args});
        if background {
            a["background"] = json!(true);
        }
        Ok(a)
    }

    /// A fixture run queued durably, answered as a task.
    async fn fixture_task(&self, tool: &str, args: &Value) -> Result<CallToolResponse, McpError> {
        let queued = facade::workflow(&self.hwf, &Self::fixture_args(tool, args, true)?, &self.opts).await;
        let id = queued["data"]["run_id"]
            .as_str()
            .filter(|_| queued["success"] == true)
            .ok_or_else(|| McpError::internal_error(format!("fixture run {tool} was not queued: {queued}"), None))?;
        let run = RunId::parse(id).map_err(|e| McpError::internal_error(e.to_string(), None))?;
        Ok(CallToolResponse::Task(crate::mcp_tasks::created(&self.hwf, &run)?))
    }

    /// A fixture run executed in the foreground (a client without the tasks
    /// extension): its result, or its protocol error.
    async fn fixture_foreground(
        &self,
        tool: &str,
        args: &Value,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let run = RunId::generate();
        let mut a = Self::fixture_args(tool, args, false)?;
        a["run_id"] = json!(run);
        let work = facade::workflow(&self.hwf, &a, &self.opts);
        let v = tokio::select! {
            v = work => v,
            _ = context.ct.cancelled() => return Err(McpError::internal_error("request cancelled", None)),
        };
        self.shared.wake.notify_one();
        let status = self
            .hwf
            .status(run.as_str())
            .map_err(|e| McpError::internal_error(format!("fixture run {tool}: {e} ({v})"), None))?
            .to_json();
        match ended(&status) {
            rmcp::model::TaskPayload::Completed { result } => {
                Ok(CallToolResponse::Complete(complete(Value::Object(result))?))
            }
            rmcp::model::TaskPayload::Failed { error } => Err(McpError::internal_error(
                error
                    .get("message")
                    .and_then(Value::as_str)
                    .unwrap_or("failed")
                    .to_owned(),
                None,
            )),
            _ => Err(McpError::internal_error(
                format!("fixture run {tool} did not end: {v}"),
                None,
            )),
        }
    }

    /// `test_tool_with_task`: round 1 runs the workflow until it parks and
    /// answers its question as MRTR (the state is the sealed run id); the
    /// retry records the answers and returns the run as a task.
    async fn tool_with_task(
        &self,
        request: &CallToolRequestParams,
        sealer: &Sealer,
    ) -> Result<CallToolResponse, McpError> {
        const TOOL: &str = "test_tool_with_task";
        if let (Some(state), Some(responses)) = (request.request_state.as_deref(), request.input_responses.as_ref()) {
            let state = sealer.open(state)?;
            let run = state["run"]
                .as_str()
                .filter(|_| state["tool"] == TOOL)
                .and_then(|r| RunId::parse(r).ok())
                .ok_or_else(|| McpError::invalid_params("requestState names no run of this tool", None))?;
            if crate::mcp_tasks::update(&self.hwf, run.as_str(), responses, "mcp-client")? {
                self.shared.wake.notify_one();
            }
            return Ok(CallToolResponse::Task(crate::mcp_tasks::created(&self.hwf, &run)?));
        }
        let run = RunId::generate();
        let mut a = Self::fixture_args(TOOL, &json!({}), false)?;
        a["run_id"] = json!(run);
        let v = facade::workflow(&self.hwf, &a, &self.opts).await;
        let status = self
            .hwf
            .status(run.as_str())
            .map_err(|e| McpError::internal_error(format!("fixture run {TOOL}: {e} ({v})"), None))?
            .to_json();
        let view = tasks::task_view(&status);
        if view.status != "input_required" {
            return Err(McpError::internal_error(
                format!("fixture run {TOOL} did not park: {v}"),
                None,
            ));
        }
        Ok(input_required(
            Value::Object(view.input_requests),
            Some(sealer.seal(&json!({"tool": TOOL, "run": run}))),
        )?
        .into())
    }

    /// `prompts/get` of a fixture prompt.
    pub(crate) fn fixture_prompt(&self, request: &GetPromptRequestParams) -> Result<GetPromptResponse, McpError> {
        let args = request.arguments.clone().unwrap_or_default();
        let arg = |k: &str| args.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
        let messages = match request.name.as_str() {
            "test_simple_prompt" => {
                json!([{"role": "user", "content": {"type": "text", "text": "This is a simple test prompt."}}])
            }
            "test_prompt_with_arguments" => json!([{"role": "user", "content": {"type": "text",
                "text": format!("Prompt with arguments: arg1='{}', arg2='{}'", arg("arg1"), arg("arg2"))}}]),
            "test_prompt_with_embedded_resource" => {
                let uri = Some(arg("resourceUri"))
                    .filter(|u| !u.is_empty())
                    .unwrap_or_else(|| "test://example-resource".into());
                json!([
                    {"role": "user", "content": {"type": "resource", "resource": {"uri": uri, "mimeType": "text/plain",
                        "text": "Embedded resource content for testing."}}},
                    {"role": "user", "content": {"type": "text", "text": "Please process the embedded resource above."}},
                ])
            }
            "test_prompt_with_image" => json!([
                {"role": "user", "content": {"type": "image", "data": PNG, "mimeType": "image/png"}},
                {"role": "user", "content": {"type": "text", "text": "Please analyze the image above."}},
            ]),
            "test_input_required_result_prompt" => match answered(request.input_responses.as_ref(), "user_context") {
                Some(r) => {
                    let c = r
                        .get("content")
                        .and_then(|c| c["context"].as_str())
                        .unwrap_or("")
                        .to_owned();
                    json!([{"role": "user", "content": {"type": "text", "text": format!("Prompt with elicited context: {c}")}}])
                }
                None => {
                    return Ok(input_required(
                            json!({"user_context": elicit("What context should the prompt use?", json!({"context": {"type": "string"}}), &["context"])}),
                            None,
                        )?
                        .into());
                }
            },
            other => return Err(McpError::invalid_params(format!("unknown prompt {other:?}"), None)),
        };
        let result: GetPromptResult = complete(json!({"messages": messages}))?;
        Ok(result.into())
    }
}

/// The fixture prompts.
pub fn prompts() -> Result<Vec<Prompt>, McpError> {
    de(json!([
        {"name": "test_simple_prompt", "description": "A simple prompt without arguments"},
        {"name": "test_prompt_with_arguments", "description": "A prompt with arguments", "arguments": [
            {"name": "arg1", "description": "First test argument", "required": true},
            {"name": "arg2", "description": "Second test argument", "required": false}]},
        {"name": "test_prompt_with_embedded_resource", "description": "A prompt with an embedded resource", "arguments": [
            {"name": "resourceUri", "description": "URI of the resource to embed", "required": true}]},
        {"name": "test_prompt_with_image", "description": "A prompt with an image"},
        {"name": "test_input_required_result_prompt", "description": "A prompt that elicits its context (MRTR)"},
    ]))
}

/// The fixture resources.
pub fn resources() -> Result<Vec<Resource>, McpError> {
    de(json!([
        {"uri": "test://static-text", "name": "static-text", "description": "A static text resource",
         "mimeType": "text/plain"},
        {"uri": "test://static-binary", "name": "static-binary", "description": "A static binary resource (PNG)",
         "mimeType": "image/png"},
    ]))
}

/// The fixture resource templates.
pub fn templates() -> Result<Vec<ResourceTemplate>, McpError> {
    de(json!([
        {"uriTemplate": "test://template/{id}/data", "name": "template-data",
         "description": "Data for an id", "mimeType": "application/json"},
    ]))
}

/// `resources/read` of a fixture resource, `None` for another URI.
pub fn read(uri: &str) -> Option<Result<ReadResourceResult, McpError>> {
    let contents = match uri {
        "test://static-text" => json!([{"uri": uri, "mimeType": "text/plain",
            "text": "This is the content of the static text resource."}]),
        "test://static-binary" => json!([{"uri": uri, "mimeType": "image/png", "blob": PNG}]),
        _ => {
            let id = uri.strip_prefix("test://template/")?.strip_suffix("/data")?;
            if id.is_empty() || id.contains('/') {
                return None;
            }
            let text = json!({"id": id, "templateTest": true, "data": format!("Data for ID: {id}")}).to_string();
            json!([{"uri": uri, "mimeType": "application/json", "text": text}])
        }
    };
    Some(complete(json!({"contents": contents})))
}

/// State the mode keeps.
pub struct Fixtures {
    pub sealer: Sealer,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_state_is_sealed() {
        let s = Sealer::new();
        let st = s.seal(&json!({"tool": "x", "round": 1}));
        assert_eq!(s.open(&st).expect("open")["round"], 1);
        assert!(s.open(&format!("{st}-TAMPERED")).is_err());
        assert!(Sealer::new().open(&st).is_err());
    }

    #[test]
    fn fixture_payloads_are_rmcp_types() {
        tools();
        prompts().expect("prompts");
        resources().expect("resources");
        templates().expect("templates");
        read("test://template/123/data").expect("template").expect("read");
        let r = input_required(
            json!({"a": elicit("q", json!({"name": {"type": "string"}}), &["name"]), "b": sample("s", 5), "c": roots()}),
            None,
        )
        .expect("input requests");
        let v = serde_json::to_value(&r).expect("ser");
        // rmcp drops the empty params of roots/list (the suite accepts that).
        assert_eq!(v["inputRequests"]["c"]["method"], "roots/list", "{v}");
        assert_eq!(v["inputRequests"]["b"]["method"], "sampling/createMessage", "{v}");
        assert_eq!(v["inputRequests"]["a"]["method"], "elicitation/create", "{v}");
        for (tool, _, _) in TASK_FIXTURES {
            assert!(is_tool(tool) && is_task_workflow(tool));
        }
    }
}
