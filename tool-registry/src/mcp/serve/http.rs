//! Streamable HTTP for [`McpServer`]: rmcp's `StreamableHttpService` (sessions, SSE responses,
//! the `Origin` check) at [`MCP_PATH`] behind the route's `Host` check ([`super::hosts`]), on a
//! hyper connection per client, with graceful shutdown (MCP 2025-11-25, basic/transports,
//! "Streamable HTTP").

use std::convert::Infallible;
use std::future::Ready;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use futures::FutureExt as _;
use futures::future::{BoxFuture, Either};
use http_body_util::{BodyExt as _, Full};
use hyper::body::{Bytes, Incoming};
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::{TokioExecutor, TokioIo};
use hyper_util::server::conn::auto;
use hyper_util::server::graceful::GracefulShutdown;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::net::TcpListener;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::auth::guard;
use super::ended::EndedElsewhere;
use super::{HttpOptions, McpServer, ServeError};

/// The path the MCP endpoint answers at (and [`MCP_PATH_SLASHED`]); every other path but
/// the two below is `404 Not Found`.
pub(crate) const MCP_PATH: &str = "/mcp";

/// The endpoint's path as clients configured with a trailing slash ask for it (a Python
/// server's habit), served the same rather than redirected: some clients do not follow a
/// redirect of a `POST`.
const MCP_PATH_SLASHED: &str = "/mcp/";

/// Liveness, for a load balancer or orchestrator: `200 OK` while the process serves.
const LIVE_PATH: &str = "/healthz";

/// Readiness: `200 OK` while the server takes new calls, `503 Service Unavailable` once it
/// is shutting down (draining), so that a load balancer sends new work elsewhere.
const READY_PATH: &str = "/readyz";

/// Connections the kernel may queue before they are accepted (capped by the system's own
/// limit, `net.core.somaxconn` on Linux).
const LISTEN_BACKLOG: u32 = 1024;

/// How long the accept loop waits after an `accept` error that is not one connection's own
/// (out of file descriptors, out of memory) before accepting again.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(50);

/// How long a client may take to send a request's headers before it is disconnected.
const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);

/// How long [`HttpServer::shutdown`] lets open connections finish before closing them.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(5);

/// A running HTTP server. Dropping it leaves the server running until the runtime ends; call
/// [`HttpServer::shutdown`] to stop it.
#[derive(Debug)]
pub struct HttpServer {
    local_addr: SocketAddr,
    stop: CancellationToken,
    task: JoinHandle<()>,
}

impl HttpServer {
    /// The address bound (with the port the system chose for port 0).
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// The endpoint's URL, `http://ADDR/mcp`.
    pub fn url(&self) -> String {
        format!("http://{}{MCP_PATH}", self.local_addr)
    }

    /// Stops accepting connections, ends every MCP session, lets open requests finish for up
    /// to 5 seconds, then ends the tasks still running on this server (and its clones) as
    /// `failed`, saying the server shut down, and returns when the server has stopped.
    pub async fn shutdown(self) {
        self.stop.cancel();
        let _ = self.task.await;
    }

    /// Waits until the server stops (after [`HttpServer::shutdown`] from a clone of its stop
    /// token, or `stop` being cancelled).
    pub async fn wait(self) {
        let _ = self.task.await;
    }

    /// The token that stops the server when cancelled (for a signal handler).
    pub fn stop_token(&self) -> CancellationToken {
        self.stop.clone()
    }
}

impl McpServer {
    /// Binds `addr` and serves MCP over streamable HTTP at `MCP_PATH` until
    /// [`HttpServer::shutdown`].
    ///
    /// # Errors
    /// [`ServeError::Address`] for a non-loopback address without
    /// [`HttpOptions::allow_remote`], or when the address cannot be bound;
    /// [`ServeError::Options`] for an [`HttpOptions::allowed_hosts`] entry that is no host
    /// (a URL, a bad port, user info), an [`HttpOptions::allowed_origins`] or
    /// [`HttpOptions::cors_origins`] entry that is no origin, or an [`HttpOptions::auth`]
    /// that cannot be used.
    pub async fn serve_http(
        &self,
        addr: SocketAddr,
        options: HttpOptions,
    ) -> Result<HttpServer, ServeError> {
        if !addr.ip().is_loopback() && !options.allow_remote && options.auth.is_none() {
            return Err(ServeError::Address(format!(
                "{addr} is not a loopback address, and the MCP endpoint checks no access \
                 tokens: set HttpOptions::auth (tool-host serve: --auth-issuer and \
                 --resource-url) to require OAuth, or allow unauthenticated remote clients on \
                 a private network (HttpOptions::allow_remote; tool-host serve: \
                 --insecure-no-auth), or bind 127.0.0.1 or [::1]"
            )));
        }
        let door = match options.auth {
            Some(auth) => {
                let declared = Box::new(super::listing::PoolScopes(Arc::clone(&self.shared)));
                Some(Arc::new(
                    super::auth::Door::new(auth, declared).map_err(ServeError::Options)?,
                ))
            }
            None => None,
        };
        let hosts =
            super::hosts::AllowedHosts::new(&options.allowed_hosts).map_err(ServeError::Options)?;
        let cors_origins = super::entries::origins(
            "HttpOptions::cors_origins (tool-host serve: --allowed-origin)",
            &options.cors_origins,
        )
        .map_err(ServeError::Options)?;
        let mut allowed_origins =
            super::entries::origins("HttpOptions::allowed_origins", &options.allowed_origins)
                .map_err(ServeError::Options)?;
        allowed_origins.extend(cors_origins.iter().cloned());
        let limits = super::limits::Limits::new(
            options.max_concurrent_per_client,
            options.max_requests_per_second_per_client,
        );
        let listener = listen(addr)
            .map_err(|error| ServeError::Address(format!("cannot listen on {addr}: {error}")))?;
        let local_addr = listener
            .local_addr()
            .map_err(|error| ServeError::Address(format!("cannot listen on {addr}: {error}")))?;
        let stop = CancellationToken::new();
        let stop_for_loop = stop.clone();
        // rmcp's own token ends its sessions and streams: cancelled only once open requests
        // had their grace, so that a call running at the stop still answers.
        let sessions_stop = CancellationToken::new();
        let sessions_stop_for_loop = sessions_stop.clone();
        if !local_addr.ip().is_loopback() && hosts.loopback_only() {
            tracing::warn!(
                "MCP HTTP server on {local_addr}: only requests naming localhost or a loopback \
                 address in `Host` are served; a client reaching this server by another name \
                 or address gets 403 until it is listed (HttpOptions::allowed_hosts; tool-host \
                 serve: --allowed-host HOST)"
            );
        }
        // The `Host` check is the route's, with the list read once (rmcp reads it again for
        // every request); rmcp, with no list, still answers a `Host` it cannot read.
        let mut config = StreamableHttpServerConfig::default()
            .disable_allowed_hosts()
            .with_allowed_origins(allowed_origins)
            .enforce_origin_validation()
            .with_json_response(options.json_response)
            .with_sse_keep_alive(options.sse_keep_alive)
            .with_max_request_body_bytes(options.max_request_body_bytes)
            .with_cancellation_token(sessions_stop);
        let (ended, bounded) = options.session_store.map(EndedElsewhere::new).unzip();
        config.session_store = bounded.map(|bounded| Arc::new(bounded) as _);
        let shared = Arc::clone(&self.shared);
        let server = self.clone();
        let sessions = Arc::new(LocalSessionManager::default());
        let service =
            StreamableHttpService::new(move || Ok(server.session()), Arc::clone(&sessions), config);
        let route = Arc::new(Route {
            cors: super::cors::Cors::new(cors_origins),
            service,
            sessions,
            ended,
            hosts,
            door,
            limits,
            max_body: options.max_request_body_bytes,
            draining: stop.clone(),
        });
        let task = tokio::spawn(async move {
            accept_loop(listener, route, stop_for_loop, sessions_stop_for_loop).await;
            shared.tasks.end_running().await;
        });
        Ok(HttpServer {
            local_addr,
            stop,
            task,
        })
    }
}

/// Binds `addr` with a listen queue of [`LISTEN_BACKLOG`] (the default, 128, overflows when
/// a few hundred clients connect at once: their connection attempts are dropped and retried
/// after seconds).
fn listen(addr: SocketAddr) -> std::io::Result<TcpListener> {
    let socket = if addr.is_ipv4() {
        tokio::net::TcpSocket::new_v4()?
    } else {
        tokio::net::TcpSocket::new_v6()?
    };
    #[cfg(unix)]
    socket.set_reuseaddr(true)?;
    socket.bind(addr)?;
    socket.listen(LISTEN_BACKLOG)
}

/// rmcp's streamable HTTP service, serving [`super::Session`]s.
type Endpoint = StreamableHttpService<super::Session, LocalSessionManager>;

type Answer = Response<http_body_util::combinators::BoxBody<Bytes, Infallible>>;

/// A request's answer: ready at once, or the MCP endpoint's, boxed so that the future a
/// connection keeps per request stays small (rmcp's handling alone is several kilobytes, and
/// every move of a future copies all of it).
type Answering = Either<Ready<Answer>, BoxFuture<'static, Answer>>;

/// What answers each request of one HTTP server.
struct Route {
    service: Endpoint,
    /// The answers to browsers (requests with `Origin`), when pages may read them.
    cors: Option<super::cors::Cors>,
    /// The sessions `service` keeps (a client taking JSON only is spoken for in its own).
    sessions: Arc<LocalSessionManager>,
    /// With a shared session store: sessions ended through another replica end here too.
    ended: Option<EndedElsewhere>,
    /// The DNS-rebinding check on `Host`, before anything else at the MCP endpoint.
    hosts: super::hosts::AllowedHosts,
    door: Option<Arc<super::auth::Door>>,
    limits: Option<super::limits::Limits>,
    max_body: usize,
    draining: CancellationToken,
}

impl Route {
    /// The answer to `request` from `peer`: at once for every path but the MCP endpoint's.
    fn answer(self: &Arc<Self>, request: Request<Incoming>, peer: std::net::IpAddr) -> Answering {
        let path = request.uri().path();
        if let Some(door) = &self.door
            && door.metadata_paths().iter().any(|known| known == path)
        {
            let Some(cors) = &self.cors else {
                return now(guard::metadata(door));
            };
            if !request.headers().contains_key(hyper::header::ORIGIN) {
                return now(super::cors::varies(guard::metadata(door)));
            }
            let door = Arc::clone(door);
            return Either::Right(cors.answer(request, move |_| {
                Box::pin(std::future::ready(guard::metadata(&door)))
            }));
        }
        match path {
            MCP_PATH | MCP_PATH_SLASHED => self.mcp(request, peer),
            LIVE_PATH => now(plain(StatusCode::OK, "ok\n")),
            READY_PATH if self.draining.is_cancelled() => now(plain(
                StatusCode::SERVICE_UNAVAILABLE,
                "draining: the server is shutting down\n",
            )),
            READY_PATH => now(plain(StatusCode::OK, "ready\n")),
            _ => now(plain(
                StatusCode::NOT_FOUND,
                "Not Found: the MCP endpoint is /mcp\n",
            )),
        }
    }

    /// The MCP endpoint: the `Host` check, CORS for a browser, then [`Route::served`].
    fn mcp(self: &Arc<Self>, request: Request<Incoming>, peer: std::net::IpAddr) -> Answering {
        if self.hosts.check(request.uri(), request.headers()) == super::hosts::HostCheck::Refused {
            return now(plain(StatusCode::FORBIDDEN, super::hosts::REFUSED));
        }
        let Some(cors) = &self.cors else {
            return self.served(request, peer);
        };
        if !request.headers().contains_key(hyper::header::ORIGIN) {
            return match self.served(request, peer) {
                Either::Left(ready) => now(super::cors::varies(ready.into_inner())),
                Either::Right(answering) => {
                    Either::Right(Box::pin(answering.map(super::cors::varies)))
                }
            };
        }
        // A browser: its preflight answered, its answers marked readable by its origin.
        let route = Arc::clone(self);
        Either::Right(
            cors.answer(request, move |request| match route.served(request, peer) {
                Either::Left(ready) => Box::pin(ready),
                Either::Right(answering) => answering,
            }),
        )
    }

    /// The MCP endpoint past the `Host` check (and CORS): the media types, the token check,
    /// the client's limits, then rmcp.
    fn served(
        self: &Arc<Self>,
        mut request: Request<Incoming>,
        peer: std::net::IpAddr,
    ) -> Answering {
        let asked = match super::media::Asked::of(&mut request) {
            Ok(asked) => asked,
            Err(refused) => return now(plain(StatusCode::NOT_ACCEPTABLE, refused)),
        };
        let route = Arc::clone(self);
        if let Some(door) = &self.door {
            let door = Arc::clone(door);
            return Either::Right(Box::pin(async move {
                let response = route.admitted(&door, request).await;
                asked.answered(response, &route.sessions).await
            }));
        }
        let permit = match self.permit(|| peer.to_string(), request.method()) {
            Ok(permit) => permit,
            Err(busy) => return now(too_many(&busy)),
        };
        Either::Right(Box::pin(async move {
            let ended = route.ended.as_ref();
            let pending = EndedElsewhere::before(ended, &request, &route.sessions).await;
            let response = route.service.handle(request).await;
            if EndedElsewhere::after(ended, pending, response.status())
                .await
                .is_err()
            {
                return plain(StatusCode::SERVICE_UNAVAILABLE, super::ended::NOT_ENDED);
            }
            asked
                .answered(
                    response.map(|body| super::limits::hold(body, permit)),
                    &route.sessions,
                )
                .await
        }))
    }

    /// A request to the MCP endpoint of a server that checks access tokens at `door`.
    async fn admitted(&self, door: &super::auth::Door, request: Request<Incoming>) -> Answer {
        let admission = match guard::admit(door, request.headers()).await {
            Ok(admission) => admission,
            Err(refused) => return refused,
        };
        // Limits first, so that a client over them is turned away before its body is read.
        let permit = match self.permit(|| admission.client_key(), request.method()) {
            Ok(permit) => permit,
            Err(busy) => return too_many(&busy),
        };
        let request = match guard::screen(door, admission, request, self.max_body).await {
            Ok(request) => request,
            Err(refused) => return refused,
        };
        let ended = self.ended.as_ref();
        let pending = EndedElsewhere::before(ended, &request, &self.sessions).await;
        let response = self.service.handle(request).await;
        if EndedElsewhere::after(ended, pending, response.status())
            .await
            .is_err()
        {
            return plain(StatusCode::SERVICE_UNAVAILABLE, super::ended::NOT_ENDED);
        }
        response.map(|body| super::limits::hold(body, permit))
    }

    /// The client's permit to run a request (none without a limit on running requests). A
    /// `GET` (a 2025-11-25 session's standalone stream, open for as long as the session) and
    /// a `DELETE` (ending a session) count toward the rate but hold no permit.
    /// `client` names the client, asked only when there are limits.
    fn permit(
        &self,
        client: impl FnOnce() -> String,
        method: &hyper::Method,
    ) -> Result<Option<tokio::sync::OwnedSemaphorePermit>, super::limits::Busy> {
        match &self.limits {
            Some(limits) => limits.admit(&client(), method == hyper::Method::POST),
            None => Ok(None),
        }
    }
}

/// An answer ready now.
fn now(answer: Answer) -> Answering {
    Either::Left(std::future::ready(answer))
}

/// The `429` that turns a busy client away.
fn too_many(busy: &super::limits::Busy) -> Answer {
    let mut response = plain_owned(
        StatusCode::TOO_MANY_REQUESTS,
        format!("Too Many Requests: {}; try again later\n", busy.why),
    );
    if let Ok(value) = hyper::header::HeaderValue::from_str(&busy.retry_after_secs.to_string()) {
        response
            .headers_mut()
            .insert(hyper::header::RETRY_AFTER, value);
    }
    response
}

async fn accept_loop(
    listener: TcpListener,
    route: Arc<Route>,
    stop: CancellationToken,
    sessions_stop: CancellationToken,
) {
    let graceful = GracefulShutdown::new();
    let mut builder = auto::Builder::new(TokioExecutor::new());
    // A client that never finishes its request headers (slow loris) is disconnected.
    builder
        .http1()
        .timer(hyper_util::rt::TokioTimer::new())
        .header_read_timeout(HEADER_READ_TIMEOUT);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                // A connection that failed before it was accepted concerns that client only.
                Err(error) if per_connection(&error) => continue,
                // Out of file descriptors or memory: the pending connection stays queued and
                // `accept` would fail again at once, so wait instead of spinning.
                Err(error) => {
                    tracing::warn!(%error, "MCP HTTP server: accept failed; retrying shortly");
                    tokio::select! {
                        () = tokio::time::sleep(ACCEPT_BACKOFF) => continue,
                        () = stop.cancelled() => break,
                    }
                }
            },
            () = stop.cancelled() => break,
        };
        let route = Arc::clone(&route);
        let route = hyper::service::service_fn(move |request: Request<Incoming>| {
            route.answer(request, peer.ip()).map(Ok::<_, Infallible>)
        });
        let connection = builder
            .serve_connection_with_upgrades(TokioIo::new(stream), route)
            .into_owned();
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            if let Err(error) = connection.await {
                tracing::debug!(%error, "MCP HTTP connection ended with an error");
            }
        });
    }
    drop(listener);
    // Open requests finish (a running call answers); idle connections close. Session
    // streams (a 2025-11-25 client's standalone GET) end with rmcp's token after the grace.
    let graceful = graceful.shutdown();
    tokio::pin!(graceful);
    if tokio::time::timeout(SHUTDOWN_GRACE, &mut graceful)
        .await
        .is_err()
    {
        sessions_stop.cancel();
        if tokio::time::timeout(SHUTDOWN_GRACE, graceful)
            .await
            .is_err()
        {
            tracing::warn!("MCP HTTP server: connections still open after the grace period");
        }
    }
    sessions_stop.cancel();
}

/// Whether an `accept` error concerns only the connection being accepted.
fn per_connection(error: &std::io::Error) -> bool {
    matches!(
        error.kind(),
        std::io::ErrorKind::ConnectionAborted
            | std::io::ErrorKind::ConnectionReset
            | std::io::ErrorKind::ConnectionRefused
            | std::io::ErrorKind::Interrupted
    )
}

fn plain(status: StatusCode, text: &'static str) -> Answer {
    text_answer(status, Bytes::from_static(text.as_bytes()))
}

fn plain_owned(status: StatusCode, text: String) -> Answer {
    text_answer(status, Bytes::from(text))
}

fn text_answer(status: StatusCode, text: Bytes) -> Answer {
    let mut response = Response::new(Full::new(text).boxed());
    *response.status_mut() = status;
    response.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}
