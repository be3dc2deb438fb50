//! The Anthropic Messages API `tools` array: `[{"name", "description", "input_schema"}, ...]`.

use std::sync::Arc;

use serde_json::{Map, Value};
use tool_sdk::DynTool;

use super::captured::CachedTool;

/// The base definition from a captured tool: `name`, `description`, `input_schema`,
/// `"strict": true` only when the tool asks for it, and `input_examples` (an array of input
/// objects) only when the tool declares examples. `input_examples` is Anthropic's "tool use
/// examples" field of a tool definition (beta header `advanced-tool-use-2025-11-20`; see
/// <https://platform.claude.com/docs/en/agents-and-tools/tool-use/tool-reference>): a host
/// that sends tools with examples must send that header.
pub(super) fn definition(tool: &CachedTool) -> Value {
    let mut map = Map::new();
    map.insert("name".to_owned(), Value::String(tool.name.clone()));
    map.insert(
        "description".to_owned(),
        Value::String(tool.description.clone()),
    );
    map.insert("input_schema".to_owned(), tool.input_schema.clone());
    if tool.strict {
        map.insert("strict".to_owned(), Value::Bool(true));
    }
    if !tool.examples.is_empty() {
        map.insert(
            "input_examples".to_owned(),
            Value::Array(tool.examples.clone()),
        );
    }
    Value::Object(map)
}

/// One tool's definition, rendered fresh (no cache): `name`, `description` (the tool's prompt,
/// SPEC §1.1) and `input_schema` (root `{"type":"object",...}`, no `$schema`), plus
/// `strict: true` when the tool asks for it. For a session, render through
/// [`super::SchemaCache`] instead.
pub fn anthropic_tool_definition(tool: &dyn DynTool) -> Value {
    definition(&CachedTool::capture(tool))
}

/// The `tools` array for a request, in pool order, rendered fresh (no cache).
pub fn anthropic_tools(tools: &[Arc<dyn DynTool>]) -> Value {
    Value::Array(
        tools
            .iter()
            .map(|tool| anthropic_tool_definition(tool.as_ref()))
            .collect(),
    )
}
