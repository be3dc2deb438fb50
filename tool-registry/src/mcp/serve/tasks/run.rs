//! A call that may become a task: when it does, the task's record, the call's questions as the
//! task's `inputRequests`, and the watch that stops it; and `tasks/get`, `tasks/update`,
//! `tasks/cancel`.

use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::ErrorData;
use rmcp::model::{CallToolResponse, CallToolResult, CreateTaskResult};
use tokio::sync::{mpsc, oneshot, watch};
use tokio_util::sync::CancellationToken;

use super::store::millis;
use super::store::{WATCH_TIMEOUT, now_ms};
use super::wire::{FAILED_KEPT, store_error, task_of, terminal_state};
use super::{TASK_GRACE, TaskRecord, TaskState, TaskStore};
use crate::mcp::serve::asking::{Asking, TaskAsker};
use crate::mcp::serve::input::Rounds;

/// A call that may become a task, and how.
pub(crate) struct TaskCall {
    pub(crate) store: Arc<dyn TaskStore>,
    pub(crate) tool: String,
    /// `task = "required"`: answered with a task even when it finishes within the grace.
    pub(crate) required: bool,
    pub(crate) ttl: Duration,
    pub(crate) poll_interval: Duration,
    /// How long the task's record stays working without word from this process: the watch
    /// renews it every third of this.
    pub(crate) lease: Duration,
    /// Where the task's watch runs, and what ends it as `failed` when the server shuts down.
    pub(crate) running: super::RunningTasks,
    /// Who starts the task, when the server checks access tokens: only they follow it.
    pub(crate) owner: Option<String>,
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
    /// request: with the result when it finishes within 250 ms (a required task: a
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
        // The run keeps the served call's span (its `execute_tool` span is that span's child).
        let handle = tokio::spawn(tracing::Instrument::in_current_span(async move {
            let _ = sender.send(run.await);
        }));
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
                    match tokio::time::timeout(crate::mcp::serve::input::ASK_GRACE, &mut answer).await {
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
                    self.running.watches.spawn(watch_task(
                        Arc::clone(&self.store),
                        record,
                        self.lease,
                        self.running.stop.clone(),
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
        let now = now_ms();
        let mut record = TaskRecord::new(
            new_task_id(),
            self.tool.clone(),
            now,
            self.ttl,
            self.poll_interval,
        );
        record.lease_until_ms = now.saturating_add(millis(self.lease));
        record.owner.clone_from(&self.owner);
        record
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

/// 128 random bits in hex.
fn new_task_id() -> String {
    crate::mcp::serve::input::random_bytes::<16>()
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
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
/// the call's latest progress report, renews the task's lease every third of `lease`, and
/// ends the task as `failed` when the server shuts down (`stopping`). `record` is the task as
/// created.
#[allow(clippy::too_many_arguments)]
async fn watch_task(
    store: Arc<dyn TaskStore>,
    mut record: TaskRecord,
    lease: Duration,
    stopping: CancellationToken,
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
    let mut renew = tokio::time::interval_at(
        tokio::time::Instant::now() + lease / 3,
        (lease / 3).max(Duration::from_millis(1)),
    );
    renew.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
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
            _ = renew.tick() => {
                let until = now_ms().saturating_add(millis(lease));
                // A store that fails now is tried again at the next tick; a lease that runs
                // out meanwhile ends the task for every reader, and this watch then stops
                // the call when it sees that.
                let _ = store
                    .update(&task_id, &|record| {
                        if !record.is_terminal() {
                            record.lease_until_ms = until;
                        }
                    })
                    .await;
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
            () = stopping.cancelled() => {
                stop.stop();
                let error = ErrorData::internal_error(
                    "the server shut down before the task finished, so the call's outcome is \
                     unknown. Call the tool again if running it twice is safe."
                        .to_owned(),
                    None,
                );
                let kept = now_ms().saturating_add(millis(FAILED_KEPT));
                settle(&*store, &task_id, terminal_state(Err(error)), Some(kept), kept).await;
                return;
            }
            () = &mut deadline => {
                stop.stop();
                let ttl = record.ttl_ms;
                let error = ErrorData::internal_error(
                    format!("the task ran longer than its ttlMs ({ttl} ms) and was stopped"),
                    None,
                );
                let kept = now_ms().saturating_add(millis(FAILED_KEPT));
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
