//! Where a served task ends other than with its result: at its `ttlMs` (stopped and `failed`,
//! kept a minute more to say so), with a JSON-RPC error after it became a task (`failed`), and
//! how a call that asks first becomes a task after its multi round-trip rounds (SEP-2663's MRTR
//! composition); a tool defined in JSON with `"task": "optional"`. rmcp's client over real HTTP.
#![cfg(feature = "mcp-server")]

use std::time::Duration;

use rmcp::model::{CallToolResponse, ProtocolVersion, TaskStatus};
use serde_json::json;

mod mcp_serve_support;
mod mcp_tasks_support;
use mcp_tasks_support::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_still_running_at_its_ttl_is_stopped_and_failed() {
    let server = server(None).with_task_ttl(Duration::from_secs(1));
    let http = http(&server).await;
    let client = connect(&http, true, ProtocolVersion::V_2026_07_28).await;
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("marker");
    let id = task_id(
        client
            .call_tool_once(call(
                "sleepy",
                json!({"millis": 2500, "marker": marker.to_str().unwrap()}),
            ))
            .await
            .unwrap(),
    );
    let failed = settled(&client, &id, TaskStatus::Failed).await;
    assert_eq!(failed["status"], "failed", "{failed}");
    assert_eq!(failed["ttlMs"], 1000, "{failed}");
    let message = failed["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("longer than its ttlMs (1000 ms)"),
        "{failed}"
    );
    tokio::time::sleep(Duration::from_millis(2000)).await;
    assert!(!marker.exists(), "the call ran on past its task's ttlMs");
    // Still readable after its ttlMs, to say why it failed.
    assert_eq!(get(&client, &id).await.task.status(), TaskStatus::Failed);
    client.cancel().await.unwrap();
    http.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_json_rpc_error_after_the_call_became_a_task_fails_the_task() {
    let server = server(None);
    let http = http(&server).await;
    let client = connect(&http, true, ProtocolVersion::V_2026_07_28).await;
    let id = task_id(
        client
            .call_tool_once(call("fails_late", json!({"millis": 500})))
            .await
            .unwrap(),
    );
    let failed = settled(&client, &id, TaskStatus::Failed).await;
    assert_eq!(failed["status"], "failed", "{failed}");
    assert_eq!(failed["error"]["message"], "the worker crashed", "{failed}");
    assert!(failed.get("result").is_none(), "{failed}");
    client.cancel().await.unwrap();
    http.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_that_asks_first_answers_in_rounds_then_becomes_a_task() {
    let server = server(None);
    let http = http(&server).await;
    let client = connect(&http, true, ProtocolVersion::V_2026_07_28).await;
    let CallToolResponse::InputRequired(asked) = client
        .call_tool_once(call("ask_then_work", json!({})))
        .await
        .unwrap()
    else {
        panic!("the first round asks");
    };
    let mut retry = call("ask_then_work", json!({}));
    retry.request_state = asked.request_state.clone();
    retry.input_responses = Some(
        [(
            "user_name".to_owned(),
            json!({"action": "accept", "content": {"name": "Ada"}}),
        )]
        .into(),
    );
    let response = client.call_tool_once(retry).await.unwrap();
    let CallToolResponse::Task(created) = response else {
        panic!("the second round becomes a task, got {response:?}");
    };
    let wire = serde_json::to_value(&created).unwrap();
    assert!(wire.get("requestState").is_none(), "{wire}");
    let done = settled(&client, &created.task.task_id, TaskStatus::Completed).await;
    assert_eq!(
        done["result"]["content"][0]["text"], "report for \"Ada\"",
        "{done}"
    );
    client.cancel().await.unwrap();
    http.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_waiting_behind_a_task_that_runs_alone_becomes_a_task_itself() {
    let server = server(None);
    let http = http(&server).await;
    let client = connect(&http, true, ProtocolVersion::V_2026_07_28).await;
    let first = task_id(
        client
            .call_tool_once(call("writes", json!({"millis": 1500})))
            .await
            .unwrap(),
    );
    // The second waits for its turn within a task: its request is answered at once.
    let asked = std::time::Instant::now();
    let second = task_id(
        client
            .call_tool_once(call("writes", json!({"millis": 100})))
            .await
            .unwrap(),
    );
    assert!(
        asked.elapsed() < Duration::from_millis(1000),
        "{:?}",
        asked.elapsed()
    );
    assert_eq!(
        get(&client, &second).await.task.status(),
        TaskStatus::Working
    );
    let done = settled(&client, &second, TaskStatus::Completed).await;
    assert_eq!(
        done["result"]["content"][0]["text"], "wrote for 100 ms",
        "{done}"
    );
    // It ran after the first (they never overlap): the first had ended by then.
    assert_eq!(
        get(&client, &first).await.task.status(),
        TaskStatus::Completed
    );
    client.cancel().await.unwrap();
    http.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_defined_in_json_may_run_as_a_task_too() {
    use std::sync::Arc;
    use tool_registry::dynamic::{DynamicTool, ToolHandler};
    use tool_registry::mcp::serve::McpServer;
    use tool_registry::{Orchestrator, OrchestratorConfig};
    use tool_sdk::{DynTool, ToolError, ToolResultContent, ToolUseContext};

    let handler = ToolHandler::new(|_input, _ctx: ToolUseContext| async move {
        tokio::time::sleep(Duration::from_millis(500)).await;
        Ok::<_, ToolError>(ToolResultContent::Text("built".to_owned()))
    });
    let definition = json!({
        "name": "build",
        "description": "Builds the project.",
        "input_schema": {"type": "object", "properties": {}},
        "task": "optional",
    });
    let tool: Arc<dyn DynTool> = Arc::new(DynamicTool::from_json(&definition, handler).unwrap());
    let server = McpServer::new(
        Orchestrator::new(&[tool], OrchestratorConfig::default()),
        "t",
        "1",
    )
    .unwrap();
    let http = http(&server).await;
    let client = connect(&http, true, ProtocolVersion::V_2026_07_28).await;
    let id = task_id(
        client
            .call_tool_once(call("build", json!({})))
            .await
            .unwrap(),
    );
    let done = settled(&client, &id, TaskStatus::Completed).await;
    assert_eq!(done["result"]["content"][0]["text"], "built", "{done}");
    client.cancel().await.unwrap();
    http.shutdown().await;

    let wrong = json!({
        "name": "build",
        "description": "Builds the project.",
        "input_schema": {"type": "object"},
        "task": "sometimes",
    });
    let handler = ToolHandler::new(|_input, _ctx: ToolUseContext| async move {
        Ok::<_, ToolError>(ToolResultContent::Text(String::new()))
    });
    let error = DynamicTool::from_json(&wrong, handler)
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("sometimes") && error.contains("optional"),
        "{error}"
    );
}
