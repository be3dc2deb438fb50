//! The schema-not-sent hint (SPEC §8.3): appended to the input-validation error of a deferred
//! tool whose schema the model never loaded.

use std::sync::Arc;

use serde_json::Value;
use tool_sdk::DynTool;

use super::config::ToolSearchConfig;
use super::deferral::{TOOL_SEARCH_NAME, is_deferred_tool};
use super::history::discovered_tool_names;
use crate::pool::find_tool_by_name;

/// The hint for `tool`, or `None` unless all hold (SPEC §8.3): the optimistic gate is on,
/// ToolSearch (by name or alias) is in `tools`, `tool` is deferred, and its name is not among
/// the tools discovered in `messages` (named in `tool_reference` blocks or kept across a compact).
///
/// The text starts with a blank line and has three sentences, the last asking for the query
/// `select:NAME`:
///
/// ```text
/// \n\nThe schema of this tool was not sent to the API: the tool is not among the tools discovered
/// in the message history. Without the schema in your prompt, typed parameters (arrays, numbers,
/// booleans) are emitted as strings and the client-side parser rejects them. Load the tool
/// first by calling ToolSearch with query "select:NAME", then retry this call.
/// ```
///
/// Orchestration appends it to the `InputValidationError:` text inside `<tool_use_error>`
/// (`messages::input_validation_error(details, hint)`).
pub fn schema_not_sent_hint(
    tool: &dyn DynTool,
    messages: &[Value],
    tools: &[Arc<dyn DynTool>],
    config: &ToolSearchConfig,
) -> Option<String> {
    if !config.is_enabled_optimistic()
        || find_tool_by_name(tools, TOOL_SEARCH_NAME).is_none()
        || !is_deferred_tool(tool, &config.deferral)
        || discovered_tool_names(messages).contains(tool.name())
    {
        return None;
    }
    Some(schema_not_sent_text(tool.name()))
}

/// The hint text for the tool `name` (see [`schema_not_sent_hint`]).
pub(crate) fn schema_not_sent_text(name: &str) -> String {
    format!(
        "\n\nThe schema of this tool was not sent to the API: the tool is not among the tools discovered in the message history. \
         Without the schema in your prompt, typed parameters (arrays, numbers, booleans) are emitted as strings and the client-side parser rejects them. \
         Load the tool first by calling ToolSearch with query \"select:{name}\", then retry this call."
    )
}
