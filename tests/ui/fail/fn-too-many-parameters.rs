use tool_sdk::prelude::*;

/// Adds two numbers.
#[tool(name = "Add", max_result_size_chars = 100)]
async fn add(a: i64, b: i64) -> Result<i64, ToolError> {
    Ok(a + b)
}

fn main() {}
