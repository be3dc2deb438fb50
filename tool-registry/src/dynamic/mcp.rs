//! Tools described by an MCP server's `tools/list` result (SPEC §10).

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;

use serde::Deserialize;
use serde_json::Value;
use tool_sdk::{DynTool, InputError, MaxResultSize, McpInfo, PermissionResult, ToolCall, ToolMeta};

use super::call::{CallFacts, JsonCall, ToolHandler};
use super::definition::{ToolAnnotations, declared};
use crate::mcp_names::{exported_mcp_tool_name, is_filtered_ide_tool};
use tool_sdk::input::InputValidator;

/// Chars of an MCP tool's description kept in its prompt (SPEC §10).
pub const MCP_DESCRIPTION_MAX_CHARS: usize = 2048;

/// What is appended to a description cut at [`MCP_DESCRIPTION_MAX_CHARS`].
pub const MCP_TRUNCATION_SUFFIX: &str = "… [truncated]";

/// The result-size limit every MCP tool has (SPEC §1.3).
pub const MCP_MAX_RESULT_SIZE_CHARS: usize = 100_000;

/// The prompt of an MCP tool: the description, cut to 2048 chars plus `"… [truncated]"` when
/// longer (SPEC §10).
///
/// ```
/// use tool_registry::dynamic::mcp_prompt;
/// assert_eq!(mcp_prompt("short"), "short");
/// let long = "x".repeat(2049);
/// assert_eq!(mcp_prompt(&long), format!("{}… [truncated]", "x".repeat(2048)));
/// ```
pub fn mcp_prompt(description: &str) -> String {
    match description.char_indices().nth(MCP_DESCRIPTION_MAX_CHARS) {
        Some((cut, _)) => format!("{}{MCP_TRUNCATION_SUFFIX}", &description[..cut]),
        None => description.to_owned(),
    }
}

/// The search hint from `_meta["anthropic/searchHint"]`: whitespace runs collapsed to one
/// space, trimmed; `None` when absent, not a string, or empty (SPEC §10).
pub fn mcp_search_hint(meta: Option<&Value>) -> Option<String> {
    let hint = meta?.get("anthropic/searchHint")?.as_str()?;
    let collapsed = hint.split_whitespace().collect::<Vec<_>>().join(" ");
    (!collapsed.is_empty()).then_some(collapsed)
}

/// Fills absent hints with the MCP specification's defaults (MCP 2025-11-25,
/// `ToolAnnotations`): `readOnlyHint` false,
/// `destructiveHint` true, `idempotentHint` false, `openWorldHint` true. For a read-only tool,
/// where the spec gives the two write hints no meaning, the values that hold for it are taken
/// instead (not destructive, idempotent), as the MCP export reads undeclared native flags.
pub fn with_spec_defaults(mut annotations: ToolAnnotations) -> ToolAnnotations {
    let read_only = annotations.read_only_hint.unwrap_or(false);
    annotations.read_only_hint = Some(read_only);
    annotations.destructive_hint = Some(annotations.destructive_hint.unwrap_or(!read_only));
    annotations.idempotent_hint = Some(annotations.idempotent_hint.unwrap_or(read_only));
    annotations.open_world_hint = Some(annotations.open_world_hint.unwrap_or(true));
    annotations
}

/// One entry of a `tools/list` result, as MCP defines it (the fields tool-sdk reads).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct McpToolDescription {
    /// The tool's name on its server.
    pub name: String,
    /// A display name.
    #[serde(default)]
    pub title: Option<String>,
    /// What the tool does.
    #[serde(default)]
    pub description: Option<String>,
    /// The input JSON Schema.
    pub input_schema: Value,
    /// The output JSON Schema, if any.
    #[serde(default)]
    pub output_schema: Option<Value>,
    /// Behaviour hints.
    #[serde(default)]
    pub annotations: Option<ToolAnnotations>,
    /// Extra data; `anthropic/searchHint` and `anthropic/alwaysLoad` are read.
    #[serde(default, rename = "_meta")]
    pub meta: Option<Value>,
}

/// How MCP tools are named and run.
#[derive(Debug, Clone, Default)]
pub struct McpImportOptions {
    /// Use the tool's own name instead of `mcp__SERVER__TOOL` (the reference's no-prefix mode
    /// for SDK servers). Names must then already be valid tool names.
    pub no_prefix: bool,
    /// Runs the calls; `None` answers every call with an error saying the server is not
    /// connected.
    pub handler: Option<ToolHandler>,
}

/// Why a `tools/list` result cannot be imported. Messages name the server, the tool and the
/// field.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum McpImportError {
    /// The JSON is not a `tools/list` result.
    #[error("MCP server `{server}`: {message}")]
    Shape {
        /// The server.
        server: String,
        /// What is missing.
        message: String,
    },
    /// One tool entry is malformed.
    #[error("MCP server `{server}`, tool #{index}: {message}")]
    Tool {
        /// The server.
        server: String,
        /// Position in `tools`.
        index: usize,
        /// The parser's message (names the field).
        message: String,
    },
    /// Two tools would be exported under one name; neither is dropped silently.
    #[error(
        "MCP tools `{first_server}`/`{first_tool}` and `{second_server}`/`{second_tool}` would both be named `{name}`; rename one on its server or connect the servers under different names"
    )]
    NameCollision {
        /// The shared exported name.
        name: String,
        /// The first tool's server (raw).
        first_server: String,
        /// The first tool's raw name.
        first_tool: String,
        /// The second tool's server (raw).
        second_server: String,
        /// The second tool's raw name.
        second_tool: String,
    },
}

/// A tool of an MCP server (SPEC §10): named `mcp__SERVER__TOOL` (shortened past 64 chars),
/// `is_mcp`, raw names in `mcp_info`, flags from annotations (`readOnlyHint` gives both
/// read-only and concurrency-safe), the description cut at 2048 chars as its prompt, and
/// `check_permissions` answering `Passthrough` so the general rules decide.
#[derive(Debug)]
pub struct McpTool {
    meta: ToolMeta,
    prompt: String,
    output_schema: Option<Value>,
    validator: InputValidator,
    facts: Arc<CallFacts>,
    handler: ToolHandler,
}

/// What an MCP tool's `check_permissions` says: no opinion, ask unless a rule decides (our
/// wording of the reference's "MCPTool requires permission.").
pub const MCP_PERMISSION_MESSAGE: &str = "MCP tools need permission before they run.";

/// The error text of a call to a tool whose server is not connected.
pub fn not_connected_message(server: &str, tool: &str) -> String {
    format!("Cannot call `{tool}`: MCP server `{server}` is not connected.")
}

impl McpTool {
    /// The tool `description` of `server`.
    pub fn new(server: &str, description: McpToolDescription, options: &McpImportOptions) -> Self {
        let name = if options.no_prefix {
            description.name.clone()
        } else {
            exported_mcp_tool_name(server, &description.name)
        };
        // Absent hints read as the MCP specification says, for live and recorded lists alike.
        let annotations = with_spec_defaults(description.annotations.clone().unwrap_or_default());
        let read_only = annotations.read_only_hint.unwrap_or(false);
        let mut meta = ToolMeta::new(name, MaxResultSize::Chars(MCP_MAX_RESULT_SIZE_CHARS));
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
        let handler = options.handler.clone().unwrap_or_else(|| {
            ToolHandler::failing(not_connected_message(server, &description.name))
        });
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

impl McpTool {
    /// The same tool exported under `name`, for an import that had to tell apart two tool
    /// names equal after cleaning. Calls still use the raw names in `mcp_info`.
    #[must_use]
    pub fn with_exported_name(mut self, name: String) -> Self {
        self.meta.name = Cow::Owned(name);
        self
    }
}

impl DynTool for McpTool {
    fn meta(&self) -> &ToolMeta {
        &self.meta
    }

    fn prompt(&self) -> Cow<'_, str> {
        Cow::Borrowed(&self.prompt)
    }

    fn input_schema(&self) -> &Value {
        self.validator.schema()
    }

    fn output_schema(&self) -> Option<&Value> {
        self.output_schema.as_ref()
    }

    fn has_json_schema(&self) -> bool {
        true
    }

    fn parse_input(&self, input: Value) -> Result<Box<dyn ToolCall>, InputError> {
        let input = self.validator.validate(input)?;
        Ok(Box::new(JsonCall {
            input,
            facts: Arc::clone(&self.facts),
            handler: self.handler.clone(),
        }))
    }
}

/// The tools of `server` from its `tools/list` reply: either the `result` object
/// (`{"tools":[...]}`) or the whole JSON-RPC response (`{"result":{"tools":[...]}}`).
///
/// Tools of the reference's IDE server that it drops are dropped here too (SPEC §10). The
/// list keeps the server's order.
///
/// # Errors
/// [`McpImportError::Shape`] when there is no `tools` array, [`McpImportError::Tool`] for a
/// malformed entry (no `name` or `inputSchema`), [`McpImportError::NameCollision`] when two
/// tools would get one exported name.
pub fn mcp_tools_from_list(
    server: &str,
    list: &Value,
    options: &McpImportOptions,
) -> Result<Vec<Arc<dyn DynTool>>, McpImportError> {
    let tools = list
        .get("tools")
        .or_else(|| list.get("result").and_then(|result| result.get("tools")))
        .and_then(Value::as_array)
        .ok_or_else(|| McpImportError::Shape {
            server: server.to_owned(),
            message: "expected a `tools/list` result: `{\"tools\":[...]}` or `{\"result\":{\"tools\":[...]}}`".to_owned(),
        })?;
    let mut imported: Vec<Arc<dyn DynTool>> = Vec::with_capacity(tools.len());
    let mut seen: HashMap<String, String> = HashMap::new();
    for (index, entry) in tools.iter().enumerate() {
        let description =
            McpToolDescription::deserialize(entry).map_err(|error| McpImportError::Tool {
                server: server.to_owned(),
                index,
                message: error.to_string(),
            })?;
        let tool = McpTool::new(server, description, options);
        if is_filtered_ide_tool(tool.name()) {
            continue;
        }
        let raw = tool
            .meta
            .mcp_info
            .as_ref()
            .map(|info| info.tool_name.clone())
            .unwrap_or_default();
        if let Some(first) = seen.insert(tool.name().to_owned(), raw.clone()) {
            return Err(McpImportError::NameCollision {
                name: tool.name().to_owned(),
                first_server: server.to_owned(),
                first_tool: first,
                second_server: server.to_owned(),
                second_tool: raw,
            });
        }
        imported.push(Arc::new(tool));
    }
    Ok(imported)
}
