//! An imported server's task (the MCP tasks extension, SEP-2663): a `tools/call` answered
//! with `CreateTaskResult` is followed with `tasks/get` to its result, which becomes the
//! call's one `tool_result`.
//!
//! - Polled at the task's `pollIntervalMs` (kept between [`MIN_POLL`] and [`MAX_POLL`]).
//! - Each new status or `statusMessage` is reported as the call's progress
//!   (`{"status": ..., "message": ...}`).
//! - `input_required`: the task's `inputRequests` are answered as a multi round-trip
//!   request's are ([`super::answers::answer`]: elicitations through the calling context)
//!   and sent with `tasks/update`; each question once.
//! - `completed`: the inlined result, mapped as any `tools/call` result (an error result
//!   stays an error); `failed`: an error naming the server, the tool and the server's error;
//!   `cancelled`: an error saying the server cancelled it.
//! - The host's cancellation and the server's `timeout` (which bounds the whole call, from
//!   its `tools/call` to the task's end, answering its questions included) send
//!   `tasks/cancel`.

use std::collections::HashSet;
use std::time::Duration;

use rmcp::model::{
    CancelTaskParams, CreateTaskResult, GetTaskParams, InputRequiredResult, TaskPayload,
    TaskStatus, UpdateTaskParams,
};
use serde_json::{Value, json};
use tool_sdk::{ToolError, ToolResultContent, ToolUseContext};

use super::results::map_result;

/// What following a task needs of its call.
pub(crate) struct TaskTarget<'a> {
    pub server: &'a str,
    pub tool: &'a str,
    pub peer: &'a rmcp::Peer<rmcp::RoleClient>,
    /// Cancelled when the connection ends.
    pub closed: &'a tool_sdk::CancellationToken,
    /// The server's call timeout, for messages.
    pub timeout: Duration,
    /// When the call's timeout runs out: its start plus `timeout`.
    pub deadline: tokio::time::Instant,
}

/// The shortest wait between two `tasks/get`, whatever the server suggests.
const MIN_POLL: Duration = Duration::from_millis(100);

/// The longest wait between two `tasks/get`.
const MAX_POLL: Duration = Duration::from_secs(5);

/// Follows the task `created` of the call of `target.tool` until it ends, by
/// `target.deadline`.
///
/// # Errors
/// The task failed, was cancelled, ran past the deadline or was stopped by the host, the
/// server forgot it, or the connection failed.
pub(crate) async fn follow_task(
    target: &TaskTarget<'_>,
    created: CreateTaskResult,
    ctx: &ToolUseContext,
) -> Result<ToolResultContent, ToolError> {
    let deadline = target.deadline;
    let (server, tool) = (target.server, target.tool);
    let task_id = created.task.task_id.clone();
    let mut interval = poll_interval(created.task.poll_interval_ms);
    let mut reported: Option<(TaskStatus, Option<String>)> = None;
    let mut answered: HashSet<String> = HashSet::new();
    // Until the task ends, dropping this future (a host that stops polling a cancelled
    // turn) still cancels it.
    let mut guard = CancelTaskOnDrop {
        peer: Some(target.peer.clone()),
        task_id: task_id.clone(),
    };
    // Questions asked and not yet answered (their keys), so each is answered once.
    let mut pending: Option<rmcp::model::InputRequests> = None;
    loop {
        // One step: answer the open questions, or look at the task.
        let step = async {
            match pending.take() {
                Some(open) => {
                    let keys: Vec<String> = open.keys().cloned().collect();
                    let asked = InputRequiredResult::new(Some(open), None);
                    let responses = super::answers::answer(server, tool, &asked, ctx).await?;
                    target
                        .peer
                        .update_task(UpdateTaskParams::new(task_id.clone(), responses))
                        .await
                        .map_err(|error| {
                            ToolError::new(format!(
                                "MCP server `{server}` did not take the answers to task \
                                 {task_id} of `{tool}`: {error}"
                            ))
                        })?;
                    Ok(Step::Answered(keys))
                }
                None => target
                    .peer
                    .get_task(GetTaskParams::new(task_id.clone()))
                    .await
                    .map(|task| Step::Polled(Box::new(task.task)))
                    .map_err(|error| {
                        ToolError::new(format!(
                            "MCP server `{server}` could not report task {task_id} of \
                             `{tool}`: {error}"
                        ))
                    }),
            }
        };
        let step = tokio::select! {
            biased;
            () = ctx.abort().cancelled() => {
                guard.cancel_now().await;
                return Err(ToolError::aborted(format!(
                    "The call of `{tool}` on MCP server `{server}` was cancelled (its task \
                     {task_id} too)."
                )));
            }
            () = target.closed.cancelled() => {
                guard.peer = None;
                return Err(ToolError::new(format!(
                    "MCP server `{server}` closed its connection while `{tool}` ran as task \
                     {task_id}; the call has no result."
                )));
            }
            () = tokio::time::sleep_until(deadline) => {
                guard.cancel_now().await;
                return Err(ToolError::new(format!(
                    "MCP tool `{tool}` on server `{server}` ran as task {task_id} and did not \
                     finish within {} ms; the task was cancelled. Raise the server's `timeout` \
                     (milliseconds) if it needs longer.",
                    target.timeout.as_millis()
                )));
            }
            step = step => step?,
        };
        let task = match step {
            Step::Answered(keys) => {
                answered.extend(keys);
                continue;
            }
            Step::Polled(task) => *task,
        };
        if let Some(every) = task.task.poll_interval_ms {
            interval = poll_interval(Some(every));
        }
        let now = (task.status(), task.task.status_message.clone());
        if reported.as_ref() != Some(&now) {
            ctx.report_progress(&json!({
                "status": status_word(now.0),
                "message": now.1,
            }));
            reported = Some(now);
        }
        if task.status().is_terminal() {
            guard.peer = None;
        }
        match task.payload {
            TaskPayload::Completed { result } => {
                return map_result(server, tool, &Value::Object(result), ctx);
            }
            TaskPayload::Failed { error } => {
                let message = error
                    .get("message")
                    .and_then(Value::as_str)
                    .unwrap_or("no message");
                let code = error.get("code").map(Value::to_string).unwrap_or_default();
                return Err(ToolError::new(format!(
                    "MCP server `{server}` reports that task {task_id} of `{tool}` failed: \
                     {message} (JSON-RPC error {code})"
                )));
            }
            TaskPayload::Cancelled => {
                return Err(ToolError::new(format!(
                    "MCP server `{server}` cancelled task {task_id} of `{tool}`; the call has \
                     no result."
                )));
            }
            TaskPayload::InputRequired { input_requests } => {
                let open: rmcp::model::InputRequests = input_requests
                    .into_iter()
                    .filter(|(key, _)| !answered.contains(key))
                    .collect();
                if !open.is_empty() {
                    pending = Some(open);
                    continue;
                }
            }
            _ => {}
        }
        tokio::select! {
            () = tokio::time::sleep(interval) => {}
            () = ctx.abort().cancelled() => {}
            () = tokio::time::sleep_until(deadline) => {}
        }
    }
}

/// What one step of following a task did.
enum Step {
    /// Answered the questions with these keys.
    Answered(Vec<String>),
    /// Read the task.
    Polled(Box<rmcp::model::DetailedTask>),
}

/// Sends `tasks/cancel` for a task that has not ended: at once through
/// [`CancelTaskOnDrop::cancel_now`], or from `Drop` when the call's future is dropped.
struct CancelTaskOnDrop {
    peer: Option<rmcp::Peer<rmcp::RoleClient>>,
    task_id: String,
}

impl CancelTaskOnDrop {
    async fn cancel_now(&mut self) {
        if let Some(peer) = self.peer.take() {
            // The server learns of it if it still can; the call ends either way.
            let _ = tokio::time::timeout(
                Duration::from_secs(5),
                peer.cancel_task(CancelTaskParams::new(self.task_id.clone())),
            )
            .await;
        }
    }
}

impl Drop for CancelTaskOnDrop {
    fn drop(&mut self) {
        if let Some(peer) = self.peer.take()
            && let Ok(runtime) = tokio::runtime::Handle::try_current()
        {
            let task_id = std::mem::take(&mut self.task_id);
            runtime.spawn(async move {
                let _ = tokio::time::timeout(
                    Duration::from_secs(5),
                    peer.cancel_task(CancelTaskParams::new(task_id)),
                )
                .await;
            });
        }
    }
}

fn poll_interval(suggested: Option<u64>) -> Duration {
    suggested
        .map(Duration::from_millis)
        .unwrap_or(Duration::from_secs(1))
        .clamp(MIN_POLL, MAX_POLL)
}

fn status_word(status: TaskStatus) -> &'static str {
    match status {
        TaskStatus::Working => "working",
        TaskStatus::InputRequired => "input_required",
        TaskStatus::Completed => "completed",
        TaskStatus::Failed => "failed",
        TaskStatus::Cancelled => "cancelled",
        _ => "unknown",
    }
}
