use tool_sdk::prelude::*;

/// A list of paths, without `Serialize`.
pub struct Paths(pub Vec<String>);

/// Finds files by name.
#[tool(name = "Glob", max_result_size_chars = 100_000)]
#[derive(Deserialize, JsonSchema)]
pub struct Glob {
    /// The pattern.
    pub pattern: String,
}

#[tool]
impl Tool for Glob {
    type Output = Paths;
    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<Paths>, ToolError> {
        Ok(ToolResult::new(Paths(vec![self.pattern])))
    }
}

fn main() {}
