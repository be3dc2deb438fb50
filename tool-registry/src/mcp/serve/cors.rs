//! CORS for browser clients of the MCP endpoint (and of the protected-resource metadata): a
//! page whose origin is one of [`HttpOptions::allowed_origins`](super::HttpOptions) may call
//! the server from the browser (the MCP Inspector in its direct mode, a web agent). The
//! browser first asks with a preflight `OPTIONS`, which rmcp answers `405`; here tower-http's
//! CORS layer answers it, and marks the answers of the requests that follow as readable by
//! that origin, `Mcp-Session-Id` and `WWW-Authenticate` among their headers.
//!
//! Which origins pass is rmcp's rule, asked of rmcp itself: a request carrying only the
//! `Origin` ([`probe`]) goes through rmcp's own checks, which refuse an origin off the list
//! with `403`.
//! So the preflight allows exactly the origins whose requests rmcp then serves. Requests
//! without `Origin` (every client that is not a browser) do not come here.

use std::convert::Infallible;
use std::time::Duration;

use futures::future::BoxFuture;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt as _, Full};
use hyper::body::{Bytes, Incoming};
use hyper::header::{self, HeaderName, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use tower::{Layer as _, ServiceExt as _};
use tower_http::cors::{AllowHeaders, AllowOrigin, CorsLayer, ExposeHeaders};

type Answer = Response<BoxBody<Bytes, Infallible>>;

/// How long a browser may keep a preflight's answer.
const PREFLIGHT_MAX_AGE: Duration = Duration::from_secs(600);

/// The CORS answers of one HTTP server.
pub(super) struct Cors {
    layer: CorsLayer,
}

impl Cors {
    /// CORS for the origins `serves` says rmcp serves (see [`rmcp_serves`]).
    pub(super) fn new(
        serves: impl Fn(HeaderValue) -> BoxFuture<'static, bool> + Clone + Send + Sync + 'static,
    ) -> Self {
        let origins =
            AllowOrigin::async_predicate(move |origin: HeaderValue, _parts| serves(origin));
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
            .max_age(PREFLIGHT_MAX_AGE);
        Self { layer }
    }

    /// The answer to a browser's `request` (one with `Origin`): a preflight is answered here;
    /// any other request by `inner`, its answer readable by the origin when rmcp serves it.
    pub(super) fn answer(
        &self,
        request: Request<Incoming>,
        inner: impl FnOnce(Request<Incoming>) -> BoxFuture<'static, Answer> + Send + 'static,
    ) -> BoxFuture<'static, Answer> {
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
            match service.oneshot(request).await {
                Ok(answer) => answer,
                Err(never) => match never {},
            }
        })
    }
}

/// The request that asks rmcp whether it serves requests from `origin` (at `path`): a `PUT`
/// carrying it, which passes rmcp's checks (`405`, the method) or is refused for its origin
/// (`403`); [`refused`] reads the answer.
pub(super) fn probe(path: &str, origin: HeaderValue) -> Option<Request<Full<Bytes>>> {
    Request::builder()
        .method(Method::PUT)
        .uri(path)
        .header(header::HOST, "localhost")
        .header(header::ORIGIN, origin)
        .body(Full::new(Bytes::new()))
        .ok()
}

/// Whether rmcp's answer to a [`probe`] refuses its origin.
pub(super) fn refused(status: StatusCode) -> bool {
    status == StatusCode::FORBIDDEN
}

fn empty(status: StatusCode) -> Answer {
    let mut response = Response::new(Full::new(Bytes::new()).boxed());
    *response.status_mut() = status;
    response
}
