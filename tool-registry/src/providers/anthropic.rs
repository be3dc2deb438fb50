//! Anthropic Messages API (`POST /v1/messages`): the `tools` array (cached and with
//! per-request fields through [`ModelApi::definitions`](super::ModelApi::definitions), or
//! written fresh as text by [`tools_json`]), `tool_use` blocks in, one user message of
//! `tool_result` blocks out. Calls and answers go through
//! [`ModelApi::read_calls`](super::ModelApi::read_calls) and
//! [`ModelApi::write_results`](super::ModelApi::write_results).
//!
//! Reference: <https://docs.anthropic.com/en/docs/build-with-claude/tool-use> (the results
//! must come first in the user message, one per `tool_use`, in order) and the streaming
//! events in <https://docs.anthropic.com/en/api/messages-streaming> (read by
//! [`ModelApi::stream`](super::ModelApi::stream)).

use std::borrow::Cow;
use std::sync::Arc;

use serde::Serialize;
use serde_json::{Map, Value, json};
use tool_sdk::blocks::MessageError;
use tool_sdk::callers::Callers;
use tool_sdk::{DynTool, ResultBlock, ToolResultBlock, ToolResultContent};

use super::ReadError;
use super::caller::{CallerShape, read_caller};
use super::calls::ToolCalls;
use super::pairing::ResultsError;
use crate::export::captured::{CachedTool, object_examples};
use crate::export::schema::export_input_cow;
use crate::export::shape::{DefinitionShape, StrictMode};

/// The definition shape of the Messages API `tools` array.
pub(crate) const SHAPE: DefinitionShape = DefinitionShape {
    slot: 0,
    write: definition,
    input_schema_at: &["input_schema"],
    strict: StrictMode::ToolFlag,
    request_fields: true,
};

/// The tool calls of an assistant message: a `content` array, `{"content":[...]}` or a whole
/// Messages response. A `tool_use` whose `input` is missing or `null` gets `{}`.
///
/// # Errors
/// [`ReadError`] when there is no `content` array, or a `tool_use` block has no string `id`
/// or `name` (naming the block's index).
pub(crate) fn read_calls(message: &Value) -> Result<ToolCalls, ReadError> {
    let mut blocks = tool_sdk::blocks::tool_uses_of(message).map_err(|error| match error {
        MessageError::NoContent => ReadError::Shape {
            expected: "an assistant message: a content array, or an object with a top-level `content` array",
        },
        MessageError::BadToolUse { index, .. } => {
            let content = message.get("content").unwrap_or(message);
            let has_id = content[index].get("id").is_some_and(Value::is_string);
            ReadError::Field {
                item: format!("content[{index}]"),
                field: if has_id { "name" } else { "id" },
            }
        }
    })?;
    for block in &mut blocks {
        if block.input.is_null() {
            block.input = Value::Object(Map::new());
        }
    }
    let mut calls = ToolCalls::from(blocks);
    // Programmatic tool calling: each `tool_use` block's `caller`, in block order.
    let content = message.get("content").unwrap_or(message);
    let callers = content
        .as_array()
        .into_iter()
        .flatten()
        .filter(|block| block.get("type").and_then(Value::as_str) == Some("tool_use"))
        .map(|block| read_caller(CallerShape::Anthropic, block.get("caller")));
    for (call, caller) in calls.calls.iter_mut().zip(callers) {
        call.caller = caller;
    }
    Ok(calls)
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
pub(crate) fn results_message(
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

/// The base definition from a captured tool: `name`, `description`, `input_schema`,
/// `"strict": true` only when the tool asks for it, `input_examples` (an array of input
/// objects) only when the tool declares examples, and `allowed_callers` only when code may
/// call the tool ([`allowed_callers`]). `input_examples` is Anthropic's "tool use
/// examples" field of a tool definition (beta header `advanced-tool-use-2025-11-20`; see
/// <https://platform.claude.com/docs/en/agents-and-tools/tool-use/tool-reference>): a host
/// that sends tools with examples must send that header.
fn definition(tool: &CachedTool, _strict_schema: Option<&Value>) -> Value {
    assemble(
        tool.name.clone(),
        tool.description.clone(),
        tool.input_schema.clone(),
        tool.strict,
        tool.examples.clone(),
        tool.callers,
    )
}

/// The `allowed_callers` of a tool that code may call, `None` for the default (the model
/// only: the field is left out, as the API's default is `["direct"]`). Code is named by the
/// code execution tool version [`ModelApi::ANTHROPIC_CODE_EXECUTION`](super::ModelApi::ANTHROPIC_CODE_EXECUTION)
/// (the version a request must send in its `tools` for these tools to be callable from code).
///
/// Source (read 2026-12-03): <https://platform.claude.com/docs/en/agents-and-tools/tool-use/programmatic-tool-calling>
/// ("The `allowed_callers` field"), `anthropic` SDK 2.16.0 `types/tool_param.py`.
pub(crate) fn allowed_callers(callers: Callers) -> Option<Vec<&'static str>> {
    let code = super::ModelApi::ANTHROPIC_CODE_EXECUTION;
    match callers {
        Callers::Direct => None,
        Callers::Programmatic => Some(vec![code]),
        Callers::DirectAndProgrammatic => Some(vec!["direct", code]),
    }
}

/// [`definition`]'s object from its parts, moved in.
fn assemble(
    name: String,
    description: String,
    input_schema: Value,
    strict: bool,
    examples: Vec<Value>,
    callers: Callers,
) -> Value {
    let mut map = Map::new();
    map.insert("name".to_owned(), Value::String(name));
    map.insert("description".to_owned(), Value::String(description));
    map.insert("input_schema".to_owned(), input_schema);
    if strict {
        map.insert("strict".to_owned(), Value::Bool(true));
    }
    if !examples.is_empty() {
        map.insert("input_examples".to_owned(), Value::Array(examples));
    }
    if let Some(allowed) = allowed_callers(callers) {
        map.insert("allowed_callers".to_owned(), json!(allowed));
    }
    Value::Object(map)
}

/// The Anthropic Messages `tools` array for `tools`, in order, as the compact JSON text sent,
/// rendered fresh (no cache): per tool `name`, `description` (the tool's prompt, SPEC §1.1),
/// `input_schema` (root `{"type":"object",...}`, no `$schema`), plus `"strict": true` when the
/// tool asks for it and `input_examples` when it declares examples. Byte for byte what
/// [`ModelApi::definitions_json`](super::ModelApi::definitions_json) writes for
/// [`ModelApi::Anthropic`](super::ModelApi::Anthropic) with no per-request fields, written straight from the tools: an input schema in export shape already (the
/// schema of a `#[tool]` struct with fields and no flattened enum, or a run-time schema already
/// written that way) is written where it is, not copied into a new value first. For the
/// definitions of a session (cached, with `defer_loading` and `cache_control`), render through
/// [`ModelApi::definitions`](super::ModelApi::definitions) instead.
///
/// ```
/// # use tool_sdk::prelude::*;
/// # /// Says hello.
/// # #[tool(name = "Hello", max_result_size_chars = 1_000)]
/// # #[derive(Deserialize, JsonSchema)]
/// # struct Hello {
/// #     /// Who to greet.
/// #     name: String,
/// # }
/// # #[tool]
/// # impl Tool for Hello {
/// #     type Output = String;
/// #     async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
/// #         Ok(ToolResult::new("hello".to_owned()))
/// #     }
/// # }
/// let tools = [tool_sdk::dyn_tool::<Hello>()];
/// let text = tool_registry::providers::anthropic::tools_json(&tools);
/// let cached = tool_registry::providers::ModelApi::Anthropic
///     .definitions_json(&tool_registry::export::SchemaCache::new(), &tools, &Default::default())
///     .unwrap();
/// assert_eq!(text, cached);
/// assert!(text.starts_with(r#"[{"name":"Hello","description":"Says hello.","input_schema":{"#));
/// ```
pub fn tools_json(tools: &[Arc<dyn DynTool>]) -> String {
    let definitions: Vec<DefinitionRef<'_>> = tools
        .iter()
        .map(|tool| {
            let tool = tool.as_ref();
            DefinitionRef {
                name: tool.name(),
                description: tool.prompt(),
                input_schema: export_input_cow(tool.input_schema()),
                strict: tool.meta().strict,
                input_examples: object_examples(tool),
                allowed_callers: allowed_callers(tool.meta().callers),
            }
        })
        .collect();
    // Strings, booleans and JSON values (whose keys are strings): writing them cannot fail.
    serde_json::to_string(&definitions).unwrap_or_default()
}

/// [`assemble`]'s object with borrowed parts, written in the same key order.
#[derive(Serialize)]
struct DefinitionRef<'a> {
    name: &'a str,
    description: Cow<'a, str>,
    input_schema: Cow<'a, Value>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    strict: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    input_examples: Vec<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    allowed_callers: Option<Vec<&'static str>>,
}
