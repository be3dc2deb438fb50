//! [`CallRunner`]: one call through every outcome of SPEC §5.4, in the reference's order:
//! unknown tool, stopped before start, invalid input (with the schema-not-sent hint),
//! `validate_input`, PreToolUse observers, permission, the call itself (its error text per
//! step 7), panics anywhere (step 8), and the large-result processing of SPEC §9 on success.
//! Each call runs in an `execute_tool` span of the OpenTelemetry GenAI semantic conventions
//! ([`super::telemetry`]).

use std::borrow::Cow;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use futures::FutureExt as _;
use futures::future::Either;
use serde_json::Value;
use tool_sdk::context::ProgressSink;
use tool_sdk::{
    DynTool, Extensions, InputError, InterruptBehavior, ToolCall, ToolResultBlock, ToolUseBlock,
    ToolUseContext, ValidationResult,
};
use tracing::Instrument as _;

use super::config::OrchestratorConfig;
use super::observer::{PostToolUse, PreToolUse, PreToolUseDecision, ToolObserver};
pub use super::outcome::CallOutcome;
use super::partition::{Prepared, PreparedCall, adjusted_input};
use super::persistence;
use super::telemetry::{CallSpan, Failure};
use super::turn::Signals;
use crate::ToolPermissionContext;
use crate::messages;
use crate::permissions::pipeline::PermissionDecision;
use crate::permissions::{CanUseTool, decide_permission};

/// Gives the schema-not-sent hint for a tool whose input failed to parse (SPEC §8.3), or
/// `None`. The text is appended inside the `<tool_use_error>` wrapper, so it should start with
/// its own blank line (`"\n\n..."`).
pub(crate) type SchemaHintFn = Arc<dyn Fn(&dyn DynTool) -> Option<String> + Send + Sync>;

/// Runs prepared calls: holds everything a call's steps read (the permission context and
/// host prompt, the configuration, the observers, the schema-not-sent hint) and nothing else.
#[derive(Clone)]
pub(crate) struct CallRunner {
    /// The rules and mode every call is checked against (SPEC §6).
    pub(crate) permissions: ToolPermissionContext,
    /// The host's permission prompt, asked when the pipeline ends in "ask".
    pub(crate) can_use_tool: Option<Arc<dyn CanUseTool>>,
    pub(crate) config: OrchestratorConfig,
    pub(crate) observers: Vec<Arc<dyn ToolObserver>>,
    pub(crate) schema_hint: Option<SchemaHintFn>,
    /// The middleware layers, the first the outermost, and their stack (`None`: no layer,
    /// calls take the direct path).
    pub(crate) layers: Vec<super::middleware::Wrap>,
    pub(crate) stack: Option<super::middleware::ToolService>,
}

impl CallRunner {
    pub(crate) fn new(config: OrchestratorConfig) -> Self {
        Self {
            permissions: ToolPermissionContext::default(),
            can_use_tool: None,
            config,
            observers: Vec::new(),
            schema_hint: None,
            layers: Vec::new(),
            stack: None,
        }
    }

    /// Runs a prepared call (SPEC §5.4) in its `execute_tool` span ([`CallSpan`]), entered
    /// while the call runs. Never panics; always one result for the id.
    pub(crate) async fn run(
        self: &Arc<Self>,
        call: PreparedCall,
        extensions: Arc<Extensions>,
        signals: &Signals,
        progress: Option<ProgressSink>,
    ) -> CallOutcome {
        let PreparedCall {
            mut block,
            prepared,
        } = call;
        let span = CallSpan::open(
            &block,
            prepared.tool().map(|tool| &**tool),
            self.config.capture_tool_content,
        );
        let input = Cow::Owned(std::mem::take(&mut block.input));
        self.run_opened(span, &block, prepared, input, extensions, signals, progress)
            .await
    }

    /// [`run`](Self::run) with the block borrowed: its input is not moved, so the caller still
    /// has it when the run ends or is dropped (a served call's request state is bound to it).
    #[cfg(feature = "mcp-server")]
    pub(crate) async fn run_borrowed(
        self: &Arc<Self>,
        block: &ToolUseBlock,
        prepared: Prepared,
        extensions: Arc<Extensions>,
        signals: &Signals,
        progress: Option<ProgressSink>,
    ) -> CallOutcome {
        let span = CallSpan::open(
            block,
            prepared.tool().map(|tool| &**tool),
            self.config.capture_tool_content,
        );
        let input = Cow::Borrowed(&block.input);
        self.run_opened(span, block, prepared, input, extensions, signals, progress)
            .await
    }

    /// The run of [`run`](Self::run) once its span is open; `input` is the block's (whose own
    /// `input` field is not read).
    #[allow(clippy::too_many_arguments)]
    async fn run_opened(
        self: &Arc<Self>,
        span: CallSpan,
        block: &ToolUseBlock,
        prepared: Prepared,
        input: Cow<'_, Value>,
        extensions: Arc<Extensions>,
        signals: &Signals,
        progress: Option<ProgressSink>,
    ) -> CallOutcome {
        let failed = |text: String, failure: Failure| {
            let outcome = CallOutcome::error(&block.id, text);
            span.finish(&outcome.result, Some(failure));
            outcome
        };
        // Step 1: the tool.
        let (tool, parsed) = match prepared {
            Prepared::Unknown => {
                return failed(messages::no_such_tool(&block.name), Failure::UnknownTool);
            }
            Prepared::Invalid { tool, error } => (tool, Err(error)),
            Prepared::Panicked { tool, message } => (tool, Ok(Err(message))),
            Prepared::Ready { tool, call, .. } => (tool, Ok(Ok(call))),
        };
        // Step 2: stopped before the call starts.
        if let Some(text) = stopped_before_start(signals) {
            return failed(text, Failure::Cancelled);
        }
        // Step 3: the input fits the schema.
        let parsed = match parsed {
            Ok(Ok(parsed)) => parsed,
            Err(error) => {
                return failed(self.invalid_input(&*tool, &error), Failure::InvalidInput);
            }
            Ok(Err(text)) => {
                let message = format!("parsing the input panicked: {text}");
                return failed(
                    messages::error_calling_tool(tool.name(), &message),
                    Failure::Panic,
                );
            }
        };
        let behavior = std::panic::catch_unwind(AssertUnwindSafe(|| parsed.interrupt_behavior()))
            .unwrap_or(InterruptBehavior::Block);
        let token = signals.call_token();
        // With layers, each run of steps 4-9 gets a context of its own (see `layered`).
        let attempts = self
            .stack
            .as_ref()
            .map(|stack| (stack.clone(), Arc::clone(&extensions), progress.clone()));
        let mut ctx = ToolUseContext::new(block.id.as_str(), token.clone(), extensions);
        if let Some(sink) = progress {
            ctx = ctx.with_progress(sink);
        }
        // Steps 4 to 9, inside the span (a disabled span costs a branch per poll).
        let mut failure = None;
        let steps = match attempts {
            None => Either::Left(self.execute(&tool, parsed, ctx, input, &mut failure)),
            Some((stack, extensions, progress)) => Either::Right(self.layered(
                stack,
                Arc::clone(&tool),
                parsed,
                (ctx, extensions, progress),
                input.into_owned(),
                &mut failure,
            )),
        };
        let work = AssertUnwindSafe(steps)
            .catch_unwind()
            .instrument(span.span().clone());
        let stop = signals.stopped_while_running(behavior);
        // The stop signal goes first: a call that sees the abort through its own token and
        // returns in the same instant still counts as unfinished (SPEC §5.5).
        let (outcome, stopped) = tokio::select! {
            biased;
            text = stop => {
                token.cancel();
                (CallOutcome::error(&block.id, text), Some(Failure::Cancelled))
            }
            outcome = work => match outcome {
                Ok(outcome) => (outcome, None),
                Err(payload) => {
                    let message = messages::panicked("the tool", &*payload);
                    let text = messages::error_calling_tool(tool.name(), &message);
                    (CallOutcome::error(&block.id, text), Some(Failure::Panic))
                }
            },
        };
        span.finish(&outcome.result, stopped.or(failure));
        outcome
    }

    /// Steps 4–9 through the middleware `stack`: the layers' answer, an error a layer
    /// returned or a layer's panic as the call's error result (`failure` says which).
    async fn layered(
        self: &Arc<Self>,
        stack: super::middleware::ToolService,
        tool: Arc<dyn DynTool>,
        parsed: Box<dyn ToolCall>,
        (ctx, extensions, progress): (ToolUseContext, Arc<Extensions>, Option<ProgressSink>),
        input: Value,
        failure: &mut Option<Failure>,
    ) -> CallOutcome {
        use tower::ServiceExt as _;
        let id = ctx.tool_use_id().to_owned();
        let name = tool.name().to_owned();
        let steps: Arc<dyn super::middleware::Steps> = Arc::clone(self) as _;
        let attempts = super::middleware::Attempts::new(&ctx, extensions, progress);
        let request =
            super::middleware::ToolRequest::new(steps, tool, parsed, input, ctx, attempts);
        let next = Arc::clone(request.next());
        match AssertUnwindSafe(stack.oneshot(request))
            .catch_unwind()
            .await
        {
            Ok(Ok(mut outcome)) => {
                // The answer is for this call, whatever id a layer put on it.
                outcome.result.tool_use_id = id;
                *failure = if outcome.result.is_error {
                    // The last run's reason, or a layer's own error result.
                    Some(
                        next.failure
                            .lock()
                            .unwrap_or_else(|e| e.into_inner())
                            .unwrap_or(Failure::Middleware),
                    )
                } else {
                    None
                };
                outcome
            }
            Ok(Err(error)) => {
                *failure = Some(match super::middleware::error_type_of(&*error) {
                    "timeout" => Failure::Timeout,
                    _ => Failure::Middleware,
                });
                CallOutcome::error(&id, messages::error_calling_tool(&name, &error.to_string()))
            }
            Err(payload) => {
                *failure = Some(Failure::Panic);
                let message = messages::panicked("a middleware layer", &*payload);
                CallOutcome::error(&id, messages::error_calling_tool(&name, &message))
            }
        }
    }

    /// SPEC §5.4 step 3: the validation message with the schema-not-sent hint, if any.
    fn invalid_input(&self, tool: &dyn DynTool, error: &InputError) -> String {
        let hint = self.schema_hint.as_ref().and_then(|hint| {
            std::panic::catch_unwind(AssertUnwindSafe(|| hint(tool)))
                .ok()
                .flatten()
        });
        messages::input_validation_error(
            &error.format_for(tool.name()),
            hint.as_deref().unwrap_or(""),
        )
    }

    /// Parses a replacement input (from an observer or a permission answer) as the model's
    /// input is parsed; the error text is the input-validation error.
    fn reparse(&self, tool: &dyn DynTool, input: &Value) -> Result<Box<dyn ToolCall>, String> {
        let adjusted = adjusted_input(input, tool, &self.config);
        tool.parse_input(adjusted.as_ref().unwrap_or(input))
            .map_err(|error| self.invalid_input(tool, &error))
    }

    /// Steps 4–9 of SPEC §5.4, once the call may start.
    async fn execute(
        &self,
        tool: &Arc<dyn DynTool>,
        mut parsed: Box<dyn ToolCall>,
        ctx: ToolUseContext,
        mut input: Cow<'_, Value>,
        failure: &mut Option<Failure>,
    ) -> CallOutcome {
        let id = ctx.tool_use_id();
        let mut failed = |text: String, why: Failure| {
            *failure = Some(why);
            CallOutcome::error(id, text)
        };
        let name = tool.name();
        // Step 4: the tool's own input check.
        if let ValidationResult::Invalid { message, .. } = parsed.validate_input(&ctx).await {
            return failed(
                messages::tool_use_error(&message),
                Failure::ValidationFailed,
            );
        }
        // Step 5: PreToolUse observers.
        for observer in &self.observers {
            let event = PreToolUse {
                tool_name: name.to_owned(),
                tool_use_id: id.to_owned(),
                input: observable(&*parsed, &input),
            };
            let decision = AssertUnwindSafe(observer.pre_tool_use(&event))
                .catch_unwind()
                .await;
            match decision {
                Ok(PreToolUseDecision::Continue) => {}
                Ok(PreToolUseDecision::Stop { reason }) => {
                    tracing::debug!(
                        tool = name,
                        id,
                        reason,
                        "a PreToolUse observer stopped the call"
                    );
                    return failed(messages::CANCEL_MESSAGE.to_owned(), Failure::HookStopped);
                }
                Ok(PreToolUseDecision::ReplaceInput(replacement)) => {
                    match self.reparse(&**tool, &replacement) {
                        Ok(replaced) => (parsed, input) = (replaced, Cow::Owned(replacement)),
                        Err(text) => return failed(text, Failure::InvalidInput),
                    }
                }
                Err(payload) => {
                    let message = messages::panicked("a PreToolUse observer", &*payload);
                    return failed(messages::error_calling_tool(name, &message), Failure::Panic);
                }
            }
        }
        // Step 6: permission.
        match permission(
            &self.permissions,
            self.can_use_tool.as_deref(),
            &**tool,
            &*parsed,
            &input,
            &ctx,
        )
        .await
        {
            Ok(None) => {}
            Ok(Some(updated)) => match self.reparse(&**tool, &updated) {
                Ok(replaced) => (parsed, input) = (replaced, Cow::Owned(updated)),
                Err(text) => return failed(text, Failure::InvalidInput),
            },
            Err(message) => return failed(message, Failure::PermissionDenied),
        }
        let observed = if self.observers.is_empty() {
            Value::Null
        } else {
            observable(&*parsed, &input)
        };
        // Steps 7 and 9: the call, and its result.
        let declared = tool.meta().max_result_size_chars;
        let mut outcome = match parsed.call(&ctx).await {
            Ok(output) => {
                let threshold = self.config.persistence_threshold(name, declared);
                let content = persistence::process_result(
                    output.content,
                    name,
                    id,
                    threshold,
                    self.config.result_dir.as_deref(),
                );
                CallOutcome {
                    result: ToolResultBlock::success(id.to_owned(), content),
                    context_modifier: output.context_modifier,
                    new_messages: output.new_messages,
                    exempt_from_budget: declared.chars().is_none(),
                }
            }
            Err(error) => failed(
                error.to_model_text(),
                Failure::ToolError {
                    retryable: error.is_retryable(),
                },
            ),
        };
        // PostToolUse observers see the final result.
        if !self.observers.is_empty() {
            let event = PostToolUse {
                tool_name: name.to_owned(),
                input: observed,
                result: outcome.result.clone(),
            };
            for observer in &self.observers {
                if let Err(payload) = AssertUnwindSafe(observer.post_tool_use(&event))
                    .catch_unwind()
                    .await
                {
                    let message = messages::panicked("a PostToolUse observer", &*payload);
                    outcome = failed(messages::error_calling_tool(name, &message), Failure::Panic);
                    break;
                }
            }
        }
        outcome
    }
}

/// SPEC §5.4 step 6 over the permission pipeline ([`decide_permission`]): `Ok` to run the call
/// (with a replacement input when `Some`), or `Err` with the model's error text, unwrapped. A
/// deny sends its message; an "ask" that no host answered is refused with
/// [`messages::approval_unavailable`].
async fn permission(
    permissions: &ToolPermissionContext,
    host: Option<&dyn CanUseTool>,
    tool: &dyn DynTool,
    call: &dyn ToolCall,
    input: &Value,
    ctx: &ToolUseContext,
) -> Result<Option<Value>, String> {
    match decide_permission(tool, call, input, ctx, permissions, host).await {
        PermissionDecision::Allow { updated_input, .. } => Ok(updated_input),
        PermissionDecision::Deny { message, .. } => Err(message),
        PermissionDecision::Ask { message, .. } => {
            Err(messages::approval_unavailable(tool.name(), &message))
        }
    }
}

/// The observable input: a clone with the tool's derived fields added.
fn observable(call: &dyn ToolCall, input: &Value) -> Value {
    let mut copy = input.clone();
    call.backfill_observable_input(&mut copy);
    copy
}

impl super::middleware::Steps for CallRunner {
    fn run<'a>(
        &'a self,
        tool: Arc<dyn DynTool>,
        input: &'a Value,
        ctx: ToolUseContext,
        parsed: Option<Box<dyn ToolCall>>,
        failure: &'a mut Option<Failure>,
    ) -> futures::future::BoxFuture<'a, CallOutcome> {
        Box::pin(async move {
            let parsed = match parsed {
                Some(parsed) => parsed,
                None => match self.reparse(&*tool, input) {
                    Ok(parsed) => parsed,
                    Err(text) => {
                        *failure = Some(Failure::InvalidInput);
                        return CallOutcome::error(ctx.tool_use_id(), text);
                    }
                },
            };
            self.execute(&tool, parsed, ctx, Cow::Borrowed(input), failure)
                .await
        })
    }
}

/// SPEC §5.4 step 2 (and §5.5 for a sibling failure): the text for a call stopped before it
/// started, or `None` when it may start.
fn stopped_before_start(signals: &Signals) -> Option<String> {
    if signals.abort.is_cancelled() || signals.interrupted() {
        return Some(messages::CANCEL_MESSAGE.to_owned());
    }
    match &signals.sibling {
        Some(sibling) if sibling.token.is_cancelled() => Some(sibling.message()),
        _ => None,
    }
}
