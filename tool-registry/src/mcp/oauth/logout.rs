//! Logging out of a server: its tokens revoked at the authorization server (RFC 7009 "OAuth
//! 2.0 Token Revocation": the refresh token, which ends the whole grant at most servers, or the
//! access token when there is none) when it publishes a `revocation_endpoint`, then the token
//! file removed.

use std::path::Path;

use rmcp::transport::auth::AuthorizationManager;
use tokio::time::timeout;

use super::McpOAuth;

fn remove(path: &Path) -> Result<(), String> {
    match std::fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(error) => Err(format!("cannot remove {}: {error}", path.display())),
    }
}

/// How long revoking may take before the tokens are only removed.
const REVOKE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// What [`McpOAuth::logout`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Logout {
    /// No login was stored.
    NothingStored,
    /// The tokens were revoked at the authorization server and removed.
    Revoked,
    /// The tokens were removed; the authorization server did not revoke them (it publishes no
    /// revocation endpoint, could not be reached, or refused), so they live until they expire.
    Removed,
}

impl McpOAuth {
    /// Logs out: revokes the tokens stored in the
    /// [credentials file](Self::with_credentials_file) at their server's authorization server
    /// (RFC 7009) when it can, then removes the file.
    ///
    /// # Errors
    /// The cause, when the stored login cannot be read or removed. A revocation that fails
    /// is not an error ([`Logout::Removed`]).
    pub async fn logout(&self) -> Result<Logout, String> {
        let Some(path) = &self.credentials_file else {
            return Ok(Logout::NothingStored);
        };
        let stored = super::store::read_any(path).map_err(|error| error.to_string())?;
        let Some((url, stored)) = stored.filter(|(_, stored)| stored.token_response.is_some())
        else {
            remove(path)?;
            return Ok(Logout::NothingStored);
        };
        let revoked = match timeout(REVOKE_TIMEOUT, self.revoke(&url, &stored)).await {
            Ok(Ok(())) => true,
            Ok(Err(cause)) => {
                tracing::warn!("the tokens of {url} were not revoked: {cause}");
                false
            }
            Err(_) => {
                tracing::warn!("the tokens of {url} were not revoked within {REVOKE_TIMEOUT:?}");
                false
            }
        };
        remove(path)?;
        Ok(if revoked {
            Logout::Revoked
        } else {
            Logout::Removed
        })
    }

    async fn revoke(
        &self,
        url: &str,
        stored: &rmcp::transport::auth::StoredCredentials,
    ) -> Result<(), String> {
        use oauth2::TokenResponse as _;
        let manager = AuthorizationManager::new(url)
            .await
            .map_err(|error| error.to_string())?;
        let metadata = manager
            .resolve_metadata()
            .await
            .map_err(|error| error.to_string())?
            .metadata;
        // Only the authorization server that issued the tokens gets them back: the resource
        // may name another one by now.
        match (&stored.issuer, &metadata.issuer) {
            (Some(issued_by), Some(now)) if issued_by == now => {}
            _ => {
                return Err(
                    "the authorization server the server names now is not the one \
                            that issued the tokens (or one of them is unknown)"
                        .to_owned(),
                );
            }
        }
        let endpoint = metadata
            .additional_fields
            .get("revocation_endpoint")
            .and_then(|endpoint| endpoint.as_str())
            .ok_or("the authorization server publishes no revocation endpoint")?
            .to_owned();
        let parsed = reqwest::Url::parse(&endpoint)
            .map_err(|_| "the revocation endpoint is not a URL".to_owned())?;
        let loopback = matches!(
            parsed.host(),
            Some(url::Host::Domain("localhost"))
                | Some(url::Host::Ipv4(std::net::Ipv4Addr::LOCALHOST))
                | Some(url::Host::Ipv6(std::net::Ipv6Addr::LOCALHOST))
        );
        if parsed.scheme() != "https" && !loopback {
            return Err("the revocation endpoint is not https".to_owned());
        }
        let Some(tokens) = &stored.token_response else {
            return Ok(());
        };
        // The refresh token when there is one: revoking it ends the grant, and with it the
        // access tokens a server can revoke (RFC 7009 §2.1); a self-contained (JWT) access
        // token cannot be revoked at most servers and lives until it expires.
        let (token, hint) = match tokens.refresh_token() {
            Some(refresh) => (refresh.secret(), "refresh_token"),
            None => (tokens.access_token().secret(), "access_token"),
        };
        let secret = match (&self.client_secret, &self.client_secret_env) {
            (Some(secret), _) => Some(secret.clone()),
            (None, Some(variable)) => std::env::var(variable).ok(),
            (None, None) => None,
        }
        .filter(|_| self.client_id.as_deref() == Some(stored.client_id.as_str()));
        let form = [
            ("token", token.as_str()),
            ("token_type_hint", hint),
            ("client_id", stored.client_id.as_str()),
        ];
        // A redirect would send the token on to wherever it points: none is followed.
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|error| error.to_string())?;
        let mut request = client.post(&endpoint);
        if let Some(secret) = &secret {
            request = request.basic_auth(&stored.client_id, Some(secret));
        }
        let response = request
            .form(&form)
            .send()
            .await
            .map_err(|error| format!("the revocation endpoint: {}", error.without_url()))?;
        if !response.status().is_success() {
            return Err(format!(
                "the revocation endpoint answered {}",
                response.status()
            ));
        }
        Ok(())
    }
}
