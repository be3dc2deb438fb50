//! One module per model API, each owning that API's shapes: the definitions export, the tool
//! calls of a response (whole, or streamed through [`stream`]) read into [`ToolCalls`], and the
//! turn's results written back. [`ModelApi`] is the one door to all of them. Also the Gemini
//! name map and offline checker ([`gemini`]) and the provider-side tool search
//! ([`AnthropicToolSearch`], [`OpenAiToolSearch`], [`ToolSearchCall`]).
//!
//! Every API follows the same rules: a call's arguments given as JSON text are parsed once
//! (`parse_arguments`: empty, whitespace and `null` mean `{}`); arguments that are not JSON
//! fail that call alone, answered with an error result and never run; the answer holds every
//! call id exactly once, in call order ([`ToolCalls::pair`]); no empty text block is written.
//!
//! ```
//! use serde_json::json;
//! use tool_registry::providers::ModelApi;
//! use tool_sdk::ToolResultBlock;
//!
//! let response = json!({"choices": [{"message": {"role": "assistant", "content": null, "tool_calls": [
//!     {"id": "call_1", "type": "function", "function": {"name": "Read", "arguments": "{\"file_path\":\"/a\"}"}},
//!     {"id": "call_2", "type": "function", "function": {"name": "Read", "arguments": "{\"file_path\":"}}
//! ]}}]});
//! let calls = ModelApi::OpenAiChat.read_calls(&response, &[]).unwrap();
//! assert_eq!(calls.runnable().len(), 1); // call_2 is answered with an error, never run
//! let results = vec![ToolResultBlock::success("call_1", "1\tline one")];
//! let messages = ModelApi::OpenAiChat.write_results(&calls, results, &[]).unwrap();
//! assert_eq!(messages[0], json!({"role": "tool", "tool_call_id": "call_1", "content": "1\tline one"}));
//! assert_eq!(messages[1]["tool_call_id"], "call_2");
//! ```

pub mod anthropic;
mod api;
mod caller;
mod calls;
mod content;
pub mod gemini;
pub(crate) mod mcp;
mod namespaces;
pub(crate) mod openai_chat;
pub(crate) mod openai_responses;
mod pairing;
pub mod stream;
pub(crate) mod tool_search;

pub use api::ModelApi;

pub(crate) use calls::parse_arguments;
pub use calls::{ArgumentsError, ModelToolCall, ToolCalls};
pub use pairing::ResultsError;
pub use tool_search::{
    AnthropicToolSearch, AnthropicToolSearchRequest, OpenAiToolSearch, ToolSearchCall,
};

/// Why a response could not be read (a call's bad arguments are not this: they fail that call
/// alone).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ReadError {
    /// The value does not have the API's shape.
    #[error("expected {expected}")]
    Shape {
        /// What was expected.
        expected: &'static str,
    },
    /// A call lacks a field it cannot be answered without.
    #[error("{item} has no string `{field}`")]
    Field {
        /// The call, as a path like `tool_calls[1]`.
        item: String,
        /// The missing field.
        field: &'static str,
    },
    /// [`ModelApi::Mcp`] has no model response to read.
    #[error(
        "MCP has no model response to read: a served pool's calls arrive as `tools/call` requests, which the MCP server answers; use a model API's format"
    )]
    NotAModelApi,
}
