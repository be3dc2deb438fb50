//! A served pool goes through the orchestrator's middleware layers: `McpServer` over an
//! `Orchestrator` with a `Timeout`, called by rmcp's client over an in-memory pipe, answers a
//! call past the limit with the timeout's error result and a quick call with its result.
#![cfg(feature = "mcp-server")]

use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use tool_registry::mcp::serve::McpServer;
use tool_registry::orchestration::middleware::Timeout;
use tool_registry::{Orchestrator, OrchestratorConfig};

mod mcp_serve_support;
use mcp_serve_support::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn served_calls_go_through_the_orchestrators_layers() {
    let spans: Spans = Arc::default();
    let tools = vec![timed_tool("slow", true, &spans), chatty_tool()];
    let orchestrator = Orchestrator::new(&tools, OrchestratorConfig::default())
        .layer(Timeout::per_tool_only().with_tool("slow", Duration::from_millis(50)));
    let server = McpServer::new(orchestrator, "t", "1").unwrap();
    let (client, _) = connect(&server).await;
    let peer = client.peer();
    let slow = peer.call_tool(call("slow", json!({}))).await.unwrap();
    assert_eq!(slow.is_error, Some(true), "{slow:?}");
    let text = serde_json::to_string(&slow.content).unwrap();
    assert!(
        text.contains("did not finish within its time limit of 50ms"),
        "{text}"
    );
    assert!(
        spans.lock().unwrap().is_empty(),
        "the slow call was stopped before it ended"
    );
    let chatty = peer.call_tool(call("chatty", json!({}))).await.unwrap();
    assert_ne!(chatty.is_error, Some(true), "{chatty:?}");
    client.cancel().await.unwrap();
}
