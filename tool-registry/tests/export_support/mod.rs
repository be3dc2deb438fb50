//! The tools the export tests share: `Add` (two fields, one optional), `Noop` (no fields)
//! and `Weather` (a run-time tool with a raw JSON Schema), and the four targets.

#![allow(dead_code)]

use std::sync::Arc;

use serde_json::json;
use tool_registry::dynamic::{DynamicTool, ToolHandler};
use tool_registry::providers::ModelApi;
use tool_sdk::DynTool;
use tool_sdk::prelude::*;

pub const TARGETS: [ModelApi; 4] = [
    ModelApi::Anthropic,
    ModelApi::OpenAiChat,
    ModelApi::OpenAiResponses,
    ModelApi::Mcp,
];

/// Adds two numbers.
#[tool(
    name = "Add",
    read_only,
    concurrency_safe,
    max_result_size_chars = 1_000
)]
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Add {
    /// The first addend.
    pub a: i64,
    /// The second addend, 0 when left out.
    pub b: Option<i64>,
}

#[tool]
impl Tool for Add {
    type Output = i64;
    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<i64>, ToolError> {
        Ok(ToolResult::new(self.a + self.b.unwrap_or(0)))
    }
}

/// Does nothing.
#[tool(name = "Noop", max_result_size_chars = 1_000)]
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Noop {}

#[tool]
impl Tool for Noop {
    type Output = String;
    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        Ok(ToolResult::new(String::new()))
    }
}

pub fn weather() -> Arc<dyn DynTool> {
    Arc::new(
        DynamicTool::from_json(
            &json!({
                "name": "Weather",
                "title": "Weather lookup",
                "description": "Current weather for a city.",
                "input_schema": {
                    "$schema": "https://json-schema.org/draft/2020-12/schema",
                    "type": "object",
                    "properties": {
                        "city": {"type": "string"},
                        "units": {"enum": ["c", "f"]},
                        "days": {"type": "array", "items": {"type": "object", "properties": {"day": {"type": "integer"}, "note": {"type": "string"}}, "required": ["day"]}}
                    },
                    "required": ["city"]
                },
                "read_only": true
            }),
            ToolHandler::fixed_text("sunny"),
        )
        .unwrap(),
    )
}
