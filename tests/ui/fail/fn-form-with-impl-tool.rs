use tool_sdk::prelude::*;

#[derive(Deserialize, JsonSchema)]
pub struct AddArgs {
    pub a: i64,
}

/// Adds.
#[tool(name = "Add", max_result_size_chars = 1_000)]
pub async fn add(input: AddArgs) -> Result<i64, ToolError> {
    Ok(input.a)
}

// A hook cannot be added to a function-form tool: its `Tool` is the SDK's.
#[tool]
impl Tool for add {
    type Output = i64;
    async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<i64>, ToolError> {
        Ok(ToolResult::new(0))
    }
}

fn main() {}
