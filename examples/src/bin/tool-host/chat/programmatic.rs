//! `tool-host chat --programmatic`: Anthropic's programmatic tool calling, where code the
//! model runs in Anthropic's code execution sandbox calls the tools that allow it
//! (`tool_sdk::callers`). The request side (the code execution tool, the container) is in
//! `conversation`; this checks the options and says which calls code made.

use std::sync::Arc;

use tool_registry::providers::ModelApi;
use tool_registry::providers::stream::StreamedResponse;
use tool_sdk::DynTool;

use super::conversation::Conversation;
use crate::progress::Progress;

/// Refuses `--programmatic` for a provider without it, and warns when no tool of `tools`
/// allows calls from code, or when `--allow-programmatic` (`allowed`) is given without
/// `--programmatic` (the definitions then name code execution, which the request does not
/// send).
///
/// # Errors
/// `--programmatic` with a provider other than Anthropic.
pub fn check(
    on: bool,
    allowed: &[String],
    provider: ModelApi,
    tools: &[Arc<dyn DynTool>],
) -> Result<(), String> {
    if !on {
        if !allowed.is_empty() {
            eprintln!(
                "tool-host: warning: --allow-programmatic without --programmatic: the code \
                 execution tool is not sent, so no code can call {}",
                allowed.join(", ")
            );
        }
        return Ok(());
    }
    if provider != ModelApi::Anthropic {
        return Err("--programmatic is Anthropic's programmatic tool calling (code execution calling tools); use it with --provider anthropic".into());
    }
    if !tools
        .iter()
        .any(|tool| tool.meta().callers.allows_programmatic())
    {
        eprintln!(
            "tool-host: warning: --programmatic: no tool allows calls from code; name some with --allow-programmatic"
        );
    }
    Ok(())
}

/// After a response: says on stderr each call that code made, and keeps the response's code
/// container for the next request.
pub fn after_response(
    progress: &Progress,
    conversation: &mut Conversation,
    read: &StreamedResponse,
) {
    for call in read
        .calls
        .calls
        .iter()
        .filter(|call| call.caller.is_programmatic())
    {
        progress.println(&format!(
            "tool-host: {} ({}) was called by {}",
            call.name, call.id, call.caller
        ));
    }
    conversation.keep_container(read.container.clone(), read.container_expires_at.clone());
}
