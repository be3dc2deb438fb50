//! Tasks on the wire: a record as an MCP `Task`, and `tasks/get`, `tasks/update`,
//! `tasks/cancel`, each of which first ends a task whose server stopped renewing its lease.

use std::time::Duration;

use rmcp::ErrorData;
use rmcp::model::{
    CallToolResult, DetailedTask, GetTaskResult, InputRequests, InputResponses, Task, TaskPayload,
    TaskStatus,
};
use serde_json::{Map, Value};

use super::store::{millis, now_ms};
use super::{TaskRecord, TaskState, TaskStore};

/// How long a task failed at its `ttlMs`, or because its server stopped, is kept at least, so
/// that its client can still read why.
pub(super) const FAILED_KEPT: Duration = Duration::from_secs(60);

/// Ends `record` as `failed` when it is still working but its lease ran out at `now_ms`
/// (the server process running it stopped, or lost the store, for longer than the lease):
/// its outcome is unknown, and no process will ever write it. Returns whether it did.
pub(super) fn lapse(record: &mut TaskRecord, now_ms: u64) -> bool {
    if !lapsed(record, now_ms) {
        return false;
    }
    let silent_ms = now_ms.saturating_sub(record.lease_until_ms);
    let error = ErrorData::internal_error(
        format!(
            "the server running this task stopped before the task finished: its lease on the \
             task ran out {silent_ms} ms ago and was not renewed, so the call's outcome is \
             unknown. Call the tool again if running it twice is safe."
        ),
        None,
    );
    record.state = terminal_state(Err(error));
    record.input_requests.clear();
    let kept = now_ms.saturating_add(millis(FAILED_KEPT));
    record.expires_at_ms = record.expires_at_ms.max(kept);
    true
}

/// Whether `record` is still working with its lease run out at `now_ms`.
fn lapsed(record: &TaskRecord, now_ms: u64) -> bool {
    !record.is_terminal() && record.lease_until_ms != 0 && now_ms > record.lease_until_ms
}

/// The wire `Task` of a record.
pub(super) fn task_of(record: &TaskRecord) -> Task {
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

/// The record of `task_id` when `requester` may see it (the owner, or anyone for a task
/// without one); `-32602` as for an unknown task otherwise, so that its existence leaks not.
async fn owned(
    store: &dyn TaskStore,
    task_id: &str,
    requester: Option<&str>,
) -> Result<TaskRecord, ErrorData> {
    store
        .get(task_id)
        .await
        .map_err(store_error)?
        .filter(|record| record.owner.is_none() || record.owner.as_deref() == requester)
        .ok_or_else(|| unknown_task(task_id))
}

/// `tasks/get`: the task as it is now.
///
/// # Errors
/// `-32602` for an unknown or expired task; an internal error when the store fails.
pub(crate) async fn get(
    store: &dyn TaskStore,
    task_id: &str,
    requester: Option<&str>,
) -> Result<GetTaskResult, ErrorData> {
    let mut record = owned(store, task_id, requester).await?;
    let now = now_ms();
    if lapsed(&record, now) {
        // Written through the store, so every process reads the same end.
        record = store
            .update(task_id, &|record| {
                lapse(record, now);
            })
            .await
            .map_err(store_error)?
            .ok_or_else(|| unknown_task(task_id))?;
    }
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
    requester: Option<&str>,
) -> Result<(), ErrorData> {
    owned(store, task_id, requester).await?;
    let responses: Vec<(String, Value)> = responses
        .iter()
        .filter(|(_, answer)| answer.is_object())
        .map(|(key, answer)| (key.clone(), answer.clone()))
        .collect();
    let now = now_ms();
    store
        .update(task_id, &|record| {
            lapse(record, now);
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
pub(crate) async fn cancel(
    store: &dyn TaskStore,
    task_id: &str,
    requester: Option<&str>,
) -> Result<(), ErrorData> {
    owned(store, task_id, requester).await?;
    let now = now_ms();
    store
        .update(task_id, &|record| {
            lapse(record, now);
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

pub(super) fn store_error(error: super::TaskStoreError) -> ErrorData {
    ErrorData::internal_error(error.to_string(), None)
}

/// The record state for a call's answer.
pub(super) fn terminal_state(answer: Result<CallToolResult, ErrorData>) -> TaskState {
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
