use tool_sdk::prelude::*;

/// Reads a file.
#[tool(name = "Read", max_result_size_chars = 100_000)]
async fn read_file(path: &str, _ctx: &ToolUseContext) -> Result<String, ToolError> {
    Ok(path.to_owned())
}

/// Sums numbers.
#[tool(name = "Sum", max_result_size_chars = 100)]
async fn sum(numbers: &[i64]) -> Result<i64, ToolError> {
    Ok(numbers.iter().sum())
}

fn main() {}
