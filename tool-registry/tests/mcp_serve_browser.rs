//! Browser clients of the HTTP server (CORS, `HttpOptions::cors_origins`), over real HTTP as
//! a browser sends it: the preflight `OPTIONS` for a listed origin answered with what the MCP
//! requests need, and refused (`403`) for any other; the answers that follow readable by the
//! listed origin (`Mcp-Session-Id`, `WWW-Authenticate` exposed) and refused to another; the
//! protected-resource metadata readable from the browser too. Without the option no page
//! reads an answer; clients that send no `Origin` are not touched.
#![cfg(feature = "mcp-server")]

use reqwest::Method;
use serde_json::{Value, json};
use tool_registry::mcp::serve::{HttpOptions, HttpServer, McpServer};
use tool_registry::{Orchestrator, OrchestratorConfig};

// The resource-server tests' world; this file uses part of it.
#[allow(dead_code)]
mod mcp_serve_auth_support;
mod mcp_serve_support;
use mcp_serve_auth_support::World;

/// The MCP Inspector's origin, a localhost one (allowed by default).
const INSPECTOR: &str = "http://localhost:6274";
const ELSEWHERE: &str = "https://evil.example";

/// A server whose pages from `cors_origins` may call it from the browser.
async fn serve(cors_origins: &[&str]) -> (McpServer, HttpServer) {
    serve_with(HttpOptions {
        cors_origins: cors_origins
            .iter()
            .map(|origin| (*origin).to_owned())
            .collect(),
        ..Default::default()
    })
    .await
}

/// A server of the `chatty` tool over HTTP with `options`.
async fn serve_with(options: HttpOptions) -> (McpServer, HttpServer) {
    let server = mcp_serve_support::serve_pool(
        &[mcp_serve_support::chatty_tool()],
        OrchestratorConfig::default(),
    );
    let http = server
        .serve_http("127.0.0.1:0".parse().unwrap(), options)
        .await
        .unwrap();
    (server, http)
}

/// The preflight a browser sends before a `POST` with the MCP headers.
async fn preflight(url: &str, origin: &str) -> reqwest::Response {
    reqwest::Client::new()
        .request(Method::OPTIONS, url)
        .header("origin", origin)
        .header("access-control-request-method", "POST")
        .header(
            "access-control-request-headers",
            "authorization,content-type,mcp-method,mcp-name,mcp-protocol-version",
        )
        .send()
        .await
        .unwrap()
}

fn header(response: &reqwest::Response, name: &str) -> Option<String> {
    response
        .headers()
        .get(name)
        .map(|value| value.to_str().unwrap().to_ascii_lowercase())
}

/// A 2026-07-28 `tools/list` to `url` from a page of `origin` (none: not a browser), its
/// answer.
async fn list_from(url: &str, origin: Option<&str>) -> reqwest::Response {
    let mut request = mcp_serve_support::mcp_post(url).header("mcp-method", "tools/list");
    if let Some(origin) = origin {
        request = request.header("origin", origin);
    }
    request.body(list_body()).send().await.unwrap()
}

fn list_body() -> String {
    json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                  "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
                  "io.modelcontextprotocol/clientCapabilities": {}}}})
    .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_listed_origin_is_answered_and_readable_and_another_is_not() {
    let (_server, http) = serve(&[INSPECTOR]).await;
    let url = http.url();

    let allowed = preflight(&url, INSPECTOR).await;
    assert!(allowed.status().is_success(), "{}", allowed.status());
    assert_eq!(
        header(&allowed, "access-control-allow-origin").as_deref(),
        Some(INSPECTOR)
    );
    let methods = header(&allowed, "access-control-allow-methods").unwrap();
    assert!(
        methods.contains("post") && methods.contains("delete"),
        "{methods}"
    );
    let headers = header(&allowed, "access-control-allow-headers").unwrap();
    for needed in [
        "authorization",
        "mcp-protocol-version",
        "mcp-method",
        "mcp-name",
    ] {
        assert!(headers.contains(needed), "{headers}");
    }
    assert_eq!(
        header(&allowed, "access-control-max-age").as_deref(),
        Some("600")
    );

    let refused = preflight(&url, ELSEWHERE).await;
    assert_eq!(refused.status(), 403);
    assert_eq!(header(&refused, "access-control-allow-origin"), None);
    // A localhost page rmcp's `Origin` check lets send is not listed: no preflight granted,
    // and what it sends is answered unreadably.
    let unlisted = preflight(&url, "http://localhost:3000").await;
    assert_eq!(unlisted.status(), 403);

    // The request itself, from each origin.
    let answered = list_from(&url, Some(INSPECTOR)).await;
    assert_eq!(answered.status(), 200);
    assert_eq!(
        header(&answered, "access-control-allow-origin").as_deref(),
        Some(INSPECTOR)
    );
    let exposed = header(&answered, "access-control-expose-headers").unwrap();
    assert!(exposed.contains("mcp-session-id"), "{exposed}");
    assert!(exposed.contains("www-authenticate"), "{exposed}");
    let text = answered.text().await.unwrap();
    assert!(text.contains("\"chatty\""), "{text}");
    let unreadable = list_from(&url, Some("http://localhost:3000")).await;
    assert_eq!(unreadable.status(), 200);
    assert_eq!(header(&unreadable, "access-control-allow-origin"), None);
    let forbidden = list_from(&url, Some(ELSEWHERE)).await;
    assert_eq!(forbidden.status(), 403);
    assert_eq!(header(&forbidden, "access-control-allow-origin"), None);

    // A client that is no browser sends no `Origin`, and gets no CORS headers.
    let plain = list_from(&url, None).await;
    assert_eq!(plain.status(), 200);
    assert_eq!(header(&plain, "access-control-allow-origin"), None);
    assert_eq!(header(&plain, "vary").as_deref(), Some("origin"));
    // Nor does an `OPTIONS` without one, or one that is no preflight: rmcp's 405.
    for origin in [None, Some(INSPECTOR)] {
        let mut options = reqwest::Client::new().request(Method::OPTIONS, &url);
        if let Some(origin) = origin {
            options = options.header("origin", origin);
        }
        assert_eq!(options.send().await.unwrap().status(), 405, "{origin:?}");
    }
    http.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_cors_origins_no_page_reads_an_answer_and_origins_are_read_as_browsers_send_them() {
    // The default: a localhost page passes the `Origin` check, but is granted no CORS.
    let (_server, http) = serve(&[]).await;
    assert_eq!(preflight(&http.url(), INSPECTOR).await.status(), 405);
    let sent = list_from(&http.url(), Some(INSPECTOR)).await;
    assert_eq!(sent.status(), 200);
    assert_eq!(header(&sent, "access-control-allow-origin"), None);
    http.shutdown().await;

    // A web page's origin as written: https without a port is its default port, and no
    // other.
    let (_server, http) = serve(&["https://agent.example"]).await;
    let granted = preflight(&http.url(), "https://agent.example").await;
    assert_eq!(
        header(&granted, "access-control-allow-origin").as_deref(),
        Some("https://agent.example")
    );
    // A public page calling a server on loopback: Chrome's Private Network Access preflight.
    let private = reqwest::Client::new()
        .request(Method::OPTIONS, http.url())
        .header("origin", "https://agent.example")
        .header("access-control-request-method", "POST")
        .header("access-control-request-private-network", "true")
        .send()
        .await
        .unwrap();
    assert_eq!(
        header(&private, "access-control-allow-private-network").as_deref(),
        Some("true")
    );
    assert!(private.status().is_success());
    assert_eq!(
        preflight(&http.url(), "https://agent.example:8443")
            .await
            .status(),
        403
    );
    // Listed, the web agent's page passes the `Origin` check too, and reads the answer.
    let served = list_from(&http.url(), Some("https://agent.example")).await;
    assert_eq!(served.status(), 200);
    assert_eq!(
        header(&served, "access-control-allow-origin").as_deref(),
        Some("https://agent.example")
    );
    assert_eq!(
        list_from(&http.url(), Some("https://agent.example:8443"))
            .await
            .status(),
        403
    );
    http.shutdown().await;

    // With no other origin accepted, the listed ones still are.
    let (_server, http) = serve_with(HttpOptions {
        allowed_origins: Vec::new(),
        cors_origins: vec![INSPECTOR.to_owned()],
        ..Default::default()
    })
    .await;
    for (origin, status) in [(INSPECTOR, 200), ("http://localhost:3000", 403)] {
        let answer = list_from(&http.url(), Some(origin)).await;
        assert_eq!(answer.status(), status, "{origin}");
    }
    http.shutdown().await;

    // An address written in another form than a browser's still matches the browser's.
    let (_server, http) = serve(&["http://[0:0::1]:4000", "http://127.1:4001"]).await;
    for origin in ["http://[::1]:4000", "http://127.0.0.1:4001"] {
        let granted = preflight(&http.url(), origin).await;
        assert_eq!(
            header(&granted, "access-control-allow-origin").as_deref(),
            Some(origin)
        );
        assert_eq!(list_from(&http.url(), Some(origin)).await.status(), 200);
    }
    http.shutdown().await;

    // An entry that is no origin is refused when the server starts, naming it.
    let orchestrator = Orchestrator::new(&[], OrchestratorConfig::default());
    let server = McpServer::new(orchestrator, "t", "1").unwrap();
    let refused = server
        .serve_http(
            "127.0.0.1:0".parse().unwrap(),
            HttpOptions {
                cors_origins: vec!["agent.example".to_owned()],
                ..Default::default()
            },
        )
        .await
        .unwrap_err()
        .to_string();
    assert!(
        refused.contains("`agent.example` is no origin"),
        "{refused}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_browser_session_reads_its_id_and_a_protected_server_says_how_to_log_in() {
    let (_server, http) = serve(&[INSPECTOR]).await;
    let initialized = reqwest::Client::new()
        .post(http.url())
        .header("origin", INSPECTOR)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"}}})
            .to_string(),
        )
        .send()
        .await
        .unwrap();
    assert_eq!(initialized.status(), 200);
    assert!(initialized.headers().contains_key("mcp-session-id"));
    assert!(
        header(&initialized, "access-control-expose-headers")
            .unwrap()
            .contains("mcp-session-id")
    );
    http.shutdown().await;

    // Behind OAuth: the browser reads the 401's challenge, then the metadata it points to.
    let world = World::start_with(HttpOptions {
        cors_origins: vec![INSPECTOR.to_owned()],
        ..Default::default()
    })
    .await;
    let allowed = preflight(&world.resource, INSPECTOR).await;
    assert_eq!(
        header(&allowed, "access-control-allow-origin").as_deref(),
        Some(INSPECTOR)
    );
    let unauthorized = list_from(&world.resource, Some(INSPECTOR)).await;
    assert_eq!(unauthorized.status(), 401);
    assert_eq!(
        header(&unauthorized, "access-control-allow-origin").as_deref(),
        Some(INSPECTOR)
    );
    let challenge = header(&unauthorized, "www-authenticate").unwrap();
    let metadata_url = challenge
        .split("resource_metadata=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .unwrap_or_else(|| panic!("{challenge}"))
        .to_owned();
    let metadata = reqwest::Client::new()
        .get(&metadata_url)
        .header("origin", INSPECTOR)
        .send()
        .await
        .unwrap();
    assert_eq!(metadata.status(), 200);
    assert_eq!(
        header(&metadata, "access-control-allow-origin").as_deref(),
        Some(INSPECTOR)
    );
    // Its copy for a client without `Origin` says that it varies by origin (for caches).
    let plain = reqwest::get(&metadata_url).await.unwrap();
    assert_eq!(header(&plain, "vary").as_deref(), Some("origin"));
    let document: Value = metadata.json().await.unwrap();
    assert_eq!(document["resource"], world.resource.as_str());
    // Logged in, the browser's request is served and its answer readable.
    let served = mcp_serve_support::mcp_post(&world.resource)
        .header("origin", INSPECTOR)
        .header("mcp-method", "tools/list")
        .header(
            "authorization",
            format!("Bearer {}", world.token(json!({}))),
        )
        .body(list_body())
        .send()
        .await
        .unwrap();
    assert_eq!(served.status(), 200);
    assert_eq!(
        header(&served, "access-control-allow-origin").as_deref(),
        Some(INSPECTOR)
    );
    world.http.shutdown().await;
}
