use tool_sdk::prelude::*;

/// Finds files.
#[tool(name = "Glob", read_only)]
#[derive(Deserialize, JsonSchema)]
pub struct Glob {
    pub pattern: String,
}

#[tool]
impl Tool for Glob {
    type Output = String;
    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        Ok(ToolResult::new(self.pattern))
    }
}

fn main() {}
