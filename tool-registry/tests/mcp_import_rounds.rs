//! The import against a misbehaving MCP 2026-07-28 server (rmcp's own server, written to
//! misbehave): one that asks forever and one that asks to sample a model each end in a clear
//! error naming the server and the cause, and the other calls of the same batch keep their
//! results; a server of a protocol version nobody knows fails to connect, at once, with both
//! attempts' errors naming the versions; a tool list is listed again when its `ttlMs` has
//! passed, and not before (nor ever, for `ttlMs` 0).
#![cfg(feature = "mcp-server")]
// rmcp marks sampling deprecated (SEP-2577); the server here asks for it on purpose.
#![allow(deprecated)]

use std::sync::Arc;

use futures::future::BoxFuture;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, CreateMessageRequest,
    CreateMessageRequestParams, ElicitRequest, ElicitRequestParams, InputRequest, InputRequests,
    InputRequiredResult, ListToolsResult, PaginatedRequestParams, SamplingMessage,
    ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, ServerHandler};
use serde_json::json;
use tool_registry::mcp::{McpManager, McpServerConfig};
use tool_registry::permissions::{AliasTable, PermissionBehavior, PermissionRuleSource};
use tool_registry::{Orchestrator, OrchestratorConfig, ToolPermissionContext, TurnState};
use tool_sdk::elicitation::{Elicitation, ElicitationAnswer, Elicitor};
use tool_sdk::{Extensions, ToolError, ToolUseBlock};

/// Asks again whatever it is told (`ask_forever`), asks to sample a model (`ask_sampling`),
/// or answers (`plain`).
#[derive(Clone)]
struct Misbehaving;

fn tool(name: &'static str) -> Tool {
    let schema = json!({"type": "object", "properties": {}});
    let serde_json::Value::Object(schema) = schema else {
        unreachable!()
    };
    Tool::new(name, "a tool", Arc::new(schema))
}

impl ServerHandler for Misbehaving {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(vec![
            tool("ask_forever"),
            tool("ask_sampling"),
            tool("plain"),
        ]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let mut questions = InputRequests::new();
        match request.name.as_ref() {
            "ask_forever" => {
                let params = ElicitRequestParams::FormElicitationParams {
                    meta: None,
                    message: "Again?".to_owned(),
                    requested_schema: serde_json::from_value(
                        json!({"type": "object", "properties": {"yes": {"type": "boolean"}}}),
                    )
                    .unwrap(),
                };
                questions.insert(
                    "again".to_owned(),
                    InputRequest::Elicitation(ElicitRequest::new(params)),
                );
            }
            "ask_sampling" => {
                questions.insert(
                    "model".to_owned(),
                    InputRequest::CreateMessage(CreateMessageRequest::new(
                        CreateMessageRequestParams::new(vec![SamplingMessage::user_text("hi")], 10),
                    )),
                );
            }
            _ => return Ok(CallToolResult::success(vec![ContentBlock::text("done")]).into()),
        }
        Ok(InputRequiredResult::from_input_requests(questions).into())
    }
}

/// Accepts every question.
struct Yes;

impl Elicitor for Yes {
    fn elicit<'a>(
        &'a self,
        _tool_use_id: &'a str,
        _request: Elicitation,
    ) -> BoxFuture<'a, Result<ElicitationAnswer, ToolError>> {
        let mut content = serde_json::Map::new();
        content.insert("yes".to_owned(), json!(true));
        Box::pin(async move { Ok(ElicitationAnswer::Accept(content)) })
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_keeps_asking_or_asks_for_sampling_fails_alone_with_a_clear_error() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let service = StreamableHttpService::new(
        || Ok(Misbehaving),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    let router = serve_with_hyper(listener, service);
    let manager = McpManager::connect(vec![McpServerConfig::http(
        "odd",
        format!("http://{addr}/mcp"),
    )])
    .await;
    let tools = manager.tools();
    assert_eq!(tools.len(), 3);
    let mut permissions = ToolPermissionContext::default();
    permissions.add_rule_str(
        PermissionRuleSource::CliArg,
        PermissionBehavior::Allow,
        "mcp__odd",
        &AliasTable::default(),
    );
    let blocks = ["ask_forever", "ask_sampling", "plain"]
        .iter()
        .enumerate()
        .map(|(index, name)| ToolUseBlock {
            id: format!("toolu_{index}"),
            name: format!("mcp__odd__{name}"),
            input: json!({}),
        })
        .collect();
    let turn = TurnState {
        extensions: Extensions::new().with::<Arc<dyn Elicitor>>(Arc::new(Yes)),
        ..TurnState::default()
    };
    let outcome = Orchestrator::new(&tools, OrchestratorConfig::default())
        .with_permissions(permissions)
        .run_tools(blocks, turn)
        .collect_results()
        .await;
    assert_eq!(outcome.results.len(), 3);
    let forever = outcome.results[0].text();
    assert!(outcome.results[0].is_error);
    assert!(
        forever.contains("MCP server `odd` kept asking for input") && forever.contains("10 rounds"),
        "{forever}"
    );
    let sampling = outcome.results[1].text();
    assert!(outcome.results[1].is_error);
    assert!(
        sampling.contains("MCP server `odd` asked to sample a model"),
        "{sampling}"
    );
    assert!(!outcome.results[2].is_error);
    assert_eq!(outcome.results[2].text(), "done");
    manager.shutdown().await;
    router.abort();
}

/// Serves `service` on `listener` with hyper, one connection per task.
fn serve_with_hyper<S: ServerHandler>(
    listener: tokio::net::TcpListener,
    service: StreamableHttpService<S, LocalSessionManager>,
) -> tokio::task::JoinHandle<()> {
    use hyper_util::rt::{TokioExecutor, TokioIo};
    use hyper_util::server::conn::auto;
    use hyper_util::service::TowerToHyperService;
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
    })
}

/// Speaks only a protocol version nobody knows.
#[derive(Clone)]
struct FromTheFuture;

impl ServerHandler for FromTheFuture {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    fn supported_protocol_versions(
        &self,
    ) -> std::borrow::Cow<'static, [rmcp::model::ProtocolVersion]> {
        std::borrow::Cow::Owned(vec![serde_json::from_value(json!("2099-01-01")).unwrap()])
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_of_an_unknown_protocol_version_fails_to_connect_naming_the_versions() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let service = StreamableHttpService::new(
        || Ok(FromTheFuture),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    let server = serve_with_hyper(listener, service);
    let started = std::time::Instant::now();
    let manager = McpManager::connect(vec![McpServerConfig::http(
        "future",
        format!("http://{addr}/mcp"),
    )])
    .await;
    let status = manager.servers()[0].status.to_string();
    assert!(manager.tools().is_empty());
    assert!(status.contains("2099-01-01"), "{status}");
    assert!(
        started.elapsed() < std::time::Duration::from_secs(15),
        "took {:?}",
        started.elapsed()
    );
    manager.shutdown().await;
    server.abort();
}

/// Lists one tool named after how many times it was listed, fresh for `ttl_ms`, and never
/// announces a change.
#[derive(Clone)]
struct Stale {
    ttl_ms: u64,
    listed: Arc<std::sync::atomic::AtomicUsize>,
}

impl ServerHandler for Stale {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let count = self
            .listed
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst)
            + 1;
        let name: &'static str = Box::leak(format!("listed_{count}").into_boxed_str());
        let mut result = ListToolsResult::with_all_items(vec![tool(name)]);
        result.ttl_ms = Some(self.ttl_ms);
        Ok(result)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_list_is_listed_again_once_its_ttl_has_passed() {
    let mut servers = Vec::new();
    let mut configs = Vec::new();
    let mut counts = Vec::new();
    for (name, ttl_ms) in [("fresh_for_a_second", 1000), ("no_promise", 0)] {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let listed = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let handler = Stale {
            ttl_ms,
            listed: Arc::clone(&listed),
        };
        let service = StreamableHttpService::new(
            move || Ok(handler.clone()),
            Arc::new(LocalSessionManager::default()),
            StreamableHttpServerConfig::default(),
        );
        servers.push(serve_with_hyper(listener, service));
        configs.push(McpServerConfig::http(name, format!("http://{addr}/mcp")));
        counts.push(listed);
    }
    let manager = McpManager::connect(configs).await;
    let names = |manager: &McpManager| {
        let mut names: Vec<String> = manager
            .tools()
            .iter()
            .map(|tool| tool.name().to_owned())
            .collect();
        names.sort();
        names
    };
    assert_eq!(
        names(&manager),
        [
            "mcp__fresh_for_a_second__listed_1",
            "mcp__no_promise__listed_1"
        ]
    );
    tokio::time::sleep(std::time::Duration::from_millis(600)).await;
    assert_eq!(counts[0].load(std::sync::atomic::Ordering::SeqCst), 1);
    // Listed again soon after the second has passed (polled: a loaded machine may be slow).
    for _ in 0..50 {
        if names(&manager)[0].ends_with("listed_2") {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(
        names(&manager),
        [
            "mcp__fresh_for_a_second__listed_2",
            "mcp__no_promise__listed_1"
        ]
    );
    assert_eq!(counts[1].load(std::sync::atomic::Ordering::SeqCst), 1);
    manager.shutdown().await;
    for server in servers {
        server.abort();
    }
}
