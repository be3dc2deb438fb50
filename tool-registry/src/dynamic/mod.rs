//! Tools that exist only at run time: [`DynamicTool`] from a JSON definition with a host
//! [`ToolHandler`], and [`McpTool`] from an MCP server's `tools/list` result (SPEC §10). Both
//! implement [`tool_sdk::DynTool`] with `has_json_schema() == true`, and check inputs against
//! their JSON Schema under the input policy with [`tool_sdk::input::InputValidator`].

mod call;
mod definition;
mod mcp;

pub use call::ToolHandler;
pub use definition::{DefinitionError, DynamicTool, ToolAnnotations, ToolDefinition};
pub use mcp::{
    MCP_DESCRIPTION_MAX_CHARS, MCP_MAX_RESULT_SIZE_CHARS, MCP_PERMISSION_MESSAGE,
    MCP_TRUNCATION_SUFFIX, McpImportError, McpImportOptions, McpTool, McpToolDescription,
    mcp_prompt, mcp_search_hint, mcp_tools_from_list, not_connected_message, with_spec_defaults,
};
