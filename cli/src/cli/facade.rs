//! `hwf facade` (one tool call on stdin) and `hwf mcp` (the MCP server).

use super::output::Out;
use super::{Cli, open_host, ops};
use hwf_host::config::Config;
use hwf_host::{Error, ErrorCode};
use serde_json::Value;
use std::path::PathBuf;

/// `hwf facade --list-tools`.
pub fn list_tools(out: &Out) -> Result<i32, Error> {
    let tools: Vec<Value> = hwf_host::facade::tools()
        .into_iter()
        .map(|(name, description, parameters)| serde_json::json!({"name": name, "description": description, "parameters": parameters}))
        .collect();
    out.data(&serde_json::json!({"tools": tools}), |v| v.to_string());
    Ok(0)
}

/// `hwf facade TOOL` with the request on stdin.
pub async fn facade(cli: &Cli, config: &Config, tool: &str, agents: Option<&PathBuf>, out: &Out) -> Result<i32, Error> {
    let mut text = String::new();
    std::io::Read::read_to_string(&mut std::io::stdin(), &mut text).map_err(|e| Error::io("stdin", e))?;
    let request: Value = if text.trim().is_empty() {
        Value::Object(Default::default())
    } else {
        serde_json::from_str(&text).map_err(|e| {
            Error::new(
                ErrorCode::InvalidParams,
                format!("the request on stdin is not valid JSON: {e}"),
            )
        })?
    };
    let hwf = open_host(cli, config, agents, config.limits.clone())?;
    let opts = ops::facade_options(cli, config);
    let response = match tool {
        "workflow" => hwf_host::facade::workflow(&hwf, &request, &opts).await,
        "workflow_control" => hwf_host::facade::workflow_control_with(&hwf, &request, &opts).await,
        "workflow_status" => hwf_host::facade::workflow_status(&hwf, &request).await,
        other => {
            return Err(Error::new(
                ErrorCode::InvalidArgs,
                format!("unknown tool {other:?}: expected workflow, workflow_control or workflow_status"),
            ));
        }
    };
    out.raw(&response);
    Ok(if response["success"] == true {
        0
    } else if response["data"]["state"] == "failed" {
        1
    } else {
        2
    })
}

/// `hwf mcp [--http ADDR]`.
pub async fn mcp(
    cli: &Cli,
    config: &Config,
    agents: Option<&PathBuf>,
    concurrency: usize,
    transport: crate::mcp::Transport,
    conformance_fixtures: bool,
) -> Result<i32, Error> {
    let hwf = open_host(cli, config, agents, config.limits.clone())?;
    crate::mcp::serve(
        hwf,
        ops::facade_options(cli, config),
        concurrency,
        transport,
        conformance_fixtures,
    )
    .await?;
    Ok(0)
}
