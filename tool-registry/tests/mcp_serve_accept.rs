//! What clients, as they are configured in use, get at the MCP endpoint over real HTTP. The
//! endpoint's path with a trailing slash is the endpoint. By their `Accept`: clients that take
//! JSON or SSE (or anything: `*/*`, no `Accept`) are served in the form they take, whether
//! the server answers JSON or SSE by default, under MCP 2026-07-28 and in a 2025-11-25
//! session; a client that takes neither gets `406` saying what to send; a tool called by a
//! JSON-only client that asks it something on the way is told at once that it cannot.
#![cfg(feature = "mcp-server")]

use std::sync::Arc;

use futures::StreamExt as _;
use serde_json::{Value, json};
use tool_registry::OrchestratorConfig;
use tool_registry::dynamic::{DynamicTool, ToolHandler};
use tool_registry::mcp::serve::{HttpOptions, HttpServer, McpServer, ServedCall};
use tool_sdk::elicitation::Elicitation;
use tool_sdk::{DynTool, ToolError, ToolResultContent, ToolUseContext};

mod mcp_serve_support;
use mcp_serve_support::chatty_tool;

/// Asks the client one question (an `elicitation/create` request in a 2025-11-25 session).
fn asking_tool() -> Arc<dyn DynTool> {
    let handler = ToolHandler::new(|_input, ctx: ToolUseContext| async move {
        let question = Elicitation::new(
            "Your name?",
            json!({"type": "object", "properties": {"name": {"type": "string"}}}),
        );
        let answer = ctx.elicit(question).await?;
        Ok::<_, ToolError>(ToolResultContent::Text(format!("{answer:?}")))
    });
    let definition = json!({
        "name": "asking",
        "description": "Asks for a name.",
        "input_schema": {"type": "object", "properties": {}},
    });
    Arc::new(DynamicTool::from_json(&definition, handler).unwrap())
}

/// Asks the client for its roots through the session's peer itself (not `request_input`),
/// and answers with what came back. (rmcp marks `roots/list` deprecated for its next
/// revision; a 2025-11-25 session still has it.)
#[allow(deprecated)]
fn peer_asking_tool() -> Arc<dyn DynTool> {
    let handler = ToolHandler::new(|_input, ctx: ToolUseContext| async move {
        let served = ctx
            .get::<ServedCall>()
            .ok_or_else(|| ToolError::new("not served"))?;
        let text = match served.peer().list_roots().await {
            Ok(roots) => format!("roots: {roots:?}"),
            Err(error) => format!("no roots: {error}"),
        };
        Ok::<_, ToolError>(ToolResultContent::Text(text))
    });
    let definition = json!({
        "name": "peer_asking",
        "description": "Asks the client for its roots through the peer.",
        "input_schema": {"type": "object", "properties": {}},
    });
    Arc::new(DynamicTool::from_json(&definition, handler).unwrap())
}

async fn serve(json_response: bool) -> (McpServer, HttpServer) {
    let server = mcp_serve_support::serve_pool(
        &[chatty_tool(), asking_tool(), peer_asking_tool()],
        OrchestratorConfig::default(),
    );
    let http = server
        .serve_http(
            "127.0.0.1:0".parse().unwrap(),
            HttpOptions {
                json_response,
                ..Default::default()
            },
        )
        .await
        .unwrap();
    (server, http)
}

/// A 2026-07-28 `tools/call` of `chatty`, which reports progress and logs before it answers
/// (unless `quiet`: then the call asks for neither).
fn chatty_call(accept: Option<&str>, url: &str, quiet: bool) -> reqwest::RequestBuilder {
    let mut meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                          "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
                          "io.modelcontextprotocol/clientCapabilities": {}});
    if !quiet {
        meta["io.modelcontextprotocol/logLevel"] = json!("debug");
        meta["progressToken"] = json!("p");
    }
    let body = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
        "name": "chatty", "arguments": {}, "_meta": meta}});
    let request = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", "chatty")
        .body(body.to_string());
    match accept {
        Some(accept) => request.header("accept", accept),
        None => request,
    }
}

/// The answer's content type and the JSON-RPC messages in its body (one for JSON, each
/// event's for SSE).
async fn read(response: reqwest::Response) -> (String, Vec<Value>) {
    let kind = response
        .headers()
        .get("content-type")
        .map(|value| value.to_str().unwrap().to_owned())
        .unwrap_or_default();
    if kind.starts_with("text/event-stream") {
        let mut events = sse_stream::SseStream::from_bytes_stream(response.bytes_stream());
        let mut messages = Vec::new();
        while let Some(event) = events.next().await {
            if let Some(data) = event.unwrap().data.filter(|data| !data.is_empty()) {
                messages.push(serde_json::from_str(&data).unwrap());
            }
        }
        (kind, messages)
    } else {
        let body = response.bytes().await.unwrap();
        (kind, vec![serde_json::from_slice(&body).unwrap()])
    }
}

fn chatted(message: &Value) -> bool {
    message["id"] == 7
        && message["result"]["content"][0]["text"]
            .as_str()
            .is_some_and(|text| text.starts_with("chatted"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clients_are_answered_in_the_form_their_accept_takes() {
    for json_response in [false, true] {
        let (_server, http) = serve(json_response).await;
        let url = http.url();
        for quiet in [false, true] {
            // rmcp answers SSE, or (with `json_response`) JSON when nothing comes before the
            // answer.
            let by_default = if json_response && quiet {
                "application/json"
            } else {
                "text/event-stream"
            };
            for (accept, form) in [
                (Some("application/json, text/event-stream"), by_default),
                (Some("*/*"), by_default),
                // reqwest's own `Accept: */*` (no `Accept` at all: the test below).
                (None, by_default),
                (Some("application/*, text/*;q=0.5"), by_default),
                (Some("application/json"), "application/json"),
                (Some("*/*, text/event-stream;q=0"), "application/json"),
                (Some("text/event-stream"), "text/event-stream"),
                (Some("text/*, application/json;q=0"), "text/event-stream"),
            ] {
                let case = format!("{accept:?}, json_response {json_response}, quiet {quiet}");
                let response = chatty_call(accept, &url, quiet).send().await.unwrap();
                assert_eq!(response.status(), 200, "{case}");
                let (kind, messages) = read(response).await;
                assert!(kind.starts_with(form), "{case}: {kind}");
                let (answer, before) = messages.split_last().unwrap();
                assert!(chatted(answer), "{case}: {answer}");
                // What comes before the answer: notifications, in a stream only (a progress
                // report and two log lines, unless quiet).
                assert!(before.iter().all(|message| message.get("method").is_some()));
                let expected = if form == "application/json" || quiet {
                    0
                } else {
                    4
                };
                assert_eq!(before.len(), expected, "{case}: {before:?}");
            }
        }
        http.shutdown().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_without_accept_takes_anything() {
    use std::io::{Read as _, Write as _};
    // reqwest sends `Accept: */*` unless told otherwise; this request has no `Accept` at all.
    let (_server, http) = serve(true).await;
    let body = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
        "name": "chatty", "arguments": {},
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                  "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
                  "io.modelcontextprotocol/clientCapabilities": {}}}})
    .to_string();
    let addr = http.local_addr();
    let answer = tokio::task::spawn_blocking(move || {
        let mut stream = std::net::TcpStream::connect(addr).unwrap();
        write!(
            stream,
            "POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n\
             Mcp-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: chatty\r\n\
             Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).unwrap();
        answer
    })
    .await
    .unwrap();
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(
        answer
            .to_ascii_lowercase()
            .contains("content-type: application/json"),
        "{answer}"
    );
    let json = &answer[answer.find("\r\n\r\n").unwrap() + 4..];
    assert!(chatted(&serde_json::from_str(json).unwrap()), "{json}");
    http.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_configured_with_a_trailing_slash_is_served_at_the_same_endpoint() {
    let (_server, http) = serve(false).await;
    let slashed = format!("{}/", http.url());
    let response = chatty_call(None, &slashed, true).send().await.unwrap();
    assert_eq!(response.status(), 200);
    let (_, messages) = read(response).await;
    assert!(chatted(messages.last().unwrap()));
    let elsewhere = format!("{}/x", http.url());
    let response = chatty_call(None, &elsewhere, true).send().await.unwrap();
    assert_eq!(response.status(), 404);
    http.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_takes_neither_form_gets_406_saying_what_to_send() {
    let (_server, http) = serve(false).await;
    for accept in [
        "text/html",
        "application/xml, text/plain",
        "*/*;q=0",
        "application/json;q=0, text/event-stream;q=0",
    ] {
        let response = chatty_call(Some(accept), &http.url(), true)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 406, "{accept}");
        let text = response.text().await.unwrap();
        assert!(
            text.contains("Accept: application/json, text/event-stream"),
            "{accept}: {text}"
        );
    }
    // A GET opens a stream: it needs text/event-stream.
    let refused = reqwest::Client::new()
        .get(http.url())
        .header("accept", "application/json")
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), 406);
    assert!(refused.text().await.unwrap().contains("text/event-stream"));
    http.shutdown().await;
}

/// A 2025-11-25 session opened by a client that takes JSON only.
async fn json_only_session(http: &HttpServer, capabilities: Value) -> String {
    let client = reqwest::Client::new();
    let initialized = client
        .post(http.url())
        .header("content-type", "application/json")
        .header("accept", "application/json")
        .body(
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": capabilities,
                "clientInfo": {"name": "t", "version": "1"}}})
            .to_string(),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(initialized.status(), 200);
    let session = initialized.headers()["mcp-session-id"]
        .to_str()
        .unwrap()
        .to_owned();
    let (kind, messages) = read(initialized).await;
    assert!(kind.starts_with("application/json"), "{kind}");
    assert_eq!(messages[0]["result"]["protocolVersion"], "2025-11-25");
    let notified = session_post(
        http,
        &session,
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    )
    .await;
    assert_eq!(notified.status(), 202);
    session
}

async fn session_post(http: &HttpServer, session: &str, body: Value) -> reqwest::Response {
    reqwest::Client::new()
        .post(http.url())
        .header("content-type", "application/json")
        .header("accept", "application/json")
        .header("mcp-session-id", session)
        .header("mcp-protocol-version", "2025-11-25")
        .body(body.to_string())
        .send()
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_json_only_client_holds_a_2025_session_and_its_calls_cannot_ask_it_anything() {
    let (_server, http) = serve(false).await;
    let session = json_only_session(&http, json!({"elicitation": {}, "roots": {}})).await;
    // rmcp answers every request of a session with a stream; the client gets its answer.
    let listed = session_post(
        &http,
        &session,
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}),
    )
    .await;
    assert_eq!(listed.status(), 200);
    let (kind, messages) = read(listed).await;
    assert!(kind.starts_with("application/json"), "{kind}");
    assert_eq!(messages[0]["id"], 2);
    assert_eq!(messages[0]["result"]["tools"].as_array().unwrap().len(), 3);
    let chatted_answer = session_post(
        &http,
        &session,
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
               "params": {"name": "chatty", "arguments": {}, "_meta": {"progressToken": 1}}}),
    )
    .await;
    let (_, messages) = read(chatted_answer).await;
    assert_eq!(messages[0]["id"], 3);
    assert!(
        messages[0]["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with("chatted")
    );
    // A call that would ask the client something on the way (only a stream carries such a
    // request): the tool is told at once that it cannot, and the call answers.
    let asked = tokio::time::timeout(
        std::time::Duration::from_secs(10),
        session_post(
            &http,
            &session,
            json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
                   "params": {"name": "asking", "arguments": {}}}),
        ),
    )
    .await
    .expect("answered, not left waiting for an elicitation the client cannot see");
    assert_eq!(asked.status(), 200);
    let (kind, messages) = read(asked).await;
    assert!(kind.starts_with("application/json"), "{kind}");
    let result = &messages[0]["result"];
    assert_eq!(messages[0]["id"], 4);
    assert_eq!(result["isError"], true, "{result}");
    let said = result["content"][0]["text"].as_str().unwrap();
    assert!(said.contains("cannot be asked anything"), "{said}");
    assert!(said.contains("text/event-stream"), "{said}");
    // A tool that sends the request through the session's peer itself: the request is
    // declined on the client's behalf, and the call goes on to its answer.
    let peer_asked = tokio::time::timeout(
        std::time::Duration::from_secs(10),
        session_post(
            &http,
            &session,
            json!({"jsonrpc": "2.0", "id": 6, "method": "tools/call",
                   "params": {"name": "peer_asking", "arguments": {}}}),
        ),
    )
    .await
    .expect("answered, not left waiting for a request the client cannot see");
    assert_eq!(peer_asked.status(), 200);
    let (kind, messages) = read(peer_asked).await;
    assert!(kind.starts_with("application/json"), "{kind}");
    assert_eq!(messages[0]["id"], 6);
    let said = messages[0]["result"]["content"][0]["text"]
        .as_str()
        .unwrap();
    assert!(said.starts_with("no roots:"), "{said}");
    assert!(
        said.contains("roots/list cannot reach this client"),
        "{said}"
    );
    // The same call from a client that takes a stream is asked (and here, not answering,
    // is still waiting when it gives up).
    let streaming = reqwest::Client::new()
        .post(http.url())
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-session-id", &session)
        .header("mcp-protocol-version", "2025-11-25")
        .body(
            json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
                   "params": {"name": "asking", "arguments": {}}})
            .to_string(),
        )
        .send()
        .await
        .unwrap();
    let mut events = sse_stream::SseStream::from_bytes_stream(streaming.bytes_stream());
    let first = loop {
        let event = events.next().await.unwrap().unwrap();
        if let Some(data) = event.data.filter(|data| !data.is_empty()) {
            break serde_json::from_str::<Value>(&data).unwrap();
        }
    };
    assert_eq!(first["method"], "elicitation/create", "{first}");
    drop(events);
    let ended = reqwest::Client::new()
        .delete(http.url())
        .header("mcp-session-id", &session)
        .header("mcp-protocol-version", "2025-11-25")
        .send()
        .await
        .unwrap();
    assert_eq!(ended.status(), 204);
    http.shutdown().await;
}
