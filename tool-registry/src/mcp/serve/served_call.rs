//! [`ServedCall`]: what a tool running under the MCP server can reach of the MCP request that
//! started it: log lines for `notifications/message`, MCP-only content blocks, the client's
//! capabilities, and questions to the client (elicitation, sampling, roots), which
//! `ServedElicitor` also answers [`ToolUseContext::elicit`](tool_sdk::ToolUseContext::elicit)
//! with.

// rmcp marks logging deprecated for MCP 2026-07-28 (SEP-2577); 2025-11-25 sessions have it.
#![allow(deprecated)]

use std::sync::{Arc, Mutex, OnceLock};

use futures::future::BoxFuture;
use rmcp::model::{
    ClientCapabilities, ContentBlock, ElicitRequest, ElicitRequestParams, ElicitResult,
    ElicitationAction, InputRequest, LoggingLevel, LoggingMessageNotificationParam,
};
use rmcp::service::{Peer, RequestContext, RoleServer};
use serde_json::Value;
use tool_sdk::elicitation::{Elicitation, ElicitationAnswer, Elicitor};
use tool_sdk::{DynTool, ToolError};

use super::asking::{Ask, Asking};

/// The MCP side of one `tools/call`, in the call's extensions while a [`super::McpServer`]
/// runs it: `ctx.get::<ServedCall>()` inside a tool returns it, and `None` when the tool runs
/// anywhere else, so a tool written for any host stays runnable everywhere.
///
/// ```no_run
/// # use tool_registry::mcp::serve::ServedCall;
/// # use rmcp::model::LoggingLevel;
/// # async fn demo(ctx: &tool_sdk::ToolUseContext) {
/// if let Some(served) = ctx.get::<ServedCall>() {
///     served.log(LoggingLevel::Info, "indexing started").await;
/// }
/// # }
/// ```
#[derive(Clone)]
pub struct ServedCall(Arc<Inner>);

impl std::fmt::Debug for ServedCall {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServedCall")
            .field("tool", &self.0.tool.name())
            .field("request_id", &self.0.request.id)
            .field("level", &self.0.level)
            .finish_non_exhaustive()
    }
}

/// One allocation per call, shared by the clones the call's extensions, its elicitor and its
/// answer hold.
struct Inner {
    /// The `tools/call` request's context: the client connection and the request's `_meta`
    /// (its log level and capabilities, read only when asked for); what the transport
    /// attached to it is cleared before it comes here.
    request: RequestContext<RoleServer>,
    level: LogLevel,
    content: Mutex<Option<Vec<ContentBlock>>>,
    /// The tool called: its name is the logger of the call's log lines.
    tool: Arc<dyn DynTool>,
    /// What the client declared (2026-07-28: in the request's `_meta`; 2025-11-25: in
    /// `initialize`); `None` when it declared nothing. Read from `request` when first asked.
    capabilities: OnceLock<Option<ClientCapabilities>>,
    /// The capabilities [`ServedCall::require`] found missing, as a JSON object.
    missing: Mutex<serde_json::Map<String, Value>>,
    /// The error [`ServedCall::fail`] set.
    failure: Mutex<Option<rmcp::ErrorData>>,
    /// How questions reach the client: over the session, as a round of an MCP 2026-07-28
    /// multi round-trip request, or as a task's `inputRequests`.
    asking: Arc<Asking>,
}

impl ServedCall {
    /// `capabilities`: the client's, when the caller has read them already.
    pub(crate) fn new(
        request: RequestContext<RoleServer>,
        level: LogLevel,
        tool: Arc<dyn DynTool>,
        capabilities: Option<Option<ClientCapabilities>>,
        asking: Arc<Asking>,
    ) -> Self {
        Self(Arc::new(Inner {
            request,
            level,
            content: Mutex::new(None),
            tool,
            capabilities: capabilities.map(OnceLock::from).unwrap_or_default(),
            missing: Mutex::default(),
            failure: Mutex::default(),
            asking,
        }))
    }

    /// Asks the client for input and returns its result as JSON: an elicitation
    /// (`ElicitResult`), a sampling request (`CreateMessageResult`) or a roots request
    /// (`ListRootsResult`). `id` names the question among the call's questions (the key of
    /// its MCP 2026-07-28 `inputRequests` entry; `None`: numbered in the order asked). In an MCP 2025-11-25 session it is a request to the client, sent
    /// now; for an MCP 2026-07-28 request, a question of a multi round-trip request (see the
    /// rules in the `input` module: the call ends with an `InputRequiredResult` and the tool
    /// runs again from the start with the answers: a new run and `tool_use_id`, so ask in the
    /// same order on every run and before any side effect). Checks first that the client
    /// declared the capability the request needs ([`ServedCall::require`]): when it did not,
    /// the call is answered with `MissingRequiredClientCapabilityError` whatever the tool
    /// returns, so a tool with a fallback checks [`ServedCall::client_capabilities`] first.
    ///
    /// # Errors
    /// A [`ToolError`] when the client lacks the capability, cannot take a request during
    /// this call (in a 2025-11-25 session, its HTTP request accepts only an
    /// `application/json` answer), or the request fails.
    pub async fn request_input(
        &self,
        id: Option<&str>,
        request: InputRequest,
    ) -> Result<Value, ToolError> {
        let needed = match &request {
            InputRequest::Elicitation(_) => {
                ClientCapabilities::builder().enable_elicitation().build()
            }
            InputRequest::CreateMessage(_) => {
                ClientCapabilities::builder().enable_sampling().build()
            }
            InputRequest::ListRoots(_) => ClientCapabilities::builder().enable_roots().build(),
            _ => ClientCapabilities::default(),
        };
        self.require(&needed)?;
        let id = id.map_or_else(|| self.0.asking.next_id(), str::to_owned);
        match self.0.asking.route(&id, request.clone()) {
            Ask::Answered(answer) => return Ok(answer),
            Ask::Recorded => return std::future::pending().await,
            Ask::Task(asker) => return asker.ask(id, request).await,
            Ask::Session => {}
            Ask::Unreachable => {
                return Err(ToolError::new(
                    "The MCP client cannot be asked anything during this call: its request \
                     takes only an application/json answer (its Accept header), and a request \
                     reaches it during a call only in a text/event-stream answer.",
                ));
            }
        }
        let failed = |error: rmcp::ServiceError| {
            ToolError::new(format!(
                "the MCP client did not answer the request: {error}"
            ))
        };
        let answer = match request {
            InputRequest::Elicitation(request) => serde_json::to_value(
                self.0
                    .request
                    .peer
                    .create_elicitation(request.params)
                    .await
                    .map_err(failed)?,
            ),
            InputRequest::CreateMessage(request) => serde_json::to_value(
                self.0
                    .request
                    .peer
                    .create_message(request.params)
                    .await
                    .map_err(failed)?,
            ),
            InputRequest::ListRoots(_) => {
                serde_json::to_value(self.0.request.peer.list_roots().await.map_err(failed)?)
            }
            _ => {
                return Err(ToolError::new(
                    "this kind of input request is not supported",
                ));
            }
        };
        answer
            .map_err(|error| ToolError::new(format!("the client's answer cannot be read: {error}")))
    }

    /// Makes the call a task now (see [`tasks`](super::tasks)) rather than when the grace
    /// ends, and returns whether it is one: `true` once the task is stored (the client is
    /// answered with it right after), `false` when the call cannot become one (the tool is not declared
    /// `#[tool(task = ...)]`, or the client does not follow tasks) and runs on in the request.
    /// Call it before asking questions that belong to the task (its `inputRequests`, answered
    /// with `tasks/update`) rather than to the request (MCP 2026-07-28 rounds).
    pub async fn start_task(&self) -> bool {
        self.0.asking.start_task().await
    }

    /// The capabilities the client declared: for an MCP 2026-07-28 request, its `_meta`
    /// `clientCapabilities`; for a 2025-11-25 session, `initialize`'s. `None` when it
    /// declared none.
    pub fn client_capabilities(&self) -> Option<&ClientCapabilities> {
        self.0
            .capabilities
            .get_or_init(|| self.0.request.client_capabilities())
            .as_ref()
    }

    /// Checks that the client declared every capability named in `required` (a top-level
    /// field set, such as `sampling` or `elicitation`), before the tool relies on one. When
    /// one is missing, the call is answered not with a `tool_result` but with MCP's
    /// `MissingRequiredClientCapabilityError` (`-32021`, HTTP 400, its
    /// `data.requiredCapabilities` naming what is missing; MCP 2026-07-28, SEP-2575), and this
    /// returns the error the tool should return with `?`, naming the capability.
    ///
    /// # Errors
    /// A [`ToolError`] naming the capabilities the client did not declare.
    pub fn require(&self, required: &ClientCapabilities) -> Result<(), ToolError> {
        let Ok(Value::Object(required)) = serde_json::to_value(required) else {
            return Ok(());
        };
        let declared = self
            .client_capabilities()
            .and_then(|declared| serde_json::to_value(declared).ok())
            .unwrap_or(Value::Null);
        let absent: Vec<(String, Value)> = required
            .into_iter()
            .filter(|(name, _)| declared.get(name).is_none_or(Value::is_null))
            .collect();
        if absent.is_empty() {
            return Ok(());
        }
        let names: Vec<String> = absent.iter().map(|(name, _)| format!("`{name}`")).collect();
        self.0
            .missing
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .extend(absent);
        Err(ToolError::new(format!(
            "The MCP client did not declare the {} capability this tool needs.",
            names.join(", ")
        )))
    }

    /// Answers the call with the JSON-RPC error `error` rather than with its `tool_result`:
    /// a failure of the protocol or the server, not of the tool's work (which is an error
    /// result, `isError: true`, that the model reads). A call run as a task ends `failed`
    /// with the error inlined (SEP-2663). The last call wins; [`ServedCall::require`]'s
    /// error wins over this one.
    pub fn fail(&self, error: rmcp::ErrorData) {
        *self.0.failure.lock().unwrap_or_else(|e| e.into_inner()) = Some(error);
    }

    /// The JSON-RPC error the call is answered with instead of its `tool_result`: the
    /// capabilities [`ServedCall::require`] found missing (`-32021`), or the error
    /// [`ServedCall::fail`] set; `None` when there is none.
    pub(crate) fn take_error(&self) -> Option<rmcp::ErrorData> {
        let missing =
            std::mem::take(&mut *self.0.missing.lock().unwrap_or_else(|e| e.into_inner()));
        if !missing.is_empty()
            && let Ok(missing) = serde_json::from_value(Value::Object(missing))
        {
            return Some(rmcp::ErrorData::missing_required_client_capability(missing));
        }
        self.0
            .failure
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
    }

    /// Sends `notifications/message` at `level` with `data` (a string or any JSON), the tool's
    /// name as the logger, when `level` is at or above the client's threshold: for an MCP
    /// 2025-11-25 session, the session's level (`logging/setLevel`; `info` until the client
    /// sets one, server/utilities/logging); for an MCP 2026-07-28 request, the `logLevel` in
    /// the request's `_meta`, and nothing at all when the request carries none (SEP-2575).
    /// Returns whether the line was sent (`false` when filtered out or the client is gone).
    pub async fn log(&self, level: LoggingLevel, data: impl Into<Value>) -> bool {
        let threshold = match &self.0.level {
            LogLevel::Session(level) => Some(*level.lock().unwrap_or_else(|e| e.into_inner())),
            LogLevel::Request => self.0.request.meta.log_level(),
        };
        let Some(threshold) = threshold else {
            return false;
        };
        if severity(level) < severity(threshold) {
            return false;
        }
        let params = LoggingMessageNotificationParam::new(level, data.into())
            .with_logger(self.0.tool.name());
        let sent = self.0.request.peer.notify_logging_message(params).await;
        sent.is_ok()
    }

    /// Answers the call with these MCP content blocks instead of the ones mapped from the
    /// tool's `tool_result` content: for blocks a Messages API `tool_result` cannot carry
    /// (audio, embedded resources, resource links). The tool's own result still decides
    /// success or failure, and is what every other host sees.
    pub fn set_content(&self, blocks: Vec<ContentBlock>) {
        *self.0.content.lock().unwrap_or_else(|e| e.into_inner()) = Some(blocks);
    }

    /// The client connection: for notifications, and in an MCP 2025-11-25 session for
    /// server-to-client requests (an MCP 2026-07-28 request has no channel for them: use
    /// [`ServedCall::request_input`], which works in both). A client whose HTTP request takes
    /// only an `application/json` answer sees neither: a request sent to it from the call's
    /// own task is declined on its behalf with `-32601`, and the call goes on to its answer;
    /// one sent from a task the call spawned goes to the session's standalone stream, which
    /// such a client may not hold open (the request then waits for its timeout).
    pub fn peer(&self) -> &Peer<RoleServer> {
        &self.0.request.peer
    }

    pub(crate) fn take_content(&self) -> Option<Vec<ContentBlock>> {
        self.0
            .content
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
    }
}

/// The [`Elicitor`] of a served call: [`ToolUseContext::elicit`](tool_sdk::ToolUseContext::elicit)
/// as an MCP elicitation in form mode, through [`ServedCall::request_input`]; declined
/// without asking when the client did not declare the `elicitation` capability (there is no
/// one to ask).
pub(crate) struct ServedElicitor(pub(crate) ServedCall);

impl Elicitor for ServedElicitor {
    fn elicit<'a>(
        &'a self,
        _tool_use_id: &'a str,
        request: Elicitation,
    ) -> BoxFuture<'a, Result<ElicitationAnswer, ToolError>> {
        Box::pin(async move {
            // The schema is checked first, so a tool learns of a bad one whoever it runs for.
            let checker = jsonschema::validator_for(&request.requested_schema).ok();
            let schema = serde_json::from_value(request.requested_schema).map_err(|error| {
                ToolError::new(format!(
                    "the elicitation's requested schema is not one MCP allows (an object of \
                     string, number, integer, boolean or enum properties): {error}"
                ))
            })?;
            let declared = self
                .0
                .client_capabilities()
                .is_some_and(|capabilities| capabilities.elicitation.is_some());
            if !declared {
                return Ok(ElicitationAnswer::Decline);
            }
            let params = ElicitRequestParams::FormElicitationParams {
                meta: None,
                message: request.message,
                requested_schema: schema,
            };
            let answer = self
                .0
                .request_input(
                    request.id.as_deref(),
                    InputRequest::Elicitation(ElicitRequest::new(params)),
                )
                .await?;
            let result: ElicitResult = serde_json::from_value(answer).map_err(|error| {
                ToolError::new(format!(
                    "the client's elicitation answer cannot be read: {error}"
                ))
            })?;
            Ok(match result.action {
                ElicitationAction::Accept => {
                    let content = match result.content {
                        Some(Value::Object(content)) => content,
                        Some(_) | None => serde_json::Map::new(),
                    };
                    // What the tool gets is what it asked for: an accepted answer that does
                    // not match the requested schema is the client's error, not an answer.
                    let content = Value::Object(content);
                    if let Some(problem) = checker.as_ref().and_then(|checker| {
                        checker
                            .iter_errors(&content)
                            .next()
                            .map(|error| error.to_string())
                    }) {
                        return Err(ToolError::new(format!(
                            "the MCP client accepted the question but its answer does not \
                             match the requested schema: {problem}"
                        )));
                    }
                    let Value::Object(content) = content else {
                        unreachable!("built as an object above")
                    };
                    ElicitationAnswer::Accept(content)
                }
                ElicitationAction::Decline => ElicitationAnswer::Decline,
                _ => ElicitationAnswer::Cancel,
            })
        })
    }
}

/// Where a call's logging threshold comes from.
#[derive(Debug, Clone)]
pub(crate) enum LogLevel {
    /// The session's `logging/setLevel` level (MCP 2025-11-25).
    Session(Arc<Mutex<LoggingLevel>>),
    /// The request's `_meta` `logLevel`; none there: the client asked for no log lines (MCP
    /// 2026-07-28).
    Request,
}

/// The rank of `level` in syslog order (RFC 5424, as MCP uses): `debug` lowest.
pub(crate) fn severity(level: LoggingLevel) -> u8 {
    match level {
        LoggingLevel::Debug => 0,
        LoggingLevel::Info => 1,
        LoggingLevel::Notice => 2,
        LoggingLevel::Warning => 3,
        LoggingLevel::Error => 4,
        LoggingLevel::Critical => 5,
        LoggingLevel::Alert => 6,
        LoggingLevel::Emergency => 7,
    }
}
