//! Running a model's `tool_use` blocks: batching (SPEC §5.1), running as a stream of updates
//! (SPEC §5.2, §5.3), the outcome of each call (SPEC §5.4), the streaming executor and
//! cancellation (SPEC §5.5), observers, and large results (SPEC §9).
//!
//! [`Orchestrator`](crate::Orchestrator) (with its
//! [`OrchestratorConfig`](crate::OrchestratorConfig)) is the entry. Beneath it, each module
//! depends only on those listed after it: `orchestrator` (the entry and its builders),
//! `streaming` (SPEC §5.5), `run` (a batch as a [`ToolUseStream`]), `call` (one call through
//! SPEC §5.4), `middleware` (tower layers around the call), `telemetry` (the call's
//! `execute_tool` span), `outcome` ([`CallOutcome`]), `partition` ([`PreparedCall`],
//! [`Batch`]), `lookup` (name and alias index), `turn` ([`TurnState`](crate::TurnState) and
//! the stop signals), `persistence`, `observer`, `config`; the model-facing texts are in the
//! crate's `messages`.
//!
//! # The route of one call
//!
//! One `tool_use` block of an Anthropic message, run as a batch. Each file of this crate is
//! entered at most twice along the way, not counting getters (`meta`, `name`, `block`) and
//! the tool's own code: the tool's input type is read by serde, which goes back and forth
//! between the tool's `Deserialize` and tool-sdk's located parser once per field, and each of
//! the call's hooks is one call into the tool (tool-sdk's erased layer):
//!
//! 1. [`ModelApi::read_calls`](crate::providers::ModelApi::read_calls) hands the message to
//!    the Anthropic module (`providers/anthropic.rs`), which takes the blocks with
//!    [`tool_uses_of`](tool_sdk::blocks::tool_uses_of), reads each block's `caller`
//!    (`providers/caller.rs`), turns a `null` input into `{}`, and makes
//!    [`ToolCalls`](crate::providers::ToolCalls), which marks a repeated id; back in `api`,
//!    a caller the tool does not allow makes the call's input fail (never run; answered when
//!    results are paired). The host passes
//!    [`ToolCalls::runnable`](crate::providers::ToolCalls::runnable) to
//!    [`Orchestrator::run_tools`](crate::Orchestrator::run_tools).
//! 2. [`Orchestrator::partition`](crate::Orchestrator::partition) prepares each block once, as
//!    [`Orchestrator::prepare`](crate::Orchestrator::prepare) does: the name is looked up
//!    (`lookup`), unknown root keys are dropped for a lenient tool and values coerced where
//!    the config says so, then [`DynTool::parse_input`](tool_sdk::DynTool::parse_input)
//!    checks the input against the tool's schema and reads it into the tool's type. The
//!    parsed call answers [`is_concurrency_safe`](tool_sdk::ToolCall::is_concurrency_safe);
//!    the result is a [`PreparedCall`] in a [`Batch`].
//! 3. `run::start` returns the [`ToolUseStream`], whose driver starts at once inside a tokio
//!    runtime (else at the first poll); it gives each call (a concurrency-safe batch: each on
//!    a task of its own) to `CallRunner::run` (module `call`): SPEC §5.4 in order. Unknown
//!    tool; stopped before start; invalid input. Then, raced by the stop signals (`turn`: an
//!    abort always wins; an interrupt stops the call only when its
//!    [`interrupt_behavior`](tool_sdk::ToolCall::interrupt_behavior) is `Cancel`):
//!    [`ToolCall::validate_input`](tool_sdk::ToolCall::validate_input); observers'
//!    PreToolUse; the permission pipeline (deny and ask rules of the
//!    [`ToolPermissionContext`](crate::ToolPermissionContext), then
//!    [`ToolCall::check_permissions`](tool_sdk::ToolCall::check_permissions), then allow
//!    rules and the mode, Plan mode denying what is not read-only; a host's
//!    [`CanUseTool`](crate::permissions::CanUseTool) when it ends in "ask"); then
//!    [`ToolCall::call`](tool_sdk::ToolCall::call), which runs the author's
//!    [`Tool::call`](tool_sdk::Tool::call) (the `__run` `#[tool]` writes, then tool-sdk's
//!    output mapping). With [`Orchestrator::layer`](crate::Orchestrator::layer), the steps
//!    from the call on run inside the tower stack (`middleware`).
//! 4. An empty result is replaced by a note, the content passes the large-result rules
//!    (`persistence`, with the threshold of
//!    [`OrchestratorConfig::persistence_threshold`](crate::OrchestratorConfig::persistence_threshold)),
//!    observers' PostToolUse run, and it becomes a [`CallOutcome`], sent as a
//!    [`ToolUseUpdate::Result`] with the block's index.
//! 5. [`ToolUseStream::collect_results`] puts the results in block order in a
//!    [`TurnOutcome`] (and applies the per-message budget when
//!    [`OrchestratorConfig::message_budget_chars`](crate::OrchestratorConfig::message_budget_chars)
//!    and a result directory are set);
//!    [`ModelApi::write_results`](crate::providers::ModelApi::write_results) hands them to the
//!    Anthropic module again, which pairs them with the calls ([`ToolCalls::pair`](crate::providers::ToolCalls::pair): an error result for each
//!    call whose arguments failed or whose id repeats) and writes one user message of
//!    `tool_result`s.

pub(crate) mod call;
pub(crate) mod config;
mod lookup;
pub mod middleware;
mod observer;
pub(crate) mod orchestrator;
mod outcome;
pub(crate) mod partition;
pub(crate) mod persistence;
mod run;
pub(crate) mod streaming;
pub(crate) mod telemetry;
pub(crate) mod turn;

pub use observer::{PostToolUse, PreToolUse, PreToolUseDecision, ToolObserver};
pub use outcome::CallOutcome;
pub use partition::{Batch, PreparedCall};
pub use persistence::ContentReplacementState;
pub use run::{ToolUseStream, ToolUseUpdate, TurnOutcome};
pub use streaming::StreamingToolExecutor;
