//! Limits that protect a served pool, over real HTTP: requests one client may have running and
//! make per second (429 with `Retry-After`, other clients unaffected), a client that never
//! finishes its headers (disconnected), a flood of `tasks/get` for ids that do not exist
//! (each refused, the server still serving), JSON bodies that are no JSON-RPC message (400
//! with a JSON-RPC error),
//! and `Host` values off the allowed list (403, DNS-rebinding protection) or unreadable (400).
#![cfg(feature = "mcp-server")]

use std::io::{Read as _, Write as _};
use std::time::{Duration, Instant};

use rmcp::model::{GetTaskParams, ProtocolVersion};
use serde_json::{Value, json};
use tool_registry::mcp::serve::{HttpOptions, HttpServer};

mod mcp_serve_support;
use mcp_serve_support::status_of;
mod mcp_tasks_support;
use mcp_tasks_support::*;

async fn serve(options: HttpOptions) -> HttpServer {
    server(None)
        .serve_http("127.0.0.1:0".parse().unwrap(), options)
        .await
        .unwrap()
}

/// A stateless `tools/call` of `sleepy` for `millis`; its status and `Retry-After`.
async fn call_sleepy(http: &HttpServer, millis: u64) -> (u16, Option<String>) {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "sleepy", "arguments": {"millis": millis},
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                  "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
                  "io.modelcontextprotocol/clientCapabilities": {}}}});
    let response = mcp_serve_support::mcp_post(&http.url())
        .header("mcp-method", "tools/call")
        .header("mcp-name", "sleepy")
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    let retry = response
        .headers()
        .get("retry-after")
        .map(|value| value.to_str().unwrap().to_owned());
    // Read to the end: the permit is held until the body ends.
    let _ = response.bytes().await;
    (status, retry)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_over_its_running_limit_gets_429_until_a_request_ends() {
    let http = serve(HttpOptions {
        max_concurrent_per_client: Some(2),
        ..Default::default()
    })
    .await;
    let long = || call_sleepy(&http, 800);
    let started = Instant::now();
    let (first, second, third) = tokio::join!(long(), long(), async {
        tokio::time::sleep(Duration::from_millis(300)).await;
        call_sleepy(&http, 1).await
    });
    assert_eq!(first.0, 200);
    assert_eq!(second.0, 200);
    assert_eq!(third, (429, Some("1".to_owned())));
    assert!(started.elapsed() >= Duration::from_millis(800));
    // Once they ended, the client runs again.
    assert_eq!(call_sleepy(&http, 1).await.0, 200);
    http.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_over_its_rate_gets_429_with_retry_after() {
    let http = serve(HttpOptions {
        max_requests_per_second_per_client: Some(5),
        ..Default::default()
    })
    .await;
    // Twelve at once: a burst of five passes, the rest are turned away (a refill every
    // 200 ms may let one or two more through on a slow machine).
    let statuses = futures::future::join_all((0..12).map(|_| call_sleepy(&http, 1))).await;
    let ok = statuses.iter().filter(|(status, _)| *status == 200).count();
    let limited: Vec<_> = statuses
        .iter()
        .filter(|(status, _)| *status == 429)
        .collect();
    assert!(ok >= 5 && limited.len() >= 4, "{statuses:?}");
    assert_eq!(ok + limited.len(), 12, "{statuses:?}");
    assert!(
        limited
            .iter()
            .all(|(_, retry)| retry.as_deref() == Some("1")),
        "{statuses:?}"
    );
    tokio::time::sleep(Duration::from_millis(1100)).await;
    assert_eq!(call_sleepy(&http, 1).await.0, 200);
    http.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_never_finishes_its_headers_is_disconnected() {
    let http = serve(HttpOptions::default()).await;
    let addr = http.local_addr();
    let cut = tokio::task::spawn_blocking(move || {
        let mut stream = std::net::TcpStream::connect(addr).unwrap();
        stream
            .write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
            .unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        let started = Instant::now();
        let mut buffer = Vec::new();
        let _ = stream.read_to_end(&mut buffer);
        (
            started.elapsed(),
            String::from_utf8_lossy(&buffer).into_owned(),
        )
    });
    // Meanwhile the server serves others.
    let client = connect(&http, true, ProtocolVersion::V_2026_07_28).await;
    assert!(!client.list_all_tools().await.unwrap().is_empty());
    let (after, answer) = cut.await.unwrap();
    assert!(
        after >= Duration::from_secs(9) && after < Duration::from_secs(20),
        "{after:?} {answer}"
    );
    client.cancel().await.unwrap();
    http.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_of_tasks_get_for_unknown_ids_is_refused_and_the_server_serves_on() {
    let http = serve(HttpOptions::default()).await;
    let client = connect(&http, true, ProtocolVersion::V_2026_07_28).await;
    let gets = (0..2000).map(|n| {
        let client = &client;
        async move {
            client
                .get_task(GetTaskParams::new(format!("no-such-task-{n}")))
                .await
        }
    });
    let answers = futures::future::join_all(gets).await;
    for answer in &answers {
        let error = answer.as_ref().unwrap_err().to_string();
        assert!(error.contains("Unknown task"), "{error}");
    }
    // The server still calls tools.
    let id = task_id(
        client
            .call_tool_once(call("sleepy", json!({"millis": 300})))
            .await
            .unwrap(),
    );
    let done: Value = settled(&client, &id, rmcp::model::TaskStatus::Completed).await;
    assert_eq!(done["status"], "completed");
    client.cancel().await.unwrap();
    http.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_json_body_that_is_no_json_rpc_message_is_a_400() {
    let http = serve(HttpOptions::default()).await;
    // JSON-RPC 2.0 §5.1: -32700 for a body that is no JSON, -32600 for JSON that is no
    // JSON-RPC message; the id unknown (null).
    for (body, code, said) in [
        ("\u{0}not json", -32700, "Parse error"),
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/li"#,
            -32700,
            "EOF while parsing",
        ),
        ("", -32700, "Parse error"),
        (
            r#"{"jsonrpc":"1.0","id":1,"method":"tools/list"}"#,
            -32600,
            "Invalid Request",
        ),
        ("42", -32600, "Invalid Request"),
        ("[]", -32600, "Invalid Request"),
        (
            r#"{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}"#,
            -32600,
            "\"id\"",
        ),
        (
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":5}"#,
            -32600,
            "params",
        ),
    ] {
        let response = mcp_serve_support::mcp_post(&http.url())
            .body(body)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 400, "{body}");
        assert_eq!(response.headers()["content-type"], "application/json");
        let error: Value = response.json().await.unwrap();
        assert_eq!(error["jsonrpc"], "2.0", "{body}");
        assert_eq!(error.get("id"), Some(&Value::Null), "{body}: {error}");
        assert_eq!(error["error"]["code"], code, "{body}: {error}");
        let message = error["error"]["message"].as_str().unwrap();
        assert!(message.contains(said), "{body}: {message}");
    }
    // A request naming neither a session nor a revision is read as 2025-11-25 and needs a
    // session; the answer also says how a stateless 2026-07-28 request names its revision.
    let unplaced = reqwest::Client::new()
        .post(http.url())
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(unplaced.status(), 400);
    let text = unplaced.text().await.unwrap();
    assert!(
        text.starts_with("Bad Request: Session ID is required"),
        "{text}"
    );
    assert!(text.contains("MCP-Protocol-Version: 2026-07-28"), "{text}");
    // The media type is compared as rmcp compares it: without regard to case (a garbage
    // body is still no JSON), and another type is still 415 whatever its body.
    let shouted = reqwest::Client::new()
        .post(http.url())
        .header("content-type", "Application/JSON; charset=utf-8")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .body("garbage")
        .send()
        .await
        .unwrap();
    assert_eq!(shouted.status(), 400);
    let error: Value = shouted.json().await.unwrap();
    assert_eq!(error["error"]["code"], -32700, "{error}");
    let sequence = reqwest::Client::new()
        .post(http.url())
        .header("content-type", "application/json-seq")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .body(r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#);
    assert_eq!(status_of(sequence).await, 415);
    // A body of another media type is still 415.
    let other = reqwest::Client::new()
        .post(http.url())
        .header("content-type", "text/plain")
        .header("accept", "application/json, text/event-stream")
        .body("hello");
    assert_eq!(status_of(other).await, 415);
    assert_eq!(call_sleepy(&http, 1).await.0, 200);
    http.shutdown().await;
}

/// The status line of the answer to a raw `method` request (a `tools/list` body) to the MCP
/// endpoint at `addr` with `host` as its `Host` header.
fn raw_status(addr: std::net::SocketAddr, method: &str, host: &str) -> String {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                  "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
                  "io.modelcontextprotocol/clientCapabilities": {}}}})
    .to_string();
    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    write!(
        stream,
        "{method} /mcp HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMcp-Protocol-Version: 2026-07-28\r\n\
         Mcp-Method: tools/list\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut answer = String::new();
    let _ = stream.read_to_string(&mut answer);
    answer.lines().next().unwrap_or_default().to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_host_off_the_allowed_list_is_a_403_and_an_unreadable_one_a_400() {
    let options = HttpOptions {
        allowed_hosts: vec![
            "localhost".into(),
            "127.0.0.1".into(),
            "tools.example:443".into(),
        ],
        ..HttpOptions::default()
    };
    let http = serve(options).await;
    let addr = http.local_addr();
    let port = addr.port();
    let cases = [
        (format!("127.0.0.1:{port}"), "200"),
        (format!("LOCALHOST:{port}"), "200"),
        ("tools.example:443".to_owned(), "200"),
        ("tools.example:8443".to_owned(), "403"),
        (format!("evil.example:{port}"), "403"),
        ("[::1]:80".to_owned(), "403"),
        ("a b".to_owned(), "400"),
    ];
    for (host, expected) in cases {
        let status = tokio::task::spawn_blocking({
            let host = host.clone();
            move || raw_status(addr, "POST", &host)
        })
        .await
        .unwrap();
        assert!(
            status.starts_with(&format!("HTTP/1.1 {expected} ")),
            "Host {host}: {status}"
        );
    }
    http.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_host_off_the_list_is_refused_before_the_token_check_whatever_the_method() {
    use tool_registry::mcp::serve::auth::ResourceAuth;
    let options = HttpOptions {
        auth: Some(ResourceAuth::new(
            "http://mcp.example/mcp",
            "http://auth.example",
        )),
        ..HttpOptions::default()
    };
    let http = serve(options).await;
    let addr = http.local_addr();
    let answers = tokio::task::spawn_blocking(move || {
        ["POST", "GET", "DELETE"].map(|method| {
            (
                method,
                raw_status(addr, method, "evil.example"),
                raw_status(addr, method, "127.0.0.1"),
            )
        })
    })
    .await
    .unwrap();
    for (method, evil, ours) in answers {
        assert!(
            evil.starts_with("HTTP/1.1 403 "),
            "{method} evil.example: {evil}"
        );
        // Without a token, an allowed host meets the token check.
        assert!(
            ours.starts_with("HTTP/1.1 401 "),
            "{method} 127.0.0.1: {ours}"
        );
    }
    http.shutdown().await;
}
