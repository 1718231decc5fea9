//! `hwf mcp`: the facade as an MCP server on stdio (rmcp), with the tools
//! `workflow` and `workflow_control` and their full JSON Schemas. A
//! `tools/call` that carries a progress token gets `notifications/progress`
//! while a run executes.

use hwf_host::facade::{self, Options};
use hwf_host::{Error, ErrorCode, Hwf};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation, JsonObject, ListToolsResult,
    PaginatedRequestParams, ProgressNotificationParam, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt};
use serde_json::Value;
use std::sync::Arc;

/// The MCP server over one host.
#[derive(Clone)]
struct Server {
    hwf: Arc<Hwf>,
    opts: Options,
}

fn object(v: Value) -> JsonObject {
    match v {
        Value::Object(map) => map,
        _ => JsonObject::new(),
    }
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("hwf", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "hwf runs agent workflows as sandboxed WebAssembly components. Use `workflow` to validate, save, \
                 run and inspect workflows, and `workflow_control` to watch and steer runs (pause, resume, stop, \
                 decide approvals and questions).",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        let tools = facade::tools()
            .into_iter()
            .map(|(name, description, schema)| Tool::new(name, description, object(schema)))
            .collect();
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let name = request.name.to_string();
        let args = Value::Object(request.arguments.unwrap_or_default());
        let mut opts = self.opts.clone();
        if let Some(token) = context.meta.get_progress_token() {
            let peer = context.peer.clone();
            opts.progress = Some(Arc::new(move |p: &hwf_host::Progress| {
                let mut param = ProgressNotificationParam::new(token.clone(), p.counts.agent_calls as f64);
                param.message = Some(format!(
                    "{}: {} calls, {} running, {} queued",
                    p.phase.as_deref().unwrap_or("running"),
                    p.counts.agent_calls + p.counts.capability_calls,
                    p.running,
                    p.queued
                ));
                let peer = peer.clone();
                tokio::spawn(async move {
                    let _ = peer.notify_progress(param).await;
                });
            }));
        }
        let work = async {
            match name.as_str() {
                "workflow" => Ok(facade::workflow(&self.hwf, &args, &opts).await),
                "workflow_control" => Ok(facade::workflow_control(&self.hwf, &args).await),
                other => Err(McpError::invalid_params(format!("unknown tool: {other}"), None)),
            }
        };
        let value = tokio::select! {
            v = work => v?,
            _ = context.ct.cancelled() => return Err(McpError::internal_error("request cancelled", None)),
        };
        let failed = value.get("success") != Some(&Value::Bool(true));
        let mut result = CallToolResult::success(vec![ContentBlock::text(value.to_string())]);
        result.is_error = Some(failed);
        result.structured_content = Some(value);
        Ok(result.into())
    }
}

/// Serve the facade over MCP on stdio until the client disconnects.
pub async fn serve(hwf: Hwf, opts: Options) -> Result<(), Error> {
    let server = Server {
        hwf: Arc::new(hwf),
        opts,
    };
    let service = server
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| Error::new(ErrorCode::Internal, format!("mcp: {e}")))?;
    service
        .waiting()
        .await
        .map_err(|e| Error::new(ErrorCode::Internal, format!("mcp: {e}")))?;
    Ok(())
}
