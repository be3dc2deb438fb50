//! Tool definitions for model APIs, all from one captured form per tool (SPEC §8.4):
//! Anthropic Messages, OpenAI Chat Completions and Responses (with strict mode), and MCP
//! `tools/list`. Every input schema is in export shape ([`export_input_schema`]).

mod anthropic;
mod cache;
mod captured;
mod dialect;
mod mcp;
mod openai;
mod schema;
mod strict;
mod target;

pub use anthropic::{anthropic_tool_definition, anthropic_tools, anthropic_tools_json};
pub use cache::{RenderRequest, SchemaCache, cache_key};
#[cfg(feature = "mcp-server")]
pub(crate) use cache::{has_closed_root, open_input_root};
pub use captured::{CachedTool, ResolvedHints};
#[cfg(feature = "mcp-server")]
pub(crate) use dialect::is_older_dialect;
#[cfg(feature = "mcp-server")]
pub(crate) use mcp::listed_output_schema;
#[cfg(feature = "mcp-server")]
pub(crate) use schema::export_input_object;
pub use schema::export_input_schema;
pub use strict::{StrictPolicy, StrictSchemaError, strict_schema};
pub use target::ExportTarget;
