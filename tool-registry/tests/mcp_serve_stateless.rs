//! `McpServer` over streamable HTTP speaking both revisions at once: MCP 2026-07-28 clients
//! (`server/discover`, no session, per-request `_meta`) and MCP 2025-11-25 clients
//! (`initialize`, `Mcp-Session-Id`), with rmcp's client on the other end of a real socket; and
//! how far a call's context modifier reaches under each revision, over HTTP and over an
//! in-process stdio-like connection.
#![cfg(feature = "mcp-server")]
// rmcp marks logging deprecated for its next protocol revision (SEP-2577); the 2025-11-25
// client here still uses it.
#![allow(deprecated)]

use std::sync::Arc;

use rmcp::model::{
    ClientCapabilities, LoggingLevel, ProtocolVersion, RequestMetaObject, ServerNotification,
    SubscriptionFilter,
};
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{ClientLifecycleMode, ClientServiceExt as _, ServiceExt as _};
use serde_json::json;
use tool_registry::dynamic::{DynamicTool, ToolHandler};
use tool_registry::mcp::serve::{HttpOptions, HttpServer, McpServer, ServedCall};
use tool_registry::{Orchestrator, OrchestratorConfig};
use tool_sdk::prelude::{Deserialize, JsonSchema, Tool, ToolResult, tool};

mod mcp_serve_support;
use mcp_serve_support::*;

async fn serve(server: &McpServer) -> HttpServer {
    server
        .serve_http("127.0.0.1:0".parse().unwrap(), HttpOptions::default())
        .await
        .unwrap()
}

/// A client that speaks MCP 2026-07-28 only: `server/discover`, then stateless requests.
async fn connect_2026(http: &HttpServer) -> (RunningService<RoleClient, Recorder>, Recorder) {
    let recorder = Recorder::default();
    let client = recorder
        .clone()
        .serve_with_lifecycle(
            StreamableHttpClientTransport::from_uri(http.url()),
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        )
        .await
        .unwrap();
    (client, recorder)
}

/// A client that offers MCP 2025-11-25 in `initialize` and keeps its session.
async fn connect_2025(http: &HttpServer) -> (RunningService<RoleClient, Recorder>, Recorder) {
    let mut recorder = Recorder::default();
    recorder.version = Some(ProtocolVersion::V_2025_11_25);
    let client = recorder
        .clone()
        .serve(StreamableHttpClientTransport::from_uri(http.url()))
        .await
        .unwrap();
    (client, recorder)
}

fn version(client: &RunningService<RoleClient, Recorder>) -> Option<ProtocolVersion> {
    client
        .peer()
        .peer_info()
        .map(|info| info.protocol_version.clone())
}

fn text(result: &rmcp::model::CallToolResult) -> String {
    result.content[0].as_text().unwrap().text.clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn both_revisions_are_served_and_log_lines_follow_each_revisions_rule() {
    let tools = vec![chatty_tool(), tool_sdk::dyn_tool::<Add>()];
    let server = serve_pool(&tools, OrchestratorConfig::default());
    let http = serve(&server).await;

    let (modern, modern_events) = connect_2026(&http).await;
    assert_eq!(version(&modern), Some(ProtocolVersion::V_2026_07_28));
    let listed = modern.list_all_tools().await.unwrap();
    assert_eq!(listed.len(), 2);
    let sum = modern
        .call_tool(call("add", json!({"a": 2, "b": 3})))
        .await
        .unwrap();
    assert_eq!(text(&sum), "5");

    // No `logLevel` in the request's `_meta`: the tool's log lines are not sent.
    let quiet = modern.call_tool(call("chatty", json!({}))).await.unwrap();
    assert_eq!(text(&quiet), "chatted (false, false)");
    // `logLevel: debug` in `_meta`: both lines go out, for this request only.
    let mut meta = RequestMetaObject::new();
    meta.set_log_level(LoggingLevel::Debug);
    let mut params = call("chatty", json!({}));
    params.meta = Some(meta);
    let loud = modern.call_tool(params).await.unwrap();
    assert_eq!(text(&loud), "chatted (true, true)");
    let events = modern_events.events_with("debug line").await;
    assert!(
        events.iter().any(|event| event.contains("debug line")),
        "{events:?}"
    );
    let again = modern.call_tool(call("chatty", json!({}))).await.unwrap();
    assert_eq!(text(&again), "chatted (false, false)");

    // A 2025-11-25 client of the same server: a session, `info` until `logging/setLevel`.
    let (legacy, _) = connect_2025(&http).await;
    assert_eq!(version(&legacy), Some(ProtocolVersion::V_2025_11_25));
    let session = legacy.call_tool(call("chatty", json!({}))).await.unwrap();
    assert_eq!(text(&session), "chatted (false, true)");

    modern.cancel().await.unwrap();
    legacy.cancel().await.unwrap();
    http.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn non_safe_calls_of_different_stateless_requests_never_overlap() {
    let spans: Spans = Arc::default();
    let tools = vec![
        timed_tool("safe_a", true, &spans),
        timed_tool("safe_b", true, &spans),
        timed_tool("write_a", false, &spans),
        timed_tool("write_b", false, &spans),
    ];
    let server = serve_pool(&tools, OrchestratorConfig::default());
    let http = serve(&server).await;
    // Two clients, each request its own HTTP exchange with no session between them.
    let (first, _) = connect_2026(&http).await;
    let (second, _) = connect_2026(&http).await;
    let (a, b) = tokio::join!(
        first.call_tool(call("safe_a", json!({}))),
        second.call_tool(call("safe_b", json!({})))
    );
    assert!(a.is_ok() && b.is_ok());
    let (a, b, c) = tokio::join!(
        first.call_tool(call("write_a", json!({}))),
        second.call_tool(call("write_b", json!({}))),
        first.call_tool(call("safe_a", json!({})))
    );
    assert!(a.is_ok() && b.is_ok() && c.is_ok());
    assert_safe_calls_overlap_and_writes_run_alone(&spans);
    first.cancel().await.unwrap();
    second.cancel().await.unwrap();
    http.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_listen_stream_hears_that_the_tool_list_changed() {
    let server = serve_pool(&[chatty_tool()], OrchestratorConfig::default());
    let http = serve(&server).await;
    let (client, _) = connect_2026(&http).await;
    let mut subscription = client
        .peer()
        .listen(SubscriptionFilter::builder().tools_list_changed().build())
        .await
        .unwrap();
    assert_eq!(subscription.acknowledged().tools_list_changed, Some(true));
    let pool = Orchestrator::new(
        &[chatty_tool(), tool_sdk::dyn_tool::<Add>()],
        OrchestratorConfig::default(),
    );
    server.set_orchestrator(pool).await.unwrap();
    let heard = tokio::time::timeout(std::time::Duration::from_secs(5), subscription.next())
        .await
        .expect("the change is announced within 5 s")
        .unwrap();
    assert!(
        matches!(
            heard,
            Some(ServerNotification::ToolListChangedNotification(_))
        ),
        "{heard:?}"
    );
    assert_eq!(client.list_all_tools().await.unwrap().len(), 2);
    drop(subscription);
    client.cancel().await.unwrap();
    http.shutdown().await;
}

/// Needs the client's `sampling` capability.
fn sampling_tool() -> Arc<dyn tool_sdk::DynTool> {
    let handler = ToolHandler::new(|_input, ctx: tool_sdk::ToolUseContext| async move {
        let served = ctx
            .get::<ServedCall>()
            .ok_or_else(|| tool_sdk::ToolError::new("not served"))?;
        served.require(&ClientCapabilities::builder().enable_sampling().build())?;
        Ok::<_, tool_sdk::ToolError>(tool_sdk::ToolResultContent::Text("sampled".to_owned()))
    });
    let definition = json!({
        "name": "needs_sampling",
        "description": "Needs the client's sampling capability.",
        "input_schema": {"type": "object", "properties": {}},
    });
    Arc::new(DynamicTool::from_json(&definition, handler).unwrap())
}

/// Cancels the token its context gives it (as a tool stopping work it started would), then
/// answers.
fn self_cancelling_tool() -> Arc<dyn tool_sdk::DynTool> {
    let handler = ToolHandler::new(|_input, ctx: tool_sdk::ToolUseContext| async move {
        ctx.abort().cancel();
        tokio::task::yield_now().await;
        Ok::<_, tool_sdk::ToolError>(tool_sdk::ToolResultContent::Text(format!(
            "answered after cancelling its own token: {}",
            ctx.abort().is_cancelled()
        )))
    });
    let definition = json!({
        "name": "self_cancelling",
        "description": "Cancels its own token, then answers.",
        "input_schema": {"type": "object", "properties": {}},
    });
    Arc::new(DynamicTool::from_json(&definition, handler).unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_that_cancels_its_own_token_still_answers_under_both_revisions() {
    let server = serve_pool(&[self_cancelling_tool()], OrchestratorConfig::default());
    let http = serve(&server).await;
    let (modern, _) = connect_2026(&http).await;
    let (legacy, _) = connect_2025(&http).await;
    for client in [&modern, &legacy] {
        let result = client
            .call_tool(call("self_cancelling", json!({})))
            .await
            .unwrap();
        // The tool's token is its own: cancelling it does not stop the call, whose result
        // is the tool's answer, not the "stopped" error.
        assert_ne!(result.is_error, Some(true), "{result:?}");
        assert_eq!(
            text(&result),
            "answered after cancelling its own token: true"
        );
    }
    modern.cancel().await.unwrap();
    legacy.cancel().await.unwrap();
    http.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_capability_the_client_did_not_declare_is_a_protocol_error_naming_it() {
    let server = serve_pool(&[sampling_tool()], OrchestratorConfig::default());
    let http = serve(&server).await;
    let (client, _) = connect_2026(&http).await;
    let error = client
        .call_tool(call("needs_sampling", json!({})))
        .await
        .unwrap_err();
    let rmcp::ServiceError::McpError(error) = error else {
        panic!("expected an MCP error, got {error:?}");
    };
    assert_eq!(error.code.0, -32021, "{error:?}");
    assert_eq!(
        error.data.unwrap()["requiredCapabilities"],
        json!({"sampling": {}})
    );
    client.cancel().await.unwrap();
    http.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn our_import_speaks_2026_and_hears_list_changes_through_listen() {
    use tool_registry::mcp::{McpManager, McpServerConfig};

    let server = serve_pool(&[chatty_tool()], OrchestratorConfig::default());
    let http = serve(&server).await;
    let manager = McpManager::connect(vec![McpServerConfig::http("live", http.url())]).await;
    let names = |manager: &McpManager| -> Vec<String> {
        manager
            .tools()
            .iter()
            .map(|tool| tool.name().to_owned())
            .collect()
    };
    assert_eq!(names(&manager), ["mcp__live__chatty"]);
    let mut generations = manager.subscribe();
    let before = *generations.borrow_and_update();
    let pool = Orchestrator::new(
        &[chatty_tool(), tool_sdk::dyn_tool::<Add>()],
        OrchestratorConfig::default(),
    );
    server.set_orchestrator(pool).await.unwrap();
    tokio::time::timeout(std::time::Duration::from_secs(5), async {
        while *generations.borrow_and_update() == before {
            generations.changed().await.unwrap();
        }
    })
    .await
    .expect("the import refreshes its tools within 5 s");
    assert_eq!(names(&manager), ["mcp__live__add", "mcp__live__chatty"]);
    manager.shutdown().await;
    http.shutdown().await;
}

/// The host state [`Count`] reads and its context modifier raises.
#[derive(Clone, Copy)]
struct Counter(u32);

/// Answers the host state's counter (0 when unset) and leaves it one higher for later calls.
#[tool(name = "count", max_result_size_chars = 1000)]
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Count {}

#[tool]
impl Tool for Count {
    type Output = u32;
    async fn call(
        self,
        ctx: &tool_sdk::ToolUseContext,
    ) -> Result<ToolResult<u32>, tool_sdk::ToolError> {
        let seen = ctx.get::<Counter>().map_or(0, |counter| counter.0);
        Ok(ToolResult::new(seen).with_context_modifier(move |host| host.insert(Counter(seen + 1))))
    }
}

async fn count(client: &RunningService<RoleClient, Recorder>) -> String {
    text(&client.call_tool(call("count", json!({}))).await.unwrap())
}

async fn three_counts(client: &RunningService<RoleClient, Recorder>) -> Vec<String> {
    let mut seen = Vec::new();
    for _ in 0..3 {
        seen.push(count(client).await);
    }
    seen
}

/// A client of `server` over its own in-process stdio-like connection (`serve_io`): with
/// `initialize` (a session) for 2025-11-25, with `server/discover` for 2026-07-28.
async fn connect_io(
    server: &McpServer,
    version: ProtocolVersion,
) -> RunningService<RoleClient, Recorder> {
    let (client_io, server_io) = tokio::io::duplex(1 << 16);
    let (read, write) = tokio::io::split(server_io);
    let server = server.clone();
    tokio::spawn(async move { server.serve_io(read, write).await });
    let transport = tokio::io::split(client_io);
    let client = if version == ProtocolVersion::V_2026_07_28 {
        let lifecycle = ClientLifecycleMode::Discover {
            preferred_versions: vec![version.clone()],
        };
        Recorder::default()
            .serve_with_lifecycle(transport, lifecycle)
            .await
            .unwrap()
    } else {
        let mut recorder = Recorder::default();
        recorder.version = Some(version.clone());
        recorder.serve(transport).await.unwrap()
    };
    assert_eq!(self::version(&client), Some(version));
    client
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_stdio_a_modifier_lasts_the_2025_session_and_not_past_a_2026_request() {
    let server = serve_pool(
        &[tool_sdk::dyn_tool::<Count>()],
        OrchestratorConfig::default(),
    );
    let session = connect_io(&server, ProtocolVersion::V_2025_11_25).await;
    assert_eq!(three_counts(&session).await, ["0", "1", "2"]);
    // Another connection of the same server, after that session raised its counter.
    let stateless = connect_io(&server, ProtocolVersion::V_2026_07_28).await;
    assert_eq!(three_counts(&stateless).await, ["0", "0", "0"]);
    session.cancel().await.unwrap();
    stateless.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn over_http_a_modifier_lasts_its_2025_session_only_and_not_past_a_2026_request() {
    let server = serve_pool(
        &[tool_sdk::dyn_tool::<Count>()],
        OrchestratorConfig::default(),
    );
    let http = serve(&server).await;
    let (first, _) = connect_2025(&http).await;
    let (second, _) = connect_2025(&http).await;
    assert_eq!(version(&first), Some(ProtocolVersion::V_2025_11_25));
    // Interleaved: a counter shared by the two sessions would read 0, 1, 2, 3, 4, 5.
    let mut seen = (Vec::new(), Vec::new());
    for _ in 0..3 {
        seen.0.push(count(&first).await);
        seen.1.push(count(&second).await);
    }
    assert_eq!(seen.0, ["0", "1", "2"]);
    assert_eq!(seen.1, ["0", "1", "2"]);
    let (stateless, _) = connect_2026(&http).await;
    assert_eq!(version(&stateless), Some(ProtocolVersion::V_2026_07_28));
    assert_eq!(three_counts(&stateless).await, ["0", "0", "0"]);
    for client in [first, second, stateless] {
        client.cancel().await.unwrap();
    }
    http.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2025_session_ended_with_delete_is_204_and_then_gone() {
    let server = serve_pool(&[described_tool("d", true)], OrchestratorConfig::default());
    let http = serve(&server).await;
    let client = reqwest::Client::new();
    let post = |session: Option<&str>, body: serde_json::Value| {
        let mut request = client
            .post(http.url())
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream");
        if let Some(session) = session {
            request = request
                .header("mcp-session-id", session)
                .header("mcp-protocol-version", "2025-11-25");
        }
        request.body(body.to_string()).send()
    };
    let initialized = post(
        None,
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}}),
    )
    .await
    .unwrap();
    assert_eq!(initialized.status(), 200);
    let session = initialized.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_owned();
    let notified = post(
        Some(&session),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    )
    .await
    .unwrap();
    assert_eq!(notified.status(), 202);

    let ended = client
        .delete(http.url())
        .header("mcp-session-id", &session)
        .header("mcp-protocol-version", "2025-11-25")
        .send()
        .await
        .unwrap();
    assert_eq!(ended.status(), 204, "the session is gone once answered");
    assert!(ended.bytes().await.unwrap().is_empty());
    let after = post(
        Some(&session),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
    )
    .await
    .unwrap();
    assert_eq!(after.status(), 404, "a request in the ended session");
    http.shutdown().await;
}
