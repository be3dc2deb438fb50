//! A call that may become a task: when it does, the task's record, the call's questions as the
//! task's `inputRequests`, and the watch that stops it; and `tasks/get`, `tasks/update`,
//! `tasks/cancel`.

use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::ErrorData;
use rmcp::model::{
    CallToolResponse, CallToolResult, CreateTaskResult, DetailedTask, GetTaskResult, InputRequests,
    InputResponses, Task, TaskPayload, TaskStatus,
};
use serde_json::{Map, Value};
use tokio::sync::{mpsc, oneshot, watch};
use tokio_util::sync::CancellationToken;

use super::store::{WATCH_TIMEOUT, now_ms};
use super::{TASK_GRACE, TaskRecord, TaskState, TaskStore};
use crate::mcp::serve::asking::{Asking, TaskAsker};
use crate::mcp::serve::input::Rounds;

/// How long a task failed at its `ttlMs` is kept, so that its client can still read why.
const FAILED_AT_TTL_KEPT: Duration = Duration::from_secs(60);

/// A call that may become a task, and how.
pub(crate) struct TaskCall {
    pub(crate) store: Arc<dyn TaskStore>,
    pub(crate) tool: String,
    /// `task = "required"`: answered with a task even when it finishes within the grace.
    pub(crate) required: bool,
    pub(crate) ttl: Duration,
    pub(crate) poll_interval: Duration,
}

/// Where a task call's progress goes: the request's own sink until the call becomes a task,
/// then the task's `statusMessage` (which starts as the latest report made before).
#[derive(Clone, Default)]
pub(crate) struct ProgressSwitch(Arc<Mutex<Switch>>);

#[derive(Default)]
struct Switch {
    task: Option<mpsc::UnboundedSender<String>>,
    latest: Option<String>,
}

impl ProgressSwitch {
    /// A sink for the call: `request`'s reports until [`ProgressSwitch`] is switched.
    pub(crate) fn sink(
        &self,
        request: Option<tool_sdk::context::ProgressSink>,
    ) -> tool_sdk::context::ProgressSink {
        let switch = self.clone();
        Arc::new(move |report| {
            let text = crate::mcp::serve::content::progress_text(&report);
            let task = {
                let mut switch = switch.0.lock().unwrap_or_else(|e| e.into_inner());
                switch.latest = Some(text.clone());
                switch.task.clone()
            };
            match task {
                Some(task) => {
                    let _ = task.send(text);
                }
                None => {
                    if let Some(request) = &request {
                        request(report);
                    }
                }
            }
        })
    }

    /// Sends reports to the task from now on; returns their channel and the latest report
    /// made before (taken under the same lock, so none is lost between).
    fn to_task(&self) -> (mpsc::UnboundedReceiver<String>, Option<String>) {
        let (sender, receiver) = mpsc::unbounded_channel();
        let mut switch = self.0.lock().unwrap_or_else(|e| e.into_inner());
        switch.task = Some(sender);
        (receiver, switch.latest.clone())
    }
}

impl TaskCall {
    /// Runs `run` (the call, answering with its result or a JSON-RPC error) and answers the
    /// request: with the result when it finishes within [`TASK_GRACE`] (a required task: a
    /// finished task), with `asked()` when the call asked what this round cannot answer,
    /// and otherwise with a new task, which goes on running after this returns.
    /// `cancelled` is the request's own cancellation (it stops the call only until the call
    /// becomes a task); `abort` is the call's abort token.
    #[allow(clippy::too_many_arguments)]
    pub(crate) async fn respond(
        self,
        run: impl Future<Output = Result<CallToolResult, ErrorData>> + Send + 'static,
        abort: CancellationToken,
        cancelled: CancellationToken,
        asking: &Asking,
        rounds: Option<&Rounds>,
        progress: &ProgressSwitch,
        asked: impl FnOnce() -> Result<CallToolResponse, ErrorData>,
    ) -> Result<CallToolResponse, ErrorData> {
        let (sender, mut answer) = oneshot::channel();
        let handle = tokio::spawn(async move {
            let _ = sender.send(run.await);
        });
        // Stops the run if this future is dropped before the run is answered for or handed
        // to its task's watch.
        let mut stop = StopOnDrop(Some(Stop {
            abort,
            run: handle.abort_handle(),
        }));
        let grace = tokio::time::sleep(TASK_GRACE);
        tokio::pin!(grace);
        let mut grace_over = false;
        loop {
            tokio::select! {
                finished = &mut answer => {
                    let finished = finished.unwrap_or_else(|_| Err(ended_without_answer()));
                    if !self.required {
                        return finished.map(CallToolResponse::from);
                    }
                    let mut record = self.record();
                    record.state = terminal_state(finished);
                    let created = task_of(&record);
                    self.store.create(record).await.map_err(store_error)?;
                    return Ok(CallToolResponse::Task(CreateTaskResult::new(created)));
                }
                () = asked_in(rounds) => {
                    // Questions asked together go out together.
                    match tokio::time::timeout(crate::mcp::serve::session::ASK_GRACE, &mut answer).await {
                        Ok(finished) => {
                            let finished = finished.unwrap_or_else(|_| Err(ended_without_answer()));
                            return finished.map(CallToolResponse::from);
                        }
                        Err(_) => {
                            stop.now();
                            return asked();
                        }
                    }
                }
                () = cancelled.cancelled() => {
                    stop.now();
                    return Ok(crate::mcp::serve::content::error_result(
                        "The call was cancelled by the client.".to_owned(),
                    )
                    .into());
                }
                () = escalation(&mut grace, asking), if !grace_over => {
                    grace_over = true;
                    let record = self.record();
                    let (ready, ready_rx) = watch::channel(false);
                    let asker = TaskAsker::new(
                        Arc::clone(&self.store),
                        record.task_id.clone().into(),
                        ready_rx,
                    );
                    if !asking.escalate(asker) {
                        // The call has asked a question this round must send: that ends it.
                        asking.decided(false);
                        continue;
                    }
                    let created = task_of(&record);
                    if let Err(error) = self.store.create(record.clone()).await {
                        stop.now();
                        asking.decided(false);
                        return Err(store_error(error));
                    }
                    let _ = ready.send(true);
                    asking.decided(true);
                    let status = progress.to_task();
                    let Some(stop) = stop.0.take() else {
                        unreachable!("the run is stopped only when this returns");
                    };
                    tokio::spawn(watch_task(
                        Arc::clone(&self.store),
                        record,
                        answer,
                        stop,
                        status,
                    ));
                    return Ok(CallToolResponse::Task(CreateTaskResult::new(created)));
                }
            }
        }
    }

    /// A new working record for this call.
    fn record(&self) -> TaskRecord {
        TaskRecord::new(
            new_task_id(),
            self.tool.clone(),
            now_ms(),
            self.ttl,
            self.poll_interval,
        )
    }
}

/// Resolves when the call should become a task: at the end of the grace, or sooner when the
/// tool asks ([`ServedCall::start_task`](crate::mcp::serve::ServedCall::start_task)).
async fn escalation(grace: &mut std::pin::Pin<&mut tokio::time::Sleep>, asking: &Asking) {
    tokio::select! {
        () = grace.as_mut() => {}
        () = asking.task_wanted() => {}
    }
}

/// Resolves when the call has asked a question `rounds` cannot answer; never without rounds.
async fn asked_in(rounds: Option<&Rounds>) {
    match rounds {
        Some(rounds) => rounds.asked().await,
        None => std::future::pending().await,
    }
}

fn ended_without_answer() -> ErrorData {
    ErrorData::internal_error("the call ended without an answer", None)
}

fn store_error(error: super::TaskStoreError) -> ErrorData {
    ErrorData::internal_error(error.to_string(), None)
}

/// 128 random bits in hex.
fn new_task_id() -> String {
    crate::mcp::serve::input::random_bytes::<16>()
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

/// The record state for a call's answer.
fn terminal_state(answer: Result<CallToolResult, ErrorData>) -> TaskState {
    let object = |value: Result<Value, serde_json::Error>| match value {
        Ok(Value::Object(object)) => object,
        _ => Map::new(),
    };
    match answer {
        Ok(result) => TaskState::Completed {
            result: object(serde_json::to_value(result)),
        },
        Err(error) => TaskState::Failed {
            error: object(serde_json::to_value(error)),
        },
    }
}

/// How to stop a call's run: its abort token and its task.
struct Stop {
    abort: CancellationToken,
    run: tokio::task::AbortHandle,
}

impl Stop {
    fn stop(self) {
        self.abort.cancel();
        self.run.abort();
    }
}

/// Stops the run when dropped, unless it was taken (handed to the task's watch).
struct StopOnDrop(Option<Stop>);

impl StopOnDrop {
    fn now(&mut self) {
        if let Some(stop) = self.0.take() {
            stop.stop();
        }
    }
}

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.now();
    }
}

/// Follows a running task until it ends: writes its answer, stops it when the store says it
/// ended (cancelled) or is gone, fails it at its `ttlMs`, and keeps its `statusMessage` at
/// the call's latest progress report. `record` is the task as created.
async fn watch_task(
    store: Arc<dyn TaskStore>,
    mut record: TaskRecord,
    mut answer: oneshot::Receiver<Result<CallToolResult, ErrorData>>,
    stop: Stop,
    (mut status, latest): (mpsc::UnboundedReceiver<String>, Option<String>),
) {
    let task_id = record.task_id.clone();
    let expiry = tokio::time::Instant::now()
        + Duration::from_millis(record.expires_at_ms.saturating_sub(now_ms()));
    let deadline = tokio::time::sleep_until(expiry);
    tokio::pin!(deadline);
    let mut status_open = true;
    let mut message = latest;
    loop {
        if let Some(text) = message.take() {
            let _ = store
                .update(&task_id, &|record| {
                    record.status_message = Some(text.clone())
                })
                .await;
        }
        tokio::select! {
            finished = &mut answer => {
                let state = terminal_state(finished.unwrap_or_else(|_| Err(ended_without_answer())));
                settle(&*store, &task_id, state, None, record.expires_at_ms).await;
                return;
            }
            changed = store.changed(&task_id, record.version, WATCH_TIMEOUT) => {
                match changed {
                    Ok(Some(now)) if !now.is_terminal() => record = now,
                    Ok(_) => {
                        // Cancelled, or no longer known: stop the call.
                        stop.stop();
                        return;
                    }
                    Err(_) => tokio::time::sleep(STORE_RETRY).await,
                }
            }
            text = status.recv(), if status_open => {
                let Some(mut text) = text else {
                    status_open = false;
                    continue;
                };
                while let Ok(later) = status.try_recv() {
                    text = later;
                }
                message = Some(text);
            }
            () = &mut deadline => {
                stop.stop();
                let ttl = record.ttl_ms;
                let error = ErrorData::internal_error(
                    format!("the task ran longer than its ttlMs ({ttl} ms) and was stopped"),
                    None,
                );
                let kept = now_ms().saturating_add(
                    u64::try_from(FAILED_AT_TTL_KEPT.as_millis()).unwrap_or(u64::MAX),
                );
                settle(&*store, &task_id, terminal_state(Err(error)), Some(kept), kept).await;
                return;
            }
        }
    }
}

/// How long the watch waits before trying the store again after it failed.
const STORE_RETRY: Duration = Duration::from_secs(1);

/// Writes a task's end (`state`, and a new expiry when given) unless it has ended already,
/// trying again while the store fails, until `give_up_at_ms`.
async fn settle(
    store: &dyn TaskStore,
    task_id: &str,
    state: TaskState,
    expires_at_ms: Option<u64>,
    give_up_at_ms: u64,
) {
    let mut wait = STORE_RETRY;
    loop {
        let written = store
            .update(task_id, &|record| {
                if !record.is_terminal() {
                    record.state = state.clone();
                    record.input_requests.clear();
                    if let Some(expires_at_ms) = expires_at_ms {
                        record.expires_at_ms = expires_at_ms;
                    }
                }
            })
            .await;
        match written {
            Ok(_) => return,
            Err(error) if now_ms() >= give_up_at_ms => {
                tracing::warn!(task = %task_id, "the task's end could not be stored: {error}");
                return;
            }
            Err(_) => {
                tokio::time::sleep(wait).await;
                wait = (wait * 2).min(Duration::from_secs(30));
            }
        }
    }
}

/// The wire `Task` of a record.
fn task_of(record: &TaskRecord) -> Task {
    let status = match &record.state {
        TaskState::Working if record.input_requests.is_empty() => TaskStatus::Working,
        TaskState::Working => TaskStatus::InputRequired,
        TaskState::Completed { .. } => TaskStatus::Completed,
        TaskState::Failed { .. } => TaskStatus::Failed,
        TaskState::Cancelled => TaskStatus::Cancelled,
    };
    let mut task = Task::new(
        record.task_id.clone(),
        status,
        timestamp(record.created_at_ms),
        timestamp(record.last_updated_at_ms),
    )
    .with_ttl_ms(record.ttl_ms)
    .with_poll_interval_ms(record.poll_interval_ms);
    if let Some(message) = &record.status_message {
        task = task.with_status_message(message.clone());
    }
    task
}

/// ISO 8601 (RFC 3339, UTC, milliseconds) for milliseconds since the Unix epoch.
fn timestamp(ms: u64) -> String {
    chrono::DateTime::from_timestamp_millis(i64::try_from(ms).unwrap_or(i64::MAX))
        .unwrap_or_default()
        .to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

fn unknown_task(task_id: &str) -> ErrorData {
    ErrorData::invalid_params(
        format!(
            "Unknown task: {task_id}. It was never made here, or it has expired (a task is kept \
             for its ttlMs from its creation)."
        ),
        None,
    )
}

/// `tasks/get`: the task as it is now.
///
/// # Errors
/// `-32602` for an unknown or expired task; an internal error when the store fails.
pub(crate) async fn get(store: &dyn TaskStore, task_id: &str) -> Result<GetTaskResult, ErrorData> {
    let record = store
        .get(task_id)
        .await
        .map_err(store_error)?
        .ok_or_else(|| unknown_task(task_id))?;
    let payload = match &record.state {
        TaskState::Working if record.input_requests.is_empty() => TaskPayload::Working,
        TaskState::Working => {
            let input_requests: InputRequests =
                serde_json::from_value(Value::Object(record.input_requests.clone()))
                    .map_err(|error| ErrorData::internal_error(error.to_string(), None))?;
            TaskPayload::InputRequired { input_requests }
        }
        TaskState::Completed { result } => TaskPayload::Completed {
            result: result.clone(),
        },
        TaskState::Failed { error } => TaskPayload::Failed {
            error: error.clone(),
        },
        TaskState::Cancelled => TaskPayload::Cancelled,
    };
    Ok(GetTaskResult::new(DetailedTask::new(
        task_of(&record),
        payload,
    )))
}

/// `tasks/update`: hands the answers to the task's open questions to it; answers to anything
/// else (an unknown key, a question already answered, a task that has ended) are ignored, and
/// an answer that is not a JSON object counts as none.
///
/// # Errors
/// `-32602` for an unknown or expired task; an internal error when the store fails.
pub(crate) async fn update(
    store: &dyn TaskStore,
    task_id: &str,
    responses: &InputResponses,
) -> Result<(), ErrorData> {
    let responses: Vec<(String, Value)> = responses
        .iter()
        .filter(|(_, answer)| answer.is_object())
        .map(|(key, answer)| (key.clone(), answer.clone()))
        .collect();
    store
        .update(task_id, &|record| {
            if record.is_terminal() {
                return;
            }
            for (key, answer) in &responses {
                if record.input_requests.remove(key).is_some() {
                    record.input_responses.insert(key.clone(), answer.clone());
                }
            }
        })
        .await
        .map_err(store_error)?
        .map(|_| ())
        .ok_or_else(|| unknown_task(task_id))
}

/// `tasks/cancel`: ends a running task as `cancelled` (its call is stopped by its watch); a
/// task that has ended stays as it ended.
///
/// # Errors
/// `-32602` for an unknown or expired task; an internal error when the store fails.
pub(crate) async fn cancel(store: &dyn TaskStore, task_id: &str) -> Result<(), ErrorData> {
    store
        .update(task_id, &|record| {
            if !record.is_terminal() {
                record.state = TaskState::Cancelled;
                record.input_requests.clear();
            }
        })
        .await
        .map_err(store_error)?
        .map(|_| ())
        .ok_or_else(|| unknown_task(task_id))
}
