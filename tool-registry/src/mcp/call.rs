//! `tools/call` through rmcp (MCP 2025-11-25 "Calling Tools"): the arguments forwarded as
//! JSON, a per-server timeout, host cancellation sent as `notifications/cancelled`, progress
//! routed to the calling context, and the result mapped to Anthropic `tool_result` content.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CancelledNotification, CancelledNotificationParam,
    ClientNotification, ClientRequest, RequestId, ServerResult,
};
use rmcp::service::PeerRequestOptions;
use rmcp::{Peer, RoleClient, ServiceError};
use serde_json::Value;
use tool_sdk::{CancellationToken, ResultBlock, ToolError, ToolResultContent, ToolUseContext};

use super::client::ServerSignals;

/// The `structuredContent` of MCP results, by `tool_use` id, for hosts that want it.
///
/// A host that inserts one into the turn's extensions (`Extensions::insert`) finds the
/// structured content of every MCP call of that turn here; the model still sees the content
/// blocks. Entries stay until taken.
#[derive(Debug, Default)]
pub struct StructuredContentStore {
    entries: Mutex<HashMap<String, Value>>,
}

impl StructuredContentStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// Removes and returns the structured content of the call `tool_use_id`.
    pub fn take(&self, tool_use_id: &str) -> Option<Value> {
        self.lock().remove(tool_use_id)
    }

    /// How many results are held.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// `true` when no result is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Value>> {
        self.entries.lock().unwrap_or_else(|e| e.into_inner())
    }
}

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
/// ([`super::follow`]), within the timeout from then.
pub(crate) async fn call_tool(
    target: CallTarget<'_>,
    input: Value,
    ctx: ToolUseContext,
) -> Result<ToolResultContent, ToolError> {
    let (server, tool) = (target.server, target.tool);
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
    for _ in 0..=MAX_INPUT_ROUNDS {
        match call_round(&target, params.clone(), &ctx).await? {
            ServerResult::CallToolResult(result) => {
                let raw = serde_json::to_value(&result).unwrap_or(Value::Null);
                return map_result(server, tool, &raw, &ctx);
            }
            ServerResult::CustomResult(raw) => return map_result(server, tool, &raw.0, &ctx),
            ServerResult::CreateTaskResult(created) => {
                let deadline = tokio::time::Instant::now() + target.timeout;
                return super::follow::follow_task(&target, created, deadline, &ctx).await;
            }
            ServerResult::InputRequiredResult(asked) => {
                params.input_responses =
                    Some(super::answers::answer(server, tool, &asked, &ctx).await?);
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

/// Maps a `CallToolResult` (as JSON) to `tool_result` content; `isError: true` becomes an
/// error with the server's text. `structuredContent` goes to the context's
/// [`StructuredContentStore`] when the host set one, and becomes the text when the server
/// sent no content blocks.
pub(crate) fn map_result(
    server: &str,
    tool: &str,
    result: &Value,
    ctx: &ToolUseContext,
) -> Result<ToolResultContent, ToolError> {
    let structured = result.get("structuredContent").cloned();
    let mut blocks: Vec<ResultBlock> = result
        .get("content")
        .and_then(Value::as_array)
        .map(|content| content.iter().map(map_block).collect())
        .unwrap_or_default();
    if blocks.is_empty()
        && let Some(structured) = &structured
    {
        blocks.push(ResultBlock::Text {
            text: structured.to_string(),
        });
    }
    if let Some(structured) = structured
        && let Some(store) = ctx.get::<StructuredContentStore>()
    {
        store
            .lock()
            .insert(ctx.tool_use_id().to_owned(), structured);
    }
    if result.get("isError") == Some(&Value::Bool(true)) {
        let text = ToolResultContent::Blocks(blocks).text();
        return Err(ToolError::new(if text.is_empty() {
            format!("MCP tool `{tool}` on server `{server}` reported an error without text.")
        } else {
            text
        }));
    }
    Ok(match blocks.as_slice() {
        [ResultBlock::Text { text }] => ToolResultContent::Text(text.clone()),
        [] => ToolResultContent::Text(String::new()),
        _ => ToolResultContent::Blocks(blocks),
    })
}

/// One MCP content block as an Anthropic block: text and images as they are, audio as a note
/// (the Messages API has no audio block), resource links and embedded resources as text.
pub(crate) fn map_block(block: &Value) -> ResultBlock {
    let text_of = |key: &str| block.get(key).and_then(Value::as_str).unwrap_or("");
    let text = match text_of("type") {
        "text" => text_of("text").to_owned(),
        "image" => {
            return ResultBlock::Image {
                source: serde_json::json!({
                    "type": "base64",
                    "media_type": text_of("mimeType"),
                    "data": text_of("data"),
                }),
            };
        }
        "audio" => format!(
            "[audio content ({}, {} bytes of base64) not shown: the model cannot receive audio]",
            text_of("mimeType"),
            text_of("data").len()
        ),
        "resource_link" => {
            let mut line = format!("[resource link: {} <{}>", text_of("name"), text_of("uri"));
            if let Some(mime) = block.get("mimeType").and_then(Value::as_str) {
                line.push_str(&format!(" ({mime})"));
            }
            line.push(']');
            if let Some(description) = block.get("description").and_then(Value::as_str) {
                line.push_str(&format!(" {description}"));
            }
            line
        }
        "resource" => {
            let resource = block.get("resource").cloned().unwrap_or(Value::Null);
            let field = |key: &str| resource.get(key).and_then(Value::as_str);
            let uri = field("uri").unwrap_or("");
            match (field("text"), field("blob")) {
                (Some(text), _) => format!("[resource <{uri}>]\n{text}"),
                (None, Some(blob)) => format!(
                    "[resource <{uri}> ({}, {} bytes of base64) not shown]",
                    field("mimeType").unwrap_or("binary"),
                    blob.len()
                ),
                (None, None) => format!("[resource <{uri}>]"),
            }
        }
        other => format!("[MCP content of type `{other}`: {block}]"),
    };
    ResultBlock::Text { text }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn blocks_map_to_anthropic_shapes() {
        let image = map_block(&json!({"type": "image", "data": "AAA", "mimeType": "image/png"}));
        assert_eq!(
            image,
            ResultBlock::Image {
                source: json!({"type": "base64", "media_type": "image/png", "data": "AAA"})
            }
        );
        let ResultBlock::Text { text } =
            map_block(&json!({"type": "audio", "data": "AAAA", "mimeType": "audio/wav"}))
        else {
            panic!("audio is a note");
        };
        assert!(text.contains("audio/wav"), "{text}");
        let ResultBlock::Text { text } = map_block(
            &json!({"type": "resource", "resource": {"uri": "file:///a", "text": "hello"}}),
        ) else {
            panic!("resource is text");
        };
        assert_eq!(text, "[resource <file:///a>]\nhello");
    }

    #[test]
    fn is_error_keeps_the_server_text() {
        let ctx = ToolUseContext::detached("toolu_1");
        let error = map_result(
            "s",
            "t",
            &json!({"isError": true, "content": [{"type": "text", "text": "boom"}]}),
            &ctx,
        )
        .unwrap_err();
        assert_eq!(error.to_string(), "boom");
    }
}
