//! The OAuth end-to-end test's world: a real authorization server (npm `oidc-provider`, run
//! by `tests/mcp_peers/oidc_provider.mjs` with the suite's Node 22) and a protected MCP
//! resource: a token check in front of `tool-host serve --http` that validates each access
//! token (an RS256 JWT) against the authorization server's JWKS with audience = the resource,
//! publishes RFC 9728 metadata at the well-known path, and answers 401 with
//! `WWW-Authenticate` (MCP 2025-11-25 "Authorization", resource server side).
//!
//! A second resource, `/wrong/mcp`, names an authorization server whose metadata carries
//! another issuer (RFC 8414 §3.3): the client must refuse it.
// Shared by tests that use different parts of it.
#![allow(dead_code)]

use std::collections::HashSet;
use std::convert::Infallible;
use std::io::{BufRead as _, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use futures::TryStreamExt as _;
use http_body_util::{BodyExt as _, Full, StreamBody, combinators::BoxBody};
use hyper::body::{Frame, Incoming};
use hyper::{Request, Response, StatusCode};
use jsonwebtoken::jwk::JwkSet;
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde_json::{Value, json};

type Body = BoxBody<Bytes, std::io::Error>;

/// The authorization server child, killed when dropped.
pub struct AuthorizationServer {
    child: Child,
    /// Its issuer identifier, `http://127.0.0.1:PORT`.
    pub issuer: String,
}

impl Drop for AuthorizationServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts oidc-provider for `resource`, access tokens living `ttl_secs`.
pub fn start_authorization_server(
    node: &Path,
    oidc_dir: &Path,
    resource: &str,
    ttl_secs: u64,
) -> AuthorizationServer {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp_peers/oidc_provider.mjs");
    let mut child = Command::new(node)
        .arg(script)
        .arg(resource)
        .arg(ttl_secs.to_string())
        .env("OIDC_PROVIDER_DIR", oidc_dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("node runs the authorization server");
    let mut line = String::new();
    let mut stdout = BufReader::new(child.stdout.take().expect("piped stdout"));
    stdout
        .read_line(&mut line)
        .expect("the authorization server prints its issuer");
    // Whatever it prints later is read, so it never writes to a closed pipe.
    std::thread::spawn(move || std::io::copy(&mut stdout, &mut std::io::sink()));
    let issuer = line
        .trim()
        .strip_prefix("issuer ")
        .unwrap_or_else(|| panic!("unexpected first line: {line:?}"))
        .to_owned();
    AuthorizationServer { child, issuer }
}

/// The protected resource, serving until dropped.
pub struct ProtectedResource {
    /// The MCP endpoint, `http://127.0.0.1:PORT/mcp`: the resource identifier.
    pub url: String,
    /// The endpoint whose metadata names an authorization server of the wrong issuer.
    pub wrong_url: String,
    state: Arc<State>,
    _runtime: tokio::runtime::Runtime,
}

struct State {
    base: String,
    issuer: String,
    upstream: String,
    keys: JwkSet,
    issuer_metadata: Value,
    accepted: Mutex<Vec<String>>,
    revoked: Mutex<HashSet<String>>,
    http: reqwest::Client,
}

impl ProtectedResource {
    /// Binds a port: the resource's URL is known before the authorization server starts.
    pub fn bind() -> (std::net::TcpListener, String) {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
        let base = format!("http://{}", listener.local_addr().unwrap());
        (listener, base)
    }

    /// Serves on `listener` (its base URL `base`), checking tokens of `issuer` and passing
    /// the accepted requests to the MCP server at `upstream`.
    pub fn serve(
        listener: std::net::TcpListener,
        base: &str,
        issuer: &str,
        upstream: &str,
    ) -> Self {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let http = reqwest::Client::new();
        let (keys, issuer_metadata) = runtime.block_on(async {
            let metadata: Value = http
                .get(format!("{issuer}/.well-known/openid-configuration"))
                .send()
                .await
                .unwrap()
                .json()
                .await
                .unwrap();
            let keys: JwkSet = http
                .get(metadata["jwks_uri"].as_str().unwrap())
                .send()
                .await
                .unwrap()
                .json()
                .await
                .unwrap();
            (keys, metadata)
        });
        let state = Arc::new(State {
            base: base.to_owned(),
            issuer: issuer.to_owned(),
            upstream: upstream.to_owned(),
            keys,
            issuer_metadata,
            accepted: Mutex::default(),
            revoked: Mutex::default(),
            http,
        });
        listener.set_nonblocking(true).unwrap();
        let serving = Arc::clone(&state);
        runtime.spawn(async move {
            let listener = tokio::net::TcpListener::from_std(listener).unwrap();
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    return;
                };
                let state = Arc::clone(&serving);
                tokio::spawn(async move {
                    let service = hyper::service::service_fn(move |request| {
                        let state = Arc::clone(&state);
                        async move { Ok::<_, Infallible>(state.answer(request).await) }
                    });
                    let _ = hyper::server::conn::http1::Builder::new()
                        .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                        .await;
                });
            }
        });
        Self {
            url: format!("{base}/mcp"),
            wrong_url: format!("{base}/wrong/mcp"),
            state,
            _runtime: runtime,
        }
    }

    /// Every access token accepted so far, in order (kept in the test only, never printed).
    pub fn accepted(&self) -> Vec<String> {
        self.state.accepted.lock().unwrap().clone()
    }

    /// From now on refuses every token accepted so far, as a resource whose tokens were
    /// revoked does.
    pub fn revoke_accepted(&self) {
        let accepted = self.accepted();
        self.state.revoked.lock().unwrap().extend(accepted);
    }
}

fn json_response(status: StatusCode, value: &Value) -> Response<Body> {
    let mut response = Response::new(full(value.to_string().into_bytes()));
    *response.status_mut() = status;
    response.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("application/json"),
    );
    response
}

fn full(bytes: Vec<u8>) -> Body {
    Full::new(Bytes::from(bytes))
        .map_err(|never| match never {})
        .boxed()
}

impl State {
    fn metadata_url(&self, path: &str) -> String {
        format!("{}/.well-known/oauth-protected-resource{path}", self.base)
    }

    async fn answer(&self, request: Request<Incoming>) -> Response<Body> {
        let path = request.uri().path().to_owned();
        match path.as_str() {
            "/.well-known/oauth-protected-resource/mcp" => json_response(
                StatusCode::OK,
                &json!({
                    "resource": format!("{}/mcp", self.base),
                    "authorization_servers": [self.issuer],
                    "scopes_supported": ["mcp:tools"],
                    "bearer_methods_supported": ["header"],
                }),
            ),
            "/.well-known/oauth-protected-resource/wrong/mcp" => json_response(
                StatusCode::OK,
                &json!({
                    "resource": format!("{}/wrong/mcp", self.base),
                    "authorization_servers": [format!("{}/evil", self.base)],
                    "scopes_supported": ["mcp:tools"],
                }),
            ),
            // The real authorization server's metadata, published under another issuer's
            // URL: its `issuer` does not match.
            "/.well-known/oauth-authorization-server/evil"
            | "/.well-known/openid-configuration/evil"
            | "/evil/.well-known/openid-configuration" => {
                json_response(StatusCode::OK, &self.issuer_metadata)
            }
            "/mcp" => self.protected(request).await,
            "/wrong/mcp" => self.challenge("/wrong/mcp", None),
            _ => json_response(StatusCode::NOT_FOUND, &json!({"error": "not found"})),
        }
    }

    /// 401 with the RFC 9728 `resource_metadata` pointer (RFC 6750 §3).
    fn challenge(&self, path: &str, error: Option<&str>) -> Response<Body> {
        let mut value = format!(
            "Bearer resource_metadata=\"{}\", scope=\"mcp:tools\"",
            self.metadata_url(path)
        );
        if let Some(error) = error {
            value.push_str(&format!(", error=\"{error}\""));
        }
        let mut response =
            json_response(StatusCode::UNAUTHORIZED, &json!({"error": "unauthorized"}));
        response.headers_mut().insert(
            hyper::header::WWW_AUTHENTICATE,
            hyper::header::HeaderValue::from_str(&value).unwrap(),
        );
        response
    }

    fn valid(&self, token: &str) -> bool {
        if self.revoked.lock().unwrap().contains(token) {
            return false;
        }
        let Ok(header) = jsonwebtoken::decode_header(token) else {
            return false;
        };
        let Some(jwk) = header.kid.as_deref().and_then(|kid| self.keys.find(kid)) else {
            return false;
        };
        let Ok(key) = DecodingKey::from_jwk(jwk) else {
            return false;
        };
        let mut validation = Validation::new(Algorithm::RS256);
        validation.set_audience(&[format!("{}/mcp", self.base)]);
        validation.set_issuer(&[&self.issuer]);
        validation.leeway = 0;
        jsonwebtoken::decode::<Value>(token, &key, &validation).is_ok()
    }

    async fn protected(&self, request: Request<Incoming>) -> Response<Body> {
        let token = request
            .headers()
            .get(hyper::header::AUTHORIZATION)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.strip_prefix("Bearer "))
            .map(str::to_owned);
        let Some(token) = token else {
            return self.challenge("/mcp", None);
        };
        if !self.valid(&token) {
            return self.challenge("/mcp", Some("invalid_token"));
        }
        {
            let mut accepted = self.accepted.lock().unwrap();
            if accepted.last() != Some(&token) {
                accepted.push(token);
            }
        }
        self.forward(request).await
    }

    /// The request, without its token, to the MCP server behind; its answer streamed back.
    async fn forward(&self, request: Request<Incoming>) -> Response<Body> {
        let (parts, body) = request.into_parts();
        let body = body
            .collect()
            .await
            .map(|body| body.to_bytes())
            .unwrap_or_default();
        let mut outgoing = self.http.request(parts.method, &self.upstream).body(body);
        for (name, value) in &parts.headers {
            if name != hyper::header::HOST
                && name != hyper::header::AUTHORIZATION
                && name != hyper::header::CONTENT_LENGTH
            {
                outgoing = outgoing.header(name, value);
            }
        }
        let upstream = match outgoing.send().await {
            Ok(upstream) => upstream,
            Err(error) => {
                return json_response(
                    StatusCode::BAD_GATEWAY,
                    &json!({"error": error.to_string()}),
                );
            }
        };
        let mut response = Response::builder().status(upstream.status());
        for (name, value) in upstream.headers() {
            if name != hyper::header::TRANSFER_ENCODING && name != hyper::header::CONTENT_LENGTH {
                response = response.header(name, value);
            }
        }
        let stream = upstream
            .bytes_stream()
            .map_ok(Frame::data)
            .map_err(std::io::Error::other);
        response.body(StreamBody::new(stream).boxed()).unwrap()
    }
}

/// `tool-host mcp login NAME`: reads the authorization URL it prints, follows it as a browser
/// would (the authorization server logs the test user in and grants at once), and waits for
/// it to exit.
pub fn login(name: &str, url: &str, config_dir: &str) -> (bool, String) {
    let spec = format!("{name}={url}");
    let mut child = Command::new(env!("CARGO_BIN_EXE_tool-host"))
        .args([
            "mcp",
            "login",
            name,
            "--mcp-url",
            &spec,
            "--config-dir",
            config_dir,
        ])
        .args(["--wait", "30"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("tool-host runs");
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut printed = String::new();
    let mut line = String::new();
    let mut authorization_url = None;
    while stdout.read_line(&mut line).unwrap_or(0) > 0 {
        printed.push_str(&line);
        if line.starts_with("http") {
            authorization_url = Some(line.trim().to_owned());
            break;
        }
        line.clear();
    }
    if let Some(authorization_url) = authorization_url {
        let browser = browser();
        let runtime = tokio::runtime::Runtime::new().unwrap();
        let landed = runtime.block_on(async { browser.get(&authorization_url).send().await });
        let landed = landed.expect("the browser follows the authorization URL");
        assert!(
            landed.status().is_success(),
            "the redirect reached tool-host: {}",
            landed.status()
        );
    }
    let mut rest = String::new();
    let _ = std::io::Read::read_to_string(&mut stdout, &mut rest);
    printed.push_str(&rest);
    let output = child.wait_with_output().unwrap();
    printed.push_str(&String::from_utf8_lossy(&output.stderr));
    (output.status.success(), printed)
}

/// An HTTP client that keeps cookies and follows redirects, as a browser does.
pub fn browser() -> reqwest::Client {
    reqwest::Client::builder()
        .cookie_store(true)
        .build()
        .unwrap()
}
