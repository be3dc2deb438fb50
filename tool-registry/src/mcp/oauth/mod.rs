//! OAuth for remote MCP servers, the client side of MCP's authorization (MCP 2025-11-25 and
//! 2026-07-28 "Authorization"), all through rmcp's `auth` support: a server that answers 401
//! is discovered (RFC 9728 protected-resource metadata, then RFC 8414 / OpenID authorization
//! server metadata, the issuer checked), the client identified (a pre-registered client, a
//! client ID metadata document, dynamic registration only as the fallback), and a token
//! obtained with PKCE and the resource indicator (RFC 8707): by the authorization-code grant
//! through an [`OAuthLogin`] (the person at the host), or, for a headless host, by the
//! client-credentials grant ([`ClientCredentials`], MCP extension SEP-1046). A 403
//! `insufficient_scope` asks for the scopes the server names (step-up); tokens are refreshed
//! before they expire and kept, per server, in a file only the user can read.
//!
//! Tokens never reach a log line, an error message or a `Debug` output of ours.

mod flow;
mod login;
mod logout;
mod store;
mod transport;

use std::path::PathBuf;
use std::sync::Arc;

use futures::future::BoxFuture;

pub use login::LoopbackLogin;
pub use logout::Logout;
pub(crate) use transport::authorizing_client;

/// Why a connection with OAuth did not start, when OAuth is why: the rmcp `AuthError` found
/// in the transport error's sources, said without the transport's type names.
pub(crate) fn refusal(error: &rmcp::service::ClientInitializeError) -> Option<String> {
    use rmcp::service::ClientInitializeError as E;
    let mut source: Option<&(dyn std::error::Error + 'static)> = match error {
        E::TransportError { error, .. } => Some(error.error.as_ref()),
        E::LegacyFallbackFailed { fallback, .. } => return refusal(fallback),
        _ => None,
    };
    while let Some(current) = source {
        if let Some(auth) = current.downcast_ref::<rmcp::transport::auth::AuthError>() {
            return Some(match auth {
                // Ours name the server for rmcp's own log line; the host names it already.
                rmcp::transport::auth::AuthError::AuthorizationFailed(message) => message
                    .strip_prefix("MCP server `")
                    .and_then(|rest| rest.split_once("`: "))
                    .map_or_else(|| message.clone(), |(_, cause)| cause.to_owned()),
                other => format!("OAuth: {other}"),
            });
        }
        source = current.source();
    }
    None
}

/// The person who logs in to a server: shown the authorization URL (MCP "Authorization Code
/// Grant", OAuth 2.1 §4.1), they answer with the URL the authorization server redirected their
/// browser to. [`LoopbackLogin`] is the usual one: it prints the URL and receives the redirect
/// on a loopback port (RFC 8252 §7.3).
pub trait OAuthLogin: Send + Sync {
    /// The redirect URI registered for this client and sent in the authorization request,
    /// such as `http://127.0.0.1:PORT/callback`.
    fn redirect_uri(&self) -> String;

    /// Shows `authorization_url` (for the server named `server`) to the user and waits for
    /// the redirect.
    ///
    /// # Errors
    /// A message saying why no redirect came (closed, timed out, the authorization server
    /// answered with an error).
    fn authorize<'a>(
        &'a self,
        server: &'a str,
        authorization_url: &'a str,
    ) -> BoxFuture<'a, Result<String, String>>;
}

/// How a headless host authenticates as itself (OAuth 2.1 §4.2 client-credentials grant, MCP
/// extension SEP-1046 "OAuth client credentials").
#[derive(Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ClientCredentials {
    /// A client secret, sent as `client_secret_basic` or `client_secret_post`, whichever the
    /// authorization server advertises.
    Secret {
        /// The client's ID.
        client_id: String,
        /// Its secret.
        client_secret: String,
    },
    /// A signed JWT assertion (RFC 7523 `private_key_jwt`).
    PrivateKeyJwt {
        /// The client's ID (the assertion's `iss` and `sub`).
        client_id: String,
        /// The private key, PEM.
        private_key_pem: String,
        /// `RS256`, `RS384`, `RS512`, `ES256` or `ES384`.
        algorithm: String,
    },
}

impl std::fmt::Debug for ClientCredentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Secret { client_id, .. } => f
                .debug_struct("Secret")
                .field("client_id", client_id)
                .finish_non_exhaustive(),
            Self::PrivateKeyJwt {
                client_id,
                algorithm,
                ..
            } => f
                .debug_struct("PrivateKeyJwt")
                .field("client_id", client_id)
                .field("algorithm", algorithm)
                .finish_non_exhaustive(),
        }
    }
}

/// OAuth for one HTTP server ([`super::McpServerConfig::with_oauth`]): who the client is,
/// where its tokens are kept, and who logs in when the server asks.
///
/// Without a [`login`](Self::with_login) or [`client credentials`](Self::with_client_credentials),
/// a server that answers 401 fails to connect with an error naming it and the
/// [`login hint`](Self::with_login_hint).
#[derive(Clone, Default)]
pub struct McpOAuth {
    pub(crate) credentials_file: Option<PathBuf>,
    pub(crate) login: Option<Arc<dyn OAuthLogin>>,
    pub(crate) login_hint: Option<String>,
    pub(crate) client_id: Option<String>,
    pub(crate) client_secret: Option<String>,
    /// The variable holding the client secret (the `mcpServers` JSON's `clientSecretEnv`).
    pub(crate) client_secret_env: Option<String>,
    /// The pre-registered client and its secret are also client credentials (the JSON's
    /// `clientCredentials`).
    pub(crate) secret_grant: bool,
    pub(crate) client_metadata_url: Option<String>,
    pub(crate) client_name: Option<String>,
    pub(crate) client_credentials: Option<ClientCredentials>,
    pub(crate) scopes: Vec<String>,
}

impl McpOAuth {
    /// OAuth with nothing configured: tokens in memory only, no login.
    pub fn new() -> Self {
        Self::default()
    }

    /// Keeps the server's tokens in `path` (created with mode 0600, its directory 0700),
    /// loaded when connecting and replaced on every refresh.
    #[must_use]
    pub fn with_credentials_file(mut self, path: impl Into<PathBuf>) -> Self {
        self.credentials_file = Some(path.into());
        self
    }

    /// Who logs in when the server answers 401, or 403 `insufficient_scope`.
    #[must_use]
    pub fn with_login(mut self, login: Arc<dyn OAuthLogin>) -> Self {
        self.login = Some(login);
        self
    }

    /// What the error of a server that needs a login says to do, such as
    /// "run `tool-host mcp login NAME`".
    #[must_use]
    pub fn with_login_hint(mut self, hint: impl Into<String>) -> Self {
        self.login_hint = Some(hint.into());
        self
    }

    /// A client registered with the authorization server beforehand (MCP "Preregistration"),
    /// with its secret for a confidential client; preferred over every other way of naming the
    /// client.
    #[must_use]
    pub fn with_client_id(
        mut self,
        client_id: impl Into<String>,
        client_secret: Option<String>,
    ) -> Self {
        self.client_id = Some(client_id.into());
        self.client_secret = client_secret;
        self
    }

    /// The HTTPS URL of this client's metadata document (MCP "Client ID Metadata Documents"),
    /// used when the authorization server supports them; dynamic registration otherwise.
    #[must_use]
    pub fn with_client_metadata_url(mut self, url: impl Into<String>) -> Self {
        self.client_metadata_url = Some(url.into());
        self
    }

    /// The `client_name` sent in a dynamic registration (RFC 7591).
    #[must_use]
    pub fn with_client_name(mut self, name: impl Into<String>) -> Self {
        self.client_name = Some(name.into());
        self
    }

    /// Authenticates as the client itself (the client-credentials grant) when there is no
    /// [`login`](Self::with_login), or the authorization server does not take the
    /// authorization-code grant; a person logs in otherwise.
    #[must_use]
    pub fn with_client_credentials(mut self, credentials: ClientCredentials) -> Self {
        self.client_credentials = Some(credentials);
        self
    }

    /// The scopes to ask for; by default those of the server's challenge, else those its
    /// metadata lists (MCP "Scope Selection Strategy").
    #[must_use]
    pub fn with_scopes(mut self, scopes: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// Where the tokens are kept, when in a file.
    pub fn credentials_file(&self) -> Option<&std::path::Path> {
        self.credentials_file.as_deref()
    }
}

impl std::fmt::Debug for McpOAuth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpOAuth")
            .field("credentials_file", &self.credentials_file)
            .field("login", &self.login.is_some())
            .field("client_id", &self.client_id)
            .field("client_metadata_url", &self.client_metadata_url)
            .field("client_credentials", &self.client_credentials)
            .field("scopes", &self.scopes)
            .finish_non_exhaustive()
    }
}

impl PartialEq for McpOAuth {
    fn eq(&self, other: &Self) -> bool {
        let same_login = match (&self.login, &other.login) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            (None, None) => true,
            _ => false,
        };
        same_login
            && self.credentials_file == other.credentials_file
            && self.login_hint == other.login_hint
            && self.client_id == other.client_id
            && self.client_secret == other.client_secret
            && self.client_secret_env == other.client_secret_env
            && self.secret_grant == other.secret_grant
            && self.client_metadata_url == other.client_metadata_url
            && self.client_name == other.client_name
            && self.client_credentials == other.client_credentials
            && self.scopes == other.scopes
    }
}

impl Eq for McpOAuth {}
