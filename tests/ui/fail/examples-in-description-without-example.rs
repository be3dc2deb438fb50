use tool_sdk::prelude::*;

/// Finds files by name.
#[tool(
    name = "Glob",
    max_result_size_chars = 100_000,
    examples_in_description
)]
#[derive(Deserialize, JsonSchema)]
pub struct Glob {
    /// The pattern.
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
