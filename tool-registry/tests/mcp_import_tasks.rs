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
use serde_json::json;
use tool_registry::mcp::serve::{HttpServer, McpServer};
use tool_registry::mcp::{McpManager, McpServerConfig};
use tool_registry::orchestration::ToolUseUpdate;
use tool_registry::permissions::{AliasTable, PermissionBehavior, PermissionRuleSource};
use tool_registry::{Orchestrator, OrchestratorConfig, ToolPermissionContext, TurnState};
use tool_sdk::elicitation::{Elicitation, ElicitationAnswer, Elicitor};
use tool_sdk::{Extensions, ToolError, ToolUseBlock};

mod mcp_serve_support;
mod mcp_tasks_support;
use mcp_tasks_support::{http, server};

/// Answers every question with the name "Ada" and the color "teal".
struct Ada;

impl Elicitor for Ada {
    fn elicit<'a>(
        &'a self,
        _tool_use_id: &'a str,
        _request: Elicitation,
    ) -> BoxFuture<'a, Result<ElicitationAnswer, ToolError>> {
        let mut content = serde_json::Map::new();
        content.insert("name".to_owned(), json!("Ada"));
        content.insert("color".to_owned(), json!("teal"));
        Box::pin(async move { Ok(ElicitationAnswer::Accept(content)) })
    }
}

async fn serve() -> (McpServer, HttpServer) {
    let server = server(None);
    let http = http(&server).await;
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
    assert_eq!(tools.len(), 6, "{:?}", manager.servers());
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
                block(1, "two_questions", json!({})),
                block(2, "fails_late", json!({"millis": 400})),
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
    assert_eq!(results[1].text(), "Ada likes teal");
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
            .any(|report| report["status"] == "working" && report["message"] == "working"),
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
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("marker");
    let outcome = Orchestrator::new(&tools, OrchestratorConfig::default())
        .with_permissions(allow_all())
        .run_tools(
            vec![block(
                0,
                "sleepy",
                json!({"millis": 2000, "marker": marker.to_str().unwrap()}),
            )],
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
    // The server heard `tasks/cancel`: the call did not run to its end.
    tokio::time::sleep(Duration::from_millis(2000)).await;
    assert!(
        !marker.exists(),
        "the server's task ran on past the timeout"
    );
    manager.shutdown().await;
    http.shutdown().await;
}
