//! Tool definitions for model APIs.

mod anthropic;

pub use anthropic::{anthropic_tool_definition, anthropic_tools};
