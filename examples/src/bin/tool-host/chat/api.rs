//! The HTTP side of `tool-host chat`: one streamed request to the model API, with the API key
//! read from the environment, errors put in words, and bounded retries where the API says a
//! retry may succeed (429 rate limits, 529 overloaded, 5xx).
//!
//! Anthropic Messages: <https://docs.anthropic.com/en/api/errors> (429 `rate_limit_error` with
//! `retry-after`, 529 `overloaded_error`, `x-should-retry`). OpenAI Chat Completions:
//! <https://platform.openai.com/docs/guides/error-codes> (429 with `retry-after` /
//! `retry-after-ms`, 5xx).

use std::fmt;
use std::time::Duration;

use reqwest::header::{HeaderMap, HeaderValue};
use serde_json::Value;

use tool_registry::providers::ModelApi;

/// At most this many attempts of one request (the first plus retries).
pub const MAX_ATTEMPTS: u32 = 4;

/// The longest wait between two attempts: a `retry-after` above it is cut to it.
pub const MAX_RETRY_WAIT: Duration = Duration::from_secs(60);

/// The longest silence while a response streams before the request is given up.
const READ_TIMEOUT: Duration = Duration::from_secs(600);

/// The first backoff when the API gives no `retry-after`; doubled on each retry.
pub const FIRST_BACKOFF: Duration = Duration::from_millis(500);

/// The wait after failed attempt number `attempt` (1-based) when the API named none:
/// [`FIRST_BACKOFF`] doubled per earlier attempt, as the official SDKs do.
pub fn backoff(attempt: u32) -> Duration {
    FIRST_BACKOFF * 2u32.saturating_pow(attempt.saturating_sub(1).min(8))
}

/// The API key, kept out of every `Debug` and `Display` so it is never printed or logged.
#[derive(Clone)]
pub struct ApiKey(String);

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey(<redacted>)")
    }
}

impl ApiKey {
    /// The key from `variable`, `None` when it is unset or empty.
    pub fn from_env(variable: &str) -> Option<Self> {
        std::env::var(variable)
            .ok()
            .filter(|key| !key.trim().is_empty())
            .map(|key| Self(key.trim().to_owned()))
    }
}

/// A model API endpoint: where to send, how to authenticate.
#[derive(Debug, Clone)]
pub struct ApiClient {
    http: reqwest::Client,
    provider: ModelApi,
    url: String,
    key: Option<ApiKey>,
    extra_headers: Vec<(&'static str, String)>,
}

/// Why a request failed, in words for the user. Never holds the key.
#[derive(Debug)]
pub struct ApiError {
    /// The HTTP status, when the API answered.
    pub status: Option<u16>,
    /// What went wrong and what to do.
    pub message: String,
}

impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl ApiClient {
    /// A client for `provider` at `base_url` (the API root, such as `https://api.anthropic.com`
    /// or `http://127.0.0.1:11434/v1`), authenticating with `key` when given.
    pub fn new(provider: ModelApi, base_url: &str, key: Option<ApiKey>) -> Result<Self, String> {
        let http = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(30))
            .read_timeout(READ_TIMEOUT)
            .build()
            .map_err(|error| format!("cannot build the HTTP client: {error}"))?;
        let base = base_url.trim_end_matches('/');
        let url = match provider {
            ModelApi::Anthropic => format!("{base}/v1/messages"),
            _ => format!("{base}/chat/completions"),
        };
        Ok(Self {
            http,
            provider,
            url,
            key,
            extra_headers: Vec::new(),
        })
    }

    /// The URL requests go to.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Sends `name: value` with every request (such as `anthropic-beta`).
    pub fn set_header(&mut self, name: &'static str, value: String) {
        self.extra_headers.retain(|(known, _)| *known != name);
        self.extra_headers.push((name, value));
    }

    fn headers(&self) -> Result<HeaderMap, ApiError> {
        let mut headers = HeaderMap::new();
        headers.insert("content-type", HeaderValue::from_static("application/json"));
        headers.insert("accept", HeaderValue::from_static("text/event-stream"));
        if let Some(ApiKey(key)) = &self.key {
            let bad_key = || ApiError {
                status: None,
                message: format!(
                    "{} holds characters an HTTP header cannot carry; set it to the key alone",
                    Endpoint::of(self.provider).key_variable
                ),
            };
            match self.provider {
                ModelApi::Anthropic => {
                    let mut value = HeaderValue::from_str(key).map_err(|_| bad_key())?;
                    value.set_sensitive(true);
                    headers.insert("x-api-key", value);
                }
                _ => {
                    let mut value =
                        HeaderValue::from_str(&format!("Bearer {key}")).map_err(|_| bad_key())?;
                    value.set_sensitive(true);
                    headers.insert("authorization", value);
                }
            }
        }
        if self.provider == ModelApi::Anthropic {
            headers.insert("anthropic-version", HeaderValue::from_static("2023-06-01"));
        }
        for (name, value) in &self.extra_headers {
            if let Ok(value) = HeaderValue::from_str(value) {
                headers.insert(*name, value);
            }
        }
        Ok(headers)
    }

    /// Posts `body` and returns the streaming response once the API accepted it (2xx). A 408,
    /// 409, 429, 529 or other 5xx answer (the set the official SDKs retry), or a connection
    /// failure, is tried again, waiting as `retry-after` / `retry-after-ms` say (at most
    /// [`MAX_RETRY_WAIT`]) or for [`backoff`], unless the API sends `x-should-retry: false`;
    /// `notice` is told of each wait. `attempts` counts the tries of this request, across
    /// calls (a response that fails in its stream is sent again by the caller with the same
    /// count): no call sends once it reached [`MAX_ATTEMPTS`]. Other errors (401, 400, ...)
    /// are returned at once.
    pub async fn send(
        &self,
        body: &Value,
        attempts: &mut u32,
        mut notice: impl FnMut(&str),
    ) -> Result<reqwest::Response, ApiError> {
        let headers = self.headers()?;
        loop {
            *attempts += 1;
            let attempt = *attempts;
            let sent = self
                .http
                .post(&self.url)
                .headers(headers.clone())
                .json(body)
                .send()
                .await;
            let (error, wait) = match sent {
                Ok(response) if response.status().is_success() => return Ok(response),
                Ok(response) => {
                    let status = response.status().as_u16();
                    let wait = retry_wait(response.headers());
                    let should_retry = response
                        .headers()
                        .get("x-should-retry")
                        .and_then(|value| value.to_str().ok())
                        .map(|value| value.eq_ignore_ascii_case("true"));
                    let text = response.text().await.unwrap_or_default();
                    let error = self.describe(status, &text);
                    let retryable =
                        should_retry.unwrap_or(matches!(status, 408 | 409 | 429) || status >= 500);
                    if !retryable {
                        return Err(error);
                    }
                    (error, wait)
                }
                Err(error) => (
                    ApiError {
                        status: None,
                        message: format!(
                            "cannot reach {}: {}",
                            self.url,
                            error_chain(&error.without_url())
                        ),
                    },
                    None,
                ),
            };
            if attempt >= MAX_ATTEMPTS {
                return Err(ApiError {
                    status: error.status,
                    message: format!("{} (gave up after {attempt} attempts)", error.message),
                });
            }
            let wait = wait.unwrap_or_else(|| backoff(attempt));
            notice(&format!(
                "{}; retrying in {:.1}s (attempt {} of {MAX_ATTEMPTS})",
                error.message,
                wait.as_secs_f64(),
                attempt + 1
            ));
            tokio::time::sleep(wait).await;
        }
    }

    /// `text` with every copy of the key replaced by `<redacted>`: for words that came from
    /// the server (an error body or event may repeat the key it refused).
    pub fn redact(&self, text: &str) -> String {
        match &self.key {
            Some(ApiKey(key)) if text.contains(key.as_str()) => {
                text.replace(key.as_str(), "<redacted>")
            }
            _ => text.to_owned(),
        }
    }

    /// The words for an error answer: what the status means, and the API's own message.
    fn describe(&self, status: u16, body: &str) -> ApiError {
        let parsed: Option<Value> = serde_json::from_str(body).ok();
        let api_message = parsed
            .as_ref()
            .and_then(|value| value.get("error"))
            .and_then(|error| error.get("message").or(Some(error)))
            .and_then(|message| message.as_str().map(str::to_owned))
            .unwrap_or_else(|| body.chars().take(300).collect());
        let what = match status {
            401 => format!(
                "authentication failed (401): the API refused the key; check {}",
                Endpoint::of(self.provider).key_variable
            ),
            403 => "permission denied (403): the key may not use this model or endpoint".into(),
            404 => format!(
                "not found (404) at {}: check --base-url and --model",
                self.url
            ),
            408 => "the request timed out (408)".into(),
            409 => "conflict (409)".into(),
            429 => "rate limited (429)".into(),
            529 => "the API is overloaded (529)".into(),
            500..=599 => format!("the API failed ({status})"),
            _ => format!("the API refused the request ({status})"),
        };
        let api_message = self.redact(&api_message);
        let message = if api_message.trim().is_empty() {
            what
        } else {
            format!("{what}: {}", api_message.trim())
        };
        ApiError {
            status: Some(status),
            message,
        }
    }
}

/// How long the API asks to wait: `retry-after-ms` (milliseconds), else `retry-after`
/// (seconds; an HTTP date is not honoured and falls back to the backoff), at most
/// [`MAX_RETRY_WAIT`] (a number too large for a [`Duration`] is that too).
fn retry_wait(headers: &HeaderMap) -> Option<Duration> {
    let number = |name: &str| {
        headers
            .get(name)
            .and_then(|value| value.to_str().ok())
            .and_then(|text| text.trim().parse::<f64>().ok())
            .filter(|value| value.is_finite() && *value >= 0.0)
    };
    let seconds = number("retry-after-ms")
        .map(|ms| ms / 1000.0)
        .or_else(|| number("retry-after"))?;
    Some(
        Duration::try_from_secs_f64(seconds)
            .unwrap_or(MAX_RETRY_WAIT)
            .min(MAX_RETRY_WAIT),
    )
}

/// An error with its causes, `a: b: c`.
fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_key_never_shows_in_debug_output() {
        let key = ApiKey("sk-secret-123".into());
        assert!(!format!("{key:?}").contains("secret"));
    }

    #[test]
    fn retry_after_ms_wins_over_seconds() {
        let mut headers = HeaderMap::new();
        headers.insert("retry-after", HeaderValue::from_static("2"));
        assert_eq!(retry_wait(&headers), Some(Duration::from_secs(2)));
        headers.insert("retry-after-ms", HeaderValue::from_static("150"));
        assert_eq!(retry_wait(&headers), Some(Duration::from_millis(150)));
        headers.insert("retry-after-ms", HeaderValue::from_static("soon"));
        assert_eq!(retry_wait(&headers), Some(Duration::from_secs(2)));
    }

    #[test]
    fn a_retry_after_too_large_for_a_duration_is_the_longest_wait() {
        let mut headers = HeaderMap::new();
        headers.insert("retry-after", HeaderValue::from_static("1e300"));
        assert_eq!(retry_wait(&headers), Some(MAX_RETRY_WAIT));
        headers.insert("retry-after-ms", HeaderValue::from_static("1e300"));
        assert_eq!(retry_wait(&headers), Some(MAX_RETRY_WAIT));
    }
}

/// Where `chat` finds a model API: the environment variables of its key and root, its own
/// root, and the model used when none is given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Endpoint {
    /// The environment variable holding the key.
    pub key_variable: &'static str,
    /// The environment variable holding the API root when `--base-url` is not given.
    pub base_url_variable: &'static str,
    /// The API root when neither `--base-url` nor the variable gives one.
    pub default_base_url: &'static str,
    /// The model when `--model` is not given.
    pub default_model: &'static str,
}

impl Endpoint {
    /// The endpoint of `api`: Anthropic's, or OpenAI Chat Completions' for any other (`chat`
    /// speaks those two; its `--provider` parser gives no other).
    pub fn of(api: ModelApi) -> Self {
        if api == ModelApi::Anthropic {
            Self {
                key_variable: "ANTHROPIC_API_KEY",
                base_url_variable: "ANTHROPIC_BASE_URL",
                default_base_url: "https://api.anthropic.com",
                default_model: "claude-sonnet-4-5",
            }
        } else {
            Self {
                key_variable: "OPENAI_API_KEY",
                base_url_variable: "OPENAI_BASE_URL",
                default_base_url: "https://api.openai.com/v1",
                default_model: "gpt-4.1",
            }
        }
    }
}
