//! [`ServedCall`]: what a tool running under the MCP server can reach of the MCP request that
//! started it: log lines for `notifications/message`, MCP-only content blocks, and the client
//! connection (for sampling and elicitation).

// rmcp marks logging deprecated for MCP 2026-07-28 (SEP-2577); 2025-11-25 sessions have it.
#![allow(deprecated)]

use std::sync::{Arc, Mutex};

use rmcp::model::{ContentBlock, LoggingLevel, LoggingMessageNotificationParam};
use rmcp::service::{Peer, RoleServer};
use serde_json::Value;

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
#[derive(Debug, Clone)]
pub struct ServedCall {
    peer: Peer<RoleServer>,
    level: LogLevel,
    content: Arc<Mutex<Option<Vec<ContentBlock>>>>,
    logger: String,
}

impl ServedCall {
    pub(crate) fn new(peer: Peer<RoleServer>, level: LogLevel, tool: &str) -> Self {
        Self {
            peer,
            level,
            content: Arc::new(Mutex::new(None)),
            logger: tool.to_owned(),
        }
    }

    /// Sends `notifications/message` at `level` with `data` (a string or any JSON), the tool's
    /// name as the logger, when `level` is at or above the client's threshold: for an MCP
    /// 2025-11-25 session, the session's level (`logging/setLevel`; `info` until the client
    /// sets one, server/utilities/logging); for an MCP 2026-07-28 request, the `logLevel` in
    /// the request's `_meta`, and nothing at all when the request carries none (SEP-2575).
    /// Returns whether the line was sent (`false` when filtered out or the client is gone).
    pub async fn log(&self, level: LoggingLevel, data: impl Into<Value>) -> bool {
        let threshold = match &self.level {
            LogLevel::Session(level) => Some(*level.lock().unwrap_or_else(|e| e.into_inner())),
            LogLevel::Request(level) => *level,
        };
        let Some(threshold) = threshold else {
            return false;
        };
        if severity(level) < severity(threshold) {
            return false;
        }
        let params =
            LoggingMessageNotificationParam::new(level, data.into()).with_logger(&self.logger);
        let sent = self.peer.notify_logging_message(params).await;
        sent.is_ok()
    }

    /// Answers the call with these MCP content blocks instead of the ones mapped from the
    /// tool's `tool_result` content: for blocks a Messages API `tool_result` cannot carry
    /// (audio, embedded resources, resource links). The tool's own result still decides
    /// success or failure, and is what every other host sees.
    pub fn set_content(&self, blocks: Vec<ContentBlock>) {
        *self.content.lock().unwrap_or_else(|e| e.into_inner()) = Some(blocks);
    }

    /// The client connection: for server-to-client requests such as `sampling/createMessage`
    /// and `elicitation/create`, and the client's declared capabilities.
    pub fn peer(&self) -> &Peer<RoleServer> {
        &self.peer
    }

    pub(crate) fn take_content(&self) -> Option<Vec<ContentBlock>> {
        self.content
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
    }
}

/// Where a call's logging threshold comes from.
#[derive(Debug, Clone)]
pub(crate) enum LogLevel {
    /// The session's `logging/setLevel` level (MCP 2025-11-25).
    Session(Arc<Mutex<LoggingLevel>>),
    /// The request's `_meta` `logLevel`; `None`: the client asked for no log lines (MCP
    /// 2026-07-28).
    Request(Option<LoggingLevel>),
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
