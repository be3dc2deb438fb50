//! Middleware: `tower` layers around every call an [`Orchestrator`](crate::Orchestrator) runs
//! (batches, streams, single calls, and so every call an `McpServer` serves).
//!
//! A host adds layers with [`Orchestrator::layer`](crate::Orchestrator::layer); the first
//! added is the outermost (as with `tower::ServiceBuilder`). Each call past steps 1–3 of SPEC §5.4 (its tool known, its input
//! fitting the schema) becomes a [`ToolRequest`] that goes through the layers, and the
//! innermost service runs steps 4–9 (the tool's `validate_input`, the PreToolUse observers,
//! permission, the call, its result). A layer sees the tool's metadata (name, flags, MCP
//! server), the input and the call's [`ToolUseContext`] (its id, abort signal, host state),
//! and answers with a [`CallOutcome`] or an error.
//!
//! The orchestrator's invariants hold whatever a layer does: every `tool_use` gets exactly one
//! `tool_result`, in order; an error a layer returns becomes the call's error result
//! (`<tool_use_error>Error calling tool (NAME): ...`, `error.type` `timeout` for
//! [`TimedOut`], `middleware_error` for any other); a layer that panics (in
//! `poll_ready` or in its future) fails that call alone (`panic`); a layer that never answers
//! is cut off with the call when the turn is aborted or interrupted, like any running call.
//! With no layer added, calls take the direct path and pay nothing.
//!
//! Shipped layers: [`Timeout`], [`Retry`], [`ConcurrencyLimit`] (thin uses of `tower`'s
//! own `tower::timeout`, `tower::retry` and `tower::limit`), [`RateLimit`] and [`Log`].
//!
//! ```
//! use std::time::Duration;
//! use tool_registry::orchestration::middleware::{ConcurrencyLimit, Log, Timeout};
//! use tool_registry::{Orchestrator, OrchestratorConfig};
//!
//! let orchestrator = Orchestrator::new(&[], OrchestratorConfig::default())
//!     .layer(Log::new().redact(["api_key", "token"]))
//!     .layer(Timeout::new(Duration::from_secs(120)).with_tool("Bash", Duration::from_secs(600)))
//!     .layer(ConcurrencyLimit::per_server(4));
//! # drop(orchestrator);
//! ```

mod layers;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::Value;
use tool_sdk::{DynTool, ToolCall, ToolMeta, ToolUseContext};

pub use layers::{ConcurrencyLimit, Log, RateLimit, Retry, TimedOut, Timeout};

use super::outcome::CallOutcome;
use super::telemetry::Failure;

/// The service every layer wraps and returns: a cloneable, shareable `tower::Service` from a
/// [`ToolRequest`] to the call's [`CallOutcome`], failing with a boxed error.
pub type ToolService = tower::util::BoxCloneSyncService<ToolRequest, CallOutcome, tower::BoxError>;

/// One call going through the layers: the tool, the input and the call's context. Cheap to
/// clone (a layer that runs the call again sends a clone).
#[derive(Clone)]
pub struct ToolRequest {
    tool: Arc<dyn DynTool>,
    input: Arc<Value>,
    ctx: ToolUseContext,
    next: Arc<Next>,
}

/// Runs steps 4–9 of SPEC §5.4 for a request: the orchestrator's call runner.
pub(crate) trait Steps: Send + Sync {
    /// Steps 4–9 of a call of `tool` with `input` in `ctx`: `parsed` is the input parsed for
    /// the first run, `None` for a run after it; `failure` says why an error outcome failed.
    fn run<'a>(
        &'a self,
        tool: Arc<dyn DynTool>,
        input: &'a Value,
        ctx: ToolUseContext,
        parsed: Option<Box<dyn ToolCall>>,
        failure: &'a mut Option<Failure>,
    ) -> futures::future::BoxFuture<'a, CallOutcome>;
}

/// What each run of a call's steps 4–9 (the first, and each a layer sends again) is given: a
/// context of its own, with an abort token of its own (a child of the call's: a stopped run
/// does not stop the next) and the call's progress sink, watched for reports.
pub(crate) struct Attempts {
    id: String,
    call_token: tool_sdk::CancellationToken,
    extensions: Arc<tool_sdk::Extensions>,
    progress: tool_sdk::context::ProgressSink,
    /// The call reported progress: it has had a visible effect (no retry after that).
    pub(crate) progressed: Arc<AtomicBool>,
    /// The abort token of the run going on.
    current: Mutex<Option<tool_sdk::CancellationToken>>,
}

impl Attempts {
    /// The runs of the call `ctx` stands for, seeing `extensions`, reporting to `progress`.
    pub(crate) fn new(
        ctx: &ToolUseContext,
        extensions: Arc<tool_sdk::Extensions>,
        progress: Option<tool_sdk::context::ProgressSink>,
    ) -> Self {
        let progressed = Arc::new(AtomicBool::new(false));
        let watched: tool_sdk::context::ProgressSink = {
            let progressed = Arc::clone(&progressed);
            Arc::new(move |report| {
                progressed.store(true, Ordering::SeqCst);
                if let Some(progress) = &progress {
                    progress(report);
                }
            })
        };
        Self {
            id: ctx.tool_use_id().to_owned(),
            call_token: ctx.abort().clone(),
            extensions,
            progress: watched,
            progressed,
            current: Mutex::new(None),
        }
    }

    /// The context of a new run.
    fn next_context(&self) -> ToolUseContext {
        let token = self.call_token.child_token();
        *self.current.lock().unwrap_or_else(|e| e.into_inner()) = Some(token.clone());
        ToolUseContext::new(self.id.as_str(), token, Arc::clone(&self.extensions))
            .with_progress(Arc::clone(&self.progress))
    }

    /// Stops the run going on (its abort token fires), not the call.
    pub(crate) fn stop_current(&self) {
        if let Some(token) = &*self.current.lock().unwrap_or_else(|e| e.into_inner()) {
            token.cancel();
        }
    }
}

/// What the innermost service needs: the runner of steps 4–9 and the input already parsed
/// for the first run (a run after it parses the input again).
pub(crate) struct Next {
    runner: Arc<dyn Steps>,
    parsed: Mutex<Option<Box<dyn ToolCall>>>,
    /// Why the last run of steps 4–9 failed, for the call's span.
    pub(crate) failure: Mutex<Option<Failure>>,
    pub(crate) attempts: Attempts,
}

impl std::fmt::Debug for ToolRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolRequest")
            .field("tool", &self.tool.name())
            .field("tool_use_id", &self.ctx.tool_use_id())
            .field("input", &self.input)
            .finish_non_exhaustive()
    }
}

impl ToolRequest {
    pub(crate) fn new(
        runner: Arc<dyn Steps>,
        tool: Arc<dyn DynTool>,
        parsed: Box<dyn ToolCall>,
        input: Value,
        ctx: ToolUseContext,
        attempts: Attempts,
    ) -> Self {
        Self {
            tool,
            input: Arc::new(input),
            ctx,
            next: Arc::new(Next {
                runner,
                parsed: Mutex::new(Some(parsed)),
                failure: Mutex::new(None),
                attempts,
            }),
        }
    }

    pub(crate) fn next(&self) -> &Arc<Next> {
        &self.next
    }

    /// The tool the call goes to.
    pub fn tool(&self) -> &Arc<dyn DynTool> {
        &self.tool
    }

    /// The tool's primary name.
    pub fn name(&self) -> &str {
        self.tool.name()
    }

    /// The tool's static facts: flags (`read_only`, `concurrency_safe`, `destructive`,
    /// `open_world`, `idempotent`), limits, and for an MCP tool its server
    /// ([`ToolRequest::mcp_server`]).
    pub fn meta(&self) -> &ToolMeta {
        self.tool.meta()
    }

    /// The MCP server the tool comes from, as configured, or `None` for a local tool.
    pub fn mcp_server(&self) -> Option<&str> {
        self.tool
            .meta()
            .mcp_info
            .as_ref()
            .map(|info| info.server_name.as_str())
    }

    /// The call's input as the model sent it (it fits the tool's schema, once a lenient
    /// tool's unknown keys are dropped and an opted-in tool's values coerced, as every run
    /// does again).
    pub fn input(&self) -> &Value {
        &self.input
    }

    /// The call's context: its `tool_use` id, abort signal and host state.
    pub fn context(&self) -> &ToolUseContext {
        &self.ctx
    }
}

/// The innermost service: steps 4–9 of SPEC §5.4 for the request.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RunTool;

impl tower::Service<ToolRequest> for RunTool {
    type Response = CallOutcome;
    type Error = tower::BoxError;
    type Future = futures::future::BoxFuture<'static, Result<CallOutcome, tower::BoxError>>;

    fn poll_ready(
        &mut self,
        _: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<(), Self::Error>> {
        std::task::Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: ToolRequest) -> Self::Future {
        Box::pin(async move {
            let next = Arc::clone(&request.next);
            let parsed = next.parsed.lock().unwrap_or_else(|e| e.into_inner()).take();
            let ctx = next.attempts.next_context();
            let mut failure = None;
            let outcome = next
                .runner
                .run(request.tool, &request.input, ctx, parsed, &mut failure)
                .await;
            *next.failure.lock().unwrap_or_else(|e| e.into_inner()) = failure;
            Ok(outcome)
        })
    }
}

/// Makes a layer into a step of the stack: wraps the service inside it.
pub(crate) type Wrap = Arc<dyn Fn(ToolService) -> ToolService + Send + Sync>;

/// `layer` as a [`Wrap`].
pub(crate) fn wrap<L>(layer: L) -> Wrap
where
    L: tower::Layer<ToolService> + Send + Sync + 'static,
    L::Service: tower::Service<ToolRequest, Response = CallOutcome, Error = tower::BoxError>
        + Clone
        + Send
        + Sync
        + 'static,
    <L::Service as tower::Service<ToolRequest>>::Future: Send + 'static,
{
    Arc::new(move |inner| ToolService::new(layer.layer(inner)))
}

/// The stack of `layers` (the first the outermost) around [`RunTool`].
pub(crate) fn stack(layers: &[Wrap]) -> ToolService {
    layers
        .iter()
        .rev()
        .fold(ToolService::new(RunTool), |inner, wrap| wrap(inner))
}

/// The `error.type` of an error a layer returned.
pub(crate) fn error_type_of(error: &(dyn std::error::Error + 'static)) -> &'static str {
    if error.is::<TimedOut>() {
        "timeout"
    } else {
        "middleware_error"
    }
}
