//! Tasks (the MCP tasks extension, `io.modelcontextprotocol/tasks`, SEP-2663): a call of a
//! tool declared `#[tool(task = "optional" | "required")]`, from a client that declared the
//! extension, is answered with a task (`CreateTaskResult`) that the client follows with
//! `tasks/get`, answers questions of with `tasks/update` and stops with `tasks/cancel`.
//!
//! When a call becomes a task:
//!
//! - `task = "optional"`: when it is still running 250 ms after it started; a call
//!   that finishes sooner is answered at once (SEP-2663's immediate-result shortcut).
//! - `task = "required"`: always, once it gets going (250 ms) or finishes. A client
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
//! `tasks/cancel` handled by another process sharing the store reaches it. The process
//! running a task holds a lease on it, renewed as it runs (30 s unless [`McpServer::with_task_lease`](super::McpServer::with_task_lease) says otherwise): when that
//! process dies mid-task, the task ends as `failed` once the lease runs out, so no client
//! polls forever for a result no one will write. With the `redis` feature,
//! [`RedisStore`](super::RedisStore) keeps tasks in Redis (or Valkey) for every replica of a
//! service.
//!
//! Tasks hold their place in the call gate like any call (see the `session` module): a task
//! of a tool that is not concurrency-safe runs alone, for as long as it runs (up to its
//! `ttlMs`), and other calls wait for it; a call that may become a task waits for its place
//! within the task, so it becomes a task while it waits rather than holding its request.

mod run;
pub(crate) mod store;
#[cfg(feature = "redis")]
pub(crate) use store::ORPHAN_GRACE;
mod wire;

pub(crate) use run::{ProgressSwitch, TaskCall};
pub use store::{MemoryTaskStore, TaskEdit, TaskRecord, TaskState, TaskStore, TaskStoreError};
pub(crate) use wire::{cancel, get, update};

/// How long a call of a `task = "optional"` tool may run before it becomes a task (and a
/// `task = "required"` call before it is answered with one): 250 ms.
pub(crate) const TASK_GRACE: std::time::Duration = std::time::Duration::from_millis(250);

/// How long a task is kept from its creation (its `ttlMs`), unless
/// [`McpServer::with_task_ttl`](super::McpServer::with_task_ttl) says otherwise: one hour.
pub(crate) const DEFAULT_TASK_TTL: std::time::Duration = std::time::Duration::from_secs(3600);

/// How often a client is asked to poll `tasks/get` (`pollIntervalMs`): every second.
pub(crate) const DEFAULT_POLL_INTERVAL: std::time::Duration = std::time::Duration::from_secs(1);

/// How long a running task's record stays `working` without word from the server process
/// running it, unless [`McpServer::with_task_lease`](super::McpServer::with_task_lease) says
/// otherwise: 30 seconds. That process renews the lease every third of it; when a process
/// dies (or loses the store) mid-task, the first `tasks/get`, `tasks/update` or
/// `tasks/cancel` after the lease ran out, through any process sharing the store, ends the
/// task as `failed`, saying its outcome is unknown. The processes' clocks must agree to well
/// within the lease.
pub(crate) const DEFAULT_TASK_LEASE: std::time::Duration = std::time::Duration::from_secs(30);

/// A server's task settings, shared by its clones and sessions.
pub(crate) struct TaskSettings {
    store: std::sync::RwLock<std::sync::Arc<dyn TaskStore>>,
    ttl_ms: std::sync::atomic::AtomicU64,
    lease_ms: std::sync::atomic::AtomicU64,
    /// The tasks running now, ended (and replaced) when an HTTP server of the server shuts
    /// down.
    running: std::sync::Mutex<RunningTasks>,
}

/// The watches of the tasks running now, and the token that ends them.
#[derive(Clone, Default)]
pub(crate) struct RunningTasks {
    pub(crate) stop: tokio_util::sync::CancellationToken,
    pub(crate) watches: tokio_util::task::TaskTracker,
}

/// How long a shutdown waits for the running tasks' ends to be written.
const END_WRITE_GRACE: std::time::Duration = std::time::Duration::from_secs(5);

impl Default for TaskSettings {
    fn default() -> Self {
        Self {
            store: std::sync::RwLock::new(std::sync::Arc::new(MemoryTaskStore::new())),
            ttl_ms: store::millis(DEFAULT_TASK_TTL).into(),
            lease_ms: store::millis(DEFAULT_TASK_LEASE).into(),
            running: std::sync::Mutex::default(),
        }
    }
}

impl TaskSettings {
    /// Where the tasks live.
    pub(crate) fn store(&self) -> std::sync::Arc<dyn TaskStore> {
        std::sync::Arc::clone(&self.store.read().unwrap_or_else(|e| e.into_inner()))
    }

    pub(crate) fn set_store(&self, store: std::sync::Arc<dyn TaskStore>) {
        *self.store.write().unwrap_or_else(|e| e.into_inner()) = store;
    }

    /// How long tasks are kept.
    pub(crate) fn ttl(&self) -> std::time::Duration {
        std::time::Duration::from_millis(self.ttl_ms.load(std::sync::atomic::Ordering::Relaxed))
    }

    /// Sets the TTL, at least a second.
    pub(crate) fn set_ttl(&self, ttl: std::time::Duration) {
        let ms = store::millis(ttl).max(1000);
        self.ttl_ms.store(ms, std::sync::atomic::Ordering::Relaxed);
    }

    /// How long a running task's lease lasts.
    pub(crate) fn lease(&self) -> std::time::Duration {
        std::time::Duration::from_millis(self.lease_ms.load(std::sync::atomic::Ordering::Relaxed))
    }

    /// Sets the lease, at least 300 ms.
    pub(crate) fn set_lease(&self, lease: std::time::Duration) {
        let ms = store::millis(lease).max(300);
        self.lease_ms
            .store(ms, std::sync::atomic::Ordering::Relaxed);
    }

    /// Where the watch of a task started now runs, and what ends it when the server shuts
    /// down.
    pub(crate) fn running(&self) -> RunningTasks {
        self.running
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Ends the tasks running now as `failed` (the server shuts down) and waits (up to 5 s)
    /// until each end is written to the store; tasks started later are not affected.
    pub(crate) async fn end_running(&self) {
        let running = std::mem::take(&mut *self.running.lock().unwrap_or_else(|e| e.into_inner()));
        running.stop.cancel();
        running.watches.close();
        if tokio::time::timeout(END_WRITE_GRACE, running.watches.wait())
            .await
            .is_err()
        {
            tracing::warn!("shutting down: some tasks' ends could not be stored within 5 s");
        }
    }
}
