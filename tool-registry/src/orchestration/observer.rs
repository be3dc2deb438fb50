//! Observers of every call: the PreToolUse / PostToolUse hooks of the reference (SPEC §5.4
//! step 5). They see the observable input (the input after
//! [`tool_sdk::ToolCall::backfill_observable_input`], on a clone; the call itself gets the
//! original), may stop a call or replace its input, and are told every result.

use futures::future::BoxFuture;
use serde_json::Value;
use tool_sdk::ToolResultBlock;

/// What a PreToolUse observer is shown, before permissions are checked.
#[derive(Debug, Clone, PartialEq)]
pub struct PreToolUse {
    /// The tool's primary name.
    pub tool_name: String,
    /// The id of the `tool_use` block.
    pub tool_use_id: String,
    /// The observable input: a clone of the input with derived fields added.
    pub input: Value,
}

/// What a PreToolUse observer decides.
#[derive(Debug, Clone, PartialEq)]
pub enum PreToolUseDecision {
    /// Go on with the call.
    Continue,
    /// Stop the call: the model gets the cancel message (SPEC §5.4 step 5); `reason` is for
    /// the host's logs only.
    Stop {
        /// Why, for logs.
        reason: String,
    },
    /// Run the call with this input instead. It is parsed like the model's input; if it does
    /// not fit, the model gets the input-validation error.
    ReplaceInput(Value),
}

/// What a PostToolUse observer is shown, after the result is final (persisted if large).
#[derive(Debug, Clone, PartialEq)]
pub struct PostToolUse {
    /// The tool's primary name.
    pub tool_name: String,
    /// The observable input the call ran with.
    pub input: Value,
    /// The result the model will get.
    pub result: ToolResultBlock,
}

/// A host hook around every call that reaches the tool (not unknown tools, not invalid input).
///
/// Both methods default to doing nothing. A panic in either becomes that call's
/// `Error calling tool (NAME): ...` result (SPEC §5.4 step 8).
pub trait ToolObserver: Send + Sync + 'static {
    /// Called after `validate_input` and before permissions.
    fn pre_tool_use<'a>(&'a self, event: &'a PreToolUse) -> BoxFuture<'a, PreToolUseDecision> {
        let _ = event;
        Box::pin(async { PreToolUseDecision::Continue })
    }

    /// Called once the call finished successfully or with a tool error.
    fn post_tool_use<'a>(&'a self, event: &'a PostToolUse) -> BoxFuture<'a, ()> {
        let _ = event;
        Box::pin(async {})
    }
}
