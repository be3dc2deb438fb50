//! `mcp-conformance-client`: the MCP client under test of the official MCP conformance suite
//! (npm `@modelcontextprotocol/conformance`), built on `tool_registry::mcp` (rmcp's client
//! underneath): the server is imported as MCP tools and called through `run_tools`, as a host
//! would.
//!
//! ```text
//! MCP_CONFORMANCE_SCENARIO=tools_call mcp-conformance-client http://localhost:PORT/mcp
//! conformance client --command target/debug/mcp-conformance-client --scenario tools_call
//! ```
//!
//! The suite appends the server URL as the last argument and names the scenario in
//! `MCP_CONFORMANCE_SCENARIO`:
//! - `initialize`: connect (`initialize`, `notifications/initialized`, `tools/list`), then
//!   disconnect;
//! - `tools_call`: connect and call `add_numbers` with `{"a": 5, "b": 3}`;
//! - `sse-retry`: connect and call `test_reconnection`, whose response stream the server
//!   closes after a priming event; the transport resumes it with a GET carrying
//!   `Last-Event-ID` after the server's `retry` delay (MCP 2025-11-25, SEP-1699).
//!
//! Each result is printed on stdout; the exit status is 0 when the scenario's steps all
//! succeeded and 1 otherwise (with the reason on stderr). Logs go to stderr, filtered by
//! `RUST_LOG`.

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use tool_registry::ToolPermissionContext;
use tool_registry::mcp::{McpManager, McpServerConfig, McpServerStatus};
use tool_registry::permissions::{AliasTable, PermissionBehavior, PermissionRuleSource};
use tool_registry::{Orchestrator, OrchestratorConfig, TurnState};
use tool_sdk::{DynTool, ToolUseBlock};

/// The name the server under test is imported under (`mcp__conformance__TOOL`).
const SERVER: &str = "conformance";

/// Each step's limit: well inside the suite's 30 s per scenario, so a failure is ours to
/// report rather than a suite timeout.
const STEP_TIMEOUT: Duration = Duration::from_secs(10);

/// A step of a scenario: call `tool` with `input`.
struct Call {
    tool: &'static str,
    input: Value,
}

/// The calls a scenario makes after connecting, or `None` for an unknown scenario.
fn scenario_calls(scenario: &str) -> Option<Vec<Call>> {
    Some(match scenario {
        "initialize" => Vec::new(),
        "tools_call" => vec![Call {
            tool: "add_numbers",
            input: json!({"a": 5, "b": 3}),
        }],
        "sse-retry" => vec![Call {
            tool: "test_reconnection",
            input: json!({}),
        }],
        _ => return None,
    })
}

fn main() -> ExitCode {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .init();
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("mcp-conformance-client: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    let url = std::env::args().skip(1).last().ok_or(
        "usage: MCP_CONFORMANCE_SCENARIO=NAME mcp-conformance-client SERVER_URL (the suite appends the URL)",
    )?;
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").map_err(
        |_| "MCP_CONFORMANCE_SCENARIO is not set; set it to initialize, tools_call or sse-retry",
    )?;
    let calls = scenario_calls(&scenario).ok_or_else(|| {
        format!(
            "unknown scenario `{scenario}`; this client runs initialize, tools_call and sse-retry"
        )
    })?;
    let config = McpServerConfig::parse_url_spec(&format!("{SERVER}={url}"))
        .map_err(|error| error.to_string())?
        .with_connect_timeout(STEP_TIMEOUT)
        .with_call_timeout(STEP_TIMEOUT);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|error| format!("cannot start the async runtime: {error}"))?;
    runtime.block_on(async {
        let manager = McpManager::connect(vec![config]).await;
        let outcome = run_calls(&manager, &calls).await;
        manager.shutdown().await;
        outcome
    })
}

async fn run_calls(manager: &McpManager, calls: &[Call]) -> Result<(), String> {
    let server = manager
        .servers()
        .into_iter()
        .next()
        .ok_or("no server was configured")?;
    if server.status != McpServerStatus::Connected {
        return Err(format!("the server did not connect: {}", server.status));
    }
    for skipped in &server.skipped {
        eprintln!("mcp-conformance-client: warning: {skipped}");
    }
    let tools = manager.tools();
    println!(
        "connected; {} tools: {}",
        tools.len(),
        tools
            .iter()
            .filter_map(|tool| tool.meta().mcp_info.as_ref())
            .map(|info| info.tool_name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    );
    if calls.is_empty() {
        return Ok(());
    }
    let blocks = calls
        .iter()
        .enumerate()
        .map(|(index, call)| {
            let name = exported_name(&tools, call.tool)?;
            Ok(ToolUseBlock {
                id: format!("toolu_{index}"),
                name,
                input: call.input.clone(),
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
    // The user of this host allowed the server under test (an `mcp__SERVER` rule, SPEC §6).
    let mut permissions = ToolPermissionContext::default();
    permissions.add_rule_str(
        PermissionRuleSource::CliArg,
        PermissionBehavior::Allow,
        &format!("mcp__{SERVER}"),
        &AliasTable::default(),
    );
    let turn = Orchestrator::new(&tools, OrchestratorConfig::default())
        .with_permissions(permissions)
        .run_tools(blocks, TurnState::default())
        .collect_results()
        .await;
    let mut failed = Vec::new();
    for (call, result) in calls.iter().zip(&turn.results) {
        let text = result.text();
        println!(
            "{}: {}{text}",
            call.tool,
            if result.is_error { "error: " } else { "" }
        );
        if result.is_error {
            failed.push(format!("`{}` answered with an error: {text}", call.tool));
        }
    }
    if turn.results.len() != calls.len() {
        failed.push(format!(
            "{} calls made, {} results",
            calls.len(),
            turn.results.len()
        ));
    }
    if failed.is_empty() {
        Ok(())
    } else {
        Err(failed.join("; "))
    }
}

/// The pool name of the server's tool `raw` (`mcp__conformance__RAW`, as cleaned on import).
fn exported_name(tools: &[Arc<dyn DynTool>], raw: &str) -> Result<String, String> {
    tools
        .iter()
        .find(|tool| {
            tool.meta()
                .mcp_info
                .as_ref()
                .is_some_and(|info| info.tool_name == raw)
        })
        .map(|tool| tool.name().to_owned())
        .ok_or_else(|| format!("the server lists no tool `{raw}`"))
}
