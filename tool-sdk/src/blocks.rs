//! Anthropic Messages API content blocks: the `tool_use` blocks a model sends and the
//! `tool_result` blocks a host answers with.
//!
//! Shapes follow the Messages API (`POST /v1/messages`, content blocks of type `text`,
//! `image`, `tool_use`, `tool_result`, `tool_reference`). Serialisation is byte-compatible with
//! what the API sends and accepts: `is_error` is written only when it is `true`, as the
//! reference host does for successful results (SPEC §5.4).

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One `tool_use` block of an assistant message: `{"type":"tool_use","id":..,"name":..,"input":{..}}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolUseBlock {
    /// The id the model gave this call (`toolu_...`); the matching `tool_result` repeats it.
    pub id: String,
    /// The tool name exactly as the model wrote it (a primary name or an alias, SPEC §8.1).
    pub name: String,
    /// The raw input object. Parsed and validated against the tool's input schema by the
    /// orchestrator, never trusted as is.
    #[serde(default)]
    pub input: Value,
}

/// One `tool_result` block of a user message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolResultBlock {
    /// The `id` of the `tool_use` block this answers.
    pub tool_use_id: String,
    /// A string, or an array of `text` / `image` / `tool_reference` blocks.
    pub content: ToolResultContent,
    /// `true` for every error outcome of SPEC §5.4; omitted from the JSON when `false`.
    #[serde(default, skip_serializing_if = "is_false")]
    pub is_error: bool,
}

// serde's skip_serializing_if passes a reference.
#[allow(clippy::trivially_copy_pass_by_ref)]
fn is_false(value: &bool) -> bool {
    !*value
}

impl ToolResultBlock {
    /// A successful result.
    pub fn success(tool_use_id: impl Into<String>, content: impl Into<ToolResultContent>) -> Self {
        Self {
            tool_use_id: tool_use_id.into(),
            content: content.into(),
            is_error: false,
        }
    }

    /// An error result (`is_error: true`) whose content is `text`, unchanged.
    pub fn error(tool_use_id: impl Into<String>, text: impl Into<String>) -> Self {
        Self {
            tool_use_id: tool_use_id.into(),
            content: ToolResultContent::Text(text.into()),
            is_error: true,
        }
    }

    /// The content as one string: the text itself, or the `text` blocks joined by `\n`.
    pub fn text(&self) -> String {
        self.content.text()
    }
}

/// The `content` of a `tool_result`: a plain string or a list of blocks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ToolResultContent {
    /// `"content": "..."`.
    Text(String),
    /// `"content": [{"type":"text",..}, {"type":"tool_reference",..}, ...]`.
    Blocks(Vec<ResultBlock>),
}

impl ToolResultContent {
    /// The text of the content: the string itself, or every `text` block joined by `\n`.
    pub fn text(&self) -> String {
        match self {
            Self::Text(text) => text.clone(),
            Self::Blocks(blocks) => blocks
                .iter()
                .filter_map(|block| match block {
                    ResultBlock::Text { text } => Some(text.as_str()),
                    _ => None,
                })
                .collect::<Vec<_>>()
                .join("\n"),
        }
    }
}

impl From<String> for ToolResultContent {
    fn from(text: String) -> Self {
        Self::Text(text)
    }
}

impl From<&str> for ToolResultContent {
    fn from(text: &str) -> Self {
        Self::Text(text.to_owned())
    }
}

impl From<Vec<ResultBlock>> for ToolResultContent {
    fn from(blocks: Vec<ResultBlock>) -> Self {
        Self::Blocks(blocks)
    }
}

/// A block inside a `tool_result`'s content array.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ResultBlock {
    /// `{"type":"text","text":..}`.
    Text {
        /// The text.
        text: String,
    },
    /// `{"type":"image","source":{..}}`; the source object is passed through unchanged.
    Image {
        /// The Messages API image source (`base64` or `url`).
        source: Value,
    },
    /// `{"type":"tool_reference","tool_name":..}`: tells the API to load a deferred tool's
    /// definition (SPEC §3.7).
    ToolReference {
        /// The primary name of the referenced tool.
        tool_name: String,
    },
}

/// The `tool_use` blocks of an assistant message's `content` array, in order.
///
/// Accepts the array itself, `{"content":[...]}` or `{"role":"assistant","content":[...]}`
/// (any object with a top-level `content` array, such as a recorded transcript).
///
/// # Errors
/// [`MessageError`] when there is no `content` array, or a `tool_use` block lacks `id` or
/// `name`, naming the block's index.
pub fn tool_uses_of(message: &Value) -> Result<Vec<ToolUseBlock>, MessageError> {
    let content = match message {
        Value::Array(items) => items,
        Value::Object(map) => match map.get("content") {
            Some(Value::Array(items)) => items,
            _ => return Err(MessageError::NoContent),
        },
        _ => return Err(MessageError::NoContent),
    };
    let mut uses = Vec::new();
    for (index, block) in content.iter().enumerate() {
        if block.get("type").and_then(Value::as_str) != Some("tool_use") {
            continue;
        }
        let parsed: ToolUseBlock = serde_json::from_value(block.clone())
            .map_err(|source| MessageError::BadToolUse { index, source })?;
        uses.push(parsed);
    }
    Ok(uses)
}

/// Why an assistant message could not be read.
#[derive(Debug, thiserror::Error)]
pub enum MessageError {
    /// The value is neither a content array nor an object with a `content` array.
    #[error(
        "expected an assistant message: a content array, or an object with a top-level `content` array"
    )]
    NoContent,
    /// A `tool_use` block could not be read.
    #[error("content[{index}] is a `tool_use` block without a string `id` and `name`: {source}")]
    BadToolUse {
        /// Index of the block in `content`.
        index: usize,
        /// What serde reported.
        source: serde_json::Error,
    },
}
