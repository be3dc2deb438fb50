//! Tools that exist only at run time, all of one type, [`DynamicTool`]: from a JSON
//! definition with a host [`ToolHandler`] ([`DynamicTool::from_json`]), or from an MCP
//! server's `tools/list` result ([`mcp_tools_from_list`] for a recorded list; the live import
//! of `tool_registry::mcp` for a connected server), both through one import normaliser (SPEC
//! §10). A `DynamicTool` implements [`tool_sdk::DynTool`] with `has_json_schema() == true` and
//! checks inputs against its JSON Schema under the input policy with
//! [`tool_sdk::input::InputValidator`].

mod call;
mod definition;
mod import;
mod mcp;

pub use call::ToolHandler;
pub use definition::{DefinitionError, DynamicTool, ToolAnnotations, ToolDefinition};
pub use import::SkippedEntry;
#[cfg(feature = "mcp")]
pub(crate) use mcp::import_entries;
#[cfg(feature = "mcp")]
pub(crate) use mcp::not_connected_message;
pub use mcp::{ImportedTools, McpImportError, McpImportOptions, mcp_tools_from_list};
