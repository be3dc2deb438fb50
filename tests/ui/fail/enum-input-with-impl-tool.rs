use tool_sdk::prelude::*;

/// Finds files by name or by content.
#[tool(name = "Find", max_result_size_chars = 100_000)]
#[derive(Deserialize, JsonSchema)]
pub enum Find {
    ByName { pattern: String },
    ByContent { regex: String },
}

#[tool]
impl Tool for Find {
    type Output = String;
    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        Ok(ToolResult::new(String::new()))
    }
}

fn main() {}
