//! The authorization server's key set: discovered from its metadata, fetched when first
//! needed, and fetched again (at most every [`REFRESH_EVERY`]) when a token names a key it
//! does not hold.

use std::time::{Duration, Instant};

use jsonwebtoken::jwk::{Jwk, JwkSet};
use serde_json::Value;

/// The shortest time between two fetches of the key set.
const REFRESH_EVERY: Duration = Duration::from_secs(30);

/// How long one fetch may take.
const FETCH_TIMEOUT: Duration = Duration::from_secs(10);

#[derive(Debug)]
pub(crate) struct Keys {
    issuer: String,
    jwks_uri: Option<String>,
    /// The set as last fetched: read without waiting on a fetch.
    set: std::sync::RwLock<Option<JwkSet>>,
    /// Held while fetching, so one fetch runs at a time.
    state: tokio::sync::Mutex<State>,
    http: reqwest::Client,
}

#[derive(Debug, Default)]
struct State {
    jwks_uri: Option<String>,
    fetched_at: Option<Instant>,
}

/// The key `kid` of `set` (or its only key, for none).
fn find_in(set: Option<&JwkSet>, kid: Option<&str>) -> Option<Jwk> {
    let set = set?;
    match kid {
        Some(kid) => set.find(kid).cloned(),
        // A set of one key: a token without `kid` can only mean it.
        None if set.keys.len() == 1 => set.keys.first().cloned(),
        None => None,
    }
}

impl Keys {
    pub(crate) fn new(issuer: String, jwks_uri: Option<String>) -> Self {
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(FETCH_TIMEOUT)
            .build()
            .unwrap_or_default();
        Self {
            issuer,
            jwks_uri,
            set: std::sync::RwLock::default(),
            state: tokio::sync::Mutex::default(),
            http,
        }
    }

    fn cached(&self, kid: Option<&str>) -> Option<Jwk> {
        find_in(
            self.set.read().unwrap_or_else(|e| e.into_inner()).as_ref(),
            kid,
        )
    }

    /// The key `kid` (or the only key, for none). `Ok(None)`: not in the set, even after
    /// fetching it again when allowed. A token whose key is known never waits on a fetch.
    ///
    /// # Errors
    /// The set was never read and cannot be now: the message says why.
    pub(crate) async fn find(&self, kid: Option<&str>) -> Result<Option<Jwk>, String> {
        if let Some(key) = self.cached(kid) {
            return Ok(Some(key));
        }
        let mut state = self.state.lock().await;
        // Another request may have fetched while this one waited.
        if let Some(key) = self.cached(kid) {
            return Ok(Some(key));
        }
        let may_fetch = state
            .fetched_at
            .is_none_or(|at| at.elapsed() >= REFRESH_EVERY);
        if !may_fetch {
            return if self.cached_any() {
                Ok(None)
            } else {
                Err(
                    "the authorization server's key set could not be read; trying again \
                     every 30 s"
                        .to_owned(),
                )
            };
        }
        state.fetched_at = Some(Instant::now());
        match self.fetch(&mut state).await {
            Ok(set) => *self.set.write().unwrap_or_else(|e| e.into_inner()) = Some(set),
            Err(error) if self.cached_any() => {
                tracing::warn!("the authorization server's key set: {error}");
            }
            Err(error) => return Err(error),
        }
        Ok(self.cached(kid))
    }

    fn cached_any(&self) -> bool {
        self.set.read().unwrap_or_else(|e| e.into_inner()).is_some()
    }

    async fn fetch(&self, state: &mut State) -> Result<JwkSet, String> {
        let uri = match (&self.jwks_uri, &state.jwks_uri) {
            (Some(uri), _) | (None, Some(uri)) => uri.clone(),
            (None, None) => {
                let uri = self.discover().await?;
                state.jwks_uri = Some(uri.clone());
                uri
            }
        };
        let response = self
            .http
            .get(&uri)
            .send()
            .await
            .map_err(|error| format!("cannot read the key set at {uri}: {error}"))?;
        if !response.status().is_success() {
            return Err(format!(
                "the key set at {uri} answered {}",
                response.status()
            ));
        }
        response
            .json::<JwkSet>()
            .await
            .map_err(|error| format!("the key set at {uri} is not a JWK set: {error}"))
    }

    /// The `jwks_uri` of the issuer's metadata (RFC 8414, else OpenID Connect discovery),
    /// whose `issuer` must be the configured one (RFC 8414 §3.3).
    async fn discover(&self) -> Result<String, String> {
        let issuer = url::Url::parse(&self.issuer)
            .map_err(|error| format!("the issuer `{}` is not a URL: {error}", self.issuer))?;
        let origin = issuer.origin().ascii_serialization();
        let path = issuer.path().trim_end_matches('/');
        let candidates = [
            format!("{origin}/.well-known/oauth-authorization-server{path}"),
            format!("{origin}{path}/.well-known/openid-configuration"),
        ];
        let mut tried = Vec::new();
        for candidate in candidates {
            let metadata: Value = match self.http.get(&candidate).send().await {
                Ok(response) if response.status().is_success() => match response.json().await {
                    Ok(metadata) => metadata,
                    Err(error) => {
                        tried.push(format!("{candidate}: {error}"));
                        continue;
                    }
                },
                Ok(response) => {
                    tried.push(format!("{candidate}: {}", response.status()));
                    continue;
                }
                Err(error) => {
                    tried.push(format!("{candidate}: {error}"));
                    continue;
                }
            };
            let named = metadata["issuer"].as_str().unwrap_or_default();
            // RFC 8414 §3.3: identical, a trailing slash included.
            if named != self.issuer {
                return Err(format!(
                    "the metadata at {candidate} is for issuer `{named}`, not `{}`",
                    self.issuer
                ));
            }
            return metadata["jwks_uri"]
                .as_str()
                .map(str::to_owned)
                .ok_or_else(|| format!("the metadata at {candidate} names no jwks_uri"));
        }
        Err(format!(
            "cannot read the authorization server's metadata ({})",
            tried.join("; ")
        ))
    }
}
