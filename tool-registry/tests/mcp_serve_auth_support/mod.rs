//! The world of the OAuth resource-server tests (`mcp_serve_auth.rs`): an authorization
//! server (its RFC 8414 metadata and a key set as authorization servers publish them) served
//! by a small HTTP server, a served pool with tools that need scopes, and tokens signed with
//! the authorization server's Ed25519 key.

use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tool_registry::mcp::serve::auth::ResourceAuth;
use tool_registry::mcp::serve::{HttpOptions, HttpServer, McpServer};
use tool_registry::{Orchestrator, OrchestratorConfig};
use tool_sdk::context::Principal;
use tool_sdk::prelude::*;

use crate::mcp_serve_support;

/// The test authorization server's signing key (made for this test only).
pub const PRIVATE_KEY: &str = "-----BEGIN PRIVATE KEY-----
MC4CAQAwBQYDK2VwBCIEIBbLwfb9INwyhQ9Hb/XHv0jONDPyF3e7sKV2Amon5c8N
-----END PRIVATE KEY-----
";
/// Its public half, as a JWK `x`.
pub const PUBLIC_X: &str = "EB8gU7MffHDAitrmpoZAs0BekMn5bk3VD-LZZJEWQbg";

/// Says who called it.
#[tool(
    name = "whoami",
    max_result_size_chars = 10_000,
    read_only,
    concurrency_safe
)]
#[derive(Deserialize, JsonSchema)]
pub struct WhoAmI {}

#[tool]
impl Tool for WhoAmI {
    type Output = String;
    async fn call(self, ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        let principal = ctx
            .get::<Principal>()
            .ok_or_else(|| ToolError::new("no principal"))?;
        Ok(ToolResult::new(format!(
            "{} via {} with {:?}",
            principal.subject.as_deref().unwrap_or("?"),
            principal.client_id.as_deref().unwrap_or("?"),
            principal.scopes
        )))
    }
}

/// Needs the `admin` scope.
#[tool(
    name = "secret",
    max_result_size_chars = 10_000,
    read_only,
    concurrency_safe
)]
#[derive(Deserialize, JsonSchema)]
pub struct Secret {}

#[tool]
impl Tool for Secret {
    type Output = String;
    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        Ok(ToolResult::new("the secret".to_owned()))
    }
}

/// Declares the scope it needs.
#[tool(
    name = "vault",
    max_result_size_chars = 10_000,
    read_only,
    concurrency_safe,
    scopes = "vault:read"
)]
#[derive(Deserialize, JsonSchema)]
pub struct Vault {}

#[tool]
impl Tool for Vault {
    type Output = String;
    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        Ok(ToolResult::new("the vault".to_owned()))
    }
}

/// Works a second, as a task.
#[tool(
    name = "slow",
    max_result_size_chars = 10_000,
    read_only,
    concurrency_safe,
    task = "optional"
)]
#[derive(Deserialize, JsonSchema)]
pub struct Slow {}

#[tool]
impl Tool for Slow {
    type Output = String;
    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        tokio::time::sleep(std::time::Duration::from_millis(1000)).await;
        Ok(ToolResult::new("slow and done".to_owned()))
    }
}

/// Serves the issuer's RFC 8414 metadata and its key set, until the test ends.
pub async fn authorization_server() -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let issuer = format!("http://{}", listener.local_addr().unwrap());
    let metadata = json!({"issuer": issuer, "jwks_uri": format!("{issuer}/jwks")});
    // As authorization servers publish them: beside the signing key, an encryption key (as
    // Keycloak's) and a key of a type this server does not know (a post-quantum one).
    let keys = json!({"keys": [
        {"kty": "OKP", "crv": "Ed25519", "x": PUBLIC_X, "kid": "test-key", "alg": "EdDSA", "use": "sig"},
        {"kty": "RSA", "kid": "enc-key", "alg": "RSA-OAEP", "use": "enc", "e": "AQAB",
         "n": "sXchDaQebHnPiGvyDOAT4saGEUetSyo9MKLOoWFsueri23bOdgWp4Dy1WlUzewbgBHod5pcM9H95GQRV3JDXboIRROSBigeC5yjU1hGzHHyXss8UDprecbAYxknTcQkhslANGRUZmdTOQ5qTRsLAt6BTYuyvVRdhS8exSZEy_c4gs_7svlJJQ4H9_NxsiIoLwAEk7-Q3UXERGYw_75IDrGA84-lA_-Ct4eTlXHBIY2EaV7t7LjJaynVJCpkv4LKjTTAumiGUIuQhrNhZLuF_RJLqHpM2kgWFLU7-VTdL1VbC2tejvcI2BlMkEpk1BzBZI0KQB0GaDWFLN-aEAw3vRw"},
        {"kty": "AKP", "kid": "pq-key", "alg": "ML-DSA-44", "pub": "AAAA"}
    ]});
    tokio::spawn(async move {
        loop {
            let Ok((mut stream, _)) = listener.accept().await else {
                return;
            };
            let (metadata, keys) = (metadata.clone(), keys.clone());
            tokio::spawn(async move {
                let mut request = vec![0u8; 4096];
                let read = stream.read(&mut request).await.unwrap_or(0);
                let request = String::from_utf8_lossy(&request[..read]);
                let path = request.split_whitespace().nth(1).unwrap_or("/");
                let (status, body) = match path {
                    "/.well-known/oauth-authorization-server" => ("200 OK", metadata.to_string()),
                    "/jwks" => ("200 OK", keys.to_string()),
                    _ => ("404 Not Found", "{}".to_owned()),
                };
                let response = format!(
                    "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = stream.write_all(response.as_bytes()).await;
            });
        }
    });
    issuer
}

pub fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

pub struct World {
    pub issuer: String,
    pub resource: String,
    pub http: HttpServer,
}

impl World {
    pub async fn start() -> Self {
        Self::start_with(HttpOptions::default()).await
    }

    /// The world, its server started with `options` (its `auth` and `json_response` set
    /// here).
    pub async fn start_with(options: HttpOptions) -> Self {
        let issuer = authorization_server().await;
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        drop(listener);
        let resource = format!("http://{addr}/mcp");
        let tools = [
            tool_sdk::dyn_tool::<WhoAmI>(),
            tool_sdk::dyn_tool::<Secret>(),
            tool_sdk::dyn_tool::<Vault>(),
            tool_sdk::dyn_tool::<Slow>(),
        ];
        let server = McpServer::new(
            Orchestrator::new(&tools, OrchestratorConfig::default()),
            "t",
            "1",
        )
        .unwrap();
        let auth = ResourceAuth::new(&resource, &issuer)
            .with_required_scopes(["mcp:tools"])
            .with_tool_scopes("secret", ["admin"]);
        let http = server
            .serve_http(
                addr,
                HttpOptions {
                    auth: Some(auth),
                    json_response: true,
                    ..options
                },
            )
            .await
            .unwrap();
        Self {
            issuer,
            resource,
            http,
        }
    }

    /// A token signed by the authorization server's key, with `claims` over the defaults.
    pub fn token(&self, claims: Value) -> String {
        let mut all = json!({
            "iss": self.issuer, "aud": self.resource, "sub": "ada", "client_id": "cli",
            "scope": "mcp:tools", "iat": now(), "exp": now() + 300,
        });
        for (name, value) in claims.as_object().unwrap() {
            all[name] = value.clone();
        }
        self.signed(Some("test-key"), &all)
    }

    /// `claims` signed by the authorization server's key, its header naming `kid`.
    pub fn signed(&self, kid: Option<&str>, claims: &Value) -> String {
        let mut header = Header::new(Algorithm::EdDSA);
        header.kid = kid.map(str::to_owned);
        let key = EncodingKey::from_ed_pem(PRIVATE_KEY.as_bytes()).unwrap();
        jsonwebtoken::encode(&header, claims, &key).unwrap()
    }

    /// A `tools/list` POST with `authorization`; its status, `WWW-Authenticate` and body.
    pub async fn post(&self, authorization: Option<&str>, body: Value) -> (u16, String, Value) {
        let mut request = mcp_serve_support::mcp_post(&self.resource)
            .header("mcp-method", body["method"].as_str().unwrap());
        if let Some(name) = body["params"]["name"]
            .as_str()
            .or(body["params"]["taskId"].as_str())
        {
            request = request.header("mcp-name", name);
        }
        if let Some(authorization) = authorization {
            request = request.header("authorization", authorization);
        }
        let response = request.body(body.to_string()).send().await.unwrap();
        let status = response.status().as_u16();
        let challenge = response
            .headers()
            .get("www-authenticate")
            .map(|value| value.to_str().unwrap().to_owned())
            .unwrap_or_default();
        let body = response.json().await.unwrap_or(Value::Null);
        (status, challenge, body)
    }
}

/// A 2026-07-28 request's params with `_meta` (declaring the tasks extension).
pub fn with_meta(mut params: Value) -> Value {
    params["_meta"] = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {
            "extensions": {"io.modelcontextprotocol/tasks": {}}}});
    params
}

pub fn list() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                  "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
                  "io.modelcontextprotocol/clientCapabilities": {}}}})
}

pub fn b64(value: &Value) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(value.to_string())
}
