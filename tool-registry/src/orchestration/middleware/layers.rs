//! The layers this crate ships: [`Timeout`], [`ConcurrencyLimit`] and [`Log`].

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::future::BoxFuture;
use serde_json::Value;
use tokio::sync::Semaphore;
use tower::ServiceExt as _;

use super::super::outcome::CallOutcome;
use super::super::telemetry::Failure;
use super::{ToolRequest, ToolService};

/// A call ran past its time limit and was stopped (its future dropped, the abort signal of
/// that run fired). The call's error result says so and names the limit; its `error.type` is
/// `timeout`.
#[derive(Debug, Clone, thiserror::Error)]
#[error("the call did not finish within its time limit of {limit:?} and was stopped")]
pub struct TimedOut {
    /// The limit the call ran past.
    pub limit: Duration,
}

/// A time limit per call, by tool: a default for every tool, and limits for named tools
/// (primary names) that replace it. The limit runs from when the call enters the layer, so
/// a layer outside it (a concurrency limit added before it) does not count its wait. A call
/// past its limit is stopped and answers with [`TimedOut`]'s message, e.g. `<tool_use_error>Error
/// calling tool (Bash): the call did not finish within its time limit of 600s and was
/// stopped</tool_use_error>`. Uses `tower::timeout`.
#[derive(Clone, Debug, Default)]
pub struct Timeout {
    default: Option<Duration>,
    per_tool: BTreeMap<String, Duration>,
}

impl Timeout {
    /// Every call limited to `limit`.
    pub fn new(limit: Duration) -> Self {
        Self {
            default: Some(limit),
            per_tool: BTreeMap::new(),
        }
    }

    /// Only the tools named with [`Timeout::with_tool`] are limited.
    pub fn per_tool_only() -> Self {
        Self::default()
    }

    /// Calls of the tool `name` (its primary name) limited to `limit` instead.
    #[must_use]
    pub fn with_tool(mut self, name: impl Into<String>, limit: Duration) -> Self {
        self.per_tool.insert(name.into(), limit);
        self
    }

    fn limit_of(&self, tool: &str) -> Option<Duration> {
        self.per_tool.get(tool).copied().or(self.default)
    }
}

impl tower::Layer<ToolService> for Timeout {
    type Service = ToolService;

    fn layer(&self, inner: ToolService) -> ToolService {
        let limits = Arc::new(self.clone());
        around(inner, move |inner, request| {
            let Some(limit) = limits.limit_of(request.name()) else {
                return Box::pin(inner.oneshot(request));
            };
            let next = Arc::clone(request.next());
            let timed: BoxFuture<'static, Result<CallOutcome, tower::BoxError>> =
                Box::pin(tower::timeout::Timeout::new(inner, limit).oneshot(request));
            Box::pin(async move {
                match timed.await {
                    Err(error) if error.is::<tower::timeout::error::Elapsed>() => {
                        // Whatever the run started in the background hears it too; a run a
                        // retry layer outside starts next has a token of its own.
                        next.attempts.stop_current();
                        Err(Box::new(TimedOut { limit }) as tower::BoxError)
                    }
                    other => other,
                }
            })
        })
    }
}

/// At most `max` calls at once per tool, or per MCP server (every tool of one server
/// counted together; local tools each on their own), the others waiting their turn (their
/// wait is part of the call). Uses `tower::limit::ConcurrencyLimit` with one semaphore per
/// tool or server.
#[derive(Clone, Debug)]
pub struct ConcurrencyLimit {
    max: usize,
    by_server: bool,
    semaphores: Arc<Mutex<HashMap<String, Arc<Semaphore>>>>,
}

impl ConcurrencyLimit {
    /// At most `max` (at least 1) calls of each tool at once.
    pub fn per_tool(max: usize) -> Self {
        Self::new(max, false)
    }

    /// At most `max` (at least 1) calls to each MCP server at once; a local tool is limited
    /// on its own.
    pub fn per_server(max: usize) -> Self {
        Self::new(max, true)
    }

    fn new(max: usize, by_server: bool) -> Self {
        Self {
            max: max.max(1),
            by_server,
            semaphores: Arc::default(),
        }
    }

    fn semaphore(&self, request: &ToolRequest) -> Arc<Semaphore> {
        let key = match (self.by_server, request.mcp_server()) {
            (true, Some(server)) => format!("server:{server}"),
            _ => format!("tool:{}", request.name()),
        };
        let mut semaphores = self.semaphores.lock().unwrap_or_else(|e| e.into_inner());
        Arc::clone(
            semaphores
                .entry(key)
                .or_insert_with(|| Arc::new(Semaphore::new(self.max))),
        )
    }
}

impl tower::Layer<ToolService> for ConcurrencyLimit {
    type Service = ToolService;

    fn layer(&self, inner: ToolService) -> ToolService {
        let limit = self.clone();
        around(inner, move |inner, request| {
            let semaphore = limit.semaphore(&request);
            Box::pin(
                tower::limit::ConcurrencyLimit::with_semaphore(inner, semaphore).oneshot(request),
            )
        })
    }
}

/// Logs each call as it starts and ends (`tracing` events, target `tool_registry::calls`,
/// level INFO): the tool, the `tool_use` id, the input with the values of the named keys
/// (at any depth) replaced by `"[redacted]"`, then whether it failed and how long it took.
#[derive(Clone, Debug, Default)]
pub struct Log {
    redacted: Arc<Vec<String>>,
}

impl Log {
    /// Logs every call, redacting nothing.
    pub fn new() -> Self {
        Self::default()
    }

    /// Redacts the values of these keys wherever they occur in an input.
    #[must_use]
    pub fn redact<I, K>(mut self, keys: I) -> Self
    where
        I: IntoIterator<Item = K>,
        K: Into<String>,
    {
        Arc::make_mut(&mut self.redacted).extend(keys.into_iter().map(Into::into));
        self
    }

    fn redacted(&self, input: &Value) -> Value {
        match input {
            Value::Object(map) => Value::Object(
                map.iter()
                    .map(|(key, value)| {
                        let shown = if self.redacted.iter().any(|hidden| hidden == key) {
                            Value::String("[redacted]".to_owned())
                        } else {
                            self.redacted(value)
                        };
                        (key.clone(), shown)
                    })
                    .collect(),
            ),
            Value::Array(items) => {
                Value::Array(items.iter().map(|item| self.redacted(item)).collect())
            }
            other => other.clone(),
        }
    }
}

impl tower::Layer<ToolService> for Log {
    type Service = ToolService;

    fn layer(&self, inner: ToolService) -> ToolService {
        let log = self.clone();
        around(inner, move |inner, request| {
            let tool = request.name().to_owned();
            let id = request.context().tool_use_id().to_owned();
            tracing::info!(
                target: "tool_registry::calls",
                tool,
                id,
                input = %log.redacted(request.input()),
                "call started"
            );
            let started = std::time::Instant::now();
            Box::pin(async move {
                let answer = inner.oneshot(request).await;
                let failed = match &answer {
                    Ok(outcome) => outcome.result.is_error,
                    Err(_) => true,
                };
                tracing::info!(
                    target: "tool_registry::calls",
                    tool,
                    id,
                    failed,
                    elapsed_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
                    "call ended"
                );
                answer
            })
        })
    }
}

/// Makes a failed call again, with a growing pause between runs, when all of these hold:
/// the tool is declared `idempotent` (`DeclaredFlag::Always`); the run failed with an error
/// the tool marked passing (`ToolError::retryable`), or ran past a [`Timeout`] inside this
/// layer; and the call reported no progress (a reported partial effect is never repeated).
/// At most `retries` runs more; the pause starts at the backoff (default 200 ms) and doubles.
/// Each run has a context of its own (its own abort token) and parses the input again, as the
/// model's was. Uses `tower::retry`.
#[derive(Clone, Debug)]
pub struct Retry {
    retries: usize,
    backoff: Duration,
}

impl Retry {
    /// At most `retries` runs after the first.
    pub fn new(retries: usize) -> Self {
        Self {
            retries,
            backoff: Duration::from_millis(200),
        }
    }

    /// The first pause (doubled before each later run).
    #[must_use]
    pub fn with_backoff(mut self, first: Duration) -> Self {
        self.backoff = first;
        self
    }
}

impl tower::Layer<ToolService> for Retry {
    type Service = ToolService;

    fn layer(&self, inner: ToolService) -> ToolService {
        let retry = self.clone();
        around(inner, move |inner, request| {
            // A fresh policy per call: its own runs left and pause.
            let policy = RetryPolicy {
                left: retry.retries,
                pause: retry.backoff,
            };
            Box::pin(tower::retry::Retry::new(policy, inner).oneshot(request))
        })
    }
}

/// The runs left and the next pause of one call.
#[derive(Clone, Debug)]
struct RetryPolicy {
    left: usize,
    pause: Duration,
}

impl tower::retry::Policy<ToolRequest, CallOutcome, tower::BoxError> for RetryPolicy {
    type Future = tokio::time::Sleep;

    fn retry(
        &mut self,
        request: &mut ToolRequest,
        result: &mut Result<CallOutcome, tower::BoxError>,
    ) -> Option<Self::Future> {
        if self.left == 0 || request.meta().idempotent != tool_sdk::DeclaredFlag::Always {
            return None;
        }
        let next = request.next();
        if next
            .attempts
            .progressed
            .load(std::sync::atomic::Ordering::SeqCst)
        {
            return None;
        }
        let passing = match result {
            Ok(outcome) => {
                outcome.result.is_error
                    && matches!(
                        *next.failure.lock().unwrap_or_else(|e| e.into_inner()),
                        Some(Failure::ToolError { retryable: true })
                    )
            }
            Err(error) => error.is::<TimedOut>(),
        };
        if !passing {
            return None;
        }
        self.left -= 1;
        let pause = self.pause;
        self.pause = self.pause.saturating_mul(2);
        Some(tokio::time::sleep(pause))
    }

    fn clone_request(&mut self, request: &ToolRequest) -> Option<ToolRequest> {
        Some(request.clone())
    }
}

/// At most `per_second` calls started per second per tool, or per MCP server (every tool of
/// one server counted together; local tools each on their own): calls beyond the rate wait
/// for their turn, spaced evenly (`1 / per_second` apart, a burst of one), their wait part of
/// the call. (`tower::limit::RateLimit` keeps its state in each service value, so one limit
/// shared by every call is kept here, one next-free instant per tool or server.)
#[derive(Clone, Debug)]
pub struct RateLimit {
    spacing: Duration,
    by_server: bool,
    next: Arc<Mutex<HashMap<String, tokio::time::Instant>>>,
}

impl RateLimit {
    /// At most `per_second` (above 0) calls started per second for each tool.
    pub fn per_tool(per_second: f64) -> Self {
        Self::new(per_second, false)
    }

    /// At most `per_second` (above 0) calls started per second to each MCP server; a local
    /// tool is limited on its own.
    pub fn per_server(per_second: f64) -> Self {
        Self::new(per_second, true)
    }

    fn new(per_second: f64, by_server: bool) -> Self {
        let per_second = if per_second.is_finite() && per_second > 0.0 {
            per_second
        } else {
            f64::MIN_POSITIVE
        };
        Self {
            spacing: Duration::from_secs_f64((1.0 / per_second).min(86_400.0)),
            by_server,
            next: Arc::default(),
        }
    }

    /// The instant the call `request` may start: the key's next free instant (or now), which
    /// then moves one spacing on.
    fn turn(&self, request: &ToolRequest) -> tokio::time::Instant {
        let key = match (self.by_server, request.mcp_server()) {
            (true, Some(server)) => format!("server:{server}"),
            _ => format!("tool:{}", request.name()),
        };
        let now = tokio::time::Instant::now();
        let mut next = self.next.lock().unwrap_or_else(|e| e.into_inner());
        let slot = next.entry(key).or_insert(now);
        let turn = (*slot).max(now);
        *slot = turn + self.spacing;
        turn
    }
}

impl tower::Layer<ToolService> for RateLimit {
    type Service = ToolService;

    fn layer(&self, inner: ToolService) -> ToolService {
        let limit = self.clone();
        around(inner, move |inner, request| {
            let turn = limit.turn(&request);
            Box::pin(async move {
                tokio::time::sleep_until(turn).await;
                inner.oneshot(request).await
            })
        })
    }
}

/// A layer's service: `call` with the service inside (ready or not: `oneshot` waits for it)
/// and each request.
fn around<F>(inner: ToolService, call: F) -> ToolService
where
    F: Fn(ToolService, ToolRequest) -> BoxFuture<'static, Result<CallOutcome, tower::BoxError>>
        + Clone
        + Send
        + Sync
        + 'static,
{
    ToolService::new(tower::service_fn(move |request: ToolRequest| {
        call(inner.clone(), request)
    }))
}
