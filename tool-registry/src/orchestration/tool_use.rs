//! One call through every outcome of SPEC §5.4: unknown tool, stopped before start, invalid
//! input (with the schema-not-sent hint), `validate_input`, a PreToolUse stop, permission,
//! the call (its error text per step 7), panics anywhere (step 8), and the large-result
//! processing of SPEC §9 on success.

use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use futures::FutureExt as _;
use serde_json::Value;
use tool_sdk::{
    ContextModifier, DynTool, Extensions, InputError, InterruptBehavior, ProgressSink, ToolCall,
    ToolResultBlock, ToolUseContext, ValidationResult,
};

use super::messages;
use super::observer::{PostToolUse, PreToolUse, PreToolUseDecision};
use super::orchestrator::{Inner, Signals};
use super::partition::{Prepared, PreparedCall, drop_unknown_keys};
use super::permission::{self, PermissionOutcome};
use super::persistence;

/// What one call produced.
#[derive(Debug)]
pub struct CallOutcome {
    /// The `tool_result` for the call's `tool_use` id.
    pub result: ToolResultBlock,
    /// The call's context modifier, if it succeeded with one.
    pub context_modifier: Option<ContextModifier>,
    /// Messages the tool asked to append after the result.
    pub new_messages: Vec<Value>,
}

impl CallOutcome {
    /// An error outcome whose content is `text`, unchanged.
    pub fn error(id: &str, text: String) -> Self {
        Self {
            result: ToolResultBlock::error(id, text),
            context_modifier: None,
            new_messages: Vec::new(),
        }
    }
}

pub(crate) fn panicked(what: &str, payload: &(dyn std::any::Any + Send)) -> String {
    format!("{what} panicked: {}", super::panic_text(payload))
}

impl Inner {
    /// Runs a prepared call (SPEC §5.4). Never panics; always one result for the id.
    pub(crate) async fn run_prepared(
        &self,
        call: PreparedCall,
        extensions: Arc<Extensions>,
        signals: &Signals,
        progress: Option<ProgressSink>,
    ) -> CallOutcome {
        let PreparedCall {
            block,
            tool,
            parsed,
            ..
        } = call;
        let (Some(tool), Some(parsed)) = (tool, parsed) else {
            return CallOutcome::error(&block.id, messages::no_such_tool(&block.name));
        };
        if let Some(text) = stopped_before_start(signals) {
            return CallOutcome::error(&block.id, text);
        }
        let parsed = match parsed {
            Ok(parsed) => parsed,
            Err(Prepared::Invalid(error)) => {
                return CallOutcome::error(&block.id, self.invalid_input(&*tool, &error));
            }
            Err(Prepared::Panicked(text)) => {
                let message = format!("parsing the input panicked: {text}");
                return CallOutcome::error(
                    &block.id,
                    messages::error_calling_tool(tool.name(), &message),
                );
            }
        };
        let behavior = std::panic::catch_unwind(AssertUnwindSafe(|| parsed.interrupt_behavior()))
            .unwrap_or(InterruptBehavior::Block);
        let token = signals.abort.child_token();
        let mut ctx = ToolUseContext::new(block.id.as_str(), token.clone(), extensions);
        if let Some(sink) = progress {
            ctx = ctx.with_progress(sink);
        }
        let work = AssertUnwindSafe(self.execute(&tool, parsed, ctx, block.input)).catch_unwind();
        let stop = stop_signal(signals, behavior);
        // The stop signal goes first: a call that sees the abort through its own token and
        // returns in the same instant still counts as unfinished (SPEC §5.5).
        tokio::select! {
            biased;
            text = stop => {
                token.cancel();
                CallOutcome::error(&block.id, text)
            }
            outcome = work => outcome.unwrap_or_else(|payload| {
                let message = panicked("the tool", &*payload);
                CallOutcome::error(&block.id, messages::error_calling_tool(tool.name(), &message))
            }),
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

    fn reparse(&self, tool: &dyn DynTool, mut input: Value) -> Result<Box<dyn ToolCall>, String> {
        if self.config.lenient_input_tools.contains(tool.name()) {
            drop_unknown_keys(&mut input, tool.input_schema());
        }
        tool.parse_input(input)
            .map_err(|error| self.invalid_input(tool, &error))
    }

    /// Steps 4–9 of SPEC §5.4, once the call may start.
    async fn execute(
        &self,
        tool: &Arc<dyn DynTool>,
        mut parsed: Box<dyn ToolCall>,
        ctx: ToolUseContext,
        mut input: Value,
    ) -> CallOutcome {
        let id = ctx.tool_use_id().to_owned();
        let name = tool.name();
        if let ValidationResult::Invalid { message, .. } = parsed.validate_input(&ctx).await {
            return CallOutcome::error(&id, messages::tool_use_error(&message));
        }
        for observer in &self.observers {
            let event = PreToolUse {
                tool_name: name.to_owned(),
                tool_use_id: id.clone(),
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
                    return CallOutcome::error(&id, messages::CANCEL_MESSAGE.to_owned());
                }
                Ok(PreToolUseDecision::ReplaceInput(replacement)) => {
                    match self.reparse(&**tool, replacement.clone()) {
                        Ok(replaced) => (parsed, input) = (replaced, replacement),
                        Err(text) => return CallOutcome::error(&id, text),
                    }
                }
                Err(payload) => {
                    let message = panicked("a PreToolUse observer", &*payload);
                    return CallOutcome::error(&id, messages::error_calling_tool(name, &message));
                }
            }
        }
        match permission::decide(self, &**tool, &*parsed, &input, &ctx).await {
            PermissionOutcome::Allow(None) => {}
            PermissionOutcome::Allow(Some(updated)) => match self.reparse(&**tool, updated.clone())
            {
                Ok(replaced) => (parsed, input) = (replaced, updated),
                Err(text) => return CallOutcome::error(&id, text),
            },
            PermissionOutcome::Refuse(message) => return CallOutcome::error(&id, message),
        }
        let observed = if self.observers.is_empty() {
            Value::Null
        } else {
            observable(&*parsed, &input)
        };
        let mut outcome = match parsed.call(ctx).await {
            Ok(output) => {
                let threshold = persistence::persistence_threshold(
                    tool.meta().max_result_size_chars,
                    self.config.max_result_size_chars,
                );
                let content = persistence::process_result(
                    output.content,
                    name,
                    &id,
                    threshold,
                    self.config.result_dir.as_deref(),
                );
                CallOutcome {
                    result: ToolResultBlock::success(id.clone(), content),
                    context_modifier: output.context_modifier,
                    new_messages: output.new_messages,
                }
            }
            Err(error) => CallOutcome::error(&id, error.to_model_text()),
        };
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
                    let message = panicked("a PostToolUse observer", &*payload);
                    outcome = CallOutcome::error(&id, messages::error_calling_tool(name, &message));
                    break;
                }
            }
        }
        outcome
    }
}

/// The observable input: a clone with the tool's derived fields added.
fn observable(call: &dyn ToolCall, input: &Value) -> Value {
    let mut copy = input.clone();
    call.backfill_observable_input(&mut copy);
    copy
}

/// SPEC §5.4 step 2 (and §5.5 for a sibling failure): the text for a call stopped before it
/// started, or `None` when it may start.
pub(crate) fn stopped_before_start(signals: &Signals) -> Option<String> {
    if signals.abort.is_cancelled() || signals.interrupt.is_cancelled() {
        return Some(messages::CANCEL_MESSAGE.to_owned());
    }
    match &signals.sibling {
        Some(sibling) if sibling.token.is_cancelled() => Some(sibling.message()),
        _ => None,
    }
}

/// Resolves with the error text once a running call must stop (SPEC §5.5).
async fn stop_signal(signals: &Signals, behavior: InterruptBehavior) -> String {
    let interrupt = async {
        match behavior {
            InterruptBehavior::Cancel => signals.interrupt.cancelled().await,
            InterruptBehavior::Block => std::future::pending().await,
        }
    };
    let sibling = async {
        match &signals.sibling {
            Some(sibling) => {
                sibling.token.cancelled().await;
                sibling.message()
            }
            None => std::future::pending().await,
        }
    };
    // A hard abort wins over an interrupt, and both over a sibling failure.
    tokio::select! {
        biased;
        () = signals.abort.cancelled() => messages::REJECT_MESSAGE.to_owned(),
        () = interrupt => messages::REJECT_MESSAGE.to_owned(),
        text = sibling => text,
    }
}
