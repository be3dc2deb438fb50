//! The import follows an MCP server's tasks (the MCP tasks extension, SEP-2663) to their
//! results: our own `McpServer`, over real HTTP, turns `#[tool(task = ...)]` calls into tasks;
//! `McpManager`'s tools follow them with `tasks/get`, answer their questions through the
//! calling context's elicitor with `tasks/update`, report their status as progress, and
//! cancel them with `tasks/cancel` when the host stops the call. A failed task is an error
//! naming the server, and no sibling result is lost.
#![cfg(feature = "mcp-server")]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::StreamExt as _;
use futures::future::BoxFuture;
use rmcp::ErrorData;
use serde_json::json;
use tool_registry::mcp::serve::{HttpOptions, HttpServer, McpServer, ServedCall};
use tool_registry::mcp::{McpManager, McpServerConfig};
use tool_registry::orchestration::ToolUseUpdate;
use tool_registry::permissions::{AliasTable, PermissionBehavior, PermissionRuleSource};
use tool_registry::{Orchestrator, OrchestratorConfig, ToolPermissionContext, TurnState};
use tool_sdk::elicitation::{Elicitation, ElicitationAnswer, Elicitor};
use tool_sdk::prelude::*;
use tool_sdk::{Extensions, ToolUseBlock};

/// Sleeps `millis`, then writes `done` into `marker` (when given) and answers.
#[tool(
    name = "sleepy",
    max_result_size_chars = 10_000,
    read_only,
    concurrency_safe,
    task = "optional"
)]
#[derive(Deserialize, JsonSchema)]
struct Sleepy {
    /// How long to work, in milliseconds.
    millis: u64,
    /// A file to write when the work is done.
    #[serde(default)]
    marker: Option<String>,
}

#[tool]
impl Tool for Sleepy {
    type Output = String;
    async fn call(self, ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        ctx.report_progress(&json!({"message": "sleeping"}));
        tokio::time::sleep(Duration::from_millis(self.millis)).await;
        if let Some(marker) = &self.marker {
            std::fs::write(marker, "done").map_err(|error| ToolError::new(error.to_string()))?;
        }
        Ok(ToolResult::new(format!("slept {} ms", self.millis)))
    }
}

/// Becomes a task, then asks for a name.
#[tool(
    name = "ask_in_task",
    max_result_size_chars = 10_000,
    read_only,
    concurrency_safe,
    task = "optional"
)]
#[derive(Deserialize, JsonSchema)]
struct AskInTask {}

#[tool]
impl Tool for AskInTask {
    type Output = String;
    async fn call(self, ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        if let Some(served) = ctx.get::<ServedCall>() {
            served.start_task().await;
        }
        let answer = ctx
            .elicit(Elicitation::new(
                "Your name?",
                json!({"type": "object", "properties": {"name": {"type": "string"}}}),
            ))
            .await?;
        Ok(ToolResult::new(match answer {
            ElicitationAnswer::Accept(content) => format!("hello {}", content["name"]),
            other => format!("not answered: {other:?}"),
        }))
    }
}

/// Always a task, which fails with a JSON-RPC error.
#[tool(
    name = "crashes",
    max_result_size_chars = 10_000,
    read_only,
    concurrency_safe,
    task = "required"
)]
#[derive(Deserialize, JsonSchema)]
struct Crashes {}

#[tool]
impl Tool for Crashes {
    type Output = String;
    async fn call(self, ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        if let Some(served) = ctx.get::<ServedCall>() {
            served.fail(ErrorData::internal_error("the worker crashed", None));
        }
        Err(ToolError::new("the worker crashed"))
    }
}

/// Answers every question with the name "Ada".
struct Ada;

impl Elicitor for Ada {
    fn elicit<'a>(
        &'a self,
        _tool_use_id: &'a str,
        _request: Elicitation,
    ) -> BoxFuture<'a, Result<ElicitationAnswer, ToolError>> {
        let mut content = serde_json::Map::new();
        content.insert("name".to_owned(), json!("Ada"));
        Box::pin(async move { Ok(ElicitationAnswer::Accept(content)) })
    }
}

async fn serve() -> (McpServer, HttpServer) {
    let tools = [
        tool_sdk::dyn_tool::<Sleepy>(),
        tool_sdk::dyn_tool::<AskInTask>(),
        tool_sdk::dyn_tool::<Crashes>(),
    ];
    let server = McpServer::new(
        Orchestrator::new(&tools, OrchestratorConfig::default()),
        "t",
        "1",
    )
    .unwrap();
    let http = server
        .serve_http("127.0.0.1:0".parse().unwrap(), HttpOptions::default())
        .await
        .unwrap();
    (server, http)
}

fn allow_all() -> ToolPermissionContext {
    let mut permissions = ToolPermissionContext::default();
    permissions.add_rule_str(
        PermissionRuleSource::CliArg,
        PermissionBehavior::Allow,
        "mcp__tasks",
        &AliasTable::default(),
    );
    permissions
}

fn block(index: usize, name: &str, input: serde_json::Value) -> ToolUseBlock {
    ToolUseBlock {
        id: format!("toolu_{index}"),
        name: format!("mcp__tasks__{name}"),
        input,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tasks_are_followed_to_their_results_and_a_failed_one_fails_alone() {
    let (_server, http) = serve().await;
    let manager = McpManager::connect(vec![McpServerConfig::http("tasks", http.url())]).await;
    let tools = manager.tools();
    assert_eq!(tools.len(), 3, "{:?}", manager.servers());
    let progress = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&progress);
    let turn = TurnState {
        extensions: Extensions::new().with::<Arc<dyn Elicitor>>(Arc::new(Ada)),
        ..TurnState::default()
    };
    let mut run = Orchestrator::new(&tools, OrchestratorConfig::default())
        .with_permissions(allow_all())
        .run_tools(
            vec![
                block(0, "sleepy", json!({"millis": 600})),
                block(1, "ask_in_task", json!({})),
                block(2, "crashes", json!({})),
                block(3, "sleepy", json!({"millis": 0})),
            ],
            turn,
        );
    let mut results = Vec::new();
    while let Some(update) = run.next().await {
        match update {
            ToolUseUpdate::Progress(report) => {
                seen.lock().unwrap().push(report.data.clone());
            }
            ToolUseUpdate::Result { index, result, .. } => results.push((index, result)),
            _ => {}
        }
    }
    results.sort_by_key(|(index, _)| *index);
    let results: Vec<_> = results.into_iter().map(|(_, result)| result).collect();
    assert_eq!(results.len(), 4);
    assert_eq!(results[0].text(), "slept 600 ms");
    assert_eq!(results[1].text(), "hello \"Ada\"");
    assert!(results[2].is_error);
    let crashed = results[2].text();
    assert!(
        crashed.contains("MCP server `tasks`")
            && crashed.contains("failed")
            && crashed.contains("the worker crashed"),
        "{crashed}"
    );
    assert_eq!(results[3].text(), "slept 0 ms");
    let progress = progress.lock().unwrap().clone();
    assert!(
        progress
            .iter()
            .any(|report| report["status"] == "working" && report["message"] == "sleeping"),
        "{progress:?}"
    );
    manager.shutdown().await;
    http.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_host_that_stops_the_call_cancels_the_servers_task() {
    let (_server, http) = serve().await;
    let manager = McpManager::connect(vec![McpServerConfig::http("tasks", http.url())]).await;
    let tools = manager.tools();
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("marker");
    let turn = TurnState::default();
    let abort = turn.abort.clone();
    let orchestrator =
        Orchestrator::new(&tools, OrchestratorConfig::default()).with_permissions(allow_all());
    let run = orchestrator
        .run_tools(
            vec![block(
                0,
                "sleepy",
                json!({"millis": 1500, "marker": marker.to_str().unwrap()}),
            )],
            turn,
        )
        .collect_results();
    let stopper = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(700)).await;
        abort.cancel();
    });
    let outcome = run.await;
    stopper.await.unwrap();
    assert!(outcome.results[0].is_error, "{:?}", outcome.results[0]);
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert!(
        !marker.exists(),
        "the server's task ran on after the host stopped the call"
    );
    manager.shutdown().await;
    http.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_past_the_servers_timeout_is_cancelled_with_a_clear_error() {
    let (_server, http) = serve().await;
    let manager = McpManager::connect(vec![
        McpServerConfig::http("tasks", http.url()).with_call_timeout(Duration::from_millis(800)),
    ])
    .await;
    let tools = manager.tools();
    let outcome = Orchestrator::new(&tools, OrchestratorConfig::default())
        .with_permissions(allow_all())
        .run_tools(
            vec![block(0, "sleepy", json!({"millis": 3000}))],
            TurnState::default(),
        )
        .collect_results()
        .await;
    let text = outcome.results[0].text();
    assert!(outcome.results[0].is_error);
    assert!(
        text.contains("did not finish within 800 ms") && text.contains("`timeout`"),
        "{text}"
    );
    manager.shutdown().await;
    http.shutdown().await;
}
