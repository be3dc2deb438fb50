//! Gemini `generateContent`: `functionCall` parts in, `functionResponse` parts out, function
//! declarations with the portable schema profile.
//!
//! Reference: <https://ai.google.dev/gemini-api/docs/function-calling> and
//! <https://ai.google.dev/api/caching#FunctionCall> (`{"id"?,"name","args"}`),
//! <https://ai.google.dev/api/caching#FunctionResponse> (`{"id"?,"name","response"}`, where
//! `response` uses the `output` key for a result and `error` for an error, and `parts` may
//! carry inline media).

pub(crate) mod check;
mod json_keywords;
mod json_schema;
pub(crate) mod schema;

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{Map, Value, json};
use tool_sdk::{DynTool, ToolResultBlock};

use super::ReadError;
use super::calls::{ModelToolCall, ToolCalls};
use super::content::{Image, Part, parts};
use super::pairing::ResultsError;
use crate::export::cache::open_input_root;
use crate::export::{RenderRequest, SchemaCache, SchemaError};
use schema::portable_schema;

/// The prefix of the id given to a Gemini call that came without one; the answer then
/// carries no id, as the call had none.
pub(crate) const MADE_UP_ID_PREFIX: &str = "gemini-call-";

/// Pool names ↔ the names Gemini is sent.
///
/// Gemini's own rule, as google-genai 3.6.1 states it (`google/genai/types.py`,
/// `FunctionDeclaration.name`, read 2026-12-03): "Must start with a letter or an underscore.
/// Must be a-z, A-Z, 0-9, or contain underscores, dots, colons and dashes, with a maximum
/// length of 128." (The ai.google.dev reference and js-genai's docs give 64 characters and no
/// colon; [`check_declaration`] applies the stricter of the two.)
///
/// We send a stricter pattern on purpose: `^[A-Za-z_][A-Za-z0-9_-]{0,63}$`, the names every
/// provider takes as they are (Anthropic and OpenAI allow `a-z A-Z 0-9 _ -` up to 64 chars;
/// Gemini also wants a letter or `_` first), so one pool has the same names everywhere it can.
/// A name outside it is mapped: each character outside `a-z A-Z 0-9 _ -` becomes `_`, a name
/// not starting with a letter or `_` gets a leading `_`, the result is cut to 64 chars, and a
/// clash with another name gets `_2`, `_3`, ... Other names are sent unchanged, and calls are
/// mapped back before they run. Tool names are `^[A-Za-z0-9_-]{1,64}$` already (`#[tool(name)]`,
/// JSON tools) and MCP tool names are normalised into `[A-Za-z0-9_-]` (`mcp__server__tool`), so
/// in practice only a name starting with a digit or `-` is mapped.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GeminiNames {
    to_gemini: HashMap<String, String>,
    to_pool: HashMap<String, String>,
}

impl GeminiNames {
    /// The map for these pool names.
    pub fn new<'a>(names: impl IntoIterator<Item = &'a str>) -> Self {
        let names: Vec<&str> = names.into_iter().collect();
        let mut map = Self::default();
        for name in &names {
            if is_cross_provider_name(name) {
                map.to_pool.insert((*name).to_owned(), (*name).to_owned());
            }
        }
        for name in names {
            if is_cross_provider_name(name) {
                continue;
            }
            let base = mapped(name);
            let mut candidate = base.clone();
            let mut n = 2;
            while map.to_pool.contains_key(&candidate) {
                let suffix = format!("_{n}");
                let keep = 64 - suffix.len();
                candidate = format!("{}{suffix}", &base[..base.len().min(keep)]);
                n += 1;
            }
            map.to_gemini.insert(name.to_owned(), candidate.clone());
            map.to_pool.insert(candidate, name.to_owned());
        }
        map
    }

    /// The map for a tool list.
    pub fn for_tools(tools: &[Arc<dyn DynTool>]) -> Self {
        Self::new(tools.iter().map(|tool| tool.name()))
    }

    /// The name Gemini is sent for a pool name.
    pub fn to_gemini<'a>(&'a self, name: &'a str) -> &'a str {
        self.to_gemini.get(name).map_or(name, String::as_str)
    }

    /// The pool name of a name Gemini called (unknown names come back unchanged, so the
    /// orchestrator answers them as unknown tools).
    pub fn to_pool<'a>(&'a self, name: &'a str) -> &'a str {
        self.to_pool.get(name).map_or(name, String::as_str)
    }

    /// `(pool name, Gemini name)` of every renamed tool.
    pub fn renamed(&self) -> impl Iterator<Item = (&str, &str)> {
        self.to_gemini.iter().map(|(a, b)| (a.as_str(), b.as_str()))
    }
}

/// `true` when `name` matches `^[A-Za-z_][A-Za-z0-9_-]{0,63}$`, the names every provider takes
/// as they are ([`GeminiNames`]).
fn is_cross_provider_name(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-'))
}

fn mapped(name: &str) -> String {
    let mut out: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if !out.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        out.insert(0, '_');
    }
    out.truncate(64);
    out
}

/// Every rule of Gemini's `FunctionDeclaration` and `Schema` references that `declaration`
/// breaks, each as `PATH: what is wrong`; empty when Gemini accepts it and reads every
/// keyword. Both forms are checked: `{"name","description","parametersJsonSchema"?}` (an entry
/// of [`ModelApi::Gemini`](super::ModelApi::Gemini)'s definitions: an object-rooted JSON Schema
/// whose local `$ref`s resolve, with no boolean sub-schema and only the JSON Schema keywords
/// Google documents for Gemini and google-genai's `types.JSONSchema` holds; another keyword is
/// not refused by the API but ignored (googleapis/python-genai#1093), so it is reported) and `{"name","description","parameters"?}` (an entry of
/// [`ModelApi::GeminiOpenApi`](super::ModelApi::GeminiOpenApi)'s: the OpenAPI 3.0 subset);
/// both at once is an error, as the two fields are mutually exclusive. An offline check, so a
/// schema the API would refuse at request time is caught in tests (sources, read 2026-12-03:
/// <https://ai.google.dev/api/caching#FunctionDeclaration>,
/// <https://cloud.google.com/vertex-ai/docs/reference/rest/v1beta1/FunctionDeclaration>, and
/// `google/genai/types.py` `FunctionDeclaration` of google-genai 3.6.1).
pub fn check_declaration(declaration: &Value) -> Vec<String> {
    check::check_function_declaration(declaration)
}

/// Which `FunctionDeclaration` field carries a tool's input schema: the two `--format`s of
/// Gemini, [`ModelApi::Gemini`](super::ModelApi::Gemini) and
/// [`ModelApi::GeminiOpenApi`](super::ModelApi::GeminiOpenApi).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ParametersForm {
    /// `parametersJsonSchema`: the input schema in export shape, full JSON Schema.
    JsonSchema,
    /// `parameters`: the input schema through [`portable_schema`] (the OpenAPI 3.0 subset).
    OpenApi,
}

/// The Gemini function declarations of `tools`, in order, from the session `cache`'s captured
/// form of each tool (so they are byte-stable for the session as the other APIs' are): per
/// tool `{"name","description",FIELD?}`, the name mapped when Gemini refuses it
/// ([`GeminiNames`]). FIELD is, by `form`:
///
/// - [`ParametersForm::JsonSchema`]: `parametersJsonSchema`, the input schema in export shape
///   (`$defs`, `$ref`, `anyOf`, maps and recursive types kept) with the keywords Gemini would
///   ignore rewritten where an equivalent exists (`json_keywords::for_gemini`: `const`,
///   exclusive bounds, `true` sub-schemas, `definitions`), its root opened for a tool in
///   `request.lenient_input` as for every other API;
/// - [`ParametersForm::OpenApi`]: `parameters`, the input schema through [`portable_schema`]
///   (Gemini's OpenAPI-subset `Schema`), with the tool's first example input as the root
///   `example` (the `Schema` slot for one example instance) unless the schema has its own;
///   for a tool that asks for its examples in the description, the examples that did not go
///   into that slot (all of them when the schema has its own `example` or no properties) are
///   appended to the description as for an API without a slot.
///
/// FIELD is left out for a tool without parameters (an input schema of exactly
/// `{"type":"object","properties":{}}`; Gemini refuses an object schema with no properties in
/// `parameters`). The rest of `request` does not apply (see [`RenderRequest`]).
///
/// # Errors
/// [`ParametersForm::OpenApi`] only: [`SchemaError`] naming the first tool and field that
/// cannot be made portable: a recursive type, a tuple, a field accepting any value, an `enum`
/// mixing strings and other values, a map (such as a `HashMap` field), an array with no
/// `items`, or a schema over 10,000 sub-schemas once its references are inlined.
pub(crate) fn declarations(
    cache: &SchemaCache,
    tools: &[Arc<dyn DynTool>],
    request: &RenderRequest,
    form: ParametersForm,
) -> Result<Vec<Value>, SchemaError> {
    let names = GeminiNames::for_tools(tools);
    let mut declarations = Vec::with_capacity(tools.len());
    for tool in tools {
        let entry = cache.entry(tool.as_ref());
        let mut declaration = Map::new();
        declaration.insert("name".to_owned(), json!(names.to_gemini(&entry.name)));
        // The description goes before the parameters; its text is known once the root
        // `example` slot is (or is not) filled.
        declaration.insert("description".to_owned(), Value::Null);
        let has_properties = |schema: &Value| {
            schema
                .get("properties")
                .and_then(Value::as_object)
                .is_some_and(|properties| !properties.is_empty())
        };
        match form {
            ParametersForm::JsonSchema => {
                let mut schema = json_keywords::for_gemini(&entry.input_schema);
                if request.lenient_input.contains(&entry.name)
                    && let Value::Object(root) = &mut schema
                {
                    open_input_root(root);
                }
                if schema != json!({"type": "object", "properties": {}}) {
                    declaration.insert("parametersJsonSchema".to_owned(), schema);
                }
                let description = entry.description_without_example_slot();
                declaration.insert("description".to_owned(), json!(description));
            }
            ParametersForm::OpenApi => {
                let mut parameters = portable_schema(&entry.name, &entry.input_schema)?;
                let mut slotted = 0;
                if has_properties(&parameters) {
                    if let (Value::Object(root), Some(first)) =
                        (&mut parameters, entry.examples.first())
                        && !root.contains_key("example")
                    {
                        root.insert("example".to_owned(), first.clone());
                        slotted = 1;
                    }
                    declaration.insert("parameters".to_owned(), parameters);
                }
                let description = entry.description_with_examples_after(slotted);
                declaration.insert("description".to_owned(), json!(description));
            }
        }
        declarations.push(Value::Object(declaration));
    }
    Ok(declarations)
}

/// The parts of a response (`{"candidates":[{"content":{"parts":..}}]}`, the first
/// candidate), of a content (`{"role":"model","parts":[..]}`), or the parts array.
fn parts_of(response: &Value) -> Result<&Vec<Value>, ReadError> {
    let content = match response.get("candidates") {
        Some(Value::Array(candidates)) => candidates
            .first()
            .and_then(|candidate| candidate.get("content"))
            .ok_or(ReadError::Shape {
                expected: "`candidates[0].content`",
            })?,
        _ => response,
    };
    match content {
        Value::Array(parts) => Ok(parts),
        Value::Object(map) => match map.get("parts") {
            Some(Value::Array(parts)) => Ok(parts),
            None | Some(Value::Null) => Ok(const { &Vec::new() }),
            Some(_) => Err(ReadError::Shape {
                expected: "`parts` to be an array",
            }),
        },
        _ => Err(ReadError::Shape {
            expected: "a generateContent response, a content or a parts array",
        }),
    }
}

/// The `functionCall` parts of a response, in order, names mapped back with `names`. `args`
/// missing or `null` means `{}`. A call without an `id` gets `gemini-call-` plus its
/// position among the calls, and is answered without an id.
///
/// # Errors
/// [`ReadError`] when the value has none of the accepted shapes or a `functionCall` has no
/// string `name`.
pub(crate) fn read_calls(response: &Value, names: &GeminiNames) -> Result<ToolCalls, ReadError> {
    let mut calls = Vec::new();
    for (index, part) in parts_of(response)?.iter().enumerate() {
        let Some(call) = part.get("functionCall") else {
            continue;
        };
        let name = call
            .get("name")
            .and_then(Value::as_str)
            .ok_or(ReadError::Field {
                item: format!("parts[{index}].functionCall"),
                field: "name",
            })?;
        calls.push(function_call(call, name, calls.len(), names));
    }
    Ok(ToolCalls::new(calls))
}

/// The call of a `functionCall` object named `name` (as Gemini sent it), the `position`-th
/// call of its response: `args` missing or `null` means `{}`; without an `id` it gets
/// `gemini-call-<position>` and is answered without one; the name is mapped back to the pool's.
/// Whole responses and streams read calls through it alike.
pub(crate) fn function_call(
    call: &Value,
    name: &str,
    position: usize,
    names: &GeminiNames,
) -> ModelToolCall {
    let input = match call.get("args") {
        None | Some(Value::Null) => Value::Object(Map::new()),
        Some(args) => args.clone(),
    };
    let sent = call.get("id").and_then(Value::as_str);
    let mut read = ModelToolCall::new(
        sent.map_or_else(|| format!("{MADE_UP_ID_PREFIX}{position}"), str::to_owned),
        names.to_pool(name),
        input,
    );
    read.id_was_sent = sent.is_some();
    read
}

/// The content answering `calls`: `{"role":"user","parts":[{"functionResponse":..}, ...]}`,
/// one part per call in call order, each with the call's `id` (when it had one), the name
/// Gemini called, and `response` `{"output": text}` or, for an error, `{"error": text}`.
/// Base64 images go into the function response's `parts` as `inlineData`; image URLs are
/// listed in the text.
///
/// # Errors
/// [`ResultsError`] as [`ToolCalls::pair`].
pub(crate) fn results_content(
    calls: &ToolCalls,
    results: Vec<ToolResultBlock>,
    names: &GeminiNames,
) -> Result<Value, ResultsError> {
    let paired = calls.pair(results)?;
    let mut out = Vec::with_capacity(paired.len());
    for (call, result) in calls.calls.iter().zip(paired) {
        let mut texts = Vec::new();
        let mut media = Vec::new();
        for part in parts(&result.content) {
            match part {
                Part::Text(text) => texts.push(text),
                Part::Image(Image::Base64 { media_type, data }) => {
                    media.push(json!({"inlineData": {"mimeType": media_type, "data": data}}))
                }
                Part::Image(Image::Url(url)) => texts.push(format!("Image: {url}")),
            }
        }
        let key = if result.is_error { "error" } else { "output" };
        let mut response = Map::new();
        if call.id_was_sent {
            response.insert("id".to_owned(), json!(call.id));
        }
        response.insert("name".to_owned(), json!(names.to_gemini(&call.name)));
        response.insert("response".to_owned(), json!({key: texts.join("\n")}));
        if !media.is_empty() {
            response.insert("parts".to_owned(), Value::Array(media));
        }
        out.push(json!({"functionResponse": response}));
    }
    Ok(json!({"role": "user", "parts": out}))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refused_names_are_mapped_both_ways_without_clashes() {
        let names = GeminiNames::new(["Read", "9lives", "_9lives", "-x"]);
        assert_eq!(names.to_gemini("Read"), "Read");
        assert_eq!(names.to_gemini("9lives"), "_9lives_2");
        assert_eq!(names.to_gemini("-x"), "_-x");
        assert_eq!(names.to_pool("_9lives_2"), "9lives");
        assert_eq!(names.to_pool("_9lives"), "_9lives");
        assert_eq!(names.to_pool("unknown"), "unknown");
        for (_, sent) in names.renamed() {
            assert!(is_cross_provider_name(sent), "{sent}");
        }
    }
}
