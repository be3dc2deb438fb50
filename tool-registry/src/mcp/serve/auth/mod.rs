//! OAuth 2.1 at the door: the HTTP server as an OAuth resource server (MCP 2025-11-25 and
//! 2026-07-28, "Authorization"; RFC 9728 protected-resource metadata; RFC 6750 bearer tokens;
//! RFC 9068 JWT access tokens).
//!
//! With [`HttpOptions::auth`](super::HttpOptions::auth) set, every request to the MCP endpoint
//! needs `Authorization: Bearer TOKEN`, a JWT that:
//!
//! - is signed by a key of the authorization server's JWK set (an asymmetric algorithm:
//!   RS*, PS*, ES256/384 or EdDSA; `alg: none` and HMAC are refused), found by its `kid`
//!   (the set is fetched again, at most every 30 s, when a `kid` is unknown: key rotation;
//!   a token without `kid` is verified by the set's one key for its algorithm), and a key
//!   that declares another use (`use: enc`, `key_ops`) or algorithm (`alg`; an RSA key
//!   declared for one RSA signature algorithm verifies the others, as Auth0's key sets need)
//!   is refused (RFC 8725 §3.1); keys of types this server does not know are ignored (RFC
//!   7517 §5);
//! - was issued by the configured issuer (`iss`) for this resource (`aud` contains
//!   [`ResourceAuth`]'s resource URL, as written or, for an `http(s)` URL, spelled with
//!   another host case, the default port or a trailing slash, as clients send RFC 8707
//!   resource indicators), and is within `exp` / `nbf`, give or take the leeway
//!   (default 60 s of clock skew);
//! - carries every scope [`ResourceAuth::with_required_scopes`] names (the `scope` claim,
//!   space-separated, or an `scp` array).
//!
//! A request without a token is answered `401` with `WWW-Authenticate: Bearer
//! resource_metadata="…", scope="…"`; an invalid one `401` with `error="invalid_token"` and a
//! description naming what is wrong; a token without a required scope `403` with
//! `error="insufficient_scope"` and the scopes needed (step-up). A tool that needs scopes of
//! its own ([`ResourceAuth::with_tool_scopes`]) is left out of `tools/list` for a principal
//! without them, and a `tools/call` of it is `403 insufficient_scope` naming them.
//!
//! The metadata document (RFC 9728) is served at
//! `/.well-known/oauth-protected-resource` plus the resource URL's path (and at the bare
//! well-known path), naming the issuer as the authorization server. The token's
//! [`Principal`] reaches tools in their context: `ctx.get::<Principal>()`.
//!
//! [`Principal`]: tool_sdk::context::Principal

mod audience;
pub(crate) mod guard;
mod keys;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::Duration;

use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde_json::{Map, Value, json};
use tool_sdk::context::Principal;

use audience::{NOT_FOR_THIS_RESOURCE, comparable, same_resource};
use keys::Keys;

/// How the HTTP server checks access tokens: this resource's URL, the authorization server
/// that issues its tokens, and the scopes it asks for.
#[derive(Debug, Clone)]
pub struct ResourceAuth {
    resource: String,
    issuer: String,
    jwks_uri: Option<String>,
    required: Vec<String>,
    tool_scopes: BTreeMap<String, Vec<String>>,
    leeway: Duration,
}

impl ResourceAuth {
    /// Tokens for `resource` (this MCP endpoint's canonical URL as clients reach it, e.g.
    /// `https://mcp.example.com/mcp`: the audience a token must name) issued by `issuer`
    /// (the authorization server's issuer identifier, e.g. `https://auth.example.com`). The
    /// key set is found through the issuer's metadata (RFC 8414
    /// `/.well-known/oauth-authorization-server`, else OpenID Connect discovery), whose
    /// `issuer` must be `issuer` exactly.
    pub fn new(resource: impl Into<String>, issuer: impl Into<String>) -> Self {
        Self {
            resource: resource.into(),
            issuer: issuer.into(),
            jwks_uri: None,
            required: Vec::new(),
            tool_scopes: BTreeMap::new(),
            leeway: Duration::from_secs(60),
        }
    }

    /// Takes the key set from `jwks_uri` instead of discovering it.
    #[must_use]
    pub fn with_jwks_uri(mut self, jwks_uri: impl Into<String>) -> Self {
        self.jwks_uri = Some(jwks_uri.into());
        self
    }

    /// Every request needs these scopes (listed in the metadata and in challenges).
    #[must_use]
    pub fn with_required_scopes(
        mut self,
        scopes: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        self.required.extend(scopes.into_iter().map(Into::into));
        self
    }

    /// The tool `tool` (its listed name) also needs `scopes`: without them a principal does
    /// not see it in `tools/list`, and calling it is `403 insufficient_scope`.
    #[must_use]
    pub fn with_tool_scopes(
        mut self,
        tool: impl Into<String>,
        scopes: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        self.tool_scopes
            .entry(tool.into())
            .or_default()
            .extend(scopes.into_iter().map(Into::into));
        self
    }

    /// Accepts `exp` and `nbf` this far off (clock skew between the servers); default 60 s.
    #[must_use]
    pub fn with_leeway(mut self, leeway: Duration) -> Self {
        self.leeway = leeway;
        self
    }
}

/// Why a request is refused: its HTTP status and `WWW-Authenticate` parameters.
#[derive(Debug)]
pub(crate) enum Refusal {
    /// No bearer token: `401`, no error code (RFC 6750 §3.1).
    NoToken,
    /// `401 invalid_token`, with what is wrong.
    Invalid(String),
    /// `403 insufficient_scope`, with the scopes needed.
    Scope(Vec<String>),
    /// The key set could not be read: `503`.
    Keys(String),
}

/// A request admitted: who made it, and what the server asks of tokens.
#[derive(Debug, Clone)]
pub(crate) struct Admission {
    pub(crate) principal: Principal,
    /// Scopes every request needs.
    required: Arc<[String]>,
    /// Scopes the server's settings add per tool ([`ResourceAuth::with_tool_scopes`]).
    tool_scopes: Arc<BTreeMap<String, Vec<String>>>,
}

impl Admission {
    /// The scopes a call of `tool` (its listed name) needs, when the principal lacks any of
    /// them: the required ones, the settings' for the tool, and those the tool declares
    /// (`#[tool(scopes = ...)]`).
    pub(crate) fn missing(&self, tool: &str, declared: &[String]) -> Option<Vec<String>> {
        let configured = self
            .tool_scopes
            .get(tool)
            .map(Vec::as_slice)
            .unwrap_or_default();
        if self.principal.has_scopes(configured) && self.principal.has_scopes(declared) {
            return None;
        }
        let mut needed: Vec<String> = self.required.to_vec();
        for scope in configured.iter().chain(declared) {
            if !needed.contains(scope) {
                needed.push(scope.clone());
            }
        }
        Some(needed)
    }

    /// Who the client is, for per-client limits: the token's subject, else its client.
    pub(crate) fn client_key(&self) -> String {
        let principal = &self.principal;
        match (&principal.subject, &principal.client_id) {
            (Some(subject), _) => format!("sub:{subject}"),
            (None, Some(client)) => format!("client:{client}"),
            (None, None) => "anonymous".to_owned(),
        }
    }
}

/// The scopes the served tools declare (`#[tool(scopes = ...)]`), as the pool served now has
/// them.
pub(crate) trait DeclaredScopes: Send + Sync {
    /// The listed name of the tool `name` (a listed name or an alias) and the scopes it
    /// declares; `None` for a tool the server does not have.
    fn of(&self, name: &str) -> Option<(String, Vec<String>)>;
    /// Every scope some served tool declares.
    fn all(&self) -> BTreeSet<String>;
}

/// The running check: the settings, the key set, and the served tools' declared scopes.
pub(crate) struct Door {
    pub(crate) auth: ResourceAuth,
    /// The resource URL as [`same_resource`] compares it.
    resource: Option<String>,
    keys: Keys,
    required: Arc<[String]>,
    tool_scopes: Arc<BTreeMap<String, Vec<String>>>,
    declared: Box<dyn DeclaredScopes>,
}

impl std::fmt::Debug for Door {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Door")
            .field("auth", &self.auth)
            .finish_non_exhaustive()
    }
}

/// Whether tokens signed with `alg` are accepted: asymmetric algorithms only (a symmetric one
/// would let anyone holding the public key sign).
fn accepted(alg: Algorithm) -> bool {
    keys::RSA_SIGNATURES.contains(&alg)
        || matches!(alg, Algorithm::ES256 | Algorithm::ES384 | Algorithm::EdDSA)
}

impl Door {
    /// The check of `auth` for the pool `declared` reads.
    ///
    /// # Errors
    /// A tool named in [`ResourceAuth::with_tool_scopes`] that the pool does not have (by its
    /// name or an alias): its scopes would protect nothing.
    pub(crate) fn new(
        auth: ResourceAuth,
        declared: Box<dyn DeclaredScopes>,
    ) -> Result<Self, String> {
        let mut tool_scopes: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for (tool, scopes) in &auth.tool_scopes {
            let Some((listed, _)) = declared.of(tool) else {
                return Err(format!(
                    "scopes are set for the tool `{tool}`, but the served pool has no tool of \
                     that name (names are case-sensitive): the scopes would protect nothing; \
                     name a tool of `tools/list`"
                ));
            };
            tool_scopes
                .entry(listed)
                .or_default()
                .extend(scopes.iter().cloned());
        }
        let keys = Keys::new(auth.issuer.clone(), auth.jwks_uri.clone());
        Ok(Self {
            resource: comparable(&auth.resource),
            required: auth.required.clone().into(),
            tool_scopes: Arc::new(tool_scopes),
            auth,
            keys,
            declared,
        })
    }

    /// The URL of the metadata document: the well-known prefix before the resource's path.
    pub(crate) fn metadata_url(&self) -> String {
        match url::Url::parse(&self.auth.resource) {
            Ok(url) => format!(
                "{}/.well-known/oauth-protected-resource{}",
                url.origin().ascii_serialization(),
                url.path().trim_end_matches('/')
            ),
            Err(_) => "/.well-known/oauth-protected-resource".to_owned(),
        }
    }

    /// The paths the metadata document is served at.
    pub(crate) fn metadata_paths(&self) -> [String; 2] {
        let path = url::Url::parse(&self.auth.resource)
            .map(|url| url.path().trim_end_matches('/').to_owned())
            .unwrap_or_default();
        [
            format!("/.well-known/oauth-protected-resource{path}"),
            "/.well-known/oauth-protected-resource".to_owned(),
        ]
    }

    /// The RFC 9728 metadata document.
    pub(crate) fn metadata(&self) -> Value {
        let mut scopes = self.declared.all();
        scopes.extend(self.auth.required.iter().cloned());
        for needed in self.auth.tool_scopes.values() {
            scopes.extend(needed.iter().cloned());
        }
        json!({
            "resource": self.auth.resource,
            "authorization_servers": [self.auth.issuer],
            "scopes_supported": scopes,
            "bearer_methods_supported": ["header"],
        })
    }

    /// Checks the `Authorization` header's token.
    pub(crate) async fn admit(&self, authorization: Option<&str>) -> Result<Admission, Refusal> {
        let token = authorization
            .and_then(|value| {
                let (scheme, token) = value.split_once(' ')?;
                scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
            })
            .filter(|token| !token.is_empty())
            .ok_or(Refusal::NoToken)?;
        let principal = self.verify(token).await?;
        if !principal.has_scopes(&self.auth.required) {
            return Err(Refusal::Scope(self.auth.required.clone()));
        }
        Ok(Admission {
            principal,
            required: Arc::clone(&self.required),
            tool_scopes: Arc::clone(&self.tool_scopes),
        })
    }

    /// The scopes `admission`'s principal lacks to call `tool`, when it lacks any.
    pub(crate) fn missing_for(&self, admission: &Admission, tool: &str) -> Option<Vec<String>> {
        let (listed, declared) = self.declared.of(tool)?;
        admission.missing(&listed, &declared)
    }

    async fn verify(&self, token: &str) -> Result<Principal, Refusal> {
        let header = jsonwebtoken::decode_header(token).map_err(|error| {
            Refusal::Invalid(format!(
                "the access token is not a signed JWT this server accepts ({error})"
            ))
        })?;
        if !accepted(header.alg) {
            return Err(Refusal::Invalid(format!(
                "the access token is signed with {:?}; this server accepts asymmetric \
                 signatures only",
                header.alg
            )));
        }
        let jwk = self
            .keys
            .find(header.kid.as_deref(), header.alg)
            .await
            .map_err(Refusal::Keys)?
            .ok_or_else(|| {
                Refusal::Invalid(match &header.kid {
                    Some(kid) => format!(
                        "the access token's key `{kid}` is not in the authorization server's \
                         key set"
                    ),
                    None => format!(
                        "the access token names no key (`kid`), and the authorization \
                         server's key set has no single key for {:?}",
                        header.alg
                    ),
                })
            })?;
        if let Some(why) = keys::refusal(&jwk, header.alg) {
            let kid = header.kid.as_deref().unwrap_or_default();
            return Err(Refusal::Invalid(format!(
                "the access token's key `{kid}` {why}"
            )));
        }
        let key = DecodingKey::from_jwk(&jwk).map_err(|error| {
            Refusal::Invalid(format!("the token's key cannot verify it ({error})"))
        })?;
        let mut validation = Validation::new(header.alg);
        validation.set_issuer(&[&self.auth.issuer]);
        // Required here, compared below: clients spell the resource URL variously.
        validation.validate_aud = false;
        validation.set_required_spec_claims(&["exp", "iss", "aud"]);
        validation.validate_nbf = true;
        validation.leeway = self.auth.leeway.as_secs();
        let data = jsonwebtoken::decode::<Map<String, Value>>(token, &key, &validation)
            .map_err(|error| Refusal::Invalid(describe(&error)))?;
        let for_us = |aud: &Value| {
            aud.as_str().is_some_and(|aud| {
                same_resource(aud, &self.auth.resource, self.resource.as_deref())
            })
        };
        let Some(audience) = data.claims.get("aud") else {
            return Err(Refusal::Invalid(NOT_FOR_THIS_RESOURCE.to_owned()));
        };
        if !(for_us(audience)
            || audience
                .as_array()
                .is_some_and(|all| all.iter().any(for_us)))
        {
            return Err(Refusal::Invalid(NOT_FOR_THIS_RESOURCE.to_owned()));
        }
        Ok(Principal::from_claims(data.claims))
    }
}

/// What is wrong with a token, for `error_description`.
fn describe(error: &jsonwebtoken::errors::Error) -> String {
    use jsonwebtoken::errors::ErrorKind;
    match error.kind() {
        ErrorKind::ExpiredSignature => "the access token has expired".to_owned(),
        ErrorKind::ImmatureSignature => "the access token is not valid yet (nbf)".to_owned(),
        ErrorKind::InvalidAudience => NOT_FOR_THIS_RESOURCE.to_owned(),
        ErrorKind::InvalidIssuer => "the access token was issued by another server".to_owned(),
        ErrorKind::InvalidSignature => "the access token's signature is not valid".to_owned(),
        ErrorKind::Base64(_) | ErrorKind::Json(_) | ErrorKind::Utf8(_) => {
            format!("the access token is malformed ({error})")
        }
        ErrorKind::MissingRequiredClaim(claim) => {
            format!("the access token has no `{claim}` claim")
        }
        _ => format!("the access token was refused ({error})"),
    }
}

/// The `WWW-Authenticate` value and status code of `refusal`.
pub(crate) fn challenge(door: &Door, refusal: &Refusal) -> (u16, String, String) {
    // A header value is visible ASCII: anything else (a `kid` the client chose, say) is `?`.
    let quote = |text: &str| -> String {
        text.chars()
            .map(|c| match c {
                '"' | '\\' => '\'',
                ' '..='~' => c,
                _ => '?',
            })
            .collect()
    };
    let scope = door.auth.required.join(" ");
    let mut value = format!(
        "Bearer resource_metadata=\"{}\"",
        quote(&door.metadata_url())
    );
    let (status, description) = match refusal {
        Refusal::NoToken => {
            if !scope.is_empty() {
                value.push_str(&format!(", scope=\"{}\"", quote(&scope)));
            }
            (
                401,
                "this MCP server needs an OAuth access token".to_owned(),
            )
        }
        Refusal::Invalid(why) => {
            value.push_str(&format!(
                ", error=\"invalid_token\", error_description=\"{}\"",
                quote(why)
            ));
            (401, why.clone())
        }
        Refusal::Scope(needed) => {
            let needed = needed.join(" ");
            value.push_str(&format!(
                ", error=\"insufficient_scope\", scope=\"{}\"",
                quote(&needed)
            ));
            (403, format!("the access token lacks the scopes `{needed}`"))
        }
        Refusal::Keys(why) => (503, why.clone()),
    };
    (status, value, description)
}

/// Who makes the request, when the server checks access tokens (a task's owner).
pub(crate) fn requester_of(
    context: &rmcp::service::RequestContext<rmcp::RoleServer>,
) -> Option<String> {
    admission_of(context).map(|admission| admission.client_key())
}

/// What the HTTP door admitted the request as, when the server checks access tokens.
pub(crate) fn admission_of(
    context: &rmcp::service::RequestContext<rmcp::RoleServer>,
) -> Option<Admission> {
    context
        .extensions
        .get::<http::request::Parts>()?
        .extensions
        .get::<Admission>()
        .cloned()
}
