//! `ToolUseContext::elicit` served over MCP: an `elicitation/create` request in an MCP
//! 2025-11-25 session, `InputRequiredResult` rounds with a signed `requestState` in MCP
//! 2026-07-28, and a decline when the client cannot answer. rmcp's client answers, over a
//! real HTTP socket.
#![cfg(feature = "mcp-server")]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use rmcp::model::{
    CallToolResponse, ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult,
    ElicitationAction, ProtocolVersion,
};
use rmcp::service::{RequestContext, RoleClient, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{ClientHandler, ClientLifecycleMode, ClientServiceExt as _, ErrorData, ServiceExt as _};
use serde_json::json;
use tool_registry::dynamic::{DynamicTool, ToolHandler};
use tool_registry::mcp::serve::{HttpOptions, HttpServer, McpServer};
use tool_registry::{Orchestrator, OrchestratorConfig};
use tool_sdk::elicitation::{Elicitation, ElicitationAnswer};
use tool_sdk::{DynTool, ToolError, ToolResultContent, ToolUseContext};

mod mcp_serve_support;
use mcp_serve_support::call;

/// A client that answers every elicitation by filling each requested string property with
/// its own name in capitals (or declines, when `declare` is false it declares nothing).
#[derive(Clone)]
struct Answering {
    declare: bool,
    version: ProtocolVersion,
    asked: Arc<AtomicUsize>,
}

impl ClientHandler for Answering {
    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        self.asked.fetch_add(1, Ordering::SeqCst);
        let ElicitRequestParams::FormElicitationParams {
            requested_schema, ..
        } = request
        else {
            return Ok(ElicitResult::new(ElicitationAction::Decline));
        };
        let schema = serde_json::to_value(requested_schema).unwrap();
        let mut content = serde_json::Map::new();
        for name in schema["properties"].as_object().unwrap().keys() {
            content.insert(name.clone(), json!(name.to_uppercase()));
        }
        Ok(ElicitResult::new(ElicitationAction::Accept).with_content(content.into()))
    }

    fn get_info(&self) -> ClientConfig {
        let capabilities = if self.declare {
            ClientCapabilities::builder().enable_elicitation().build()
        } else {
            ClientCapabilities::default()
        };
        ClientConfig::new(capabilities, rmcp::model::Implementation::new("t", "1"))
            .with_protocol_version(self.version.clone())
    }
}

/// Asks for a name, then a color; answers with both. Counts its runs (ones), the runs that
/// got past the first question (hundreds) and past the second (ten thousands).
fn two_questions(runs: &Arc<AtomicUsize>) -> Arc<dyn DynTool> {
    let runs = Arc::clone(runs);
    let handler = ToolHandler::new(move |_input, ctx: ToolUseContext| {
        let runs = Arc::clone(&runs);
        async move {
            runs.fetch_add(1, Ordering::SeqCst);
            let question = |field: &str| {
                Elicitation::new(
                    format!("Your {field}?"),
                    json!({"type": "object", "properties": {field: {"type": "string"}}, "required": [field]}),
                )
            };
            let name = ctx.elicit(question("name")).await?;
            runs.fetch_add(100, Ordering::SeqCst);
            let color = ctx.elicit(question("color")).await?;
            runs.fetch_add(10_000, Ordering::SeqCst);
            let text = match (name, color) {
                (ElicitationAnswer::Accept(name), ElicitationAnswer::Accept(color)) => {
                    format!("{} likes {}", name["name"], color["color"])
                }
                (name, color) => format!("not answered: {name:?} {color:?}"),
            };
            Ok::<_, ToolError>(ToolResultContent::Text(text))
        }
    });
    let definition = json!({
        "name": "two_questions",
        "description": "Asks for a name and a color.",
        "input_schema": {"type": "object", "properties": {}},
    });
    Arc::new(DynamicTool::from_json(&definition, handler).unwrap())
}

async fn serve(runs: &Arc<AtomicUsize>) -> (McpServer, HttpServer) {
    let orchestrator = Orchestrator::new(&[two_questions(runs)], OrchestratorConfig::default());
    let server = McpServer::new(orchestrator, "t", "1").unwrap();
    let http = server
        .serve_http("127.0.0.1:0".parse().unwrap(), HttpOptions::default())
        .await
        .unwrap();
    (server, http)
}

async fn connect(http: &HttpServer, client: Answering) -> RunningService<RoleClient, Answering> {
    let transport = StreamableHttpClientTransport::from_uri(http.url());
    if client.version == ProtocolVersion::V_2026_07_28 {
        client
            .serve_with_lifecycle(
                transport,
                ClientLifecycleMode::Discover {
                    preferred_versions: vec![ProtocolVersion::V_2026_07_28],
                },
            )
            .await
            .unwrap()
    } else {
        client.serve(transport).await.unwrap()
    }
}

fn answering(version: ProtocolVersion, declare: bool) -> (Answering, Arc<AtomicUsize>) {
    let asked = Arc::new(AtomicUsize::new(0));
    let client = Answering {
        declare,
        version,
        asked: Arc::clone(&asked),
    };
    (client, asked)
}

fn text(result: &rmcp::model::CallToolResult) -> String {
    result.content[0].as_text().unwrap().text.clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2026_client_answers_in_rounds_and_the_tool_runs_again_with_the_answers() {
    let runs = Arc::new(AtomicUsize::new(0));
    let (_server, http) = serve(&runs).await;
    let (client, asked) = answering(ProtocolVersion::V_2026_07_28, true);
    let client = connect(&http, client).await;
    let result = client
        .call_tool(call("two_questions", json!({})))
        .await
        .unwrap();
    assert_eq!(text(&result), "\"NAME\" likes \"COLOR\"");
    // Round 1 asks q1, round 2 (with q1's answer) asks q2, round 3 has both: three runs, two
    // of them past the first question, one past the second (an ended round's run is dropped
    // at its open question).
    assert_eq!(asked.load(Ordering::SeqCst), 2);
    assert_eq!(runs.load(Ordering::SeqCst), 3 + 2 * 100 + 10_000);
    client.cancel().await.unwrap();
    http.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_changed_request_state_is_refused_before_the_tool_runs() {
    let runs = Arc::new(AtomicUsize::new(0));
    let (_server, http) = serve(&runs).await;
    let (client, _) = answering(ProtocolVersion::V_2026_07_28, true);
    let client = connect(&http, client).await;
    let CallToolResponse::InputRequired(first) = client
        .call_tool_once(call("two_questions", json!({})))
        .await
        .unwrap()
    else {
        panic!("expected an InputRequiredResult");
    };
    let requests = serde_json::to_value(&first.input_requests).unwrap();
    assert_eq!(
        requests["q1"]["method"],
        json!("elicitation/create"),
        "{requests}"
    );
    let state = first.request_state.clone().expect("a requestState");
    let mut changed = state.clone();
    changed.insert(changed.len() / 2, 'x');
    let mut retry = call("two_questions", json!({}));
    retry.request_state = Some(changed);
    retry.input_responses = Some(
        [(
            "q1".to_owned(),
            json!({"action": "accept", "content": {"name": "EVE"}}),
        )]
        .into(),
    );
    let runs_before = runs.load(Ordering::SeqCst);
    let error = client.call_tool_once(retry.clone()).await.unwrap_err();
    let rmcp::ServiceError::McpError(error) = error else {
        panic!("expected an MCP error, got {error:?}");
    };
    assert_eq!(error.code.0, -32602, "{error:?}");
    assert!(error.message.contains("requestState"), "{error:?}");
    assert_eq!(runs.load(Ordering::SeqCst), runs_before, "the tool ran");
    // The same state against other arguments is refused too (it is bound to the call).
    let mut replayed = call("two_questions", json!({"other": 1}));
    replayed.request_state = Some(state.clone());
    assert!(client.call_tool_once(replayed).await.is_err());
    // An answer to a question the round did not ask is ignored: q1 is asked again.
    let mut unasked = call("two_questions", json!({}));
    unasked.request_state = Some(state);
    unasked.input_responses = Some(
        [(
            "q2".to_owned(),
            json!({"action": "accept", "content": {"color": "RED"}}),
        )]
        .into(),
    );
    let CallToolResponse::InputRequired(again) = client.call_tool_once(unasked).await.unwrap()
    else {
        panic!("expected q1 to be asked again");
    };
    let requests = serde_json::to_value(&again.input_requests).unwrap();
    assert!(requests.get("q1").is_some(), "{requests}");
    client.cancel().await.unwrap();
    http.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2025_session_asks_with_elicitation_create_while_the_tool_waits() {
    let runs = Arc::new(AtomicUsize::new(0));
    let (_server, http) = serve(&runs).await;
    let (client, asked) = answering(ProtocolVersion::V_2025_11_25, true);
    let client = connect(&http, client).await;
    let result = client
        .call_tool(call("two_questions", json!({})))
        .await
        .unwrap();
    assert_eq!(text(&result), "\"NAME\" likes \"COLOR\"");
    assert_eq!(asked.load(Ordering::SeqCst), 2);
    assert_eq!(runs.load(Ordering::SeqCst), 1 + 100 + 10_000);
    client.cancel().await.unwrap();
    http.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_without_the_elicitation_capability_is_not_asked_and_the_tool_sees_a_decline() {
    let runs = Arc::new(AtomicUsize::new(0));
    let (_server, http) = serve(&runs).await;
    for version in [ProtocolVersion::V_2026_07_28, ProtocolVersion::V_2025_11_25] {
        let (client, asked) = answering(version.clone(), false);
        let client = connect(&http, client).await;
        let result = client
            .call_tool(call("two_questions", json!({})))
            .await
            .unwrap();
        assert_eq!(text(&result), "not answered: Decline Decline", "{version}");
        assert_eq!(asked.load(Ordering::SeqCst), 0);
        client.cancel().await.unwrap();
    }
    http.shutdown().await;
}

/// Answers every question with each field's name in capitals, and says what it was asked.
struct Capitals(std::sync::Mutex<Vec<String>>);

impl tool_sdk::elicitation::Elicitor for Capitals {
    fn elicit<'a>(
        &'a self,
        _tool_use_id: &'a str,
        request: Elicitation,
    ) -> futures::future::BoxFuture<'a, Result<ElicitationAnswer, ToolError>> {
        self.0.lock().unwrap().push(request.message.clone());
        let mut content = serde_json::Map::new();
        for name in request.requested_schema["properties"]
            .as_object()
            .unwrap()
            .keys()
        {
            content.insert(name.clone(), json!(name.to_uppercase()));
        }
        Box::pin(async move { Ok(ElicitationAnswer::Accept(content)) })
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn our_import_answers_a_2026_servers_questions_through_the_callers_elicitor() {
    use tool_registry::mcp::{McpManager, McpServerConfig};
    use tool_sdk::elicitation::Elicitor;
    use tool_sdk::{CancellationToken, Extensions};

    let runs = Arc::new(AtomicUsize::new(0));
    let (_server, http) = serve(&runs).await;
    let manager = McpManager::connect(vec![McpServerConfig::http("asker", http.url())]).await;
    let tools = manager.tools();
    let tool = tools
        .iter()
        .find(|tool| tool.name() == "mcp__asker__two_questions")
        .expect("the tool is imported");

    // A host with an elicitor: the server's two rounds are answered by it.
    let capitals = Arc::new(Capitals(std::sync::Mutex::new(Vec::new())));
    let extensions = Extensions::new().with::<Arc<dyn Elicitor>>(capitals.clone());
    let ctx = ToolUseContext::new("toolu_ask", CancellationToken::new(), Arc::new(extensions));
    let output = tool.dispatch(&json!({}), &ctx).unwrap().await.unwrap();
    assert_eq!(
        output.content,
        ToolResultContent::Text("\"NAME\" likes \"COLOR\"".to_owned())
    );
    assert_eq!(
        *capitals.0.lock().unwrap(),
        [
            "MCP server `asker` asks: Your name?",
            "MCP server `asker` asks: Your color?"
        ]
    );

    // A host with nobody to ask: both questions are declined, and the tool sees that.
    let ctx = ToolUseContext::detached("toolu_nobody");
    let output = tool.dispatch(&json!({}), &ctx).unwrap().await.unwrap();
    assert_eq!(
        output.content,
        ToolResultContent::Text("not answered: Decline Decline".to_owned())
    );
    manager.shutdown().await;
    http.shutdown().await;
}

/// Serves the two-question tool with `key` as its request-state key.
async fn serve_keyed(runs: &Arc<AtomicUsize>, key: [u8; 32]) -> (McpServer, HttpServer) {
    let orchestrator = Orchestrator::new(&[two_questions(runs)], OrchestratorConfig::default());
    let server = McpServer::new(orchestrator, "t", "1")
        .unwrap()
        .with_request_state_key(key);
    let http = server
        .serve_http("127.0.0.1:0".parse().unwrap(), HttpOptions::default())
        .await
        .unwrap();
    (server, http)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replicas_that_share_a_request_state_key_take_each_others_rounds() {
    let runs = Arc::new(AtomicUsize::new(0));
    let (_first, first_http) = serve_keyed(&runs, [7; 32]).await;
    let (_second, second_http) = serve_keyed(&runs, [7; 32]).await;
    let (_other, other_http) = serve_keyed(&runs, [8; 32]).await;
    let first = connect(
        &first_http,
        answering(ProtocolVersion::V_2026_07_28, true).0,
    )
    .await;
    let CallToolResponse::InputRequired(round) = first
        .call_tool_once(call("two_questions", json!({})))
        .await
        .unwrap()
    else {
        panic!("expected an InputRequiredResult");
    };
    let mut retry = call("two_questions", json!({}));
    retry.request_state = round.request_state.clone();
    retry.input_responses = Some(
        [(
            "q1".to_owned(),
            json!({"action": "accept", "content": {"name": "EVE"}}),
        )]
        .into(),
    );
    // The next round, through another replica with the same key: q1 is taken, q2 is asked.
    let second = connect(
        &second_http,
        answering(ProtocolVersion::V_2026_07_28, true).0,
    )
    .await;
    let CallToolResponse::InputRequired(next) = second.call_tool_once(retry.clone()).await.unwrap()
    else {
        panic!("expected the next round");
    };
    let requests = serde_json::to_value(&next.input_requests).unwrap();
    assert!(requests.get("q2").is_some(), "{requests}");
    // A server with another key refuses the state, saying why.
    let other = connect(
        &other_http,
        answering(ProtocolVersion::V_2026_07_28, true).0,
    )
    .await;
    let rmcp::ServiceError::McpError(error) = other.call_tool_once(retry).await.unwrap_err() else {
        panic!("expected an MCP error");
    };
    assert_eq!(error.code.0, -32602);
    assert!(
        error.message.contains("with_request_state_key"),
        "{}",
        error.message
    );
    for client in [first, second, other] {
        client.cancel().await.unwrap();
    }
    for http in [first_http, second_http, other_http] {
        http.shutdown().await;
    }
}
