//! Running a model's `tool_use` blocks: batching (SPEC §5.1), running as a stream of updates
//! (SPEC §5.2, §5.3), the outcome of each call (SPEC §5.4), the streaming executor and
//! cancellation (SPEC §5.5), observers, and large results (SPEC §9).
//!
//! [`Orchestrator`](crate::Orchestrator) (with its [`OrchestratorConfig`](crate::OrchestratorConfig)) is the entry. Beneath it, each module depends only on those listed after
//! it: `orchestrator` (the entry and its builders), `streaming` (SPEC §5.5), `run` (a batch
//! as a [`ToolUseStream`]), `call` (one call through SPEC §5.4, [`CallOutcome`]), `partition`
//! ([`PreparedCall`], [`Batch`]), `lookup` (name and alias index), `turn` ([`TurnState`](crate::TurnState) and
//! the stop signals), `persistence`, `observer`, `config`; the model-facing texts are in the crate's `messages`.

mod call;
pub(crate) mod config;
mod lookup;
mod observer;
pub(crate) mod orchestrator;
pub(crate) mod partition;
pub(crate) mod persistence;
mod run;
pub(crate) mod streaming;
pub(crate) mod turn;

pub use call::CallOutcome;
pub use observer::{PostToolUse, PreToolUse, PreToolUseDecision, ToolObserver};
pub use partition::{Batch, PreparedCall};
pub use persistence::ContentReplacementState;
pub use run::{ToolUseStream, ToolUseUpdate, TurnOutcome};
pub use streaming::StreamingToolExecutor;
