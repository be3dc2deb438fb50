//! Running a model's `tool_use` blocks: batching (SPEC §5.1), running as a stream of updates
//! (SPEC §5.2, §5.3), the outcome of each call (SPEC §5.4), the streaming executor and
//! cancellation (SPEC §5.5), observers, and large results (SPEC §9).

pub mod config;
pub mod messages;
pub mod observer;
mod orchestrator;
mod partition;
mod permission;
pub mod persistence;
mod run;
mod streaming;
mod tool_use;

pub use config::{
    DEFAULT_MAX_CONCURRENCY, DEFAULT_MAX_RESULT_SIZE_CHARS, MAX_CONCURRENCY_ENV,
    MAX_TOOL_RESULTS_PER_MESSAGE_CHARS, OrchestratorConfig, parse_max_concurrency,
};
pub use observer::{PostToolUse, PreToolUse, PreToolUseDecision, ToolObserver};
pub use orchestrator::{Orchestrator, SchemaHintFn, ShellToolPredicate, TurnState};
pub use partition::{
    Batch, Prepared, PreparedCall, describe_batches, partition_tool_calls,
    partition_tool_calls_with, prepare_call,
};
pub use run::{ToolUseStream, ToolUseUpdate, TurnOutcome, run_tools};
pub use streaming::{SUMMARY_CHARS, StreamingToolExecutor, call_description};
pub use tool_use::CallOutcome;

/// The text of a panic payload (`&str` or `String`), or a note that it had none.
pub(crate) fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(text) = payload.downcast_ref::<&str>() {
        (*text).to_owned()
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text.clone()
    } else {
        "(no panic message)".to_owned()
    }
}
