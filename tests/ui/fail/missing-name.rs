use tool_sdk::prelude::*;

/// Finds files.
#[tool(read_only, max_result_size_chars = 100_000)]
#[derive(Deserialize, JsonSchema)]
pub struct FindTodos {
    pub pattern: String,
}

#[tool]
impl Tool for FindTodos {
    type Output = String;
    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        Ok(ToolResult::new(self.pattern))
    }
}

fn main() {}
