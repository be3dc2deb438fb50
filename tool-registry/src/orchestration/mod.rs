//! Running a model's `tool_use` blocks: batching (SPEC §5.1), running as a stream of updates
//! (SPEC §5.2, §5.3), the outcome of each call (SPEC §5.4), the streaming executor and
//! cancellation (SPEC §5.5), observers, and large results (SPEC §9).
//!
//! [`Orchestrator`] is the entry. Beneath it, each module depends only on those listed after
//! it: `orchestrator` (the entry and its builders), `streaming` (SPEC §5.5), `run` (a batch
//! as a [`ToolUseStream`]), `call` (one call through SPEC §5.4, [`CallOutcome`]), `partition`
//! ([`PreparedCall`], [`Batch`]), `lookup` (name and alias index), `turn` ([`TurnState`] and
//! the stop signals), `persistence`, `observer`, `config`, `messages`.

mod call;
pub mod config;
mod lookup;
pub mod messages;
pub mod observer;
mod orchestrator;
mod partition;
pub mod persistence;
mod run;
mod streaming;
mod turn;

pub use call::{CallOutcome, SchemaHintFn};
pub use config::{OrchestratorConfig, parse_max_concurrency};
pub use observer::{PostToolUse, PreToolUse, PreToolUseDecision, ToolObserver};
pub use orchestrator::Orchestrator;
pub use partition::{Batch, Prepared, PreparedCall, describe_batches, partition_tool_calls};
pub use persistence::ContentReplacementState;
pub use run::{ToolUseStream, ToolUseUpdate, TurnOutcome};
pub use streaming::{ShellToolPredicate, StreamingToolExecutor, call_description};
pub use turn::TurnState;
