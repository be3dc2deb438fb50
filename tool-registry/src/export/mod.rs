//! Tool definitions for model APIs, all from one captured form per tool (SPEC §8.4):
//! Anthropic Messages, OpenAI Chat Completions and Responses (with strict mode), and MCP
//! `tools/list`. Every input schema is in export shape (`export_input_schema`).

pub(crate) mod anthropic;
pub(crate) mod cache;
pub(crate) mod captured;
pub(crate) mod dialect;
pub(crate) mod mcp;
pub(crate) mod openai;
pub(crate) mod schema;
pub(crate) mod strict;
pub(crate) mod target;

pub use cache::{RenderRequest, SchemaCache};
#[cfg(feature = "mcp-server")]
pub(crate) use cache::{has_closed_root, open_input_root};
#[cfg(feature = "mcp-server")]
pub(crate) use captured::ResolvedHints;
#[cfg(feature = "mcp-server")]
pub(crate) use dialect::is_older_dialect;
#[cfg(feature = "mcp-server")]
pub(crate) use mcp::listed_output_schema;
#[cfg(feature = "mcp-server")]
pub(crate) use schema::export_input_object;
pub use strict::{StrictPolicy, StrictSchemaError};
pub use target::ExportTarget;
