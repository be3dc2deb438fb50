use tool_sdk::prelude::*;

/// Deletes a file.
#[tool(name = "Delete", scopes = "files:write, files:delete", max_result_size_chars = 1_000)]
#[derive(Deserialize, JsonSchema)]
pub struct Delete {
    /// The file to delete.
    pub path: String,
}

#[tool]
impl Tool for Delete {
    type Output = String;
    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        Ok(ToolResult::new(self.path))
    }
}

/// Lists files.
#[tool(name = "List", scopes = "  ", max_result_size_chars = 1_000)]
#[derive(Deserialize, JsonSchema)]
pub struct List {}

#[tool]
impl Tool for List {
    type Output = String;
    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
        Ok(ToolResult::new(String::new()))
    }
}

fn main() {}
