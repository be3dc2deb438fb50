//! [`DynamicTool`]s made from an MCP server's `tools/list` result (SPEC §10).

use std::borrow::Cow;
use std::sync::Arc;

use serde_json::Value;
use tool_sdk::input::InputValidator;
use tool_sdk::{DynTool, MaxResultSize, McpInfo, PermissionResult, ToolMeta};

use super::call::{CallFacts, ToolHandler};
use super::definition::{DynamicTool, declared};
use super::import::{NormalizedTool, SkippedEntry, normalize_tools};

/// Chars of an MCP tool's description kept in its prompt (SPEC §10).
pub(crate) const MCP_DESCRIPTION_MAX_CHARS: usize = 2048;

/// What is appended to a description cut at [`MCP_DESCRIPTION_MAX_CHARS`].
pub(crate) const MCP_TRUNCATION_SUFFIX: &str = "… [truncated]";

/// The result-size limit every MCP tool has (SPEC §1.3).
pub(crate) const MCP_MAX_RESULT_SIZE_CHARS: usize = 100_000;

/// The prompt of an MCP tool: the description, cut to 2048 chars plus `"… [truncated]"` when
/// longer (SPEC §10).
pub(crate) fn mcp_prompt(description: &str) -> String {
    match description.char_indices().nth(MCP_DESCRIPTION_MAX_CHARS) {
        Some((cut, _)) => format!("{}{MCP_TRUNCATION_SUFFIX}", &description[..cut]),
        None => description.to_owned(),
    }
}

/// The search hint from `_meta["anthropic/searchHint"]`: whitespace runs collapsed to one
/// space, trimmed; `None` when absent, not a string, or empty (SPEC §10).
pub(crate) fn mcp_search_hint(meta: Option<&Value>) -> Option<String> {
    let hint = meta?.get("anthropic/searchHint")?.as_str()?;
    let collapsed = hint.split_whitespace().collect::<Vec<_>>().join(" ");
    (!collapsed.is_empty()).then_some(collapsed)
}

/// How MCP tools are named and run.
#[derive(Debug, Clone, Default)]
pub struct McpImportOptions {
    /// Use the tool's own name instead of `mcp__SERVER__TOOL` (the reference's no-prefix mode
    /// for SDK servers). An entry whose name is then not a valid tool name is skipped.
    pub no_prefix: bool,
    /// Runs the calls; `None` answers every call with an error saying the server is not
    /// connected.
    pub handler: Option<ToolHandler>,
}

/// Why a `tools/list` result cannot be imported at all: it has no `tools` array. (A bad entry
/// is not this: it is skipped, see [`ImportedTools::skipped`].)
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "MCP server `{server}`: expected a `tools/list` result: `{{\"tools\":[...]}}` or `{{\"result\":{{\"tools\":[...]}}}}`"
)]
pub struct McpImportError {
    /// The server.
    pub server: String,
}

/// The tools of one server's `tools/list`, and the entries skipped on the way.
#[derive(Debug, Clone, Default)]
pub struct ImportedTools {
    /// The tools, in the server's order: [`DynamicTool`]s named `mcp__SERVER__TOOL`.
    pub tools: Vec<Arc<dyn DynTool>>,
    /// Entries skipped as malformed or repeated, each naming the server, the index and the
    /// field (also logged with `tracing::warn!`).
    pub skipped: Vec<SkippedEntry>,
}

/// What an MCP tool's `check_permissions` says: no opinion, ask unless a rule decides (our
/// wording of the reference's "MCPTool requires permission.").
pub(crate) const MCP_PERMISSION_MESSAGE: &str = "MCP tools need permission before they run.";

/// The error text of a call to a tool whose server is not connected.
pub(crate) fn not_connected_message(server: &str, tool: &str) -> String {
    format!("Cannot call `{tool}`: MCP server `{server}` is not connected.")
}

impl DynamicTool {
    /// A tool of an MCP server (SPEC §10) from its normalised `tools/list` entry: exported
    /// under `tool.exported_name`, `is_mcp`, raw names in `mcp_info`, flags from annotations
    /// (`readOnlyHint` gives both read-only and concurrency-safe), the description cut at 2048
    /// chars as its prompt, and `check_permissions` answering `Passthrough` so the general
    /// rules decide.
    pub(crate) fn from_mcp(server: &str, tool: NormalizedTool, handler: ToolHandler) -> Self {
        let NormalizedTool {
            description,
            exported_name,
        } = tool;
        // The normaliser gave absent hints the MCP specification's defaults.
        let annotations = description.annotations.clone().unwrap_or_default();
        let read_only = annotations.read_only_hint.unwrap_or(false);
        let mut meta = ToolMeta::new(
            exported_name,
            MaxResultSize::Chars(MCP_MAX_RESULT_SIZE_CHARS),
        );
        meta.is_mcp = true;
        meta.mcp_info = Some(McpInfo {
            server_name: server.to_owned(),
            tool_name: description.name.clone(),
        });
        meta.read_only = declared(annotations.read_only_hint);
        meta.concurrency_safe = declared(annotations.read_only_hint);
        meta.destructive = declared(annotations.destructive_hint);
        meta.open_world = declared(annotations.open_world_hint);
        meta.idempotent = declared(annotations.idempotent_hint);
        meta.title = description
            .title
            .clone()
            .or_else(|| annotations.title.clone())
            .map(Cow::Owned);
        meta.search_hint = mcp_search_hint(description.meta.as_ref()).map(Cow::Owned);
        meta.always_load = description
            .meta
            .as_ref()
            .and_then(|meta| meta.get("anthropic/alwaysLoad"))
            == Some(&Value::Bool(true));
        let raw_description = description.description.clone().unwrap_or_default();
        let shown_title = annotations
            .title
            .clone()
            .unwrap_or_else(|| description.name.clone());
        let facts = CallFacts {
            read_only,
            concurrency_safe: read_only,
            destructive: annotations.destructive_hint.unwrap_or(true),
            open_world: annotations.open_world_hint.unwrap_or(true),
            user_facing_name: Arc::from(format!("{server} - {shown_title} (MCP)")),
            description: Arc::from(raw_description.as_str()),
            permission: PermissionResult::Passthrough {
                message: MCP_PERMISSION_MESSAGE.to_owned(),
            },
        };
        Self {
            meta,
            prompt: mcp_prompt(&raw_description),
            output_schema: description.output_schema,
            validator: InputValidator::imported(description.input_schema),
            facts: Arc::new(facts),
            handler,
        }
    }
}

/// The one way `tools/list` entries become tools: every entry through the import normaliser
/// ([`super::import`]), then each kept entry a [`DynamicTool`] whose calls `handler_for` (given
/// the raw tool name) answers. Recorded lists and live servers both come here.
pub(crate) fn import_entries(
    server: &str,
    entries: &[Value],
    no_prefix: bool,
    mut handler_for: impl FnMut(&str) -> ToolHandler,
) -> ImportedTools {
    let list = normalize_tools(server, entries, no_prefix);
    let tools = list
        .tools
        .into_iter()
        .map(|tool| {
            let handler = handler_for(&tool.description.name);
            Arc::new(DynamicTool::from_mcp(server, tool, handler)) as Arc<dyn DynTool>
        })
        .collect();
    ImportedTools {
        tools,
        skipped: list.skipped,
    }
}

/// The tools of `server` from its `tools/list` reply: either the `result` object
/// (`{"tools":[...]}`) or the whole JSON-RPC response (`{"result":{"tools":[...]}}`), read by
/// the same normaliser as a live server's list, so a recorded list gives the pool the live
/// import would.
///
/// Tools of the reference's IDE server that it drops are dropped here too (SPEC §10). The
/// list keeps the server's order. A malformed entry (`null`, no string `name`, an
/// `inputSchema` that is not an object) or one repeating an earlier name is skipped and
/// listed in [`ImportedTools::skipped`]; names equal after cleaning get a stable suffix; a
/// root `$ref` schema is resolved.
///
/// ```
/// use tool_registry::dynamic::{McpImportOptions, mcp_tools_from_list};
/// let list = serde_json::json!({"tools": [
///     {"name": "get_me", "inputSchema": {"type": "object"}},
///     null,
/// ]});
/// let imported = mcp_tools_from_list("github", &list, &McpImportOptions::default()).unwrap();
/// assert_eq!(imported.tools[0].name(), "mcp__github__get_me");
/// assert_eq!(imported.skipped[0].to_string(), "MCP server `github`, tool #1: skipped: the entry is null, not a tool object");
/// ```
///
/// # Errors
/// [`McpImportError`] when there is no `tools` array.
pub fn mcp_tools_from_list(
    server: &str,
    list: &Value,
    options: &McpImportOptions,
) -> Result<ImportedTools, McpImportError> {
    let entries = list
        .get("tools")
        .or_else(|| list.get("result").and_then(|result| result.get("tools")))
        .and_then(Value::as_array)
        .ok_or_else(|| McpImportError {
            server: server.to_owned(),
        })?;
    Ok(import_entries(server, entries, options.no_prefix, |raw| {
        options
            .handler
            .clone()
            .unwrap_or_else(|| ToolHandler::failing(not_connected_message(server, raw)))
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_description_is_cut_at_2048_chars() {
        assert_eq!(mcp_prompt("short"), "short");
        let long = "x".repeat(2049);
        assert_eq!(
            mcp_prompt(&long),
            format!("{}… [truncated]", "x".repeat(2048))
        );
        assert_eq!(mcp_prompt(&"é".repeat(2048)), "é".repeat(2048));
    }
}
