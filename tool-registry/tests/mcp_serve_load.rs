//! `McpServer::serve_http` on loopback under many concurrent clients (rmcp's streamable HTTP
//! client, each its own session): every call of every client gets its own answer, and
//! shutdown ends the server within a bounded time although a client is still connected,
//! after which nothing connects. The long variant adds clients that vanish in the middle of
//! a one-minute call: their calls stop on the server within 10 s (rmcp drains a closed
//! session's requests for 5 s, then cancels them).
//!
//! The long variant (200 clients × 50 calls, 50 vanishing) is ignored by default:
//! `cargo test --release -p tool-registry --features mcp-server --test mcp_serve_load -- --ignored --nocapture`.
#![cfg(feature = "mcp-server")]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use rmcp::ServiceExt as _;
use rmcp::model::CallToolRequestParams;
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use serde_json::{Value, json};
use tool_registry::dynamic::{DynamicTool, ToolHandler};
use tool_registry::mcp::serve::{HttpOptions, McpServer};
use tool_registry::{Orchestrator, OrchestratorConfig};
use tool_sdk::prelude::*;
use tool_sdk::{DynTool, ToolResultContent};

type Client = RunningService<RoleClient, ()>;

/// Calls the `echo` tool has started and not yet finished (or dropped).
#[derive(Clone, Default)]
struct InFlight(Arc<AtomicUsize>);

struct Leave(Arc<AtomicUsize>);

impl Drop for Leave {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// `echo`: waits `ms`, then answers `client:call`.
fn echo(in_flight: &InFlight) -> Arc<dyn DynTool> {
    let in_flight = in_flight.clone();
    let handler = ToolHandler::new(move |input: Value, _ctx| {
        let in_flight = in_flight.clone();
        async move {
            in_flight.0.fetch_add(1, Ordering::SeqCst);
            let _leave = Leave(Arc::clone(&in_flight.0));
            let ms = input["ms"].as_u64().unwrap_or(0);
            tokio::time::sleep(Duration::from_millis(ms)).await;
            let text = format!("{}:{}", input["client"], input["call"]);
            Ok::<_, ToolError>(ToolResultContent::Text(text))
        }
    });
    let definition = json!({
        "name": "echo",
        "description": "Answers client:call after ms milliseconds.",
        "input_schema": {
            "type": "object",
            "properties": {
                "client": {"type": "integer"},
                "call": {"type": "integer"},
                "ms": {"type": "integer"}
            },
            "required": ["client", "call", "ms"]
        },
        "read_only": true,
        "concurrency_safe": true,
    });
    Arc::new(DynamicTool::from_json(&definition, handler).unwrap())
}

fn call(client: usize, call: usize, ms: u64) -> CallToolRequestParams {
    let Value::Object(arguments) = json!({"client": client, "call": call, "ms": ms}) else {
        unreachable!("an object")
    };
    CallToolRequestParams::new("echo").with_arguments(arguments)
}

async fn connect(url: &str) -> Client {
    ().serve(StreamableHttpClientTransport::from_uri(url.to_owned()))
        .await
        .expect("handshake")
}

/// `clients` clients at once, each listing the tools and making `calls` calls at once, and
/// `vanishing` more clients that start a one-minute call and vanish in the middle of it.
/// Returns the time the clients took, and how long after that the vanished clients' calls
/// still ran on the server.
async fn many_clients(clients: usize, calls: usize, vanishing: usize) -> (Duration, Duration) {
    let in_flight = InFlight::default();
    let orchestrator = Orchestrator::new(&[echo(&in_flight)], OrchestratorConfig::default());
    let server = McpServer::new(orchestrator, "load", "1").unwrap();
    let http = server
        .serve_http("127.0.0.1:0".parse().unwrap(), HttpOptions::default())
        .await
        .expect("bind 127.0.0.1");
    let url = http.url();
    let started = Instant::now();

    let vanishing: Vec<_> = (0..vanishing)
        .map(|c| {
            let url = url.clone();
            tokio::spawn(async move {
                let client = connect(&url).await;
                // Never answered in time: the client is dropped in the middle of it.
                let _ = tokio::time::timeout(
                    Duration::from_millis(100),
                    client.call_tool(call(10_000 + c, 0, 60_000)),
                )
                .await;
                drop(client);
            })
        })
        .collect();
    let working: Vec<_> = (0..clients)
        .map(|c| {
            let url = url.clone();
            tokio::spawn(async move {
                let client = connect(&url).await;
                let tools = client.list_all_tools().await.expect("tools/list");
                assert_eq!(tools.len(), 1);
                let answers = futures::future::join_all(
                    (0..calls).map(|k| client.call_tool(call(c, k, (k % 3) as u64))),
                )
                .await;
                for (k, answer) in answers.into_iter().enumerate() {
                    let answer = answer.expect("tools/call");
                    assert_ne!(answer.is_error, Some(true), "{answer:?}");
                    let text = answer.content[0].as_text().unwrap().text.clone();
                    assert_eq!(text, format!("{c}:{k}"), "an answer went to the wrong call");
                }
                client.cancel().await.expect("the client closes");
            })
        })
        .collect();
    for task in working.into_iter().chain(vanishing) {
        tokio::time::timeout(Duration::from_secs(60), task)
            .await
            .expect("a client finished")
            .expect("a client's checks passed");
    }
    let took = started.elapsed();

    // Calls of clients that went away do not keep running on the server: rmcp lets a closed
    // session's requests finish for up to 5 s, then cancels them.
    let leaving = Instant::now();
    let deadline = leaving + Duration::from_secs(10);
    while in_flight.0.load(Ordering::SeqCst) != 0 {
        assert!(
            Instant::now() < deadline,
            "{} calls still running after their clients left",
            in_flight.0.load(Ordering::SeqCst)
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let left_running = leaving.elapsed();
    // A client still connected when the server stops does not hold it up.
    let lingering = connect(&url).await;
    tokio::time::timeout(Duration::from_secs(10), http.shutdown())
        .await
        .expect("the server stops within 10 s");
    let refused = tokio::time::timeout(
        Duration::from_secs(5),
        ().serve(StreamableHttpClientTransport::from_uri(url.clone())),
    )
    .await
    .expect("a connection attempt ends");
    assert!(refused.is_err(), "a client connected after shutdown");
    drop(lingering);
    (took, left_running)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ten_clients_at_once_each_get_their_own_answers() {
    let (took, _) = many_clients(10, 6, 0).await;
    println!("10 clients × 6 calls: {took:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "long: 200 clients × 50 calls (run with --release)"]
async fn two_hundred_clients_at_once_and_fifty_vanishing() {
    let (took, left_running) = many_clients(200, 50, 50).await;
    println!(
        "200 clients × 50 calls: {took:?}; 50 vanished clients' calls ended {left_running:?} later"
    );
}
