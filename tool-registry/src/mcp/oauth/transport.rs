//! The HTTP client of a server with OAuth: rmcp's `AuthClient` (the stored token on every
//! request, refreshed before it expires and once more when the server rejects it) wrapped so
//! that a 401 or a 403 `insufficient_scope` the refresh cannot cure gets a new token
//! ([`Flow::authorize`]) and the request is sent once more. Requests that fail together wait
//! for one authorization; a server that keeps refusing is given up on after
//! [`MAX_AUTHORIZATIONS`] in a row.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use futures::stream::BoxStream;
use http::{HeaderName, HeaderValue};
use rmcp::model::ClientJsonRpcMessage;
use rmcp::transport::AuthClient;
use rmcp::transport::auth::AuthError;
use rmcp::transport::streamable_http_client::{
    StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse,
    StreamableHttpResponseLimits,
};
use tokio::sync::Mutex;

use super::McpOAuth;
use super::flow::Flow;
use super::store::TokenStore;

/// Authorizations in a row (no request succeeding in between) before the server is given up
/// on: a server that answers every new token with another 403 must not loop.
const MAX_AUTHORIZATIONS: u32 = 3;

type HttpError = StreamableHttpError<reqwest::Error>;

/// The HTTP client of one server with OAuth.
#[derive(Clone)]
pub(crate) struct Authorizing {
    inner: AuthClient<reqwest::Client>,
    flow: Arc<Flow>,
    state: Arc<State>,
}

#[derive(Default)]
struct State {
    /// Held while a new token is being got, so concurrent refusals share one authorization.
    authorizing: Mutex<()>,
    /// Bumped by each new token.
    generation: AtomicU64,
    /// Authorizations since a request last succeeded.
    in_a_row: AtomicU32,
    /// Why the stored login could not be checked when connecting (its authorization server
    /// not reached), told with any OAuth failure that follows.
    unchecked: Option<String>,
}

/// The client of the server `server` at `url`, with its stored token loaded (rmcp checks
/// the stored issuer against the authorization server's before reusing it).
///
/// # Errors
/// The cause, when the stored token cannot be read or its server's metadata not found.
pub(crate) async fn authorizing_client(
    server: &str,
    url: &str,
    oauth: &McpOAuth,
) -> Result<Authorizing, String> {
    let store = Arc::new(TokenStore::new(oauth.credentials_file.clone(), url));
    let flow = Flow {
        server: server.to_owned(),
        url: url.to_owned(),
        oauth: oauth.clone(),
        store,
    };
    let mut manager = flow.manager().await?;
    let unchecked = match manager.initialize_from_store().await {
        Ok(_) => None,
        // A stored token whose authorization server cannot be asked about now is tried as it
        // is; the server's answer decides.
        Err(AuthError::CredentialStoreError(message)) => return Err(message),
        Err(error) => {
            tracing::debug!(server, "stored OAuth login not checked: {error}");
            Some(error.to_string())
        }
    };
    Ok(Authorizing {
        inner: AuthClient::new(mcp_http_client()?, manager),
        flow: Arc::new(flow),
        state: Arc::new(State {
            unchecked,
            ..State::default()
        }),
    })
}

impl Authorizing {
    /// Runs `call`; when the server refuses it for want of a token or of a scope, gets a
    /// new token and runs it once more.
    async fn call<T, F, Fut>(&self, call: F) -> Result<T, HttpError>
    where
        F: Fn() -> Fut,
        Fut: Future<Output = Result<T, HttpError>>,
    {
        let generation = self.state.generation.load(Ordering::Acquire);
        let challenge = match call().await {
            Err(error @ (HttpError::AuthRequired(_) | HttpError::InsufficientScope(_))) => {
                error.auth_challenge().unwrap_or_default().to_owned()
            }
            Err(HttpError::Auth(error)) if !matches!(error, AuthError::AuthorizationFailed(_)) => {
                let server = &self.flow.server;
                let unchecked = self
                    .state
                    .unchecked
                    .as_ref()
                    .map(|cause| format!(" (the stored login could not be checked: {cause})"))
                    .unwrap_or_default();
                return Err(failed(format!("MCP server `{server}`: {error}{unchecked}")));
            }
            result => {
                if result.is_ok() {
                    self.state.in_a_row.store(0, Ordering::Release);
                }
                return result;
            }
        };
        self.reauthorize(generation, &challenge).await?;
        call().await
    }

    /// Gets a new token unless another request did since `generation`.
    async fn reauthorize(&self, generation: u64, challenge: &str) -> Result<(), HttpError> {
        let _one_at_a_time = self.state.authorizing.lock().await;
        if self.state.generation.load(Ordering::Acquire) != generation {
            return Ok(());
        }
        let server = &self.flow.server;
        // Only tokens the server got and refused count: a login that failed is no token.
        if self.state.in_a_row.load(Ordering::Acquire) >= MAX_AUTHORIZATIONS {
            return Err(failed(format!(
                "MCP server `{server}` refused {MAX_AUTHORIZATIONS} new OAuth tokens in a row; given up"
            )));
        }
        tracing::info!(server = %server, "the server asks for OAuth authorization");
        let manager = self
            .flow
            .authorize(challenge)
            .await
            .map_err(|cause| failed(format!("MCP server `{server}`: {cause}")))?;
        *self.inner.auth_manager.lock().await = manager;
        self.state.in_a_row.fetch_add(1, Ordering::AcqRel);
        self.state.generation.fetch_add(1, Ordering::AcqRel);
        Ok(())
    }
}

fn failed(message: String) -> HttpError {
    HttpError::Auth(AuthError::AuthorizationFailed(message))
}

impl StreamableHttpClient for Authorizing {
    type Error = reqwest::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_token: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<StreamableHttpPostResponse, HttpError> {
        self.post_message_with_response_limits(
            uri,
            message,
            session_id,
            auth_token,
            custom_headers,
            StreamableHttpResponseLimits::default(),
        )
        .await
    }

    async fn post_message_with_response_limits(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_token: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        limits: StreamableHttpResponseLimits,
    ) -> Result<StreamableHttpPostResponse, HttpError> {
        self.call(|| {
            self.inner.post_message_with_response_limits(
                uri.clone(),
                message.clone(),
                session_id.clone(),
                auth_token.clone(),
                custom_headers.clone(),
                limits,
            )
        })
        .await
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_token: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<(), HttpError> {
        // Ending a session is not worth a login.
        self.inner
            .delete_session(uri, session_id, auth_token, custom_headers)
            .await
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_token: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<BoxStream<'static, Result<sse_stream::Sse, sse_stream::Error>>, HttpError> {
        self.call(|| {
            self.inner.get_stream(
                uri.clone(),
                session_id.clone(),
                last_event_id.clone(),
                auth_token.clone(),
                custom_headers.clone(),
            )
        })
        .await
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_token: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<BoxStream<'static, Result<sse_stream::Sse, sse_stream::Error>>, HttpError> {
        self.call(|| {
            self.inner.get_stream_with_max_sse_event_size(
                uri.clone(),
                session_id.clone(),
                last_event_id.clone(),
                auth_token.clone(),
                custom_headers.clone(),
                max_sse_event_size,
            )
        })
        .await
    }
}

/// The HTTP client of an MCP connection, as rmcp's own transport makes it: no idle pooling
/// (a connection reused before the previous body was read stalls on delayed ACKs), and only
/// same-origin 307/308 redirects followed, so a request's body, session id and custom headers
/// never go to another host and a POST never turns into a GET.
fn mcp_http_client() -> Result<reqwest::Client, String> {
    /// Hops followed at most for one request.
    const MAX_REDIRECTS: usize = 10;
    let policy = reqwest::redirect::Policy::custom(|attempt| {
        let keeps_body = matches!(
            attempt.status(),
            reqwest::StatusCode::TEMPORARY_REDIRECT | reqwest::StatusCode::PERMANENT_REDIRECT
        );
        let same_origin = attempt
            .previous()
            .first()
            .is_some_and(|first| first.origin() == attempt.url().origin());
        if !keeps_body || !same_origin {
            attempt.stop()
        } else if attempt.previous().len() > MAX_REDIRECTS {
            attempt.error(format!("more than {MAX_REDIRECTS} redirects"))
        } else {
            attempt.follow()
        }
    });
    reqwest::Client::builder()
        .pool_max_idle_per_host(0)
        .redirect(policy)
        .build()
        .map_err(|error| format!("cannot build the HTTP client: {error}"))
}
