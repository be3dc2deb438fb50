//! The MCP `tools/list` shape: `{"name","title"?,"description","inputSchema","outputSchema"?,
//! "annotations"}` (MCP 2025-11-25, "Tools"). Definitions only: a served pool's `tools/call`
//! requests are the MCP server's (`crate::mcp`, through rmcp).

use serde_json::{Map, Value, json};

use crate::export::captured::CachedTool;
use crate::export::shape::{DefinitionShape, StrictMode};

/// The definition shape of a `tools/list` entry.
pub(crate) const SHAPE: DefinitionShape = DefinitionShape {
    slot: 3,
    write: |tool, _| definition(tool),
    input_schema_at: &["inputSchema"],
    strict: StrictMode::None,
    request_fields: false,
};

/// The `tools/list` entry of a captured tool: its input schema as MCP lists it (root
/// combinators kept, `CachedTool::mcp_input_schema`); `title` when known; `outputSchema` only when the
/// tool has one whose root is `{"type":"object"}` (MCP requires that), in export shape; and
/// `annotations` stating all four hints, fail-closed when undeclared
/// (`ResolvedHints`).
pub(crate) fn definition(tool: &CachedTool) -> Value {
    let mut map = Map::new();
    map.insert("name".to_owned(), Value::String(tool.name.clone()));
    if let Some(title) = &tool.title {
        map.insert("title".to_owned(), Value::String(title.clone()));
    }
    map.insert(
        "description".to_owned(),
        Value::String(tool.description_without_example_slot().into_owned()),
    );
    let input = tool.mcp_input_schema.as_ref().unwrap_or(&tool.input_schema);
    map.insert("inputSchema".to_owned(), input.clone());
    if let Some(output) = listed_output_schema(tool.output_schema.as_ref()) {
        map.insert("outputSchema".to_owned(), Value::Object(output));
    }
    let hints = tool.hints;
    map.insert(
        "annotations".to_owned(),
        json!({
            "readOnlyHint": hints.read_only,
            "destructiveHint": hints.destructive,
            "idempotentHint": hints.idempotent,
            "openWorldHint": hints.open_world,
        }),
    );
    Value::Object(map)
}

/// The `outputSchema` MCP lists for a tool whose output schema is `output`: that schema
/// without `$schema` (rewritten as 2020-12 first when it names an older dialect), only when its root is `{"type":"object"}` (MCP 2025-11-25 requires an
/// object root), else `None`.
pub(crate) fn listed_output_schema(output: Option<&Value>) -> Option<Map<String, Value>> {
    let output = output?.as_object()?;
    if output.get("type").and_then(Value::as_str) != Some("object") {
        return None;
    }
    let mut output = output.clone();
    crate::export::dialect::to_2020_12(&mut output);
    output.shift_remove("$schema");
    Some(output)
}
