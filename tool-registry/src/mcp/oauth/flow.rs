//! Getting a token for one server once it has said no (MCP "Authorization Flow Steps"):
//! discovery seeded by the server's `WWW-Authenticate` challenge, then the client-credentials
//! grant when the host has credentials and the authorization server supports it, else the
//! authorization-code grant with PKCE through the host's [`OAuthLogin`], else an error saying
//! how to log in. Each step is rmcp's; this module only chooses between them.

use std::sync::Arc;

use rmcp::transport::auth::{
    AuthError, AuthorizationCallback, AuthorizationManager, AuthorizationRequest,
    AuthorizationSession, ClientCredentialsConfig, JwtSigningAlgorithm, WWWAuthenticateParams,
};

use super::store::TokenStore;
use super::{ClientCredentials, McpOAuth};

/// One server's OAuth settings and token store, shared by its connection's requests.
pub(crate) struct Flow {
    pub(crate) server: String,
    pub(crate) url: String,
    pub(crate) oauth: McpOAuth,
    pub(crate) store: Arc<TokenStore>,
}

/// Why no token could be had, said for the server's error.
fn cause(error: &AuthError) -> String {
    match error {
        AuthError::AuthorizationServerMismatch { .. }
        | AuthError::AuthorizationServerMissingIssuer { .. } => {
            format!("the authorization server's metadata cannot be trusted: {error}")
        }
        _ => error.to_string(),
    }
}

impl Flow {
    /// A manager for this server, its tokens in the server's store.
    pub(crate) async fn manager(&self) -> Result<AuthorizationManager, String> {
        let mut manager = AuthorizationManager::new(self.url.as_str())
            .await
            .map_err(|error| cause(&error))?;
        manager.set_credential_store(SharedStore(Arc::clone(&self.store)));
        Ok(manager)
    }

    /// A manager holding a new token for the server, which answered with `challenge` (the
    /// `WWW-Authenticate` of its 401 or 403).
    pub(crate) async fn authorize(&self, challenge: &str) -> Result<AuthorizationManager, String> {
        let mut manager = self.manager().await?;
        let resolution = manager
            .resolve_metadata_from_challenge(Some(challenge))
            .await
            .map_err(|error| cause(&error))?;
        let grants = resolution
            .metadata
            .additional_fields
            .get("grant_types_supported")
            .and_then(|grants| grants.as_array())
            .map(|grants| {
                grants
                    .iter()
                    .filter_map(|grant| grant.as_str().map(str::to_owned))
                    .collect::<Vec<_>>()
            });
        let supports = |grant: &str| grants.as_ref().is_none_or(|g| g.iter().any(|x| x == grant));
        let secret = self.client_secret()?;
        let credentials = self.oauth.client_credentials.clone().or_else(|| {
            let client_id = self.oauth.client_id.clone()?;
            let client_secret = secret.clone().filter(|_| self.oauth.secret_grant)?;
            Some(ClientCredentials::Secret {
                client_id,
                client_secret,
            })
        });
        // A person logs in where there is one and the server takes it; the client logs in as
        // itself otherwise.
        if let Some(credentials) = &credentials
            && (self.oauth.login.is_none() || !supports("authorization_code"))
        {
            manager.set_metadata(resolution.metadata);
            let scopes = self.scopes(challenge).await;
            let config = self.client_credentials_config(credentials, scopes)?;
            // rmcp's `private_key_jwt` exchange holds a non-`Send` value across an await, so
            // it runs on a runtime of its own.
            return tokio::task::spawn_blocking(move || {
                tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .map_err(|error| format!("cannot start the token exchange: {error}"))?
                    .block_on(client_credentials(manager, config))
            })
            .await
            .map_err(|error| format!("the token exchange ended: {error}"))?;
        }
        let Some(login) = &self.oauth.login else {
            let hint = self
                .oauth
                .login_hint
                .clone()
                .unwrap_or_else(|| "log in to it first".to_owned());
            return Err(format!("it needs an OAuth login; {hint}"));
        };
        let scopes = self.scopes(challenge).await;
        let mut request = AuthorizationRequest::new(login.redirect_uri())
            .with_client_name(
                self.oauth
                    .client_name
                    .clone()
                    .unwrap_or_else(|| "tool-sdk".to_owned()),
            )
            .with_application_type("native")
            .with_scopes(scopes);
        if let Some(client_id) = &self.oauth.client_id {
            request = request.with_preregistered_client(client_id);
            if let Some(secret) = secret {
                request = request.with_client_secret(secret);
            }
        }
        if let Some(url) = &self.oauth.client_metadata_url {
            request = request.with_client_metadata_url(url);
        }
        manager.set_metadata(resolution.metadata);
        let session = AuthorizationSession::new(manager, request)
            .await
            .map_err(|(_, error)| cause(&error))?;
        let redirect = login
            .authorize(&self.server, session.get_authorization_url())
            .await?;
        let callback = AuthorizationCallback::from_redirect_url(&redirect)
            .map_err(|error| format!("the login's redirect: {}", cause(&error)))?;
        session
            .handle_callback_with_issuer(
                &callback.code,
                &callback.csrf_token,
                callback.issuer.as_deref(),
            )
            .await
            .map_err(|error| cause(&error))?;
        Ok(session.auth_manager)
    }

    /// The scopes to ask for. For a 403 `insufficient_scope` (step-up): the host's, those
    /// granted so far and those the challenge names, together (MCP "Scope Challenge
    /// Handling"). Otherwise the host's when it set some, or none here, leaving rmcp to choose
    /// from the challenge and the metadata (MCP "Scope Selection Strategy").
    async fn scopes(&self, challenge: &str) -> Vec<String> {
        let Some(challenged) = insufficient_scope(&self.url, challenge) else {
            return self.oauth.scopes.clone();
        };
        let granted = rmcp::transport::auth::CredentialStore::load(self.store.as_ref())
            .await
            .ok()
            .flatten()
            .map(|stored| stored.granted_scopes)
            .unwrap_or_default();
        let mut scopes = self.oauth.scopes.clone();
        for scope in granted.into_iter().chain(challenged) {
            if !scopes.contains(&scope) {
                scopes.push(scope);
            }
        }
        scopes
    }

    /// The pre-registered client's secret: given, or read from the variable that names it
    /// (read when authorizing, as `bearerTokenEnv` is when connecting).
    fn client_secret(&self) -> Result<Option<String>, String> {
        if let Some(secret) = &self.oauth.client_secret {
            return Ok(Some(secret.clone()));
        }
        let Some(variable) = &self.oauth.client_secret_env else {
            return Ok(None);
        };
        std::env::var(variable)
            .map(Some)
            .map_err(|_| format!("the client secret variable `{variable}` is not set"))
    }

    fn client_credentials_config(
        &self,
        credentials: &ClientCredentials,
        scopes: Vec<String>,
    ) -> Result<ClientCredentialsConfig, String> {
        let resource = Some(self.url.clone());
        Ok(match credentials.clone() {
            ClientCredentials::Secret {
                client_id,
                client_secret,
            } => ClientCredentialsConfig::ClientSecret {
                client_id,
                client_secret,
                scopes,
                resource,
            },
            ClientCredentials::PrivateKeyJwt {
                client_id,
                private_key_pem,
                algorithm,
            } => ClientCredentialsConfig::PrivateKeyJwt {
                client_id,
                signing_key: private_key_pem.into_bytes(),
                signing_algorithm: signing_algorithm(&algorithm)?,
                token_endpoint_audience: None,
                scopes,
                resource,
            },
        })
    }
}

/// The client-credentials grant (OAuth 2.1 §4.2) with `manager`, whose metadata is set.
async fn client_credentials(
    mut manager: AuthorizationManager,
    config: ClientCredentialsConfig,
) -> Result<AuthorizationManager, String> {
    manager
        .validate_client_credentials_metadata(&config)
        .and_then(|()| manager.configure_client_credentials(&config))
        .map_err(|error| cause(&error))?;
    manager
        .exchange_client_credentials(&config)
        .await
        .map_err(|error| cause(&error))?;
    Ok(manager)
}

/// The scopes a 403 `insufficient_scope` challenge names; `None` for any other challenge.
fn insufficient_scope(url: &str, challenge: &str) -> Option<Vec<String>> {
    let base = url::Url::parse(url).ok()?;
    let params = WWWAuthenticateParams::parse(challenge, &base);
    params.is_insufficient_scope().then(|| {
        params
            .scope
            .iter()
            .flat_map(|scope| scope.split_whitespace())
            .map(str::to_owned)
            .collect()
    })
}

fn signing_algorithm(name: &str) -> Result<JwtSigningAlgorithm, String> {
    Ok(match name {
        "RS256" => JwtSigningAlgorithm::RS256,
        "RS384" => JwtSigningAlgorithm::RS384,
        "RS512" => JwtSigningAlgorithm::RS512,
        "ES256" => JwtSigningAlgorithm::ES256,
        "ES384" => JwtSigningAlgorithm::ES384,
        other => {
            return Err(format!(
                "the client-credentials signing algorithm `{other}` is not one of RS256, RS384, RS512, ES256, ES384"
            ));
        }
    })
}

/// The server's [`TokenStore`], shared by every manager made for it.
pub(crate) struct SharedStore(pub(crate) Arc<TokenStore>);

#[async_trait::async_trait]
impl rmcp::transport::auth::CredentialStore for SharedStore {
    async fn load(&self) -> Result<Option<rmcp::transport::auth::StoredCredentials>, AuthError> {
        self.0.load().await
    }

    async fn save(
        &self,
        credentials: rmcp::transport::auth::StoredCredentials,
    ) -> Result<(), AuthError> {
        self.0.save(credentials).await
    }

    async fn clear(&self) -> Result<(), AuthError> {
        self.0.clear().await
    }
}
