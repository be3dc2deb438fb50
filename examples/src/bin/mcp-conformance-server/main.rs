//! `mcp-conformance-server`: the tools the official MCP conformance suite
//! (`@modelcontextprotocol/conformance`, `server` scenarios) calls, as `#[tool]`s served by
//! `tool_registry::mcp::serve`, and the suite's resources, prompts and completions beside
//! them (`beside.rs`, through `McpServer::with_handler`), the tools of its multi round-trip
//! request scenarios (`rounds.rs`) and the diagnostic tools of its MCP 2026-07-28
//! scenarios (`stateless.rs`).
//!
//! ```text
//! mcp-conformance-server --http 127.0.0.1:3001     streamable HTTP at http://127.0.0.1:3001/mcp
//! mcp-conformance-server --stdio                   one client over stdin/stdout
//! ```
//!
//! With `--http`, the address actually bound is printed on stdout as the first line
//! (`listening on http://ADDR/mcp`), so port 0 can be used.

// rmcp marks logging and sampling deprecated for its next protocol revision (SEP-2577); MCP
// 2025-11-25, which this server speaks, has both.
#![allow(deprecated)]

mod beside;
mod rounds;
mod schema_tool;
mod stateless;
mod tasks;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use clap::Parser;
use rmcp::model::{
    ContentBlock, CreateMessageRequestParams, ElicitRequestParams, LoggingLevel, ResourceContents,
};
use serde_json::{Value, json};
use tool_registry::mcp::serve::{HttpOptions, McpServer, ServedCall};
use tool_registry::{Orchestrator, OrchestratorConfig};
use tool_sdk::prelude::*;
use tool_sdk::{ResultBlock, ToolResultContent, TypedTool};

/// A 1×1 red PNG.
const RED_PIXEL_PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
/// A WAV file of one silent 8 kHz 8-bit sample.
const SILENT_WAV: &str = "UklGRiUAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQEAAACA";

/// Returns a fixed text.
#[tool(
    name = "test_simple_text",
    max_result_size_chars = 100_000,
    read_only,
    concurrency_safe,
    idempotent,
    open_world = false
)]
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SimpleText {}

#[tool]
impl Tool for SimpleText {
    type Output = String;
    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        Ok(ToolResult::new(
            "This is a simple text response for testing.".to_owned(),
        ))
    }
}

/// Returns a 1×1 red PNG image.
#[tool(
    name = "test_image_content",
    max_result_size_chars = 100_000,
    read_only,
    concurrency_safe,
    idempotent,
    open_world = false
)]
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ImageContent {}

#[tool]
impl Tool for ImageContent {
    type Output = String;
    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        Ok(ToolResult::new(RED_PIXEL_PNG.to_owned()))
    }
    fn map_result(output: String, _tool_use_id: &str) -> ToolResultContent {
        ToolResultContent::Blocks(vec![image_block(output)])
    }
}

fn image_block(data: String) -> ResultBlock {
    ResultBlock::Image {
        source: json!({"type": "base64", "media_type": "image/png", "data": data}),
    }
}

/// Returns a short WAV clip (MCP audio content).
#[tool(
    name = "test_audio_content",
    max_result_size_chars = 100_000,
    read_only,
    concurrency_safe,
    idempotent,
    open_world = false
)]
#[derive(Debug, Deserialize, JsonSchema)]
pub struct AudioContent {}

#[tool]
impl Tool for AudioContent {
    type Output = String;
    async fn call(self, ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        if let Some(served) = ctx.get::<ServedCall>() {
            served.set_content(vec![ContentBlock::audio(SILENT_WAV, "audio/wav")]);
        }
        Ok(ToolResult::new("[audio/wav clip]".to_owned()))
    }
}

/// Returns an embedded text resource.
#[tool(
    name = "test_embedded_resource",
    max_result_size_chars = 100_000,
    read_only,
    concurrency_safe,
    idempotent,
    open_world = false
)]
#[derive(Debug, Deserialize, JsonSchema)]
pub struct EmbeddedResource {}

#[tool]
impl Tool for EmbeddedResource {
    type Output = String;
    async fn call(self, ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        let text = "This is an embedded resource content.";
        if let Some(served) = ctx.get::<ServedCall>() {
            served.set_content(vec![ContentBlock::resource(text_resource(
                "test://embedded-resource",
                "text/plain",
                text,
            )?)]);
        }
        Ok(ToolResult::new(text.to_owned()))
    }
}

fn text_resource(uri: &str, mime_type: &str, text: &str) -> Result<ResourceContents, ToolError> {
    serde_json::from_value(json!({"uri": uri, "mimeType": mime_type, "text": text}))
        .map_err(|error| ToolError::new(format!("cannot build the resource: {error}")))
}

/// Returns text, an image and an embedded resource.
#[tool(
    name = "test_multiple_content_types",
    max_result_size_chars = 100_000,
    read_only,
    concurrency_safe,
    idempotent,
    open_world = false
)]
#[derive(Debug, Deserialize, JsonSchema)]
pub struct MultipleContentTypes {}

#[tool]
impl Tool for MultipleContentTypes {
    type Output = String;
    async fn call(self, ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        if let Some(served) = ctx.get::<ServedCall>() {
            served.set_content(vec![
                ContentBlock::text("Multiple content types test:"),
                ContentBlock::image(RED_PIXEL_PNG, "image/png"),
                ContentBlock::resource(text_resource(
                    "test://mixed-content-resource",
                    "application/json",
                    r#"{"test":"data","value":123}"#,
                )?),
            ]);
        }
        Ok(ToolResult::new("Multiple content types test:".to_owned()))
    }
}

/// Sends three info log lines 50 ms apart while it runs.
#[tool(
    name = "test_tool_with_logging",
    max_result_size_chars = 100_000,
    read_only,
    concurrency_safe,
    idempotent,
    open_world = false
)]
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ToolWithLogging {}

#[tool]
impl Tool for ToolWithLogging {
    type Output = String;
    async fn call(self, ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        let served = ctx.get::<ServedCall>();
        for (index, line) in [
            "Tool execution started",
            "Tool processing data",
            "Tool execution completed",
        ]
        .into_iter()
        .enumerate()
        {
            if index > 0 {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            if let Some(served) = served {
                served.log(LoggingLevel::Info, line).await;
            }
        }
        Ok(ToolResult::new(
            "Tool with logging executed successfully".to_owned(),
        ))
    }
}

/// Always fails.
#[tool(
    name = "test_error_handling",
    max_result_size_chars = 100_000,
    read_only,
    concurrency_safe,
    idempotent,
    open_world = false
)]
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ErrorHandling {}

#[tool]
impl Tool for ErrorHandling {
    type Output = String;
    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        Err(ToolError::new(
            "This tool intentionally returns an error for testing",
        ))
    }
}

/// Reports progress 0, 50 and 100 of 100, 50 ms apart.
#[tool(
    name = "test_tool_with_progress",
    max_result_size_chars = 100_000,
    read_only,
    concurrency_safe,
    idempotent,
    open_world = false
)]
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ToolWithProgress {}

#[tool]
impl Tool for ToolWithProgress {
    type Output = String;
    async fn call(self, ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        for (index, progress) in [0, 50, 100].into_iter().enumerate() {
            if index > 0 {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            ctx.report_progress(&json!({"progress": progress, "total": 100}));
        }
        Ok(ToolResult::new(
            "Tool with progress executed successfully".to_owned(),
        ))
    }
}

/// Asks the client's model to answer a prompt (`sampling/createMessage`).
#[tool(
    name = "test_sampling",
    max_result_size_chars = 100_000,
    read_only,
    concurrency_safe,
    open_world
)]
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Sampling {
    /// The prompt to send to the LLM.
    pub prompt: String,
}

#[tool]
impl Tool for Sampling {
    type Output = String;
    async fn call(self, ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        let served = served(ctx)?;
        let params: CreateMessageRequestParams = serde_json::from_value(json!({
            "messages": [{"role": "user", "content": {"type": "text", "text": self.prompt}}],
            "maxTokens": 100,
        }))
        .map_err(|error| ToolError::new(format!("cannot build the sampling request: {error}")))?;
        let result = served
            .peer()
            .create_message(params)
            .await
            .map_err(|error| ToolError::new(format!("sampling failed: {error}")))?;
        let message = serde_json::to_value(&result.message).unwrap_or_default();
        Ok(ToolResult::new(format!(
            "LLM response: {}",
            first_text(&message["content"])
        )))
    }
}

/// The text of a sampling content (one block or a list of blocks).
fn first_text(content: &Value) -> String {
    match content {
        Value::Array(blocks) => blocks.iter().map(first_text).collect::<Vec<_>>().join(""),
        block => block["text"].as_str().unwrap_or_default().to_owned(),
    }
}

fn served(ctx: &ToolUseContext) -> Result<&ServedCall, ToolError> {
    ctx.get::<ServedCall>()
        .ok_or_else(|| ToolError::new("this tool needs an MCP client to ask"))
}

/// Asks the user for a username and email (`elicitation/create`).
#[tool(
    name = "test_elicitation",
    max_result_size_chars = 100_000,
    read_only,
    concurrency_safe,
    open_world
)]
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Elicitation {
    /// The message to show the user.
    pub message: String,
}

#[tool]
impl Tool for Elicitation {
    type Output = String;
    async fn call(self, ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        let schema = json!({
            "type": "object",
            "properties": {
                "username": {"type": "string", "description": "User's response"},
                "email": {"type": "string", "description": "User's email address"}
            },
            "required": ["username", "email"]
        });
        let (action, content) = elicit(ctx, &self.message, schema).await?;
        Ok(ToolResult::new(format!(
            "User response: <action: {action}, content: {content}>"
        )))
    }
}

/// Sends `elicitation/create` in form mode; returns the action and the content.
async fn elicit(
    ctx: &ToolUseContext,
    message: &str,
    schema: Value,
) -> Result<(String, Value), ToolError> {
    let served = served(ctx)?;
    let params: ElicitRequestParams = serde_json::from_value(json!({
        "mode": "form",
        "message": message,
        "requestedSchema": schema,
    }))
    .map_err(|error| ToolError::new(format!("cannot build the elicitation request: {error}")))?;
    let result = served
        .peer()
        .create_elicitation(params)
        .await
        .map_err(|error| ToolError::new(format!("elicitation failed: {error}")))?;
    let action = serde_json::to_value(result.action)
        .ok()
        .and_then(|action| action.as_str().map(str::to_owned))
        .unwrap_or_default();
    Ok((action, result.content.unwrap_or(Value::Null)))
}

/// Asks for values whose schema gives a default for every primitive type (SEP-1034).
#[tool(
    name = "test_elicitation_sep1034_defaults",
    max_result_size_chars = 100_000,
    read_only,
    concurrency_safe,
    open_world
)]
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ElicitationDefaults {}

#[tool]
impl Tool for ElicitationDefaults {
    type Output = String;
    async fn call(self, ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        let schema = json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "default": "John Doe"},
                "age": {"type": "integer", "default": 30},
                "score": {"type": "number", "default": 95.5},
                "status": {"type": "string", "enum": ["active", "inactive", "pending"], "default": "active"},
                "verified": {"type": "boolean", "default": true}
            }
        });
        let (action, content) = elicit(ctx, "Please review these defaults", schema).await?;
        Ok(ToolResult::new(format!(
            "Elicitation completed: action={action}, content={content}"
        )))
    }
}

/// Asks for values of every enum form of SEP-1330.
#[tool(
    name = "test_elicitation_sep1330_enums",
    max_result_size_chars = 100_000,
    read_only,
    concurrency_safe,
    open_world
)]
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ElicitationEnums {}

#[tool]
impl Tool for ElicitationEnums {
    type Output = String;
    async fn call(self, ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        let schema = json!({
            "type": "object",
            "properties": {
                "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
                "titledSingle": {"type": "string", "oneOf": [
                    {"const": "value1", "title": "First Option"},
                    {"const": "value2", "title": "Second Option"},
                    {"const": "value3", "title": "Third Option"}
                ]},
                "legacyEnum": {"type": "string", "enum": ["opt1", "opt2", "opt3"],
                    "enumNames": ["Option One", "Option Two", "Option Three"]},
                "untitledMulti": {"type": "array", "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
                "titledMulti": {"type": "array", "items": {"anyOf": [
                    {"const": "value1", "title": "First Choice"},
                    {"const": "value2", "title": "Second Choice"},
                    {"const": "value3", "title": "Third Choice"}
                ]}}
            }
        });
        let (action, content) = elicit(ctx, "Please choose", schema).await?;
        Ok(ToolResult::new(format!(
            "Elicitation completed: action={action}, content={content}"
        )))
    }
}

/// Waits a moment and answers; the SSE stream of its response is where clients see rmcp's
/// priming event and retry hint (SEP-1699).
#[tool(
    name = "test_reconnection",
    max_result_size_chars = 100_000,
    read_only,
    concurrency_safe,
    idempotent,
    open_world = false
)]
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Reconnection {}

#[tool]
impl Tool for Reconnection {
    type Output = String;
    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        tokio::time::sleep(Duration::from_millis(100)).await;
        Ok(ToolResult::new(
            "Reconnection test completed successfully".to_owned(),
        ))
    }
}

/// Every conformance tool, in erased form.
fn typed_tools() -> Vec<Arc<dyn DynTool>> {
    vec![
        Arc::new(TypedTool::of::<SimpleText>(None)),
        Arc::new(TypedTool::of::<ImageContent>(None)),
        Arc::new(TypedTool::of::<AudioContent>(None)),
        Arc::new(TypedTool::of::<EmbeddedResource>(None)),
        Arc::new(TypedTool::of::<MultipleContentTypes>(None)),
        Arc::new(TypedTool::of::<ToolWithLogging>(None)),
        Arc::new(TypedTool::of::<ErrorHandling>(None)),
        Arc::new(TypedTool::of::<ToolWithProgress>(None)),
        Arc::new(TypedTool::of::<Sampling>(None)),
        Arc::new(TypedTool::of::<Elicitation>(None)),
        Arc::new(TypedTool::of::<ElicitationDefaults>(None)),
        Arc::new(TypedTool::of::<ElicitationEnums>(None)),
        Arc::new(TypedTool::of::<Reconnection>(None)),
        Arc::new(TypedTool::of::<stateless::MissingCapability>(None)),
        Arc::new(TypedTool::of::<stateless::LoggingTool>(None)),
        Arc::new(TypedTool::of::<stateless::HeaderParam>(None)),
    ]
}

#[derive(Parser)]
#[command(
    name = "mcp-conformance-server",
    about = "The MCP conformance suite's tools, served over stdio or streamable HTTP"
)]
struct Cli {
    /// Serve one client over stdin and stdout.
    #[arg(long, conflicts_with = "http")]
    stdio: bool,
    /// Serve streamable HTTP on this loopback address (`127.0.0.1:0` picks a port).
    #[arg(long, value_name = "ADDR")]
    http: Option<SocketAddr>,
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("mcp-conformance-server: cannot start the async runtime: {error}");
            return std::process::ExitCode::FAILURE;
        }
    };
    match runtime.block_on(serve(cli)) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("mcp-conformance-server: {message}");
            std::process::ExitCode::FAILURE
        }
    }
}

async fn serve(cli: Cli) -> Result<(), String> {
    let mut tools = typed_tools();
    tools.push(Arc::new(schema_tool::json_schema_tool()?));
    tools.extend(rounds::tools());
    tools.extend(tasks::tools());
    let change = stateless::ToolChange::new();
    tools.push(Arc::new(change.tool()?));
    let orchestrator = Orchestrator::new(&tools, OrchestratorConfig::default());
    let server = McpServer::new(
        orchestrator,
        "mcp-conformance-server",
        env!("CARGO_PKG_VERSION"),
    )
    .map_err(|error| error.to_string())?
    .with_handler(beside::SuiteContent::default());
    change.attach(&server, tools);
    match (cli.stdio, cli.http) {
        (true, _) => server
            .serve_stdio()
            .await
            .map_err(|error| error.to_string()),
        (false, Some(addr)) => {
            let http = server
                .serve_http(addr, HttpOptions::default())
                .await
                .map_err(|error| error.to_string())?;
            println!("listening on {}", http.url());
            let stop = http.stop_token();
            tokio::spawn(async move {
                let _ = tokio::signal::ctrl_c().await;
                stop.cancel();
            });
            http.wait().await;
            Ok(())
        }
        (false, None) => Err("pass --stdio or --http ADDR".to_owned()),
    }
}
