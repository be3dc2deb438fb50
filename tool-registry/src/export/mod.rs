//! The session schema cache and the API-neutral schema rewrites: each tool's definition
//! captured once per session (SPEC §8.4) and rendered byte-identically afterwards, every input
//! schema in export shape (`export_input_schema`), OpenAI strict mode. Which API a definition
//! is written for, and its shape, is [`ModelApi`](crate::providers::ModelApi)'s.

pub(crate) mod cache;
pub(crate) mod captured;
pub(crate) mod dialect;
pub(crate) mod schema;
pub(crate) mod shape;
pub(crate) mod strict;

pub use cache::{RenderRequest, SchemaCache};
#[cfg(feature = "mcp-server")]
pub(crate) use cache::{has_closed_root, open_input_root};
#[cfg(feature = "mcp-server")]
pub(crate) use captured::ResolvedHints;
#[cfg(feature = "mcp-server")]
pub(crate) use dialect::is_older_dialect;
#[cfg(feature = "mcp-server")]
pub(crate) use schema::{export_input_object, mcp_input_object};
pub use strict::{SchemaError, StrictPolicy};
