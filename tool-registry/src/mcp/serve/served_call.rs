//! [`ServedCall`]: what a tool running under the MCP server can reach of the MCP request that
//! started it: log lines for `notifications/message`, MCP-only content blocks, and the client
//! connection (for sampling and elicitation).

// rmcp marks logging deprecated for its next protocol revision (SEP-2577); MCP 2025-11-25,
// which this server speaks, has it.
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
    level: Arc<Mutex<LoggingLevel>>,
    content: Arc<Mutex<Option<Vec<ContentBlock>>>>,
    logger: String,
}

impl ServedCall {
    pub(crate) fn new(peer: Peer<RoleServer>, level: Arc<Mutex<LoggingLevel>>, tool: &str) -> Self {
        Self {
            peer,
            level,
            content: Arc::new(Mutex::new(None)),
            logger: tool.to_owned(),
        }
    }

    /// Sends `notifications/message` at `level` with `data` (a string or any JSON), the tool's
    /// name as the logger, when `level` is at or above the session's level (`logging/setLevel`;
    /// `info` until the client sets one, MCP 2025-11-25 server/utilities/logging). Returns
    /// whether the line was sent (`false` when filtered out or the client is gone).
    pub async fn log(&self, level: LoggingLevel, data: impl Into<Value>) -> bool {
        let threshold = *self.level.lock().unwrap_or_else(|e| e.into_inner());
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
