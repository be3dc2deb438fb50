//! The server side of the HTTP load benchmark (`scripts/load-bench.sh`, BENCHMARKS.md "MCP
//! over HTTP under load"): the same two tools served over streamable HTTP either by
//! `McpServer` (`--impl ours`) or by rmcp 3.11's own server (`#[tool_router]` methods behind
//! `StreamableHttpService` on hyper, as rmcp's examples do): `--impl rmcp` keeps its router in
//! the server (`#[tool_handler(router = self.tool_router)]`), `--impl rmcp-guarded` is the same
//! with the connection protections `McpServer` has (a header-read timeout against slow-loris
//! clients, a graceful-shutdown watch), `--impl rmcp-plain` is rmcp's documented tools-only
//! form (`#[tool_router(server_handler)]` on a unit struct), which builds the router again on
//! every call.
//!
//! The tools, CPU-light like the echo and JSON-transform tools of load benchmarks of MCP
//! servers:
//! - `echo {message}`: answers `message`.
//! - `json_transform {data}`: answers `data` as JSON text with every object key upper-cased
//!   and every number doubled, all the way down.
//!
//! Both sides answer a request that sends no notification with a plain JSON body
//! (`HttpOptions::json_response`, rmcp's `with_json_response(true)`), and both serve MCP
//! 2026-07-28 stateless `tools/call` POSTs on `/mcp`.
//!
//! Run: `cargo run --release -p tool-registry --features mcp-server --example load_server --
//! --impl ours|rmcp|rmcp-guarded|rmcp-plain --addr 127.0.0.1:PORT`.

use std::net::SocketAddr;
use std::sync::Arc;

use serde_json::{Map, Number, Value};

/// `data` with every object key upper-cased and every number doubled.
fn transform(data: &Value) -> Value {
    match data {
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(key, value)| (key.to_uppercase(), transform(value)))
                .collect::<Map<String, Value>>(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(transform).collect()),
        Value::Number(number) => Value::Number(doubled(number)),
        other => other.clone(),
    }
}

fn doubled(number: &Number) -> Number {
    if let Some(n) = number.as_i64().and_then(|n| n.checked_mul(2)) {
        Number::from(n)
    } else {
        number
            .as_f64()
            .and_then(|n| Number::from_f64(n * 2.0))
            .unwrap_or_else(|| number.clone())
    }
}

/// The answer of `json_transform`.
fn transformed_text(data: &Value) -> String {
    transform(data).to_string()
}

/// The tool-sdk side: two `#[tool]`s in an `Orchestrator`, served by `McpServer`.
mod ours {
    use std::sync::Arc;

    use tool_registry::mcp::serve::{HttpOptions, McpServer};
    use tool_registry::{Orchestrator, OrchestratorConfig};
    use tool_sdk::prelude::*;
    use tool_sdk::{DynTool, TypedTool};

    /// Answers its message.
    #[tool(
        name = "echo",
        read_only,
        concurrency_safe,
        max_result_size_chars = 100_000
    )]
    #[derive(Debug, Deserialize, JsonSchema)]
    pub struct Echo {
        /// The text to answer.
        pub message: String,
    }

    #[tool]
    impl Tool for Echo {
        type Output = String;
        async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
            Ok(ToolResult::new(self.message))
        }
    }

    /// Answers `data` with every object key upper-cased and every number doubled.
    #[tool(
        name = "json_transform",
        read_only,
        concurrency_safe,
        max_result_size_chars = 100_000
    )]
    #[derive(Debug, Deserialize, JsonSchema)]
    pub struct JsonTransform {
        /// Any JSON value.
        pub data: serde_json::Value,
    }

    #[tool]
    impl Tool for JsonTransform {
        type Output = String;
        async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
            Ok(ToolResult::new(super::transformed_text(&self.data)))
        }
    }

    pub async fn serve(addr: std::net::SocketAddr) {
        let tools: Vec<Arc<dyn DynTool>> = vec![
            Arc::new(TypedTool::of::<Echo>(None)),
            Arc::new(TypedTool::of::<JsonTransform>(None)),
        ];
        let orchestrator = Orchestrator::new(&tools, OrchestratorConfig::default());
        let server = McpServer::new(orchestrator, "load-bench", "1").expect("two tools");
        let options = HttpOptions {
            json_response: true,
            ..HttpOptions::default()
        };
        let http = server.serve_http(addr, options).await.expect("bind");
        println!("ours serving {}", http.url());
        http.wait().await;
    }
}

/// The rmcp side: the same two tools as `#[tool_router]` methods, twice: `Server` keeps its
/// router and `#[tool_handler(router = self.tool_router)]` reads it (rmcp's own tests do
/// this), `Plain` is rmcp's documented tools-only form, `#[tool_router(server_handler)]` on a
/// unit struct, whose handler builds the router again for every `tools/call`.
mod theirs {
    use rmcp::handler::server::router::tool::ToolRouter;
    use rmcp::handler::server::wrapper::Parameters;
    use rmcp::{ServerHandler, tool, tool_handler, tool_router};
    use schemars::JsonSchema;
    use serde::Deserialize;

    /// `echo`'s input.
    #[derive(Debug, Deserialize, JsonSchema)]
    pub struct Echo {
        /// The text to answer.
        pub message: String,
    }

    /// `json_transform`'s input.
    #[derive(Debug, Deserialize, JsonSchema)]
    pub struct JsonTransform {
        /// Any JSON value.
        pub data: serde_json::Value,
    }

    /// The server holding both tools and its router.
    #[derive(Debug, Clone)]
    pub struct Server {
        tool_router: ToolRouter<Self>,
    }

    #[tool_router]
    impl Server {
        pub fn new() -> Self {
            Self {
                tool_router: Self::tool_router(),
            }
        }

        /// Answers its message.
        #[tool(name = "echo")]
        async fn echo(&self, Parameters(input): Parameters<Echo>) -> String {
            input.message
        }

        /// Answers `data` with every object key upper-cased and every number doubled.
        #[tool(name = "json_transform")]
        async fn json_transform(&self, Parameters(input): Parameters<JsonTransform>) -> String {
            super::transformed_text(&input.data)
        }
    }

    #[tool_handler(router = self.tool_router)]
    impl ServerHandler for Server {}

    /// The same tools in rmcp's documented tools-only form.
    #[derive(Debug, Clone)]
    pub struct Plain;

    #[tool_router(server_handler)]
    impl Plain {
        /// Answers its message.
        #[tool(name = "echo")]
        async fn echo(&self, Parameters(input): Parameters<Echo>) -> String {
            input.message
        }

        /// Answers `data` with every object key upper-cased and every number doubled.
        #[tool(name = "json_transform")]
        async fn json_transform(&self, Parameters(input): Parameters<JsonTransform>) -> String {
            super::transformed_text(&input.data)
        }
    }
}

/// rmcp's server over streamable HTTP, one clone of `server` per request.
/// With `guarded`, each connection also gets the protections `McpServer::serve_http` gives
/// its own: a 10 s header-read timeout (hyper's, against slow-loris clients) and a graceful
/// shutdown watch.
async fn serve_theirs<S>(addr: SocketAddr, server: S, guarded: bool)
where
    S: rmcp::ServerHandler + Clone + Send + Sync + 'static,
{
    use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
    use hyper_util::server::conn::auto;
    use hyper_util::server::graceful::GracefulShutdown;
    use hyper_util::service::TowerToHyperService;
    use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
    use rmcp::transport::streamable_http_server::{
        StreamableHttpServerConfig, StreamableHttpService,
    };

    let listener = listen(addr);
    let service = StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default().with_json_response(true),
    );
    println!("rmcp serving http://{}/mcp", listener.local_addr().unwrap());
    let mut builder = auto::Builder::new(TokioExecutor::new());
    if guarded {
        builder
            .http1()
            .timer(TokioTimer::new())
            .header_read_timeout(std::time::Duration::from_secs(10));
    }
    let graceful = GracefulShutdown::new();
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            continue;
        };
        let service = TowerToHyperService::new(service.clone());
        let connection = builder
            .serve_connection_with_upgrades(TokioIo::new(stream), service)
            .into_owned();
        if guarded {
            let connection = graceful.watch(connection);
            tokio::spawn(async move {
                let _ = connection.await;
            });
        } else {
            tokio::spawn(async move {
                let _ = connection.await;
            });
        }
    }
}

/// `addr` bound with the same listen queue as `McpServer::serve_http` (1024), so that both
/// sides take a burst of connections alike.
fn listen(addr: SocketAddr) -> tokio::net::TcpListener {
    let socket = tokio::net::TcpSocket::new_v4().expect("socket");
    socket.set_reuseaddr(true).expect("SO_REUSEADDR");
    socket.bind(addr).expect("bind");
    socket.listen(1024).expect("listen")
}

#[tokio::main]
async fn main() {
    let mut which = String::from("ours");
    let mut addr: SocketAddr = "127.0.0.1:8090".parse().unwrap();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--impl" => {
                which = args
                    .next()
                    .expect("--impl ours|rmcp|rmcp-guarded|rmcp-plain")
            }
            "--addr" => {
                addr = args
                    .next()
                    .and_then(|a| a.parse().ok())
                    .expect("--addr 127.0.0.1:PORT");
            }
            other => {
                eprintln!(
                    "usage: load_server --impl ours|rmcp|rmcp-guarded|rmcp-plain --addr 127.0.0.1:PORT \
                     ({other}?)"
                );
                std::process::exit(2);
            }
        }
    }
    match which.as_str() {
        "ours" => ours::serve(addr).await,
        "rmcp" => serve_theirs(addr, theirs::Server::new(), false).await,
        "rmcp-guarded" => serve_theirs(addr, theirs::Server::new(), true).await,
        "rmcp-plain" => serve_theirs(addr, theirs::Plain, false).await,
        other => {
            eprintln!("load_server: --impl is ours, rmcp, rmcp-guarded or rmcp-plain, not {other}");
            std::process::exit(2);
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn keys_are_upper_cased_and_numbers_doubled() {
        let data = serde_json::json!({"a": 1, "b": [2.5, {"c": "x"}], "d": null});
        assert_eq!(
            super::transform(&data),
            serde_json::json!({"A": 2, "B": [5.0, {"C": "x"}], "D": null})
        );
    }
}
