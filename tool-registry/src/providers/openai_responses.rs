//! OpenAI Responses (`POST /v1/responses`): `function_call` output items in,
//! `function_call_output` input items out.
//!
//! Reference: <https://platform.openai.com/docs/api-reference/responses/object> (a
//! `function_call` item is `{"type":"function_call","id","call_id","name","arguments"}`, the
//! answer `{"type":"function_call_output","call_id","output"}` where `output` is a string or
//! a list of `input_text` / `input_image` parts) and
//! <https://platform.openai.com/docs/guides/function-calling>. Streamed calls: see
//! [`super::stream::OpenAiResponsesStream`].

use serde_json::{Value, json};
use tool_sdk::ToolResultBlock;

use super::ReadError;
use super::calls::{ModelToolCall, ResultsError, ToolCalls};
use super::content::{Part, joined_text, parts};

/// The `output` items of a response (`{"output":[..]}`) or the item array itself.
pub(crate) fn output_items(response: &Value) -> Result<&Vec<Value>, ReadError> {
    match response {
        Value::Array(items) => Ok(items),
        Value::Object(map) => match map.get("output") {
            Some(Value::Array(items)) => Ok(items),
            _ => Err(ReadError::Shape {
                expected: "a Responses response with an `output` array, or an array of items",
            }),
        },
        _ => Err(ReadError::Shape {
            expected: "a Responses response with an `output` array, or an array of items",
        }),
    }
}

/// The `function_call` items of a response, in order (other items, such as `message`,
/// `reasoning` or `tool_search_call`, are skipped; see
/// [`super::tool_search::read_tool_search_calls`] for the last). Each call's `arguments`
/// text is read with [`super::parse_arguments`].
///
/// # Errors
/// [`ReadError`] when there is no item array, or a `function_call` lacks a string `call_id`
/// or `name`.
pub fn read_calls(response: &Value) -> Result<ToolCalls, ReadError> {
    let mut calls = Vec::new();
    for (index, item) in output_items(response)?.iter().enumerate() {
        if item.get("type").and_then(Value::as_str) != Some("function_call") {
            continue;
        }
        let field = |field: &'static str| ReadError::Field {
            item: format!("output[{index}]"),
            field,
        };
        let call_id = item
            .get("call_id")
            .and_then(Value::as_str)
            .ok_or(field("call_id"))?;
        let name = item
            .get("name")
            .and_then(Value::as_str)
            .ok_or(field("name"))?;
        let arguments = match item.get("arguments") {
            None | Some(Value::Null) => String::new(),
            Some(Value::String(text)) => text.clone(),
            Some(other) => other.to_string(),
        };
        calls.push(ModelToolCall::from_arguments(call_id, name, &arguments));
    }
    Ok(ToolCalls::new(calls))
}

/// The input items answering `calls`: one `{"type":"function_call_output","call_id",
/// "output"}` per call, in call order. `output` is the result's text, or, when the result
/// holds images, a list of `input_text` and `input_image` parts (never an empty text part).
///
/// # Errors
/// [`ResultsError`] as [`ToolCalls::pair`].
pub fn results_items(
    calls: &ToolCalls,
    results: Vec<ToolResultBlock>,
) -> Result<Vec<Value>, ResultsError> {
    Ok(calls
        .pair(results)?
        .into_iter()
        .map(|result| {
            let parts = parts(&result.content);
            let output = if parts.iter().any(|part| matches!(part, Part::Image(_))) {
                Value::Array(
                    parts
                        .into_iter()
                        .map(|part| match part {
                            Part::Text(text) => json!({"type": "input_text", "text": text}),
                            Part::Image(image) => {
                                json!({"type": "input_image", "image_url": image.url()})
                            }
                        })
                        .collect(),
                )
            } else {
                Value::String(joined_text(&parts))
            };
            json!({"type": "function_call_output", "call_id": result.tool_use_id, "output": output})
        })
        .collect())
}
