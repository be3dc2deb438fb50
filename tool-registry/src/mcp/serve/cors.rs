//! CORS for browser clients of the MCP endpoint (and of the protected-resource metadata): a
//! page whose origin is one of [`HttpOptions::cors_origins`](super::HttpOptions) may call the
//! server from the browser (the MCP Inspector in its direct mode, a web agent) and read its
//! answers. The browser first asks with a preflight `OPTIONS`, which rmcp answers `405`; here
//! tower-http's CORS layer answers it (`403` for an origin not on the list), and marks the
//! answers of the requests that follow as readable by that origin, `Mcp-Session-Id` and
//! `WWW-Authenticate` among their headers; the server's other answers to clients without
//! `Origin` say that they vary by it. Without `cors_origins`, no page can: a localhost page
//! that passes rmcp's `Origin` check may send, but not read.
//!
//! Which origins pass is rmcp's rule, asked of rmcp itself: a request carrying only the
//! `Origin` ([`probe`]) goes through the `Origin` check of an rmcp service configured with
//! the list and nothing else, which refuses an origin off the list with `403` and answers
//! the others `405` (the method): only a `405` grants. Requests without `Origin` (every client that is not a
//! browser) do not come here.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt as _, Full};
use hyper::body::{Bytes, Incoming};
use hyper::header::{self, HeaderName, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tower::{Layer as _, ServiceExt as _};
use tower_http::cors::{AllowHeaders, AllowOrigin, AllowPrivateNetwork, CorsLayer, ExposeHeaders};
use tracing::instrument::WithSubscriber as _;

type Answer = Response<BoxBody<Bytes, Infallible>>;

/// How long a browser may keep a preflight's answer.
const PREFLIGHT_MAX_AGE: Duration = Duration::from_secs(600);

/// The CORS answers of one HTTP server.
pub(super) struct Cors {
    layer: CorsLayer,
}

impl Cors {
    /// CORS for `origins` (read by [`super::entries::origins`]); `None` for none.
    pub(super) fn new(origins: Vec<String>) -> Option<Self> {
        if origins.is_empty() {
            return None;
        }
        let config = StreamableHttpServerConfig::default()
            .disable_allowed_hosts()
            .with_allowed_origins(origins)
            .enforce_origin_validation();
        let rmcp = StreamableHttpService::new(
            || Ok(Unserved),
            Arc::new(LocalSessionManager::default()),
            config,
        );
        let origins = AllowOrigin::async_predicate(move |origin: HeaderValue, _parts| {
            let rmcp = rmcp.clone();
            async move {
                let Some(probe) = probe(origin) else {
                    return false;
                };
                // Past the `Origin` check, rmcp refuses the method; anything else (its 403
                // for the origin, or a check this probe did not foresee) grants nothing. Its
                // warning for a refused origin is the real request's to log, not the probe's.
                let answer = rmcp
                    .handle(probe)
                    .with_subscriber(tracing::subscriber::NoSubscriber::default())
                    .await;
                answer.status() == StatusCode::METHOD_NOT_ALLOWED
            }
        });
        let layer = CorsLayer::new()
            .allow_origin(origins)
            .allow_methods([Method::GET, Method::POST, Method::DELETE])
            // The MCP headers, `Authorization`, and any `Mcp-Param-*` a tool's schema names.
            .allow_headers(AllowHeaders::mirror_request())
            .expose_headers(ExposeHeaders::list([
                HeaderName::from_static("mcp-session-id"),
                HeaderName::from_static("mcp-protocol-version"),
                header::WWW_AUTHENTICATE,
                header::RETRY_AFTER,
            ]))
            .max_age(PREFLIGHT_MAX_AGE)
            // A public page calling a server on a private or loopback address (a web agent
            // and a local `tool-host`): Chrome's Private Network Access asks this in the
            // preflight too. Only a listed origin's preflight is granted at all.
            .allow_private_network(AllowPrivateNetwork::yes());
        Some(Self { layer })
    }

    /// The answer to a browser's `request` (one with `Origin`): a preflight (an `OPTIONS`
    /// with `Access-Control-Request-Method`) is answered here, `403` for an origin not on
    /// the list; any other request by `inner`, its answer readable by the origin when it is
    /// on the list.
    pub(super) fn answer(
        &self,
        request: Request<Incoming>,
        inner: impl FnOnce(Request<Incoming>) -> BoxFuture<'static, Answer> + Send + 'static,
    ) -> BoxFuture<'static, Answer> {
        let preflight = request.method() == Method::OPTIONS;
        if preflight
            && !request
                .headers()
                .contains_key(header::ACCESS_CONTROL_REQUEST_METHOD)
        {
            return inner(request);
        }
        let mut inner = Some(inner);
        let service = tower::service_fn(move |request: Request<Incoming>| {
            let answer = inner.take().map(|inner| inner(request));
            async move {
                Ok::<_, Infallible>(match answer {
                    Some(answer) => answer.await,
                    None => empty(StatusCode::INTERNAL_SERVER_ERROR),
                })
            }
        });
        let service = self.layer.layer(service);
        Box::pin(async move {
            let Ok(mut answer) = service.oneshot(request).await;
            if preflight
                && !answer
                    .headers()
                    .contains_key(header::ACCESS_CONTROL_ALLOW_ORIGIN)
            {
                *answer.status_mut() = StatusCode::FORBIDDEN;
            }
            answer
        })
    }
}

/// Marks an answer that a browser's request would have got with CORS headers as one that
/// varies by `Origin`, so that a shared cache does not give a browser the copy made for a
/// client that sent none.
pub(super) fn varies(mut answer: Answer) -> Answer {
    answer
        .headers_mut()
        .append(header::VARY, HeaderValue::from_static("origin"));
    answer
}

/// A handler the probe service is built with, never called: a probe is refused or a `PUT`.
#[derive(Clone, Copy)]
struct Unserved;

impl rmcp::ServerHandler for Unserved {}

/// The request that asks rmcp whether it serves requests from `origin`: a `PUT` carrying it
/// (and a `Host` the probe service, which checks none, can read).
fn probe(origin: HeaderValue) -> Option<Request<Full<Bytes>>> {
    Request::builder()
        .method(Method::PUT)
        .uri("/mcp")
        .header(header::HOST, "localhost")
        .header(header::ORIGIN, origin)
        .body(Full::new(Bytes::new()))
        .ok()
}

fn empty(status: StatusCode) -> Answer {
    let mut response = Response::new(Full::new(Bytes::new()).boxed());
    *response.status_mut() = status;
    response
}
