//! OpenAI Responses (`POST /v1/responses`): `function_call` output items in,
//! `function_call_output` input items out; function tool definitions
//! `{"type":"function","name","description","parameters","strict"}`.
//!
//! Reference: <https://platform.openai.com/docs/api-reference/responses/object> (a
//! `function_call` item is `{"type":"function_call","id","call_id","name","arguments"}`, the
//! answer `{"type":"function_call_output","call_id","output"}` where `output` is a string or
//! a list of `input_text` / `input_image` parts) and
//! <https://platform.openai.com/docs/guides/function-calling>. Streamed responses: see
//! [`ModelApi::stream`](super::ModelApi::stream).

use serde_json::{Map, Value, json};
use tool_sdk::ToolResultBlock;
use tool_sdk::callers::{Caller, Callers};

use super::ReadError;
use super::caller::{CallerShape, read_caller};
use super::calls::{ArgumentsError, ModelToolCall, ToolCalls};
use super::content::{Part, joined_text, parts};
use super::namespaces::ResponsesNames;
use super::pairing::ResultsError;
use crate::export::captured::CachedTool;
use crate::export::shape::{DefinitionShape, StrictMode};

/// The definition shape of a Responses function tool.
pub(crate) const SHAPE: DefinitionShape = DefinitionShape {
    slot: 2,
    write: |tool, strict_schema| Value::Object(function(tool, true, strict_schema)),
    input_schema_at: &["parameters"],
    strict: StrictMode::Schema { slot: 1 },
    request_fields: false,
};

/// The function object of a captured tool: `type` (when `typed`), `name`, `description`,
/// `parameters`, `strict`. `strict_schema` is the strict-mode schema when strict mode applies
/// (then `"strict": true`), else `None` (`"strict": false` and the plain schema; the Responses
/// API would otherwise default to strict), and for Responses `allowed_callers`
/// (`["direct", "programmatic"]`, `["programmatic"]`) when code may call the tool
/// (`openai` SDK 3.60.0 `types/responses/function_tool_param.py`, read 2026-12-03; the request
/// must also send the `{"type":"programmatic_tool_calling"}` tool). Chat Completions nests it untyped
/// (`super::openai_chat`).
pub(super) fn function(
    tool: &CachedTool,
    typed: bool,
    strict_schema: Option<&Value>,
) -> Map<String, Value> {
    let mut function = Map::new();
    if typed {
        function.insert("type".to_owned(), Value::String("function".to_owned()));
    }
    function.insert("name".to_owned(), Value::String(tool.name.clone()));
    function.insert(
        "description".to_owned(),
        Value::String(tool.description_without_example_slot().into_owned()),
    );
    function.insert(
        "parameters".to_owned(),
        strict_schema.unwrap_or(&tool.input_schema).clone(),
    );
    function.insert("strict".to_owned(), Value::Bool(strict_schema.is_some()));
    if typed && tool.callers != Callers::Direct {
        // Responses only (Chat Completions has no programmatic calling): left out for the
        // model-only default.
        function.insert("allowed_callers".to_owned(), json!(tool.callers.names()));
    }
    function
}

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
/// [`ToolSearchCall::read_all`](super::ToolSearchCall::read_all) for the last). Each call's `arguments`
/// text is read with `super::parse_arguments`.
///
/// # Errors
/// [`ReadError`] when there is no item array, or a call lacks a string `call_id` (it could
/// not be answered). A `function_call` with no `name`, and every `custom_tool_call`, is read
/// as a call whose input failed ([`ArgumentsError::NotRunnable`]): answered with an error
/// result (a `custom_tool_call_output` for a custom call), never run.
pub(crate) fn read_calls(response: &Value, names: &ResponsesNames) -> Result<ToolCalls, ReadError> {
    let mut calls = Vec::new();
    for (index, item) in output_items(response)?.iter().enumerate() {
        let kind = item.get("type").and_then(Value::as_str);
        if !matches!(kind, Some("function_call" | CUSTOM_CALL)) {
            continue;
        }
        let item_path = format!("output[{index}]");
        // Without a call_id the call cannot be answered at all.
        let call_id =
            item.get("call_id")
                .and_then(Value::as_str)
                .ok_or_else(|| ReadError::Field {
                    item: item_path.clone(),
                    field: "call_id",
                })?;
        let name = item.get("name").and_then(Value::as_str);
        let not_runnable = |reason: String| {
            let mut read = ModelToolCall::new(call_id, name.unwrap_or_default(), Value::Null);
            read.input = Err(ArgumentsError::NotRunnable {
                item: item_path.clone(),
                reason,
            });
            read
        };
        if kind == Some(CUSTOM_CALL) {
            calls.push(not_runnable(
                "is a `custom_tool_call`; only function calls are run".to_owned(),
            ));
            continue;
        }
        let Some(name) = name else {
            calls.push(not_runnable(
                "has no string `name`; send the call again naming the tool".to_owned(),
            ));
            continue;
        };
        let name = match names.resolve(item.get("namespace").and_then(Value::as_str), name) {
            Ok(name) => name,
            Err(reason) => {
                calls.push(not_runnable(reason));
                continue;
            }
        };
        let arguments = match item.get("arguments") {
            None | Some(Value::Null) => String::new(),
            Some(Value::String(text)) => text.clone(),
            Some(other) => other.to_string(),
        };
        let mut call = ModelToolCall::from_arguments(call_id, name, &arguments);
        call.caller = read_caller(CallerShape::OpenAiResponses, item.get("caller"));
        calls.push(call);
    }
    Ok(ToolCalls::new(calls))
}

/// The `type` of a Responses custom tool call (free-form text input), answered with a
/// `custom_tool_call_output` item.
const CUSTOM_CALL: &str = "custom_tool_call";

/// The input items answering `calls`: one `{"type":"function_call_output","call_id",
/// "output"}` per call (`custom_tool_call_output` for a custom call), in call order. `output` is the result's text, or, when the result
/// holds images, a list of `input_text` and `input_image` parts (never an empty text part).
///
/// # Errors
/// [`ResultsError`] as [`ToolCalls::pair`].
pub(crate) fn results_items(
    calls: &ToolCalls,
    results: Vec<ToolResultBlock>,
) -> Result<Vec<Value>, ResultsError> {
    let paired = calls.pair(results)?;
    Ok(calls
        .calls
        .iter()
        .zip(paired)
        .map(|(call, result)| {
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
            let kind = if matches!(&call.input, Err(ArgumentsError::NotRunnable { reason, .. }) if reason.contains(CUSTOM_CALL))
            {
                "custom_tool_call_output"
            } else {
                "function_call_output"
            };
            let mut item = json!({"type": kind, "call_id": result.tool_use_id, "output": output});
            if let Caller::Program { kind, id } = &call.caller {
                // The output of a program's call names that program, as the call did.
                item["caller"] = json!({"type": kind, "caller_id": id});
            }
            item
        })
        .collect())
}
