//! Tasks (the MCP tasks extension, SEP-2663) served by `McpServer`: a tool declared
//! `#[tool(task = ...)]`, called by rmcp's client over a real HTTP socket, becomes a task the
//! client follows with `tasks/get`, answers with `tasks/update` and stops with
//! `tasks/cancel`; in MCP 2026-07-28 (stateless) and in a 2025-11-25 session; through one
//! server or two sharing a task store.
#![cfg(feature = "mcp-server")]

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{
    CallToolResponse, CancelTaskParams, GetTaskParams, ProtocolVersion, TaskStatus,
    UpdateTaskParams,
};
use serde_json::{Value, json};
use tool_registry::mcp::serve::tasks::TaskStore;

mod mcp_serve_support;
mod mcp_tasks_support;
use mcp_tasks_support::*;
use tool_registry::mcp::serve::McpServer;
use tool_registry::{Orchestrator, OrchestratorConfig};
use tool_sdk::prelude::*;
use tool_sdk::tool::output_schema_for;
use tool_sdk::{DynTool, TypedTool};

/// Adds two numbers after a pause long enough for the call to become a task.
#[tool(
    name = "slow_sum",
    max_result_size_chars = 1000,
    read_only,
    concurrency_safe,
    task = "optional"
)]
#[derive(Deserialize, JsonSchema)]
pub struct SlowSum {
    /// First number.
    pub a: i64,
    /// Second number.
    pub b: i64,
}

/// The sum of two numbers.
#[derive(Serialize, JsonSchema)]
pub struct Sum {
    /// a + b.
    pub sum: i64,
}

#[tool]
impl Tool for SlowSum {
    type Output = Sum;
    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<Sum>, ToolError> {
        tokio::time::sleep(Duration::from_millis(700)).await;
        Ok(ToolResult::new(Sum {
            sum: self.a + self.b,
        }))
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fast_call_answers_at_once_and_a_slow_one_becomes_a_task_with_its_result() {
    let server = server(None);
    let http = http(&server).await;
    let client = connect(&http, true, ProtocolVersion::V_2026_07_28).await;

    let fast = client
        .call_tool_once(call("sleepy", json!({"millis": 0})))
        .await
        .unwrap();
    assert!(matches!(fast, CallToolResponse::Complete(_)), "{fast:?}");

    let created = client
        .call_tool_once(call("sleepy", json!({"millis": 700})))
        .await
        .unwrap();
    let CallToolResponse::Task(created) = created else {
        panic!("expected a task, got {created:?}");
    };
    let wire = serde_json::to_value(&created).unwrap();
    assert_eq!(wire["resultType"], "task", "{wire}");
    assert_eq!(wire["status"], "working", "{wire}");
    assert_eq!(wire["ttlMs"], 3_600_000, "{wire}");
    let id = created.task.task_id;
    // The record exists as soon as the client hears of it, and shows the tool's progress.
    let working = serde_json::to_value(get(&client, &id).await).unwrap();
    assert_eq!(working["status"], "working", "{working}");
    let done = settled(&client, &id, TaskStatus::Completed).await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(
        done["result"]["content"][0]["text"], "slept 700 ms",
        "{done}"
    );
    assert_eq!(done["statusMessage"], "working", "{done}");

    let unknown = client
        .get_task(GetTaskParams::new("no-such-task"))
        .await
        .unwrap_err();
    assert!(format!("{unknown:?}").contains("-32602"), "{unknown:?}");
    client.cancel().await.unwrap();
    http.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tasks_cancel_stops_the_running_call() {
    let server = server(None);
    let http = http(&server).await;
    let client = connect(&http, true, ProtocolVersion::V_2026_07_28).await;
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("marker");
    let id = task_id(
        client
            .call_tool_once(call(
                "sleepy",
                json!({"millis": 1200, "marker": marker.to_str().unwrap()}),
            ))
            .await
            .unwrap(),
    );
    client
        .cancel_task(CancelTaskParams::new(&id))
        .await
        .unwrap();
    let cancelled = serde_json::to_value(get(&client, &id).await).unwrap();
    assert_eq!(cancelled["status"], "cancelled", "{cancelled}");
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert!(!marker.exists(), "the cancelled call ran to its end");
    // Cancelling a task that has ended is acknowledged and changes nothing.
    client
        .cancel_task(CancelTaskParams::new(&id))
        .await
        .unwrap();
    assert_eq!(get(&client, &id).await.task.status(), TaskStatus::Cancelled);
    client.cancel().await.unwrap();
    http.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tasks_questions_are_answered_through_tasks_update_one_at_a_time() {
    let server = server(None);
    let http = http(&server).await;
    let client = connect(&http, true, ProtocolVersion::V_2026_07_28).await;
    let id = task_id(
        client
            .call_tool_once(call("two_questions", json!({})))
            .await
            .unwrap(),
    );
    let mut asked = Value::Null;
    for _ in 0..100 {
        asked = serde_json::to_value(get(&client, &id).await).unwrap();
        if asked["inputRequests"]
            .as_object()
            .is_some_and(|open| open.len() == 2)
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(asked["status"], "input_required", "{asked}");
    assert_eq!(
        asked["inputRequests"]["name"]["method"], "elicitation/create",
        "{asked}"
    );
    let answer = |key: &str, value: &str| {
        UpdateTaskParams::new(
            &id,
            [(
                key.to_owned(),
                json!({"action": "accept", "content": {key: value}}),
            )]
            .into(),
        )
    };
    client.update_task(answer("name", "Ada")).await.unwrap();
    let partial = serde_json::to_value(get(&client, &id).await).unwrap();
    assert_eq!(partial["status"], "input_required", "{partial}");
    let open: Vec<&String> = partial["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(open, ["color"], "{partial}");
    client.update_task(answer("color", "teal")).await.unwrap();
    let done = settled(&client, &id, TaskStatus::Completed).await;
    assert_eq!(
        done["result"]["content"][0]["text"], "Ada likes teal",
        "{done}"
    );
    client.cancel().await.unwrap();
    http.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_required_task_refuses_a_client_that_does_not_follow_tasks() {
    let server = server(None);
    let http = http(&server).await;
    let without = connect(&http, false, ProtocolVersion::V_2026_07_28).await;
    let refused = without
        .call_tool_once(call("always_a_task", json!({})))
        .await
        .unwrap_err();
    let rmcp::ServiceError::McpError(refused) = refused else {
        panic!("expected an MCP error, got {refused:?}");
    };
    assert_eq!(refused.code.0, -32021, "{refused:?}");
    let data = refused.data.unwrap();
    assert!(
        data["requiredCapabilities"]["extensions"]["io.modelcontextprotocol/tasks"].is_object(),
        "{data}"
    );
    // An optional one runs in the request for it.
    let sync = without
        .call_tool_once(call("sleepy", json!({"millis": 400})))
        .await
        .unwrap();
    assert!(matches!(sync, CallToolResponse::Complete(_)), "{sync:?}");

    let with = connect(&http, true, ProtocolVersion::V_2026_07_28).await;
    let id = task_id(
        with.call_tool_once(call("always_a_task", json!({})))
            .await
            .unwrap(),
    );
    let done = settled(&with, &id, TaskStatus::Completed).await;
    assert_eq!(done["result"]["content"][0]["text"], "done", "{done}");
    without.cancel().await.unwrap();
    with.cancel().await.unwrap();
    http.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2025_session_that_declared_tasks_follows_a_task_too() {
    let server = server(None);
    let http = http(&server).await;
    let client = connect(&http, true, ProtocolVersion::V_2025_11_25).await;
    let id = task_id(
        client
            .call_tool_once(call("sleepy", json!({"millis": 500})))
            .await
            .unwrap(),
    );
    let done = settled(&client, &id, TaskStatus::Completed).await;
    assert_eq!(
        done["result"]["content"][0]["text"], "slept 500 ms",
        "{done}"
    );
    client.cancel().await.unwrap();
    http.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_started_through_one_server_is_followed_and_cancelled_through_another() {
    // The two servers share records but no notifications: each learns what the other did
    // by reading the store.
    let store: Arc<dyn TaskStore> = Arc::new(PollingStore::default());
    let (first, second) = (server(Some(Arc::clone(&store))), server(Some(store)));
    let (first_http, second_http) = (http(&first).await, http(&second).await);
    let through_first = connect(&first_http, true, ProtocolVersion::V_2026_07_28).await;
    let through_second = connect(&second_http, true, ProtocolVersion::V_2026_07_28).await;
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("marker");
    let id = task_id(
        through_first
            .call_tool_once(call(
                "sleepy",
                json!({"millis": 1200, "marker": marker.to_str().unwrap()}),
            ))
            .await
            .unwrap(),
    );
    assert_eq!(
        get(&through_second, &id).await.task.status(),
        TaskStatus::Working
    );
    through_second
        .cancel_task(CancelTaskParams::new(&id))
        .await
        .unwrap();
    assert_eq!(
        get(&through_first, &id).await.task.status(),
        TaskStatus::Cancelled
    );
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert!(
        !marker.exists(),
        "the call went on after its task was cancelled elsewhere"
    );
    through_first.cancel().await.unwrap();
    through_second.cancel().await.unwrap();
    first_http.shutdown().await;
    second_http.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_of_a_tool_with_an_output_schema_completes_with_its_structured_content() {
    let tools: [Arc<dyn DynTool>; 1] = [Arc::new(
        TypedTool::of::<SlowSum>(None).with_output_schema(|| Some(output_schema_for::<Sum>())),
    )];
    let orchestrator = Orchestrator::new(&tools, OrchestratorConfig::default());
    let server = McpServer::new(orchestrator, "t", "1").unwrap();
    let http = http(&server).await;
    let client = connect(&http, true, ProtocolVersion::V_2026_07_28).await;

    let created = client
        .call_tool_once(call("slow_sum", json!({"a": 2, "b": 3})))
        .await
        .unwrap();
    let CallToolResponse::Task(created) = created else {
        panic!("expected a task, got {created:?}");
    };
    let done = settled(&client, &created.task.task_id, TaskStatus::Completed).await;
    assert_eq!(
        done["result"]["structuredContent"],
        json!({"sum": 5}),
        "{done}"
    );
    client.cancel().await.unwrap();
    http.shutdown().await;
}
