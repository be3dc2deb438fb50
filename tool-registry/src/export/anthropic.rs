//! The Anthropic Messages API `tools` array: `[{"name", "description", "input_schema"}, ...]`.

use std::borrow::Cow;
use std::sync::Arc;

use serde::Serialize;
use serde_json::{Map, Value};
use tool_sdk::DynTool;

use super::captured::{CachedTool, object_examples};
use super::schema::export_input_cow;

/// The base definition from a captured tool: `name`, `description`, `input_schema`,
/// `"strict": true` only when the tool asks for it, and `input_examples` (an array of input
/// objects) only when the tool declares examples. `input_examples` is Anthropic's "tool use
/// examples" field of a tool definition (beta header `advanced-tool-use-2025-11-20`; see
/// <https://platform.claude.com/docs/en/agents-and-tools/tool-use/tool-reference>): a host
/// that sends tools with examples must send that header.
pub(crate) fn definition(tool: &CachedTool) -> Value {
    assemble(
        tool.name.clone(),
        tool.description.clone(),
        tool.input_schema.clone(),
        tool.strict,
        tool.examples.clone(),
    )
}

/// [`definition`]'s object from its parts, moved in.
fn assemble(
    name: String,
    description: String,
    input_schema: Value,
    strict: bool,
    examples: Vec<Value>,
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
    Value::Object(map)
}

/// The Anthropic Messages `tools` array for `tools`, in order, as the compact JSON text sent,
/// rendered fresh (no cache): per tool `name`, `description` (the tool's prompt, SPEC §1.1),
/// `input_schema` (root `{"type":"object",...}`, no `$schema`), plus `"strict": true` when the
/// tool asks for it and `input_examples` when it declares examples. Byte for byte what
/// [`SchemaCache::render_json`](crate::export::SchemaCache::render_json) writes for
/// [`ExportTarget::Anthropic`](crate::export::ExportTarget::Anthropic) with no per-request
/// fields, written straight from the tools: an input schema in export shape already (the
/// schema of a `#[tool]` struct with fields and no flattened enum, or a run-time schema already
/// written that way) is written where it is, not copied into a new value first. For the
/// definitions of a session (cached, with `defer_loading` and `cache_control`), render through
/// the [`SchemaCache`](crate::export::SchemaCache) instead.
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
/// let cached = tool_registry::export::SchemaCache::new()
///     .render_json(&tools, tool_registry::export::ExportTarget::Anthropic, &Default::default())
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
}
