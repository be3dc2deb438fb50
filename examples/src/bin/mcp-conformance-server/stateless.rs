//! The diagnostic tools of the suite's MCP 2026-07-28 `server-stateless` scenario: one that
//! needs a client capability (`test_missing_capability`), one that logs only when the
//! request asks for a log level (`test_logging_tool`), one that changes the tool list
//! (`test_trigger_tool_change`), which open `subscriptions/listen` streams hear about, and one
//! whose `region` argument travels in an HTTP header too (`test_header_param`, SEP-2243
//! `x-mcp-header`: the server refuses a call whose `Mcp-Param-Region` header is missing or
//! differs from the argument).

// rmcp marks logging deprecated for MCP 2026-07-28 (SEP-2577); `LoggingLevel` is still how
// a request's `_meta` `logLevel` is spelled.
#![allow(deprecated)]

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

use rmcp::model::{ClientCapabilities, LoggingLevel};
use serde_json::json;
use tool_registry::dynamic::{DynamicTool, ToolHandler};
use tool_registry::mcp::serve::McpServer;
use tool_registry::{Orchestrator, OrchestratorConfig};
use tool_sdk::prelude::*;
use tool_sdk::{ToolResultContent, TypedTool};

use super::served;

/// Needs the client's `sampling` capability: without it, the call is answered with
/// `MissingRequiredClientCapabilityError`.
#[tool(
    name = "test_missing_capability",
    max_result_size_chars = 100_000,
    read_only,
    concurrency_safe,
    idempotent,
    open_world = false
)]
#[derive(Debug, Deserialize, JsonSchema)]
pub struct MissingCapability {}

#[tool]
impl Tool for MissingCapability {
    type Output = String;
    async fn call(self, ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        let sampling = ClientCapabilities::builder().enable_sampling().build();
        served(ctx)?.require(&sampling)?;
        Ok(ToolResult::new("Required capability declared".to_owned()))
    }
}

/// Looks something up in a region; the region is routed on, so it travels as the
/// `Mcp-Param-Region` header as well as in the arguments.
#[tool(
    name = "test_header_param",
    max_result_size_chars = 100_000,
    read_only,
    concurrency_safe,
    idempotent,
    open_world = false
)]
#[derive(Debug, Deserialize, JsonSchema)]
pub struct HeaderParam {
    /// Where to look.
    #[schemars(extend("x-mcp-header" = "Region"))]
    pub region: String,
}

#[tool]
impl Tool for HeaderParam {
    type Output = String;
    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        Ok(ToolResult::new(format!("looked up in {}", self.region)))
    }
}

/// Sends one log line, which reaches the client only when its request asked for a log level.
#[tool(
    name = "test_logging_tool",
    max_result_size_chars = 100_000,
    read_only,
    concurrency_safe,
    idempotent,
    open_world = false
)]
#[derive(Debug, Deserialize, JsonSchema)]
pub struct LoggingTool {}

#[tool]
impl Tool for LoggingTool {
    type Output = String;
    async fn call(self, ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        served(ctx)?
            .log(LoggingLevel::Error, "logLevel was requested")
            .await;
        Ok(ToolResult::new("Logging tool completed".to_owned()))
    }
}

/// What `test_trigger_tool_change` changes: the pool it serves, with or without an extra tool.
pub struct ToolChange {
    server: OnceLock<McpServer>,
    base: OnceLock<Vec<Arc<dyn DynTool>>>,
    extra_listed: AtomicBool,
}

impl ToolChange {
    pub fn new() -> Arc<Self> {
        Arc::new(Self {
            server: OnceLock::new(),
            base: OnceLock::new(),
            extra_listed: AtomicBool::new(false),
        })
    }

    /// Sets the server whose pool the tool changes and the pool it starts from.
    pub fn attach(&self, server: &McpServer, base: Vec<Arc<dyn DynTool>>) {
        let _ = self.server.set(server.clone());
        let _ = self.base.set(base);
    }

    /// `test_trigger_tool_change`: adds `test_added_tool` to the pool, or removes it again.
    pub fn tool(self: &Arc<Self>) -> Result<DynamicTool, String> {
        let change = Arc::clone(self);
        let handler = ToolHandler::new(move |_input, _ctx| {
            let change = Arc::clone(&change);
            async move {
                let (Some(server), Some(base)) = (change.server.get(), change.base.get()) else {
                    return Err(ToolError::new("the server is not running yet"));
                };
                let mut tools = base.clone();
                let listed = !change.extra_listed.fetch_xor(true, Ordering::SeqCst);
                if listed {
                    tools.push(Arc::new(TypedTool::of::<AddedTool>(None)));
                }
                server
                    .set_orchestrator(Orchestrator::new(&tools, OrchestratorConfig::default()))
                    .await
                    .map_err(|error| ToolError::new(error.to_string()))?;
                Ok::<_, ToolError>(ToolResultContent::Text(format!(
                    "Tool list changed: test_added_tool is {}",
                    if listed { "listed" } else { "gone" }
                )))
            }
        });
        let definition = json!({
            "name": "test_trigger_tool_change",
            "description": "Adds or removes test_added_tool, which changes the tool list.",
            "input_schema": {"type": "object", "properties": {}},
        });
        DynamicTool::from_json(&definition, handler).map_err(|error| error.to_string())
    }
}

/// The tool `test_trigger_tool_change` adds and removes.
#[tool(
    name = "test_added_tool",
    max_result_size_chars = 100_000,
    read_only,
    concurrency_safe,
    idempotent,
    open_world = false
)]
#[derive(Debug, Deserialize, JsonSchema)]
pub struct AddedTool {}

#[tool]
impl Tool for AddedTool {
    type Output = String;
    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        Ok(ToolResult::new("added".to_owned()))
    }
}
