//! [`HttpOptions`]: how [`McpServer::serve_http`](super::McpServer::serve_http) serves.

use std::sync::Arc;
use std::time::Duration;

use rmcp::transport::streamable_http_server::session::SessionStore;

#[cfg(doc)]
use super::{McpServer, ServeError};

/// Options of the HTTP transport.
#[derive(Debug, Clone)]
pub struct HttpOptions {
    /// `Host` values (`name` or `name:port`) accepted at the MCP endpoint; any other is refused
    /// with `403 Forbidden` before anything else, the token check and the client's limits
    /// included (DNS-rebinding protection). Names compare without regard to ASCII case and
    /// without IPv6 brackets; an entry without a port takes any port. A `Host` that is no URI
    /// authority is `400 Bad Request`. An empty list accepts every host (rmcp's rule); blank
    /// entries are skipped; an entry that is no host (a URL such as `https://h`, a port that
    /// is no number from 1 to 65535, user info) makes [`McpServer::serve_http`] fail with
    /// [`ServeError::Options`] naming it. Default: `localhost`, `127.0.0.1` and `::1`, any
    /// port.
    pub allowed_hosts: Vec<String>,
    /// Browser `Origin`s accepted (`scheme://host`, `scheme://host:port`, `:*` for any
    /// port; `http(s)` without a port means its default port, and an address is read in the
    /// form browsers send it: `[0:0::1]` is `[::1]`); a request
    /// with any other `Origin` is refused with `403`, one without `Origin` (not from a
    /// browser) passes. An accepted page may send requests but, without CORS, not read the
    /// answers: see [`HttpOptions::cors_origins`]. An entry that is no origin makes
    /// [`McpServer::serve_http`] fail with [`ServeError::Options`]. An empty list refuses
    /// every request with `Origin` but those of [`HttpOptions::cors_origins`]. Default:
    /// `http://localhost:*`, `http://127.0.0.1:*`, `http://[::1]:*` (`http` pages only).
    pub allowed_origins: Vec<String>,
    /// Origins whose pages may call the server from the browser and read its answers (CORS:
    /// their preflight `OPTIONS` granted, other origins' refused with `403`, the answers
    /// readable, `Mcp-Session-Id` and `WWW-Authenticate` exposed), such as the MCP
    /// Inspector's `http://localhost:6274` or a web agent's `https://agent.example`. Written
    /// as [`HttpOptions::allowed_origins`] (without a port, `http` and `https` mean port 80
    /// and 443 only; `:*` for any port), and accepted by its check too. Default: none (no
    /// page reads an answer; a browser's preflight is refused).
    pub cors_origins: Vec<String>,
    /// Allow binding an address other than loopback without [`HttpOptions::auth`] (a
    /// private network whose every client is trusted). Off by default: a non-loopback
    /// address is refused unless the server checks access tokens.
    pub allow_remote: bool,
    /// Check OAuth access tokens on every MCP request (see [`auth`](super::auth)): the server
    /// is then an OAuth resource server, publishing its RFC 9728 metadata. Default: none
    /// (no authentication; loopback only unless [`HttpOptions::allow_remote`]).
    pub auth: Option<super::auth::ResourceAuth>,
    /// Answer a request whose handling sends no notification with a plain JSON body rather
    /// than an SSE stream. Default: `false` (SSE, as rmcp does by default).
    pub json_response: bool,
    /// Keep-alive comment interval on open SSE streams. Default: 15 s.
    pub sse_keep_alive: Option<Duration>,
    /// The largest request body accepted, in bytes; a larger one is refused with
    /// `413 Payload Too Large` before it is read further. Default: 4 MiB (rmcp's).
    pub max_request_body_bytes: usize,
    /// Requests one client may have running at once (a `tools/call` answered by an SSE
    /// stream runs until the stream ends); more get `429 Too Many Requests`. A client is its
    /// access token's principal with [`HttpOptions::auth`], else its IP address (behind a
    /// proxy without auth: the proxy's). Default: no limit.
    pub max_concurrent_per_client: Option<usize>,
    /// Requests one client may make per second (as a burst too); more get `429` with
    /// `Retry-After`. Default: no limit.
    pub max_requests_per_second_per_client: Option<u32>,
    /// Where MCP 2025-11-25 sessions are also kept (rmcp's `SessionStore`), so that a
    /// session made on one replica is served by another sharing the store, e.g.
    /// [`RedisStore`](super::RedisStore); one ended through another replica ends here at its
    /// next request (the store is asked at most once a second per session). While the store
    /// fails, sessions held here are served from memory, a new one is not shared, a request
    /// of one held elsewhere gets rmcp's `500`, and a `DELETE` gets `503` (send it again).
    /// Default: none (this process only). 2026-07-28 requests need none.
    pub session_store: Option<Arc<dyn SessionStore>>,
}

impl Default for HttpOptions {
    fn default() -> Self {
        Self {
            allowed_hosts: vec!["localhost".into(), "127.0.0.1".into(), "::1".into()],
            allowed_origins: vec![
                "http://localhost:*".into(),
                "http://127.0.0.1:*".into(),
                "http://[::1]:*".into(),
            ],
            cors_origins: Vec::new(),
            allow_remote: false,
            auth: None,
            json_response: false,
            sse_keep_alive: Some(Duration::from_secs(15)),
            max_request_body_bytes: 4 * 1024 * 1024,
            max_concurrent_per_client: None,
            max_requests_per_second_per_client: None,
            session_store: None,
        }
    }
}

impl HttpOptions {
    /// Whether [`HttpOptions::allowed_hosts`] admits loopback names only (`localhost` and
    /// loopback addresses, with any port): then a server bound to another address answers
    /// `403` to every client that reaches it by its own name or address, and serves only
    /// through a proxy on the same host that sends such a `Host`. `false` for an empty list
    /// (every host admitted), and for a list with an entry that is no host (which
    /// [`McpServer::serve_http`] refuses).
    pub fn allows_loopback_hosts_only(&self) -> bool {
        super::hosts::AllowedHosts::new(&self.allowed_hosts)
            .is_ok_and(|hosts| hosts.loopback_only())
    }
}
