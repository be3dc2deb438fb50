//! What a server needs to run as one of several replicas behind a load balancer, over real
//! HTTP: liveness and readiness endpoints, a request body limit, a shutdown that ends its
//! running tasks at once (rather than at their lease), and, with the `redis` feature and
//! Debian's `redis-server`, an MCP 2025-11-25 session made on one replica served by another.
#![cfg(feature = "mcp-server")]

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::ProtocolVersion;
use serde_json::json;
use tool_registry::mcp::serve::tasks::{MemoryTaskStore, TaskState, TaskStore};

mod mcp_serve_support;
mod mcp_tasks_support;
#[cfg(feature = "redis")]
mod redis_support;
#[cfg(feature = "redis")]
use mcp_serve_support::{initialize_session, session_request};
use mcp_tasks_support::*;

fn base(http: &tool_registry::mcp::serve::HttpServer) -> String {
    format!("http://{}", http.local_addr())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn liveness_and_readiness_answer_beside_the_endpoint() {
    let server = server(None);
    let http = http(&server).await;
    let client = reqwest::Client::new();
    for (path, status, text) in [
        ("/healthz", 200, "ok\n"),
        ("/readyz", 200, "ready\n"),
        ("/elsewhere", 404, "Not Found: the MCP endpoint is /mcp\n"),
    ] {
        let response = client
            .get(format!("{}{path}", base(&http)))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status().as_u16(), status, "{path}");
        assert_eq!(response.text().await.unwrap(), text, "{path}");
    }
    http.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_over_the_limit_is_refused_with_413() {
    let server = server(None);
    let options = tool_registry::mcp::serve::HttpOptions {
        max_request_body_bytes: 1024,
        ..Default::default()
    };
    let http = server
        .serve_http("127.0.0.1:0".parse().unwrap(), options)
        .await
        .unwrap();
    let big = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"pad": "x".repeat(4096)}});
    let response = reqwest::Client::new()
        .post(http.url())
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .body(big.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 413);
    // The server still serves.
    let client = connect(&http, true, ProtocolVersion::V_2026_07_28).await;
    assert!(!client.list_all_tools().await.unwrap().is_empty());
    client.cancel().await.unwrap();
    http.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutting_down_ends_the_running_tasks_at_once_and_not_later_ones() {
    let store: Arc<dyn TaskStore> = Arc::new(MemoryTaskStore::new());
    let server = server(Some(Arc::clone(&store)));
    let first = http(&server).await;
    let client = connect(&first, true, ProtocolVersion::V_2026_07_28).await;
    let id = task_id(
        client
            .call_tool_once(call("sleepy", json!({"millis": 20_000})))
            .await
            .unwrap(),
    );
    client.cancel().await.unwrap();
    first.shutdown().await;
    // Written before `shutdown` returned: a process that exits right after loses nothing.
    let ended = store.get(&id).await.unwrap().unwrap();
    assert!(ended.is_terminal(), "{ended:?}");
    let TaskState::Failed { error } = &ended.state else {
        panic!("{ended:?}");
    };
    assert!(
        error["message"]
            .as_str()
            .is_some_and(|message| message.contains("the server shut down")),
        "{error:?}"
    );

    // The same server, served again: its new tasks run to the end.
    let second = http(&server).await;
    let client = connect(&second, true, ProtocolVersion::V_2026_07_28).await;
    let id = task_id(
        client
            .call_tool_once(call("sleepy", json!({"millis": 500})))
            .await
            .unwrap(),
    );
    let done = settled(&client, &id, rmcp::model::TaskStatus::Completed).await;
    assert_eq!(done["status"], "completed", "{done}");
    client.cancel().await.unwrap();
    second.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_running_at_shutdown_still_answers() {
    let server = server(None);
    let http = http(&server).await;
    // No tasks: the call runs in its request, answered over SSE.
    let client = connect(&http, false, ProtocolVersion::V_2026_07_28).await;
    let call = client.call_tool(call("sleepy", json!({"millis": 1000})));
    let stop = async {
        tokio::time::sleep(Duration::from_millis(300)).await;
        http.shutdown().await;
    };
    let (answer, ()) = tokio::join!(call, stop);
    let answer = answer.expect("the call answered during the shutdown");
    assert_eq!(answer.content[0].as_text().unwrap().text, "slept 1000 ms");
}

/// A replica serving the test tools with `store` for tasks and 2025-11-25 sessions.
#[cfg(feature = "redis")]
async fn replica(
    store: Arc<tool_registry::mcp::serve::RedisStore>,
) -> (
    tool_registry::mcp::serve::McpServer,
    tool_registry::mcp::serve::HttpServer,
) {
    let server = server(Some(store.clone()));
    let options = tool_registry::mcp::serve::HttpOptions {
        session_store: Some(store),
        json_response: true,
        ..Default::default()
    };
    let http = server
        .serve_http("127.0.0.1:0".parse().unwrap(), options)
        .await
        .unwrap();
    (server, http)
}

#[cfg(feature = "redis")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2025_session_made_on_one_replica_is_served_by_another_through_redis() {
    use tool_registry::mcp::serve::{HttpOptions, RedisStore};
    let Some(redis) = redis_support::Redis::start() else {
        return;
    };
    let connect_store = || async { Arc::new(RedisStore::connect(&redis.url()).await.unwrap()) };
    let (_first, first) = replica(connect_store().await).await;
    let (_second, second) = replica(connect_store().await).await;
    // Without a shared session store, for comparison.
    let (_third, third) = {
        let server = server(None);
        let http = server
            .serve_http(
                "127.0.0.1:0".parse().unwrap(),
                HttpOptions {
                    json_response: true,
                    ..Default::default()
                },
            )
            .await
            .unwrap();
        (server, http)
    };

    // A 2025-11-25 client's requests, as its SDK sends them (the session id from the
    // `initialize` answer, then every request carrying it).
    let post = |url: String, session: Option<String>, body: serde_json::Value| async move {
        session_request(&url, reqwest::Method::POST, session.as_deref(), None, &body)
            .send()
            .await
    };
    let session = initialize_session(&first.url(), None).await;
    let notified = post(
        first.url(),
        Some(session.clone()),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    )
    .await
    .unwrap();
    assert_eq!(notified.status().as_u16(), 202);

    let call_body = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "sleepy", "arguments": {"millis": 10}}});
    let on_second = post(second.url(), Some(session.clone()), call_body.clone())
        .await
        .unwrap();
    assert_eq!(on_second.status().as_u16(), 200);
    // A JSON body, or an SSE stream (the call reports progress) whose last event answers.
    let body = on_second.text().await.unwrap();
    let answer: serde_json::Value = serde_json::from_str(&body)
        .ok()
        .or_else(|| {
            body.lines()
                .filter_map(|line| line.strip_prefix("data:"))
                .filter_map(|data| serde_json::from_str::<serde_json::Value>(data.trim()).ok())
                .find(|message| message["id"] == 2)
        })
        .unwrap_or_else(|| panic!("no answer in {body}"));
    assert_eq!(
        answer["result"]["content"][0]["text"], "slept 10 ms",
        "{answer}"
    );
    let on_third = post(third.url(), Some(session.clone()), call_body.clone())
        .await
        .unwrap();
    assert_eq!(
        on_third.status().as_u16(),
        404,
        "a replica without the shared store does not know the session"
    );

    // The client ends its session through the first replica; the second, which has served
    // it from memory since (looked up in Redis a moment ago), ends it too, within the second
    // it may go without looking again, and answers 404 as MCP requires of an ended session.
    let again = post(second.url(), Some(session.clone()), call_body.clone())
        .await
        .unwrap();
    assert_eq!(again.status().as_u16(), 200);
    let deleted = session_request(
        &first.url(),
        reqwest::Method::DELETE,
        Some(&session),
        None,
        &json!({}),
    )
    .send()
    .await
    .unwrap();
    assert!(deleted.status().is_success(), "{}", deleted.status());
    let deadline = std::time::Instant::now() + Duration::from_secs(3);
    loop {
        let status = post(second.url(), Some(session.clone()), call_body.clone())
            .await
            .unwrap()
            .status()
            .as_u16();
        if status == 404 {
            break;
        }
        assert_eq!(status, 200);
        assert!(
            std::time::Instant::now() < deadline,
            "a session ended through another replica is still served 3 s later"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let on_first = post(first.url(), Some(session), call_body).await.unwrap();
    assert_eq!(on_first.status().as_u16(), 404);
    for http in [first, second, third] {
        http.shutdown().await;
    }
}

#[cfg(feature = "redis")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_in_use_is_kept_longer_in_redis_and_an_unknown_one_is_not_made() {
    use rmcp::transport::streamable_http_server::session::{SessionState, SessionStore};
    use tool_registry::mcp::serve::RedisStore;
    let Some(redis) = redis_support::Redis::start() else {
        return;
    };
    let store = RedisStore::connect(&redis.url()).await.unwrap();
    let raw = redis::Client::open(redis.url()).unwrap();
    let mut raw = raw.get_multiplexed_async_connection().await.unwrap();
    let state: SessionState = serde_json::from_value(json!({"initialize_params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"}}}))
    .unwrap();
    store.store("s1", &state).await.unwrap();
    let pttl = |raw: &mut redis::aio::MultiplexedConnection, key: &'static str| {
        let mut raw = raw.clone();
        async move {
            redis::cmd("PTTL")
                .arg(key)
                .query_async::<i64>(&mut raw)
                .await
                .unwrap()
        }
    };
    let day_ms = 24 * 3600 * 1000;
    assert!(pttl(&mut raw, "tool-sdk:session:s1").await > day_ms - 60_000);

    // Nearly expired, then looked up (a replica serving it): kept another day.
    let () = redis::cmd("PEXPIRE")
        .arg("tool-sdk:session:s1")
        .arg(5_000)
        .query_async(&mut raw)
        .await
        .unwrap();
    assert!(store.load("s1").await.unwrap().is_some());
    assert!(pttl(&mut raw, "tool-sdk:session:s1").await > day_ms - 60_000);
    // Looked up with most of its time left: not written again (the time only runs down).
    let () = redis::cmd("PEXPIRE")
        .arg("tool-sdk:session:s1")
        .arg(day_ms - 1_800_000)
        .query_async(&mut raw)
        .await
        .unwrap();
    assert!(store.load("s1").await.unwrap().is_some());
    assert!(pttl(&mut raw, "tool-sdk:session:s1").await <= day_ms - 1_800_000);

    assert!(store.load("unknown").await.unwrap().is_none());
    assert_eq!(pttl(&mut raw, "tool-sdk:session:unknown").await, -2);
}

#[cfg(feature = "redis")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_delete_the_store_cannot_confirm_is_503_and_other_sessions_are_served_from_memory() {
    use tool_registry::mcp::serve::RedisStore;
    let Some(redis) = redis_support::Redis::start() else {
        return;
    };
    let store = Arc::new(RedisStore::connect(&redis.url()).await.unwrap());
    let (_server, http) = replica(store).await;
    let url = http.url();
    let request = |method: reqwest::Method, session: Option<&str>, body: serde_json::Value| {
        session_request(&url, method, session, None, &body).send()
    };
    let (ended, other) = (
        initialize_session(&url, None).await,
        initialize_session(&url, None).await,
    );
    let ping = || json!({"jsonrpc": "2.0", "id": 2, "method": "ping"});

    // Redis gone: the DELETE ends the session here but cannot for the other replicas, and
    // says so, in bounded time.
    drop(redis);
    let started = std::time::Instant::now();
    let deleted = request(reqwest::Method::DELETE, Some(&ended), json!({}))
        .await
        .unwrap();
    assert_eq!(deleted.status().as_u16(), 503);
    let said = deleted.text().await.unwrap();
    assert!(said.contains("send the DELETE again"), "{said}");
    assert!(started.elapsed() < Duration::from_secs(4));
    // Not held here any more, and not to be restored from a store that fails (rmcp: 500).
    let pinged = request(reqwest::Method::POST, Some(&ended), ping())
        .await
        .unwrap();
    assert_eq!(pinged.status().as_u16(), 500);
    // Another session is still served here, from memory, without waiting on the store: a
    // lookup is due by now, but lookups are paused since the store failed the DELETE.
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let started = std::time::Instant::now();
    let pinged = request(reqwest::Method::POST, Some(&other), ping())
        .await
        .unwrap();
    assert_eq!(pinged.status().as_u16(), 200);
    assert!(started.elapsed() < Duration::from_secs(1));
    http.shutdown().await;
}
