//! Running a model's `tool_use` blocks: batching (SPEC §5.1), running (SPEC §5.2), and the
//! outcome of each call (SPEC §5.4).

pub mod messages;
mod partition;
mod run;

pub use partition::{Batch, Prepared, PreparedCall, describe_batches, partition_tool_calls};
pub use run::{
    CallOutcome, DEFAULT_MAX_CONCURRENCY, OrchestratorConfig, TurnState, run_tool_use, run_tools,
};

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
