//! `tools/call` through rmcp (MCP 2025-11-25 "Calling Tools"): the arguments forwarded as
//! JSON, a per-server timeout, host cancellation sent as `notifications/cancelled`, progress
//! routed to the calling context, and the result mapped to Anthropic `tool_result` content.

use std::time::Duration;

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CancelledNotification, CancelledNotificationParam,
    ClientNotification, ClientRequest, RequestId, ServerResult,
};
use rmcp::service::PeerRequestOptions;
use rmcp::{Peer, RoleClient, ServiceError};
use serde_json::Value;
use tool_sdk::{CancellationToken, ToolError, ToolResultContent, ToolUseContext};

use super::client::ServerSignals;
use super::follow::TaskTarget;
use super::results::map_result;

/// What one call needs of its server's live connection.
pub(crate) struct CallTarget<'a> {
    pub server: &'a str,
    pub tool: &'a str,
    pub peer: Peer<RoleClient>,
    /// Cancelled when the connection ends.
    pub closed: CancellationToken,
    pub signals: &'a ServerSignals,
    pub timeout: Duration,
}

/// The reason sent in `notifications/cancelled` when the host stops a call.
const HOST_CANCEL_REASON: &str = "cancelled by the host";

/// The reason sent in `notifications/cancelled` when a call runs past its timeout.
const TIMEOUT_REASON: &str = "request timeout";

/// Sends `notifications/cancelled` for a request that has not ended: at once through
/// [`CancelOnDrop::cancel_now`], or from `Drop` when the call's future is dropped mid-call.
struct CancelOnDrop {
    peer: Option<Peer<RoleClient>>,
    id: RequestId,
}

fn cancelled_notification(id: RequestId, reason: &str) -> ClientNotification {
    ClientNotification::CancelledNotification(CancelledNotification::new(
        CancelledNotificationParam::new(Some(id), Some(reason.to_owned())),
    ))
}

impl CancelOnDrop {
    async fn cancel_now(&mut self, reason: &str) {
        if let Some(peer) = self.peer.take() {
            // A server already gone cannot be told; the call ends either way.
            let _ = peer
                .send_notification(cancelled_notification(self.id.clone(), reason))
                .await;
        }
    }
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if let Some(peer) = self.peer.take()
            && let Ok(runtime) = tokio::runtime::Handle::try_current()
        {
            let notification = cancelled_notification(self.id.clone(), HOST_CANCEL_REASON);
            runtime.spawn(async move {
                let _ = peer.send_notification(notification).await;
            });
        }
    }
}

/// How many multi round-trip rounds (MCP 2026-07-28, SEP-2322) one call may take before it
/// is given up: as rmcp's own client (`DEFAULT_MRTR_MAX_ROUNDS`).
const MAX_INPUT_ROUNDS: usize = rmcp::model::DEFAULT_MRTR_MAX_ROUNDS;

/// Calls the tool and maps the outcome: content on success, an error result otherwise. A
/// server that answers with an `InputRequiredResult` (MCP 2026-07-28) has its questions
/// answered ([`super::answers::answer`]: elicitations through the calling context's
/// elicitor) and the call is sent again with the answers and the server's `requestState`,
/// up to [`MAX_INPUT_ROUNDS`] times; the timeout applies to each round. A server that answers
/// with a task (`CreateTaskResult`, the tasks extension) has it followed to its result
/// ([`super::follow`]), within the timeout from the call's start.
pub(crate) async fn call_tool(
    target: CallTarget<'_>,
    input: Value,
    ctx: ToolUseContext,
) -> Result<ToolResultContent, ToolError> {
    let (server, tool) = (target.server, target.tool);
    let started = tokio::time::Instant::now();
    let arguments = match input {
        Value::Object(map) => Some(map),
        Value::Null => None,
        other => {
            return Err(ToolError::new(format!(
                "MCP tool `{tool}` takes an object of arguments, not {other}"
            )));
        }
    };
    let mut params = CallToolRequestParams::new(tool.to_owned());
    params.arguments = arguments;
    // The call's span, whose trace context the server receives in `_meta` (SEP-414).
    let sent = super::trace::Sent::start(server, tool);
    let mut meta = rmcp::model::MetaObject::new();
    super::trace::inject(sent.span(), &mut meta);
    if !meta.is_empty() {
        params.meta = Some(rmcp::model::RequestMetaObject(meta));
    }
    let outcome = tracing::Instrument::instrument(
        rounds(&target, params, &ctx, started),
        sent.span().clone(),
    )
    .await;
    sent.finish(outcome.is_err());
    outcome
}

/// The rounds of one `tools/call` of [`call_tool`]: the call, sent again with the answers
/// while the server asks for input.
async fn rounds(
    target: &CallTarget<'_>,
    mut params: CallToolRequestParams,
    ctx: &ToolUseContext,
    started: tokio::time::Instant,
) -> Result<ToolResultContent, ToolError> {
    let (server, tool) = (target.server, target.tool);
    for _ in 0..=MAX_INPUT_ROUNDS {
        match call_round(target, params.clone(), ctx).await? {
            ServerResult::CallToolResult(result) => {
                let raw = serde_json::to_value(&result).unwrap_or(Value::Null);
                return map_result(server, tool, &raw, ctx);
            }
            ServerResult::CustomResult(raw) => {
                // What rmcp could not read as any result it knows: taken as a tool result when
                // it has the shape of one (lenient with the blocks in it), refused otherwise.
                return match unreadable(&raw.0) {
                    None => map_result(server, tool, &raw.0, ctx),
                    Some(why) => Err(ToolError::new(format!(
                        "MCP server `{server}` answered `{tool}` with a result this client \
                         cannot read ({why}): {}",
                        preview(&raw.0)
                    ))),
                };
            }
            ServerResult::CreateTaskResult(created) => {
                let task = TaskTarget {
                    server,
                    tool,
                    peer: &target.peer,
                    closed: &target.closed,
                    timeout: target.timeout,
                    deadline: started + target.timeout,
                };
                return super::follow::follow_task(&task, created, ctx).await;
            }
            ServerResult::InputRequiredResult(asked) => {
                params.input_responses =
                    Some(super::answers::answer(server, tool, &asked, ctx).await?);
                // Echoed as received; absent when the server sent none.
                params.request_state = asked.request_state;
            }
            other => {
                return Err(ToolError::new(format!(
                    "MCP server `{server}` answered `{tool}` with something other than a tool result: {}",
                    serde_json::to_string(&other).unwrap_or_default()
                )));
            }
        }
    }
    Err(ToolError::new(format!(
        "MCP server `{server}` kept asking for input: `{tool}` had no result after {MAX_INPUT_ROUNDS} rounds of answers."
    )))
}

/// One `tools/call` request and its reply, with the call's cancellation, timeout and
/// connection loss mapped to the call's errors.
async fn call_round(
    target: &CallTarget<'_>,
    params: CallToolRequestParams,
    ctx: &ToolUseContext,
) -> Result<ServerResult, ToolError> {
    let CallTarget {
        server,
        tool,
        peer,
        closed,
        signals,
        timeout,
    } = target;
    let (server, tool, timeout) = (*server, *tool, *timeout);
    let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
    let mut handle = peer
        .send_cancellable_request(request, PeerRequestOptions::no_options())
        .await
        .map_err(|error| transport_error(server, tool, &error, signals))?;
    let token = handle.progress_token.clone();
    let route = signals.route(token, ctx.clone());
    // Until the call ends one way or another, dropping this future (a host that stops
    // polling a cancelled turn) still tells the server.
    let mut guard = CancelOnDrop {
        peer: Some(peer.clone()),
        id: handle.id.clone(),
    };
    enum Ended {
        Reply(Box<Result<Result<ServerResult, ServiceError>, ()>>),
        Aborted,
        TimedOut,
        Closed,
    }
    let ended = tokio::select! {
        biased;
        reply = &mut handle.rx => Ended::Reply(Box::new(reply.map_err(|_| ()))),
        () = ctx.abort().cancelled() => Ended::Aborted,
        () = closed.cancelled() => Ended::Closed,
        () = tokio::time::sleep(timeout) => Ended::TimedOut,
    };
    drop(route);
    if !matches!(ended, Ended::Aborted | Ended::TimedOut) {
        guard.peer = None;
    }
    let closed_message = || {
        ToolError::new(with_stderr(
            format!(
                "MCP server `{server}` closed its connection while `{tool}` was running; the call has no result."
            ),
            signals,
        ))
    };
    match ended {
        Ended::Reply(reply) => match *reply {
            Ok(Ok(result)) => Ok(result),
            Ok(Err(error)) => Err(transport_error(server, tool, &error, signals)),
            Err(()) => Err(closed_message()),
        },
        Ended::Closed => Err(closed_message()),
        Ended::Aborted => {
            guard.cancel_now(HOST_CANCEL_REASON).await;
            Err(ToolError::aborted(format!(
                "The call of `{tool}` on MCP server `{server}` was cancelled."
            )))
        }
        Ended::TimedOut => {
            guard.cancel_now(TIMEOUT_REASON).await;
            Err(ToolError::new(format!(
                "MCP tool `{tool}` on server `{server}` did not answer within {}; the call was cancelled. Raise the server's `timeout` (milliseconds) if it needs longer.",
                describe_duration(timeout)
            )))
        }
    }
}

/// Why `result` is not a `CallToolResult`, when it is not: another `resultType` (a
/// malformed `InputRequiredResult` or task), or neither `content` nor `structuredContent`.
fn unreadable(result: &Value) -> Option<String> {
    match result.get("resultType").and_then(Value::as_str) {
        Some("complete") | None => {}
        Some(other) => {
            return Some(format!(
                "a malformed `resultType: \"{other}\"` result, or one of a kind it does not know"
            ));
        }
    }
    let has_content = result.get("content").is_some_and(Value::is_array);
    (!has_content && result.get("structuredContent").is_none())
        .then(|| "no `content` array and no `structuredContent`".to_owned())
}

/// The first 300 characters of `value` as JSON, for an error message.
fn preview(value: &Value) -> String {
    let text = value.to_string();
    match text.char_indices().nth(300) {
        Some((cut, _)) => format!("{}...", &text[..cut]),
        None => text,
    }
}

fn describe_duration(duration: Duration) -> String {
    if duration.subsec_millis() == 0 {
        format!("{} s", duration.as_secs())
    } else {
        format!("{} ms", duration.as_millis())
    }
}

fn with_stderr(message: String, signals: &ServerSignals) -> String {
    match signals.stderr_tail() {
        Some(tail) => format!("{message} Its last stderr lines:\n{tail}"),
        None => message,
    }
}

fn transport_error(
    server: &str,
    tool: &str,
    error: &ServiceError,
    signals: &ServerSignals,
) -> ToolError {
    match error {
        ServiceError::McpError(data) => ToolError::new(format!(
            "MCP server `{server}` refused `{tool}`: {} (JSON-RPC error {})",
            data.message, data.code.0
        )),
        ServiceError::TransportClosed | ServiceError::TransportSend(_) => {
            ToolError::new(with_stderr(
                format!("MCP server `{server}` is not connected; `{tool}` was not run ({error})."),
                signals,
            ))
        }
        other => ToolError::new(format!(
            "MCP server `{server}` could not run `{tool}`: {other}"
        )),
    }
}
