//! Serving 100 tools over MCP: `McpServer` against rmcp 3.11's own server (`#[tool_router]` +
//! `#[tool_handler]`) on the same 100 tools, with rmcp's client on the other end for both.
//!
//! Cases, each measured on both servers:
//! - `list/in_process_warm`: the `tools/list` entries of a built server, no transport
//!   (`McpServer::tools` against `ToolRouter::list_all`).
//! - `list/pipe_warm`, `call/pipe`: `tools/list` (all 100 tools) and a no-op `tools/call` of
//!   `tool_0` on a connected session over the stdio transport code (newline-delimited JSON-RPC
//!   over `AsyncRead`/`AsyncWrite`), through an in-memory `tokio::io::duplex` pipe rather than a
//!   child process, whose pipe and scheduling noise would swamp the difference.
//! - `list/pipe_cold`: from the tool types to the first listing: build the server (ours: the
//!   tool pool, the orchestrator and `McpServer::new`, which renders the listing; rmcp:
//!   `Server::new()`, which builds its `ToolRouter`), connect, initialize, `tools/list`, close.
//! - `list/http_warm`, `call/http`: the same over streamable HTTP on 127.0.0.1 (both servers
//!   with their default configuration: stateful sessions, SSE responses; ours through
//!   `McpServer::serve_http`, rmcp's through `StreamableHttpService` on hyper with a fresh
//!   `Server::new()` per session, as rmcp's README does).
//! - `list/http_cold`: a new HTTP session (initialize, initialized, `tools/list`, delete) on a
//!   running server.
//! - `list/http_stateless`, `call/http_stateless`: the same as `list/http_warm` and `call/http`
//!   from a client that speaks MCP 2026-07-28 (`server/discover`, then each request on its own,
//!   no session, its `_meta` carrying the protocol version and capabilities).
//!
//! The two sides take turns in rounds (the order swapped every round), all on one
//! current-thread Tokio runtime; each round gives one ours ÷ rmcp time ratio, and the median
//! ratio is reported with its middle half, next to each side's median time per operation.
//! The first-ever build of each server (before any per-type schema cache is warm) is timed
//! once before the rounds.
//!
//! Run: `nice -n 19 cargo bench -p tool-registry --features mcp-server --bench mcp_serve`
//! (`MCP_SERVE_ROUNDS=N` to change the 41 rounds, `MCP_SERVE_ONLY=list/pipe_cold` to run only
//! the cases whose name contains that text, e.g. under `valgrind --tool=callgrind`). Under `cargo test --benches` it runs two
//! short rounds as a smoke test.

use std::future::Future;
use std::hint::black_box;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Instant;

use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto;
use hyper_util::service::TowerToHyperService;
use rmcp::model::{CallToolRequestParams, ProtocolVersion};
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ClientLifecycleMode, ClientServiceExt as _, ServiceExt as _};
use serde_json::json;
use tokio::runtime::Runtime;
use tool_registry::mcp::serve::{HttpOptions, McpServer};
use tool_registry::{Orchestrator, OrchestratorConfig};

#[path = "mcp_serve_support/mod.rs"]
mod mcp_serve_support;
use mcp_serve_support::{ours, theirs};

type Client = RunningService<RoleClient, ()>;

fn our_server() -> McpServer {
    let orchestrator = Orchestrator::new(&ours::tools(), OrchestratorConfig::default());
    McpServer::new(orchestrator, "bench", "1").expect("the 100 tools list")
}

async fn connect_ours(server: &McpServer) -> Client {
    let (client_io, server_io) = tokio::io::duplex(1 << 16);
    let (read, write) = tokio::io::split(server_io);
    let server = server.clone();
    tokio::spawn(async move { server.serve_io(read, write).await });
    ().serve(tokio::io::split(client_io))
        .await
        .expect("handshake")
}

async fn connect_theirs(server: theirs::Server) -> Client {
    let (client_io, server_io) = tokio::io::duplex(1 << 16);
    tokio::spawn(async move {
        if let Ok(running) = server.serve(tokio::io::split(server_io)).await {
            let _ = running.waiting().await;
        }
    });
    ().serve(tokio::io::split(client_io))
        .await
        .expect("handshake")
}

async fn connect_http(url: &str) -> Client {
    ().serve(StreamableHttpClientTransport::from_uri(url.to_owned()))
        .await
        .expect("HTTP handshake")
}

/// A client speaking MCP 2026-07-28: `server/discover`, then stateless requests (no session,
/// each request carrying its own `_meta`).
async fn connect_stateless(url: &str) -> Client {
    ().serve_with_lifecycle(
        StreamableHttpClientTransport::from_uri(url.to_owned()),
        ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        },
    )
    .await
    .expect("server/discover")
}

/// rmcp's server over streamable HTTP on `127.0.0.1`, one `Server::new()` per session.
async fn serve_theirs_http() -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let service = StreamableHttpService::new(
        || Ok(theirs::Server::new()),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                continue;
            };
            let service = TowerToHyperService::new(service.clone());
            tokio::spawn(async move {
                let _ = auto::Builder::new(TokioExecutor::new())
                    .serve_connection_with_upgrades(TokioIo::new(stream), service)
                    .await;
            });
        }
    });
    addr
}

fn noop_call() -> CallToolRequestParams {
    let serde_json::Value::Object(arguments) = json!({"a": "x", "c": true}) else {
        unreachable!()
    };
    CallToolRequestParams::new("tool_0").with_arguments(arguments)
}

async fn list(client: &Client) {
    let tools = client.list_all_tools().await.expect("tools/list");
    assert_eq!(tools.len(), 100);
    black_box(tools);
}

async fn call(client: &Client) {
    let result = client.call_tool(noop_call()).await.expect("tools/call");
    assert_ne!(result.is_error, Some(true), "{result:?}");
    black_box(result);
}

/// Nanoseconds per operation of `op`, over `ops` operations.
fn time_per_op<F: Future<Output = ()>>(rt: &Runtime, ops: u32, op: &mut impl FnMut() -> F) -> f64 {
    rt.block_on(async {
        let start = Instant::now();
        for _ in 0..ops {
            op().await;
        }
        start.elapsed().as_secs_f64() * 1e9 / f64::from(ops)
    })
}

/// The value at `fraction` (0 to 1) of the sorted `values`.
fn quantile(values: &mut [f64], fraction: f64) -> f64 {
    values.sort_by(f64::total_cmp);
    #[allow(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        clippy::cast_precision_loss
    )]
    let index = ((values.len() - 1) as f64 * fraction).round() as usize;
    values[index]
}

fn show(ns: f64) -> String {
    if ns >= 1e6 {
        format!("{:.2} ms", ns / 1e6)
    } else {
        format!("{:.1} µs", ns / 1e3)
    }
}

/// Runs `ours` and `theirs` in alternating rounds of `ops` operations and prints one line.
fn paired<F1, F2>(
    rt: &Runtime,
    case: &str,
    rounds: u32,
    ops: u32,
    ours: &mut impl FnMut() -> F1,
    theirs: &mut impl FnMut() -> F2,
) where
    F1: Future<Output = ()>,
    F2: Future<Output = ()>,
{
    if std::env::var("MCP_SERVE_ONLY").is_ok_and(|only| !case.contains(only.as_str())) {
        return;
    }
    time_per_op(rt, ops, ours);
    time_per_op(rt, ops, theirs);
    let (mut our_ns, mut their_ns, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..rounds {
        let (a, b) = if round % 2 == 0 {
            let a = time_per_op(rt, ops, ours);
            (a, time_per_op(rt, ops, theirs))
        } else {
            let b = time_per_op(rt, ops, theirs);
            (time_per_op(rt, ops, ours), b)
        };
        our_ns.push(a);
        their_ns.push(b);
        ratios.push(a / b);
    }
    let ours = quantile(&mut our_ns, 0.5);
    let theirs = quantile(&mut their_ns, 0.5);
    let (low, mid, high) = (
        quantile(&mut ratios, 0.25),
        quantile(&mut ratios, 0.5),
        quantile(&mut ratios, 0.75),
    );
    println!(
        "{case:<26} ours {:>10}  rmcp {:>10}  ours/rmcp {mid:.3} (middle half {low:.3}..{high:.3})",
        show(ours),
        show(theirs),
    );
}

fn main() {
    let measuring = std::env::args().any(|arg| arg == "--bench");
    let rounds = if measuring {
        std::env::var("MCP_SERVE_ROUNDS")
            .ok()
            .and_then(|rounds| rounds.parse().ok())
            .unwrap_or(41)
    } else {
        2
    };
    let scale = if measuring { 1 } else { 0 };
    let ops = |n: u32| (n * scale).max(1);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();

    let start = Instant::now();
    let first_ours = our_server();
    let first_ours_ns = start.elapsed().as_secs_f64() * 1e9;
    let start = Instant::now();
    let first_theirs = theirs::Server::new();
    let first_theirs_ns = start.elapsed().as_secs_f64() * 1e9;
    println!(
        "first build, once           ours {:>10}  rmcp {:>10}",
        show(first_ours_ns),
        show(first_theirs_ns)
    );
    println!("{rounds} alternating rounds; per-operation medians:");

    paired(
        &rt,
        "list/in_process_warm",
        rounds,
        ops(2_000),
        &mut || {
            black_box(first_ours.tools());
            std::future::ready(())
        },
        &mut || {
            black_box(first_theirs.tool_router.list_all());
            std::future::ready(())
        },
    );

    let (our_client, their_client) = rt.block_on(async {
        (
            connect_ours(&first_ours).await,
            connect_theirs(theirs::Server::new()).await,
        )
    });
    paired(
        &rt,
        "list/pipe_warm",
        rounds,
        ops(100),
        &mut || list(&our_client),
        &mut || list(&their_client),
    );
    paired(
        &rt,
        "call/pipe",
        rounds,
        ops(500),
        &mut || call(&our_client),
        &mut || call(&their_client),
    );
    paired(
        &rt,
        "list/pipe_cold",
        rounds,
        ops(20),
        &mut || async {
            let client = connect_ours(&our_server()).await;
            list(&client).await;
            let _ = client.cancel().await;
        },
        &mut || async {
            let client = connect_theirs(theirs::Server::new()).await;
            list(&client).await;
            let _ = client.cancel().await;
        },
    );
    let _ = rt.block_on(our_client.cancel());
    let _ = rt.block_on(their_client.cancel());

    let (our_http, their_url) = rt.block_on(async {
        let ours = first_ours
            .serve_http("127.0.0.1:0".parse().unwrap(), HttpOptions::default())
            .await
            .expect("bind 127.0.0.1");
        let theirs = serve_theirs_http().await;
        (ours, format!("http://{theirs}/mcp"))
    });
    let our_url = our_http.url();
    let (our_client, their_client) =
        rt.block_on(async { (connect_http(&our_url).await, connect_http(&their_url).await) });
    paired(
        &rt,
        "list/http_warm",
        rounds,
        ops(50),
        &mut || list(&our_client),
        &mut || list(&their_client),
    );
    paired(
        &rt,
        "call/http",
        rounds,
        ops(200),
        &mut || call(&our_client),
        &mut || call(&their_client),
    );
    paired(
        &rt,
        "list/http_cold",
        rounds,
        ops(20),
        &mut || async {
            let client = connect_http(&our_url).await;
            list(&client).await;
            let _ = client.cancel().await;
        },
        &mut || async {
            let client = connect_http(&their_url).await;
            list(&client).await;
            let _ = client.cancel().await;
        },
    );
    let _ = rt.block_on(our_client.cancel());
    let _ = rt.block_on(their_client.cancel());

    let (our_client, their_client) = rt.block_on(async {
        (
            connect_stateless(&our_url).await,
            connect_stateless(&their_url).await,
        )
    });
    paired(
        &rt,
        "list/http_stateless",
        rounds,
        ops(50),
        &mut || list(&our_client),
        &mut || list(&their_client),
    );
    paired(
        &rt,
        "call/http_stateless",
        rounds,
        ops(200),
        &mut || call(&our_client),
        &mut || call(&their_client),
    );
    let _ = rt.block_on(our_client.cancel());
    let _ = rt.block_on(their_client.cancel());
    rt.block_on(our_http.shutdown());
}
