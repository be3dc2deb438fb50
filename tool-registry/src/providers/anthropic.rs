//! Anthropic Messages API (`POST /v1/messages`): the `tools` array ([`tools_json`]; cached and
//! with per-request fields through [`SchemaCache`](crate::export::SchemaCache)), `tool_use`
//! blocks in, one user message of `tool_result` blocks out.
//!
//! Reference: <https://docs.anthropic.com/en/docs/build-with-claude/tool-use> (the results
//! must come first in the user message, one per `tool_use`, in order) and the streaming
//! events in <https://docs.anthropic.com/en/api/messages-streaming> (see
//! [`super::stream::AnthropicStream`]).

use serde_json::{Map, Value, json};
use tool_sdk::blocks::MessageError;
use tool_sdk::{ResultBlock, ToolResultBlock, ToolResultContent};

use super::calls::ToolCalls;
use super::pairing::ResultsError;

pub use crate::export::anthropic::tools_json;

/// The tool calls of an assistant message: a `content` array, `{"content":[...]}` or a whole
/// Messages response. A `tool_use` whose `input` is missing or `null` gets `{}`.
///
/// # Errors
/// [`MessageError`] when there is no `content` array, or a `tool_use` block has no string
/// `id` or `name` (naming the block's index).
pub fn read_calls(message: &Value) -> Result<ToolCalls, MessageError> {
    let mut blocks = tool_sdk::blocks::tool_uses_of(message)?;
    for block in &mut blocks {
        if block.input.is_null() {
            block.input = Value::Object(Map::new());
        }
    }
    Ok(ToolCalls::from(blocks))
}

/// The text written for an error result whose content is empty (the Messages API refuses
/// `"is_error": true` with empty content, and an empty text block anywhere).
pub(crate) const EMPTY_ERROR_TEXT: &str = "The tool failed without an error message.";

/// The user message answering `calls`: `{"role":"user","content":[tool_result, ...]}`, one
/// `tool_result` per call in `tool_use` order, `is_error` only when `true`. Empty or blank
/// `text` blocks are dropped from block contents (the API refuses them); a content left with no
/// block becomes the empty string, and an error result whose text is empty or blank becomes
/// "The tool failed without an error message." (Anthropic refuses an empty error result).
///
/// # Errors
/// [`ResultsError`] as [`ToolCalls::pair`].
pub fn results_message(
    calls: &ToolCalls,
    results: Vec<ToolResultBlock>,
) -> Result<Value, ResultsError> {
    let content: Vec<Value> = calls
        .pair(results)?
        .into_iter()
        .map(|result| {
            let mut block = Map::new();
            block.insert("type".to_owned(), json!("tool_result"));
            block.insert("tool_use_id".to_owned(), Value::String(result.tool_use_id));
            let mut content = content_value(result.content);
            if result.is_error && content.as_str().is_some_and(|text| text.trim().is_empty()) {
                // The API refuses an error result with empty (or blank) content.
                content = Value::String(EMPTY_ERROR_TEXT.to_owned());
            }
            block.insert("content".to_owned(), content);
            if result.is_error {
                block.insert("is_error".to_owned(), Value::Bool(true));
            }
            Value::Object(block)
        })
        .collect();
    Ok(json!({"role": "user", "content": content}))
}

fn content_value(content: ToolResultContent) -> Value {
    match content {
        ToolResultContent::Text(text) => Value::String(text),
        ToolResultContent::Blocks(blocks) => {
            let kept: Vec<Value> = blocks
                .into_iter()
                .filter_map(|block| match block {
                    // The API refuses a text block with no non-whitespace text.
                    ResultBlock::Text { text } if text.trim().is_empty() => None,
                    ResultBlock::Text { text } => Some(json!({"type": "text", "text": text})),
                    ResultBlock::Image { source } => {
                        Some(json!({"type": "image", "source": source}))
                    }
                    ResultBlock::ToolReference { tool_name } => {
                        Some(json!({"type": "tool_reference", "tool_name": tool_name}))
                    }
                })
                .collect();
            if kept.is_empty() {
                Value::String(String::new())
            } else {
                Value::Array(kept)
            }
        }
    }
}
