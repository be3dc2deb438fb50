//! Tasks (the MCP tasks extension, `io.modelcontextprotocol/tasks`, SEP-2663): a call of a
//! tool declared `#[tool(task = "optional" | "required")]`, from a client that declared the
//! extension, is answered with a task (`CreateTaskResult`) that the client follows with
//! `tasks/get`, answers questions of with `tasks/update` and stops with `tasks/cancel`.
//!
//! When a call becomes a task:
//!
//! - `task = "optional"`: when it is still running [`TASK_GRACE`] after it started; a call
//!   that finishes sooner is answered at once (SEP-2663's immediate-result shortcut).
//! - `task = "required"`: always, once it gets going ([`TASK_GRACE`]) or finishes. A client
//!   that did not declare the extension is refused with `-32021` (Missing Required Client
//!   Capability) naming it.
//!
//! Before a call becomes a task, its questions ([`ToolUseContext::elicit`](tool_sdk::ToolUseContext::elicit),
//! [`ServedCall::request_input`](super::ServedCall::request_input)) are asked as any call's
//! are (MCP 2026-07-28: rounds of a multi round-trip request; 2025-11-25: requests over the
//! session); after, they are the task's `inputRequests` (status `input_required`), answered
//! through `tasks/update`. A tool that asks first and then works long is thus a few MRTR
//! rounds and then a task (SEP-2663's MRTR composition).
//!
//! Outcomes: the call's result, error results included, is a `completed` task with the
//! result inlined; a JSON-RPC error (a missing client capability, [`ServedCall::fail`](super::ServedCall::fail))
//! is a `failed` task with the error inlined; `tasks/cancel` stops the call at once (its run is
//! dropped, its abort token cancelled) and the task is `cancelled`. A task still running at
//! its `ttlMs` is stopped and `failed`. A task is kept until its `ttlMs` has passed since it
//! was created (a task failed at its `ttlMs`: one more minute), then forgotten: `tasks/get`
//! for it is `-32602`, as for an id the server never made.
//!
//! Task state lives in a [`TaskStore`]: [`MemoryTaskStore`] (the default, one process) or a
//! store shared by several server processes. The running call learns of cancellation and of
//! answers from the store, never only from its own process, so a `tasks/update` or
//! `tasks/cancel` handled by another process sharing the store reaches it.
//!
//! Tasks hold their place in the call gate like any call (see the `session` module): a task
//! of a tool that is not concurrency-safe runs alone, for as long as it runs (up to its
//! `ttlMs`), and other calls wait for it; a call that may become a task waits for its place
//! within the task, so it becomes a task while it waits rather than holding its request.

mod run;
pub(crate) mod store;

pub(crate) use run::{ProgressSwitch, TaskCall, cancel, get, update};
pub use store::{
    MemoryTaskStore, ORPHAN_GRACE, TaskEdit, TaskRecord, TaskState, TaskStore, TaskStoreError,
};

/// How long a call of a `task = "optional"` tool may run before it becomes a task (and a
/// `task = "required"` call before it is answered with one): 250 ms.
pub const TASK_GRACE: std::time::Duration = std::time::Duration::from_millis(250);

/// How long a task is kept from its creation (its `ttlMs`), unless
/// [`McpServer::with_task_ttl`](super::McpServer::with_task_ttl) says otherwise: one hour.
pub const DEFAULT_TASK_TTL: std::time::Duration = std::time::Duration::from_secs(3600);

/// How often a client is asked to poll `tasks/get` (`pollIntervalMs`): every second.
pub const DEFAULT_POLL_INTERVAL: std::time::Duration = std::time::Duration::from_secs(1);
