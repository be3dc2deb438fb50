//! The suite's JSON Schema 2020-12 tool: an input schema with `$schema`, `$defs` (with an
//! `$anchor`), a `$ref`, composition (`allOf`/`anyOf`) and conditional (`if`/`then`/`else`)
//! keywords, which the listing must pass on exactly (SEP-1613, SEP-2106).

use serde_json::json;
use tool_registry::dynamic::{DynamicTool, ToolHandler};
use tool_sdk::{ToolError, ToolResultContent};

/// `json_schema_2020_12_tool`: a dynamic tool whose raw JSON Schema uses 2020-12 keywords
/// (`$schema`, `$defs`, `$ref`, `additionalProperties`), which the listing must keep as given
/// (SEP-1613).
pub fn json_schema_tool() -> Result<DynamicTool, String> {
    let definition = json!({
        "name": "json_schema_2020_12_tool",
        "description": "Tool with JSON Schema 2020-12 features",
        "input_schema": {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "$defs": {
                "address": {
                    "$anchor": "addressDef",
                    "type": "object",
                    "properties": {"street": {"type": "string"}, "city": {"type": "string"}}
                }
            },
            "properties": {
                "name": {"type": "string"},
                "address": {"$ref": "#/$defs/address"},
                "contactMethod": {"type": "string", "enum": ["phone", "email"]},
                "phone": {"type": "string"},
                "email": {"type": "string"}
            },
            "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
            "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
            "then": {"required": ["phone"]},
            "else": {"required": ["email"]},
            "additionalProperties": false
        },
        "read_only": true,
        "concurrency_safe": true,
        "idempotent": true,
        "open_world": false
    });
    let handler = ToolHandler::new(|input, _ctx| async move {
        Ok::<_, ToolError>(ToolResultContent::Text(format!("received {input}")))
    });
    DynamicTool::from_json(&definition, handler).map_err(|error| error.to_string())
}
