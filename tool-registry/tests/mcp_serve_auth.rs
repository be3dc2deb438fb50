//! The HTTP server as an OAuth resource server (`HttpOptions::auth`), over real HTTP: an
//! authorization server's metadata and key set served by a small HTTP server of the test,
//! access tokens signed here with its Ed25519 key (and forged ones), requests made by reqwest
//! and by rmcp's client. The end-to-end test with a real authorization server is
//! `examples/tests/serve_auth.rs`.
#![cfg(feature = "mcp-server")]

use base64::Engine as _;
use rmcp::ServiceExt as _;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::{Value, json};
use tool_registry::mcp::serve::auth::ResourceAuth;
use tool_registry::mcp::serve::{HttpOptions, McpServer};
use tool_registry::{Orchestrator, OrchestratorConfig};

mod mcp_serve_auth_support;
mod mcp_serve_support;
use mcp_serve_auth_support::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_is_followed_only_by_the_principal_who_started_it() {
    let world = World::start().await;
    let ada = format!("Bearer {}", world.token(json!({})));
    let grace = format!("Bearer {}", world.token(json!({"sub": "grace"})));
    let (status, _, created) = world
        .post(
            Some(&ada),
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                   "params": with_meta(json!({"name": "slow", "arguments": {}}))}),
        )
        .await;
    assert_eq!(status, 200, "{created}");
    let id = created["result"]["taskId"]
        .as_str()
        .unwrap_or_else(|| panic!("a task: {created}"))
        .to_owned();
    let get = |id: &str| {
        json!({"jsonrpc": "2.0", "id": 2, "method": "tasks/get",
               "params": with_meta(json!({"taskId": id}))})
    };
    let cancel = json!({"jsonrpc": "2.0", "id": 3, "method": "tasks/cancel",
                        "params": with_meta(json!({"taskId": id}))});
    // Another principal: no such task, for reading or cancelling.
    let (_, _, theirs) = world.post(Some(&grace), get(&id)).await;
    assert_eq!(theirs["error"]["code"], -32602, "{theirs}");
    let (_, _, cancelled) = world.post(Some(&grace), cancel).await;
    assert_eq!(cancelled["error"]["code"], -32602, "{cancelled}");
    // Its owner follows it to its result.
    let mut done = Value::Null;
    for _ in 0..60 {
        let (_, _, read) = world.post(Some(&ada), get(&id)).await;
        if read["result"]["status"] == "completed" {
            done = read;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(
        done["result"]["result"]["content"][0]["text"], "slow and done",
        "{done}"
    );
    world.http.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_bad_token_is_refused_with_the_reason_and_the_metadata_url() {
    let world = World::start().await;
    let metadata_url = format!(
        "http://{}/.well-known/oauth-protected-resource/mcp",
        world.http.local_addr()
    );

    // No token: 401 pointing at the metadata, which names the issuer.
    let (status, challenge, _) = world.post(None, list()).await;
    assert_eq!(status, 401);
    assert_eq!(
        challenge,
        format!("Bearer resource_metadata=\"{metadata_url}\", scope=\"mcp:tools\"")
    );
    let metadata: Value = reqwest::get(&metadata_url)
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        metadata,
        json!({"resource": world.resource, "authorization_servers": [world.issuer],
               "scopes_supported": ["admin", "mcp:tools", "vault:read"], "bearer_methods_supported": ["header"]})
    );

    let valid = world.token(json!({}));
    let bad_signature = {
        let parts: Vec<&str> = valid.split('.').collect();
        let engine = base64::engine::general_purpose::URL_SAFE_NO_PAD;
        let mut signature = engine.decode(parts[2]).unwrap();
        signature[0] ^= 1;
        format!("{}.{}.{}", parts[0], parts[1], engine.encode(signature))
    };
    let forged_header = |header: Value| {
        let parts: Vec<&str> = valid.split('.').collect();
        format!("{}.{}.{}", b64(&header), parts[1], parts[2])
    };
    let cases = [
        (
            world.token(json!({"aud": "http://elsewhere/mcp"})),
            "not for this resource",
        ),
        (
            world.token(json!({"iss": "http://evil"})),
            "issued by another server",
        ),
        (world.token(json!({"exp": now() - 120})), "expired"),
        (
            world.signed(
                Some("test-key"),
                &json!({"iss": world.issuer, "sub": "ada", "scope": "mcp:tools", "exp": now() + 300}),
            ),
            "no `aud` claim",
        ),
        (world.token(json!({"aud": null})), "no `aud` claim"),
        (world.token(json!({"aud": [world.resource, 5]})), "no `aud` claim"),
        (world.token(json!({"aud": []})), "not for this resource"),
        (world.token(json!({"aud": ""})), "not for this resource"),
        (world.token(json!({"nbf": now() + 600})), "not valid yet"),
        (bad_signature, "signature is not valid"),
        (
            forged_header(json!({"alg": "EdDSA", "kid": "rotated-away"})),
            "key `rotated-away` is not in",
        ),
        (
            forged_header(json!({"alg": "RS256", "kid": "enc-key"})),
            "key `enc-key` is an encryption key",
        ),
        (
            forged_header(json!({"alg": "EdDSA", "kid": "pq-key"})),
            "key `pq-key` is for another algorithm",
        ),
        (
            forged_header(json!({"alg": "RS256"})),
            "no single key for RS256",
        ),
        (forged_header(json!({"alg": "none"})), "not a signed JWT"),
        (
            forged_header(json!({"alg": "HS256", "kid": "test-key"})),
            "asymmetric signatures only",
        ),
        ("not-a-jwt".to_owned(), "not a signed JWT"),
        (format!("{valid}x"), "malformed"),
    ];
    for (token, why) in cases {
        let (status, challenge, body) = world.post(Some(&format!("Bearer {token}")), list()).await;
        assert_eq!(status, 401, "{why}: {challenge}");
        assert!(
            challenge.starts_with(&format!(
                "Bearer resource_metadata=\"{metadata_url}\", error=\"invalid_token\""
            )) && challenge.contains(why),
            "{why}: {challenge}"
        );
        assert_eq!(body["error"], "invalid_token", "{body}");
    }

    // A token without the required scope: 403, naming it.
    let (status, challenge, _) = world
        .post(
            Some(&format!(
                "Bearer {}",
                world.token(json!({"scope": "other"}))
            )),
            list(),
        )
        .await;
    assert_eq!(status, 403);
    assert!(
        challenge.contains("error=\"insufficient_scope\", scope=\"mcp:tools\""),
        "{challenge}"
    );

    // A token without `kid` (RFC 7515 makes it optional): the set's one key for its
    // algorithm verifies it, the encryption and unknown keys beside it notwithstanding.
    let claims = json!({"iss": world.issuer, "aud": world.resource, "sub": "ada",
                        "scope": "mcp:tools", "exp": now() + 300});
    let kidless = format!("Bearer {}", world.signed(None, &claims));
    let (status, challenge, body) = world.post(Some(&kidless), list()).await;
    assert_eq!(status, 200, "{challenge} {body}");
    assert!(body["result"]["tools"].is_array(), "{body}");

    // The resource URL as clients spell it in the resource indicator: with a trailing slash,
    // the host in capitals, or among other audiences.
    let other_host = world.resource.replace("127.0.0.1", "localhost");
    let spelled = [
        json!(format!("{}/", world.resource)),
        json!([
            "https://elsewhere.example/mcp",
            world.resource.replace("http://", "HTTP://")
        ]),
    ];
    for audience in spelled {
        let token = format!("Bearer {}", world.token(json!({"aud": audience})));
        let (status, challenge, body) = world.post(Some(&token), list()).await;
        assert_eq!(status, 200, "aud {audience}: {challenge} {body}");
    }
    // Another host is another resource.
    let token = format!("Bearer {}", world.token(json!({"aud": other_host})));
    let (status, challenge, _) = world.post(Some(&token), list()).await;
    assert_eq!(status, 401, "{challenge}");
    assert!(challenge.contains("not for this resource"), "{challenge}");
    world.http.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_needing_a_scope_is_hidden_and_refused_and_tools_see_the_principal() {
    let world = World::start().await;
    let connect = |token: String| {
        let config = StreamableHttpClientTransportConfig::with_uri(world.resource.clone())
            .auth_header(token);
        ().serve(StreamableHttpClientTransport::from_config(config))
    };

    // Without `admin`: `secret` is not listed, and calling it is 403 naming the scope.
    let basic = world.token(json!({}));
    let client = connect(basic.clone()).await.unwrap();
    let names: Vec<String> = client
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|tool| tool.name.into_owned())
        .collect();
    assert_eq!(names, ["whoami", "slow"]);
    let me = client
        .call_tool(CallToolRequestParams::new("whoami"))
        .await
        .unwrap();
    assert_eq!(
        me.content[0].as_text().unwrap().text,
        "ada via cli with {\"mcp:tools\"}"
    );
    client.cancel().await.unwrap();
    let (status, challenge, _) = world
        .post(
            Some(&format!("Bearer {basic}")),
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
                "name": "secret", "arguments": {},
                "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                          "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
                          "io.modelcontextprotocol/clientCapabilities": {}}}}),
        )
        .await;
    assert_eq!(status, 403);
    assert!(
        challenge.contains("error=\"insufficient_scope\", scope=\"mcp:tools admin\""),
        "{challenge}"
    );
    // A scope the tool declares itself (`#[tool(scopes = "vault:read")]`) works the same.
    let (status, challenge, _) = world
        .post(
            Some(&format!("Bearer {basic}")),
            json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
                "name": "vault", "arguments": {},
                "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                          "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
                          "io.modelcontextprotocol/clientCapabilities": {}}}}),
        )
        .await;
    assert_eq!(status, 403);
    assert!(
        challenge.contains("error=\"insufficient_scope\", scope=\"mcp:tools vault:read\""),
        "{challenge}"
    );

    // With them: listed and answered.
    let admin = world.token(json!({"scope": "mcp:tools admin vault:read", "sub": "grace"}));
    let client = connect(admin).await.unwrap();
    assert_eq!(client.list_all_tools().await.unwrap().len(), 4);
    let vault = client
        .call_tool(CallToolRequestParams::new("vault"))
        .await
        .unwrap();
    assert_eq!(vault.content[0].as_text().unwrap().text, "the vault");
    let secret = client
        .call_tool(CallToolRequestParams::new("secret"))
        .await
        .unwrap();
    assert_eq!(secret.content[0].as_text().unwrap().text, "the secret");
    client.cancel().await.unwrap();
    world.http.shutdown().await;
}

#[tokio::test]
async fn a_remote_address_needs_auth_or_an_explicit_opt_out() {
    let tools = [tool_sdk::dyn_tool::<WhoAmI>()];
    let server = McpServer::new(
        Orchestrator::new(&tools, OrchestratorConfig::default()),
        "t",
        "1",
    )
    .unwrap();
    let error = server
        .serve_http("0.0.0.0:0".parse().unwrap(), HttpOptions::default())
        .await
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("checks no access tokens") && error.contains("--insecure-no-auth"),
        "{error}"
    );
    let with_auth = HttpOptions {
        auth: Some(ResourceAuth::new(
            "http://mcp.example/mcp",
            "http://auth.example",
        )),
        ..Default::default()
    };
    let http = server
        .serve_http("0.0.0.0:0".parse().unwrap(), with_auth)
        .await
        .unwrap();
    http.shutdown().await;
    // Scopes for a tool the pool does not have would protect nothing: refused at the start.
    let misnamed = HttpOptions {
        auth: Some(
            ResourceAuth::new("http://mcp.example/mcp", "http://auth.example")
                .with_tool_scopes("WhoAmI", ["admin"]),
        ),
        ..Default::default()
    };
    let error = server
        .serve_http("127.0.0.1:0".parse().unwrap(), misnamed)
        .await
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("the tool `WhoAmI`") && error.contains("case-sensitive"),
        "{error}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_admitted_json_body_that_is_no_json_rpc_message_is_a_400() {
    let world = World::start().await;
    let bearer = format!("Bearer {}", world.token(json!({})));
    for body in [
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/li"#,
        r#"{"jsonrpc":"1.0","id":1,"method":"tools/list"}"#,
    ] {
        let admitted = mcp_serve_support::mcp_post(&world.resource)
            .header("authorization", &bearer)
            .body(body);
        assert_eq!(mcp_serve_support::status_of(admitted).await, 400, "{body}");
    }
    // Without a token the door answers first, whatever the body.
    let anonymous = reqwest::Client::new()
        .post(&world.resource)
        .header("content-type", "application/json")
        .body("42");
    assert_eq!(mcp_serve_support::status_of(anonymous).await, 401);
    world.http.shutdown().await;
}

/// Sessions in memory, shared by the test: what another replica sees.
#[derive(Default)]
struct SharedSessions(std::sync::Mutex<std::collections::HashMap<String, SessionState>>);

#[async_trait::async_trait]
impl SessionStore for SharedSessions {
    async fn load(&self, id: &str) -> Result<Option<SessionState>, SessionStoreError> {
        Ok(self.0.lock().unwrap().get(id).cloned())
    }
    async fn store(&self, id: &str, state: &SessionState) -> Result<(), SessionStoreError> {
        self.0.lock().unwrap().insert(id.to_owned(), state.clone());
        Ok(())
    }
    async fn delete(&self, id: &str) -> Result<(), SessionStoreError> {
        self.0.lock().unwrap().remove(id);
        Ok(())
    }
}

use rmcp::transport::streamable_http_server::session::{
    SessionState, SessionStore, SessionStoreError,
};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn behind_the_token_check_a_session_ended_elsewhere_ends_here_and_a_delete_reaches_the_store()
{
    let store = std::sync::Arc::new(SharedSessions::default());
    let world = World::start_with(HttpOptions {
        session_store: Some(store.clone()),
        ..Default::default()
    })
    .await;
    let bearer = format!("Bearer {}", world.token(json!({})));
    let request = |method: reqwest::Method, session: Option<&str>, body: Value| {
        let (url, bearer) = (&world.resource, Some(bearer.as_str()));
        mcp_serve_support::session_request(url, method, session, bearer, &body).send()
    };
    let initialize = || mcp_serve_support::initialize_session(&world.resource, Some(&bearer));
    let ping = || json!({"jsonrpc": "2.0", "id": 2, "method": "ping"});
    let (first, second) = (initialize().await, initialize().await);
    assert!(store.0.lock().unwrap().contains_key(&first));

    // Ended through another replica (gone from the store): ended here at its next request
    // once a lookup is due.
    store.0.lock().unwrap().remove(&first);
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    let status = |response: reqwest::Response| response.status().as_u16();
    let pinged = request(reqwest::Method::POST, Some(&first), ping()).await;
    assert_eq!(status(pinged.unwrap()), 404);
    let pinged = request(reqwest::Method::POST, Some(&second), ping()).await;
    assert_eq!(status(pinged.unwrap()), 200);
    // Ended here: gone from the store for every replica.
    let deleted = request(reqwest::Method::DELETE, Some(&second), json!({})).await;
    assert!(deleted.unwrap().status().is_success());
    assert!(!store.0.lock().unwrap().contains_key(&second));
    world.http.shutdown().await;
}
