//! Where task state lives: the [`TaskStore`] trait and its in-process default,
//! [`MemoryTaskStore`].

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use tokio::sync::watch;

/// One task as a [`TaskStore`] keeps it: plain data (serde), so a store shared by several
/// server processes can hold it as JSON. Times are milliseconds since the Unix epoch.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TaskRecord {
    /// The task's id: 128 random bits in hex, unguessable (whoever holds it can follow and
    /// cancel the task).
    pub task_id: String,
    /// The name of the tool the call runs.
    pub tool: String,
    /// Running, or how it ended.
    pub state: TaskState,
    /// A line for people on what the task is doing: the tool's latest progress report.
    pub status_message: Option<String>,
    /// When the task was made.
    pub created_at_ms: u64,
    /// When the record last changed.
    pub last_updated_at_ms: u64,
    /// How long the task is kept from its creation (its wire `ttlMs`).
    pub ttl_ms: u64,
    /// When the record is forgotten: `created_at_ms + ttl_ms`, or later for a task failed at
    /// its `ttlMs`.
    pub expires_at_ms: u64,
    /// How often the client is asked to poll (its wire `pollIntervalMs`).
    pub poll_interval_ms: u64,
    /// Until when the server process running the task answers for it (milliseconds since
    /// the Unix epoch); renewed while it runs. A working task past it is ended as `failed`
    /// by the next reader (see [`McpServer::with_task_lease`](crate::mcp::serve::McpServer::with_task_lease)). `0`: no
    /// lease, the task is never ended for this.
    #[serde(default)]
    pub lease_until_ms: u64,
    /// Who started the task, when the server checks access tokens (`sub:SUBJECT`, else
    /// `client:ID`): only requests of the same principal read, answer or cancel it; for any
    /// other it does not exist. `None`: anyone holding the id.
    #[serde(default)]
    pub owner: Option<String>,
    /// The questions the running call waits on, by key: each an MCP `InputRequest` as JSON
    /// (`{"method": "elicitation/create", "params": {...}}`). Not empty: the task's status is
    /// `input_required`.
    pub input_requests: Map<String, Value>,
    /// Answers given through `tasks/update`, by key, until the running call takes them.
    pub input_responses: Map<String, Value>,
    /// Every key ever asked, so that none is reused over the task's life.
    pub asked: Vec<String>,
    /// Raised by the store on every change.
    pub version: u64,
}

impl TaskRecord {
    /// A new working task `task_id` of `tool`, made `now_ms`, kept `ttl` and polled every
    /// `poll_interval`.
    pub fn new(
        task_id: impl Into<String>,
        tool: impl Into<String>,
        now_ms: u64,
        ttl: Duration,
        poll_interval: Duration,
    ) -> Self {
        let ttl_ms = millis(ttl);
        Self {
            task_id: task_id.into(),
            tool: tool.into(),
            state: TaskState::Working,
            status_message: None,
            created_at_ms: now_ms,
            last_updated_at_ms: now_ms,
            ttl_ms,
            expires_at_ms: now_ms.saturating_add(ttl_ms),
            poll_interval_ms: millis(poll_interval),
            lease_until_ms: 0,
            owner: None,
            input_requests: Map::new(),
            input_responses: Map::new(),
            asked: Vec::new(),
            version: 0,
        }
    }

    /// Whether the task has ended (completed, failed or cancelled).
    pub fn is_terminal(&self) -> bool {
        !matches!(self.state, TaskState::Working)
    }
}

/// Whether a task runs, or how it ended (SEP-2663 `DetailedTask` payloads; `input_required`
/// is a working task with open [`TaskRecord::input_requests`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
#[non_exhaustive]
pub enum TaskState {
    /// The call is running.
    Working,
    /// The call answered: its `CallToolResult` as JSON (error results included).
    Completed {
        /// The result.
        result: Map<String, Value>,
    },
    /// The call ended in a JSON-RPC error (`{code, message, data?}`).
    Failed {
        /// The error.
        error: Map<String, Value>,
    },
    /// `tasks/cancel` stopped the call.
    Cancelled,
}

/// Why a [`TaskStore`] could not do what was asked (a shared backend's connection, say).
#[derive(Debug, thiserror::Error)]
#[error("task store: {0}")]
pub struct TaskStoreError(pub String);

/// An edit of a record, applied by [`TaskStore::update`].
pub type TaskEdit<'a> = &'a (dyn Fn(&mut TaskRecord) + Send + Sync);

/// Where task state lives. Every method is async and every record is plain data, so that a
/// store shared by several server processes (a database, Redis) can implement it; the
/// server learns of cancellation and answers only through it.
pub trait TaskStore: Send + Sync + 'static {
    /// Stores a new record. Returns once [`TaskStore::get`] for it would find it, from any
    /// process sharing the store (a server answers `CreateTaskResult` only after this).
    fn create(&self, record: TaskRecord) -> BoxFuture<'_, Result<(), TaskStoreError>>;

    /// The record of `task_id`; `None` when there is none or it has expired.
    fn get<'a>(
        &'a self,
        task_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<TaskRecord>, TaskStoreError>>;

    /// Applies `edit` to the record of `task_id` as one atomic change, raises its
    /// [`TaskRecord::version`] and sets [`TaskRecord::last_updated_at_ms`], and returns the
    /// record after; `None` when there is none. A shared store may apply `edit` more than
    /// once, each time to a fresh copy, until its write wins.
    fn update<'a>(
        &'a self,
        task_id: &'a str,
        edit: TaskEdit<'a>,
    ) -> BoxFuture<'a, Result<Option<TaskRecord>, TaskStoreError>>;

    /// The record of `task_id` once its version is above `seen`, or as it is after `timeout`;
    /// `None` when there is none (anymore).
    fn changed<'a>(
        &'a self,
        task_id: &'a str,
        seen: u64,
        timeout: Duration,
    ) -> BoxFuture<'a, Result<Option<TaskRecord>, TaskStoreError>>;
}

/// How long [`MemoryTaskStore`] keeps a record still working past its expiry: time for the
/// server to stop the call and mark the task failed; after it, the record is dropped whatever
/// its state (its server is gone).
pub(crate) const ORPHAN_GRACE: Duration = Duration::from_secs(60);

/// How long a running task's watch and its questions wait on [`TaskStore::changed`] before
/// looking again.
pub(crate) const WATCH_TIMEOUT: Duration = Duration::from_secs(30);

/// `duration` in whole milliseconds (saturating).
pub(crate) fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

/// Milliseconds since the Unix epoch, now.
pub(crate) fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, millis)
}

/// The default [`TaskStore`]: records in this process's memory, forgotten when they expire
/// (checked on every access) and when the process ends. A record still working at its expiry
/// is kept a minute longer, for its watch to mark it failed.
#[derive(Debug, Default)]
pub struct MemoryTaskStore {
    records: Mutex<HashMap<String, Entry>>,
}

#[derive(Debug)]
struct Entry {
    record: TaskRecord,
    /// Carries the record's version to [`TaskStore::changed`] waiters.
    version: watch::Sender<u64>,
}

impl MemoryTaskStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// The records, expired ones removed.
    fn records(&self) -> std::sync::MutexGuard<'_, HashMap<String, Entry>> {
        let mut records = self.records.lock().unwrap_or_else(|e| e.into_inner());
        let now = now_ms();
        let grace = millis(ORPHAN_GRACE);
        records.retain(|_, entry| {
            let kept_until = if entry.record.is_terminal() {
                entry.record.expires_at_ms
            } else {
                entry.record.expires_at_ms.saturating_add(grace)
            };
            kept_until > now
        });
        records
    }
}

impl TaskStore for MemoryTaskStore {
    fn create(&self, record: TaskRecord) -> BoxFuture<'_, Result<(), TaskStoreError>> {
        let result = {
            let mut records = self.records();
            if records.contains_key(&record.task_id) {
                Err(TaskStoreError(format!(
                    "a task `{}` exists already",
                    record.task_id
                )))
            } else {
                let (version, _) = watch::channel(record.version);
                records.insert(record.task_id.clone(), Entry { record, version });
                Ok(())
            }
        };
        Box::pin(std::future::ready(result))
    }

    fn get<'a>(
        &'a self,
        task_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<TaskRecord>, TaskStoreError>> {
        let record = self
            .records()
            .get(task_id)
            .map(|entry| entry.record.clone());
        Box::pin(std::future::ready(Ok(record)))
    }

    fn update<'a>(
        &'a self,
        task_id: &'a str,
        edit: TaskEdit<'a>,
    ) -> BoxFuture<'a, Result<Option<TaskRecord>, TaskStoreError>> {
        let record = self.records().get_mut(task_id).map(|entry| {
            edit(&mut entry.record);
            entry.record.version += 1;
            entry.record.last_updated_at_ms = now_ms();
            entry.version.send_replace(entry.record.version);
            entry.record.clone()
        });
        Box::pin(std::future::ready(Ok(record)))
    }

    fn changed<'a>(
        &'a self,
        task_id: &'a str,
        seen: u64,
        timeout: Duration,
    ) -> BoxFuture<'a, Result<Option<TaskRecord>, TaskStoreError>> {
        Box::pin(async move {
            let receiver = self
                .records()
                .get(task_id)
                .map(|entry| entry.version.subscribe());
            let Some(mut receiver) = receiver else {
                return Ok(None);
            };
            // `wait_for` returns at once when the version is already past `seen`; an error
            // means the record was removed. Its guard holds the watch's lock, which `update`
            // takes under the records' lock: it is released before the records are read.
            let removed = matches!(
                tokio::time::timeout(timeout, receiver.wait_for(|version| *version > seen)).await,
                Ok(Err(_))
            );
            if removed {
                return Ok(None);
            }
            Ok(self
                .records()
                .get(task_id)
                .map(|entry| entry.record.clone()))
        })
    }
}

/// A shared store: several servers (replicas in one process, or tests) can hold one.
impl<T: TaskStore + ?Sized> TaskStore for std::sync::Arc<T> {
    fn create(&self, record: TaskRecord) -> BoxFuture<'_, Result<(), TaskStoreError>> {
        (**self).create(record)
    }

    fn get<'a>(
        &'a self,
        task_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<TaskRecord>, TaskStoreError>> {
        (**self).get(task_id)
    }

    fn update<'a>(
        &'a self,
        task_id: &'a str,
        edit: TaskEdit<'a>,
    ) -> BoxFuture<'a, Result<Option<TaskRecord>, TaskStoreError>> {
        (**self).update(task_id, edit)
    }

    fn changed<'a>(
        &'a self,
        task_id: &'a str,
        seen: u64,
        timeout: Duration,
    ) -> BoxFuture<'a, Result<Option<TaskRecord>, TaskStoreError>> {
        (**self).changed(task_id, seen, timeout)
    }
}
