//! OpenAI Chat Completions (`POST /v1/chat/completions`): an assistant message's `tool_calls`
//! in, one `tool` message per `tool_call_id` out; function tool definitions
//! `{"type":"function","function":{"name","description","parameters","strict"}}`.
//!
//! Reference: <https://platform.openai.com/docs/api-reference/chat/object> (a tool call is
//! `{"id","type":"function","function":{"name","arguments"}}`, `arguments` being JSON text)
//! and <https://platform.openai.com/docs/guides/function-calling>. Streamed responses: see
//! [`ModelApi::stream`](super::ModelApi::stream).

use serde_json::{Value, json};
use tool_sdk::ToolResultBlock;

use super::ReadError;
use super::calls::{ArgumentsError, ModelToolCall, ToolCalls};
use super::content::{Part, joined_text, parts};
use super::pairing::ResultsError;
use crate::export::shape::{DefinitionShape, StrictMode};

/// The definition shape of a Chat Completions function tool: the Responses function object
/// without its `type`, nested under `function`.
pub(crate) const SHAPE: DefinitionShape = DefinitionShape {
    slot: 1,
    write: |tool, strict_schema| {
        let function = super::openai_responses::function(tool, false, strict_schema);
        let mut outer = serde_json::Map::new();
        outer.insert("type".to_owned(), Value::String("function".to_owned()));
        outer.insert("function".to_owned(), Value::Object(function));
        Value::Object(outer)
    },
    input_schema_at: &["function", "parameters"],
    strict: StrictMode::Schema { slot: 0 },
    request_fields: false,
};

/// The tool calls of a Chat Completions response (`{"choices":[{"message":..}]}`, the first
/// choice), of its assistant message (`{"role":"assistant","tool_calls":[..]}`), or the
/// `tool_calls` array itself. No `tool_calls` (or `null`) means no call. Each call's
/// `arguments` text is read with `super::parse_arguments`, so a malformed one becomes that
/// call's error result.
///
/// # Errors
/// [`ReadError`] when the value has none of these shapes, or a call lacks a string `id` (it
/// could not be answered). A call with an id but no `function.name`, or of another `type`
/// (such as `custom`), is read as a call whose input failed
/// ([`ArgumentsError::NotRunnable`]): answered with an error result, never run.
pub(crate) fn read_calls(response: &Value) -> Result<ToolCalls, ReadError> {
    let message = match response.get("choices") {
        Some(Value::Array(choices)) => choices
            .first()
            .and_then(|choice| choice.get("message"))
            .ok_or(ReadError::Shape {
                expected: "`choices[0].message`",
            })?,
        _ => response,
    };
    let calls = match message {
        Value::Array(_) => message,
        Value::Object(map) => match map.get("tool_calls") {
            None | Some(Value::Null) => return Ok(ToolCalls::default()),
            Some(calls) => calls,
        },
        _ => {
            return Err(ReadError::Shape {
                expected: "a Chat Completions response, an assistant message or a `tool_calls` array",
            });
        }
    };
    let Value::Array(calls) = calls else {
        return Err(ReadError::Shape {
            expected: "`tool_calls` to be an array",
        });
    };
    calls
        .iter()
        .enumerate()
        .map(|(index, call)| read_call(index, call))
        .collect::<Result<Vec<_>, _>>()
        .map(ToolCalls::new)
}

fn read_call(index: usize, call: &Value) -> Result<ModelToolCall, ReadError> {
    let item = format!("tool_calls[{index}]");
    // Without an id the call cannot be answered at all.
    let id = call
        .get("id")
        .and_then(Value::as_str)
        .ok_or_else(|| ReadError::Field {
            item: item.clone(),
            field: "id",
        })?;
    let not_runnable = |name: &str, reason: String| {
        let mut read = ModelToolCall::new(id, name, Value::Null);
        read.input = Err(ArgumentsError::NotRunnable {
            item: item.clone(),
            reason,
        });
        read
    };
    if let Some(kind) = call.get("type").and_then(Value::as_str)
        && kind != "function"
    {
        let name = call
            .get(kind)
            .and_then(|body| body.get("name"))
            .and_then(Value::as_str)
            .unwrap_or_default();
        return Ok(not_runnable(
            name,
            format!("is a `{kind}` call; only function calls are run"),
        ));
    }
    let function = call.get("function");
    let Some(name) = function
        .and_then(|function| function.get("name"))
        .and_then(Value::as_str)
    else {
        return Ok(not_runnable(
            "",
            "has no string `function.name`; send the call again naming the tool".to_owned(),
        ));
    };
    let arguments = match function.and_then(|function| function.get("arguments")) {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(text)) => text.clone(),
        // Some compatible servers send the object itself.
        Some(other) => other.to_string(),
    };
    Ok(ModelToolCall::from_arguments(id, name, &arguments))
}

/// The messages answering `calls`: one `{"role":"tool","tool_call_id":..,"content":..}` per
/// call, in call order, the content being the result's text (text blocks joined by `\n`).
/// Chat `tool` messages carry text only, so when results hold images one `user` message
/// follows the tool messages with an `image_url` part per image, each introduced by a text
/// part naming its call.
///
/// # Errors
/// [`ResultsError`] as [`ToolCalls::pair`].
pub(crate) fn results_messages(
    calls: &ToolCalls,
    results: Vec<ToolResultBlock>,
) -> Result<Vec<Value>, ResultsError> {
    let mut messages = Vec::new();
    let mut images = Vec::new();
    for result in calls.pair(results)? {
        let parts = parts(&result.content);
        messages.push(json!({
            "role": "tool",
            "tool_call_id": result.tool_use_id,
            "content": joined_text(&parts),
        }));
        let mut introduced = false;
        for part in parts {
            if let Part::Image(image) = part {
                if !introduced {
                    images.push(json!({"type": "text", "text": format!("Images returned by tool call {}:", result.tool_use_id)}));
                    introduced = true;
                }
                images.push(json!({"type": "image_url", "image_url": {"url": image.url()}}));
            }
        }
    }
    if !images.is_empty() {
        messages.push(json!({"role": "user", "content": images}));
    }
    Ok(messages)
}
