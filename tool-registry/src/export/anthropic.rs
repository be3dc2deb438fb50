//! The Anthropic Messages API `tools` array: `[{"name", "description", "input_schema"}, ...]`.

use std::sync::Arc;

use serde_json::{Value, json};
use tool_sdk::DynTool;

/// One tool's definition: `name`, `description` (the tool's prompt, SPEC §1.1) and
/// `input_schema` (root `{"type":"object",...}`, no `$schema`), plus `strict: true` when the
/// tool asks for it.
pub fn anthropic_tool_definition(tool: &dyn DynTool) -> Value {
    let mut definition = json!({
        "name": tool.name(),
        "description": tool.prompt(),
        "input_schema": tool.input_schema(),
    });
    if tool.meta().strict {
        definition["strict"] = Value::Bool(true);
    }
    definition
}

/// The `tools` array for a request, in pool order.
pub fn anthropic_tools(tools: &[Arc<dyn DynTool>]) -> Value {
    Value::Array(
        tools
            .iter()
            .map(|tool| anthropic_tool_definition(tool.as_ref()))
            .collect(),
    )
}
