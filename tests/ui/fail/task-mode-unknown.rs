use tool_sdk::prelude::*;

/// Builds the project.
#[tool(name = "Build", task = "background", max_result_size_chars = 100_000)]
#[derive(Deserialize, JsonSchema)]
pub struct Build {
    /// The target to build.
    pub target: String,
}

#[tool]
impl Tool for Build {
    type Output = String;
    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        Ok(ToolResult::new(self.target))
    }
}

fn main() {}
