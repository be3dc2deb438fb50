//! How a served call's questions reach its client, and the switch to a task's
//! `inputRequests` when the call becomes a task.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::InputRequest;
use serde_json::Value;
use tokio::sync::{Notify, watch};
use tool_sdk::ToolError;

use super::input::Rounds;
use super::tasks::store::{TaskStore, TaskStoreError, WATCH_TIMEOUT};

/// How a served call's questions reach its client: over the session (MCP 2025-11-25), as
/// rounds of a multi round-trip request (2026-07-28), or, once the call has become a task, as
/// the task's `inputRequests`.
#[derive(Debug)]
pub(crate) struct Asking {
    route: Mutex<Route>,
    asked: AtomicUsize,
    /// Woken by [`Asking::start_task`].
    start: Notify,
    /// Whether the call became a task: `None` until it is decided. Only a call that may
    /// become a task (the tool allows it, the client follows tasks) has one.
    started: Option<watch::Sender<Option<bool>>>,
}

enum Route {
    Session,
    /// The client takes nothing before the call's answer (a request taking JSON only).
    Unreachable,
    Rounds(Arc<Rounds>),
    Task(TaskAsker),
}

impl std::fmt::Debug for Route {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Session => "Session",
            Self::Unreachable => "Unreachable",
            Self::Rounds(_) => "Rounds",
            Self::Task(_) => "Task",
        })
    }
}

/// Where one question goes, as [`Asking::route`] decides.
pub(crate) enum Ask {
    /// Answered by an earlier round.
    Answered(Value),
    /// Recorded for this round's `InputRequiredResult`: the call ends with it.
    Recorded,
    /// To the client over the session.
    Session,
    /// Nowhere: over the session, the client takes nothing before the call's answer.
    Unreachable,
    /// To the task's `inputRequests`.
    Task(TaskAsker),
}

impl Asking {
    /// Questions over the session (when `session_reaches`: the request takes a stream), or
    /// as `rounds` when there are rounds; `may_become_task`: the call may become a task.
    pub(crate) fn new(
        rounds: Option<Arc<Rounds>>,
        may_become_task: bool,
        session_reaches: bool,
    ) -> Self {
        let session = if session_reaches {
            Route::Session
        } else {
            Route::Unreachable
        };
        Self {
            route: Mutex::new(rounds.map_or(session, Route::Rounds)),
            asked: AtomicUsize::new(0),
            start: Notify::new(),
            started: may_become_task.then(|| watch::Sender::new(None)),
        }
    }

    /// Asks for the call to become a task now, and returns whether it is one.
    pub(crate) async fn start_task(&self) -> bool {
        let Some(started) = &self.started else {
            return false;
        };
        self.start.notify_one();
        let mut started = started.subscribe();
        let decided = started.wait_for(Option::is_some).await;
        decided.ok().and_then(|decided| *decided).unwrap_or(false)
    }

    /// Resolves when the tool asks to become a task ([`Asking::start_task`]).
    pub(crate) async fn task_wanted(&self) {
        self.start.notified().await;
    }

    /// Records whether the call became a task, for [`Asking::start_task`].
    pub(crate) fn decided(&self, task: bool) {
        if let Some(started) = &self.started {
            started.send_replace(Some(task));
        }
    }

    /// The name of the call's next unnamed question: `q1`, `q2`, ... in the order asked.
    pub(crate) fn next_id(&self) -> String {
        format!("q{}", self.asked.fetch_add(1, Ordering::SeqCst) + 1)
    }

    /// Where the question `id` goes (a round's question is answered or recorded here, under
    /// the same lock [`Asking::escalate`] takes, so a call never becomes a task with a round's
    /// question open).
    pub(crate) fn route(&self, id: &str, request: InputRequest) -> Ask {
        let route = self.route.lock().unwrap_or_else(|e| e.into_inner());
        match &*route {
            Route::Session => Ask::Session,
            Route::Unreachable => Ask::Unreachable,
            Route::Task(asker) => Ask::Task(asker.clone()),
            Route::Rounds(rounds) => match rounds.answer_or_record(id.to_owned(), request) {
                Some(answer) => Ask::Answered(answer),
                None => Ask::Recorded,
            },
        }
    }

    /// Sends the call's questions from now on to its task; `false` (and nothing changes) when
    /// the call has a round's question open, which ends it instead.
    pub(crate) fn escalate(&self, asker: TaskAsker) -> bool {
        let mut route = self.route.lock().unwrap_or_else(|e| e.into_inner());
        if let Route::Rounds(rounds) = &*route
            && rounds.has_open()
        {
            return false;
        }
        *route = Route::Task(asker);
        true
    }
}

/// Asks a task's questions: each becomes an entry of its `inputRequests`, answered through
/// `tasks/update`, learned of through the store.
#[derive(Clone)]
pub(crate) struct TaskAsker {
    store: Arc<dyn TaskStore>,
    task_id: Arc<str>,
    /// `true` once the task's record is stored.
    ready: watch::Receiver<bool>,
}

impl TaskAsker {
    /// Asks in the task `task_id` of `store`, once `ready` is `true` (its record is stored).
    pub(crate) fn new(
        store: Arc<dyn TaskStore>,
        task_id: Arc<str>,
        ready: watch::Receiver<bool>,
    ) -> Self {
        Self {
            store,
            task_id,
            ready,
        }
    }

    /// The client's answer to `request`, asked under `key`; never, when the task ends first
    /// (its call is then stopped).
    ///
    /// # Errors
    /// A [`ToolError`] when `key` was asked before in this task, or the store fails.
    pub(crate) async fn ask(&self, key: String, request: InputRequest) -> Result<Value, ToolError> {
        let mut ready = self.ready.clone();
        let _ = ready.wait_for(|ready| *ready).await;
        let request = serde_json::to_value(&request)
            .map_err(|error| ToolError::new(format!("cannot send the question: {error}")))?;
        let reused = AtomicBool::new(false);
        let failed = |error: TaskStoreError| ToolError::new(error.to_string());
        let record = self
            .store
            .update(&self.task_id, &|record| {
                if record.asked.contains(&key) {
                    reused.store(true, Ordering::Relaxed);
                } else {
                    record.asked.push(key.clone());
                    record.input_requests.insert(key.clone(), request.clone());
                }
            })
            .await
            .map_err(failed)?;
        if reused.load(Ordering::Relaxed) {
            return Err(ToolError::new(format!(
                "the question `{key}` was asked before in this task: give each question its own id"
            )));
        }
        let Some(mut record) = record else {
            return std::future::pending().await;
        };
        loop {
            if let Some(answer) = record.input_responses.get(&key).cloned() {
                let _ = self
                    .store
                    .update(&self.task_id, &|record| {
                        record.input_responses.remove(&key);
                    })
                    .await;
                return Ok(answer);
            }
            if record.is_terminal() {
                return std::future::pending().await;
            }
            match self
                .store
                .changed(&self.task_id, record.version, WATCH_TIMEOUT)
                .await
            {
                Ok(Some(now)) => record = now,
                Ok(None) => return std::future::pending().await,
                Err(_) => tokio::time::sleep(Duration::from_secs(1)).await,
            }
        }
    }
}
