//! The authorization server's key set: discovered from its metadata, fetched when first
//! needed, and fetched again (at most every [`REFRESH_EVERY`]) when a token names a key it
//! does not hold. Keys of a type this server does not know (a post-quantum `AKP` key, say)
//! stay in the set unused (RFC 7517 §5), and a key is used only for what it declares
//! ([`refusal`]).

use std::time::{Duration, Instant};

use jsonwebtoken::Algorithm;
use jsonwebtoken::jwk::{
    AlgorithmParameters, EllipticCurve, Jwk, JwkSet, KeyAlgorithm, KeyOperations, PublicKeyUse,
};
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

/// The RSA signature algorithms: one RSA key verifies any of them.
pub(super) const RSA_SIGNATURES: [Algorithm; 6] = [
    Algorithm::RS256,
    Algorithm::RS384,
    Algorithm::RS512,
    Algorithm::PS256,
    Algorithm::PS384,
    Algorithm::PS512,
];

/// Why `jwk` may not verify a signature made with `alg`, or `None` when it may. The reason
/// completes "the access token's key …".
///
/// A key is used for its declared purpose only (`use`, `key_ops`: RFC 7517 §4.2–4.3), and
/// only with algorithms of its type and curve (RFC 7518 §3). A declared `alg` (RFC 7517 §4.4,
/// RFC 8725 §3.1) must be the token's, with one tolerance: an RSA key declared for one RSA
/// signature algorithm verifies the others (RS* and PS*), as Auth0 signs PS256 tokens with
/// keys its key set labels RS256; the signature must still verify with that key.
pub(crate) fn refusal(jwk: &Jwk, alg: Algorithm) -> Option<String> {
    let common = &jwk.common;
    if let Some(usage) = &common.public_key_use
        && *usage != PublicKeyUse::Signature
    {
        return Some(match usage {
            PublicKeyUse::Encryption => "is an encryption key (`use: enc`)".to_owned(),
            _ => "is not a signing key (`use`)".to_owned(),
        });
    }
    if let Some(operations) = &common.key_operations
        && !operations.contains(&KeyOperations::Verify)
    {
        return Some("is not for verifying signatures (`key_ops`)".to_owned());
    }
    if let Some(declared) = common.key_algorithm
        && declared != KeyAlgorithm::from(alg)
    {
        let rsa = |key_alg: KeyAlgorithm| {
            RSA_SIGNATURES
                .iter()
                .any(|&rsa| KeyAlgorithm::from(rsa) == key_alg)
        };
        if !(rsa(declared) && RSA_SIGNATURES.contains(&alg)) {
            return Some(match declared {
                KeyAlgorithm::UNKNOWN_ALGORITHM => {
                    format!("is for another algorithm than {alg:?}")
                }
                _ => format!("is for {declared}, not {alg:?}"),
            });
        }
    }
    let fits = match (&jwk.algorithm, alg) {
        (AlgorithmParameters::RSA(_), alg) => RSA_SIGNATURES.contains(&alg),
        (AlgorithmParameters::EllipticCurve(key), Algorithm::ES256) => {
            key.curve == EllipticCurve::P256
        }
        (AlgorithmParameters::EllipticCurve(key), Algorithm::ES384) => {
            key.curve == EllipticCurve::P384
        }
        (AlgorithmParameters::OctetKeyPair(key), Algorithm::EdDSA) => {
            key.curve == EllipticCurve::Ed25519
        }
        _ => false,
    };
    (!fits).then(|| format!("cannot verify {alg:?} signatures (its type is another)"))
}

/// The key of `set` for a token signed with `alg` naming `kid`: of the keys with that `kid`
/// (RFC 7517 §4.5 lets several share one, e.g. the same key published for signing and for
/// encryption), the first that may verify `alg`, else the first (whose [`refusal`] then says
/// why not). For a token without `kid`, the one key of the set that may verify `alg` (none
/// when several may: the token must say which).
fn find_in(set: Option<&JwkSet>, kid: Option<&str>, alg: Algorithm) -> Option<Jwk> {
    let set = set?;
    let usable = |key: &&Jwk| refusal(key, alg).is_none();
    match kid {
        Some(kid) => {
            let named = |key: &&Jwk| key.common.key_id.as_deref() == Some(kid);
            let mut named_keys = set.keys.iter().filter(named);
            let first = named_keys.clone().next()?;
            Some(named_keys.find(usable).unwrap_or(first).clone())
        }
        None => {
            let mut usable = set.keys.iter().filter(usable);
            let only = usable.next()?;
            usable.next().is_none().then(|| only.clone())
        }
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

    fn cached(&self, kid: Option<&str>, alg: Algorithm) -> Option<Jwk> {
        find_in(
            self.set.read().unwrap_or_else(|e| e.into_inner()).as_ref(),
            kid,
            alg,
        )
    }

    /// The key `kid` (for none, the one key that may verify `alg`). `Ok(None)`: not in the
    /// set, even after fetching it again when allowed. A token whose key is known never waits
    /// on a fetch.
    ///
    /// # Errors
    /// The set was never read and cannot be now: the message says why.
    pub(crate) async fn find(
        &self,
        kid: Option<&str>,
        alg: Algorithm,
    ) -> Result<Option<Jwk>, String> {
        if let Some(key) = self.cached(kid, alg) {
            return Ok(Some(key));
        }
        let mut state = self.state.lock().await;
        // Another request may have fetched while this one waited.
        if let Some(key) = self.cached(kid, alg) {
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
        Ok(self.cached(kid, alg))
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A key set as authorization servers publish them: Keycloak's signing and encryption
    /// RSA keys, an Ed25519 key, a P-256 key, a post-quantum key of a type this server does
    /// not know (RFC 9964 `AKP`), and an RSA key that names no use or algorithm.
    fn published() -> JwkSet {
        let n = "sXchDaQebHnPiGvyDOAT4saGEUetSyo9MKLOoWFsueri23bOdgWp4Dy1WlUzewbgBHod5pcM9H95GQRV3JDXboIRROSBigeC5yjU1hGzHHyXss8UDprecbAYxknTcQkhslANGRUZmdTOQ5qTRsLAt6BTYuyvVRdhS8exSZEy_c4gs_7svlJJQ4H9_NxsiIoLwAEk7-Q3UXERGYw_75IDrGA84-lA_-Ct4eTlXHBIY2EaV7t7LjJaynVJCpkv4LKjTTAumiGUIuQhrNhZLuF_RJLqHpM2kgWFLU7-VTdL1VbC2tejvcI2BlMkEpk1BzBZI0KQB0GaDWFLN-aEAw3vRw";
        serde_json::from_value(json!({"keys": [
            {"kid": "kc-sig", "kty": "RSA", "alg": "RS256", "use": "sig", "n": n, "e": "AQAB"},
            {"kid": "kc-enc", "kty": "RSA", "alg": "RSA-OAEP", "use": "enc", "n": n, "e": "AQAB"},
            {"kid": "ed", "kty": "OKP", "crv": "Ed25519", "x": "EB8gU7MffHDAitrmpoZAs0BekMn5bk3VD-LZZJEWQbg"},
            {"kid": "p256", "kty": "EC", "crv": "P-256", "use": "sig", "key_ops": ["verify"],
             "x": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",
             "y": "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"},
            {"kid": "pq", "kty": "AKP", "alg": "ML-DSA-44", "pub": "AAAA"},
            {"kid": "bare", "kty": "RSA", "n": n, "e": "AQAB"},
            {"kid": "wraps", "kty": "RSA", "key_ops": ["wrapKey"], "n": n, "e": "AQAB"},
            {"kid": "odd-alg", "kty": "RSA", "alg": "RS1", "n": n, "e": "AQAB"}
        ]}))
        .expect("a key set with keys of unknown types still reads")
    }

    fn refusal_of(kid: &str, alg: Algorithm) -> Option<String> {
        refusal(published().find(kid).expect("in the set"), alg)
    }

    #[test]
    fn a_key_verifies_only_what_it_declares_and_its_type_allows() {
        assert_eq!(refusal_of("kc-sig", Algorithm::RS256), None);
        assert_eq!(refusal_of("ed", Algorithm::EdDSA), None);
        assert_eq!(refusal_of("p256", Algorithm::ES256), None);
        // An RSA key that declares nothing verifies any RSA algorithm, and only those; one
        // declared RS256 verifies PS256 too (Auth0's key sets).
        assert_eq!(refusal_of("bare", Algorithm::PS512), None);
        assert_eq!(refusal_of("kc-sig", Algorithm::PS256), None);
        let refused = [
            (
                "kc-enc",
                Algorithm::RS256,
                "is an encryption key (`use: enc`)",
            ),
            ("kc-sig", Algorithm::ES256, "is for RS256, not ES256"),
            (
                "wraps",
                Algorithm::RS256,
                "is not for verifying signatures (`key_ops`)",
            ),
            (
                "odd-alg",
                Algorithm::RS256,
                "is for another algorithm than RS256",
            ),
            (
                "pq",
                Algorithm::EdDSA,
                "is for another algorithm than EdDSA",
            ),
            (
                "bare",
                Algorithm::ES256,
                "cannot verify ES256 signatures (its type is another)",
            ),
            (
                "p256",
                Algorithm::ES384,
                "cannot verify ES384 signatures (its type is another)",
            ),
            (
                "ed",
                Algorithm::RS256,
                "cannot verify RS256 signatures (its type is another)",
            ),
        ];
        for (kid, alg, why) in refused {
            assert_eq!(
                refusal_of(kid, alg).as_deref(),
                Some(why),
                "{kid} for {alg:?}"
            );
        }
    }

    #[test]
    fn a_token_without_kid_gets_the_one_key_for_its_algorithm() {
        let set = published();
        let kid_of = |alg| find_in(Some(&set), None, alg).and_then(|key| key.common.key_id);
        assert_eq!(kid_of(Algorithm::EdDSA).as_deref(), Some("ed"));
        assert_eq!(kid_of(Algorithm::ES256).as_deref(), Some("p256"));
        // `kc-sig` and `bare` may both verify RS256: the token has to say which.
        assert_eq!(kid_of(Algorithm::RS256), None);
        assert_eq!(kid_of(Algorithm::ES384), None);
        // One `kid` for the same key published twice, for encryption first: the signing
        // entry verifies.
        let shared: JwkSet = serde_json::from_value(json!({"keys": [
            {"kid": "k", "kty": "OKP", "crv": "Ed25519", "use": "enc", "x": "EB8gU7MffHDAitrmpoZAs0BekMn5bk3VD-LZZJEWQbg"},
            {"kid": "k", "kty": "OKP", "crv": "Ed25519", "use": "sig", "x": "EB8gU7MffHDAitrmpoZAs0BekMn5bk3VD-LZZJEWQbg"}
        ]}))
        .unwrap();
        let found = find_in(Some(&shared), Some("k"), Algorithm::EdDSA).unwrap();
        assert_eq!(found.common.public_key_use, Some(PublicKeyUse::Signature));
        // Named but unusable: found, so that `refusal` can say why.
        let found = find_in(Some(&shared), Some("k"), Algorithm::RS256).unwrap();
        assert_eq!(found.common.public_key_use, Some(PublicKeyUse::Encryption));
        assert_eq!(
            find_in(Some(&set), Some("pq"), Algorithm::EdDSA)
                .and_then(|key| key.common.key_id)
                .as_deref(),
            Some("pq"),
            "a named key is found whatever its type; `refusal` then says why it cannot verify"
        );
    }
}
