use tool_sdk::prelude::*;

/// Echoes text.
#[tool(name = "Echo", max_result_size_chars = 100_000)]
async fn echo(text: String) -> Result<String, ToolError> {
    Ok(text)
}

/// Counts lines.
#[tool(name = "Count", max_result_size_chars = 100)]
async fn count(paths: Vec<std::path::PathBuf>) -> Result<usize, ToolError> {
    Ok(paths.len())
}

/// Moves a file.
#[tool(name = "Move", max_result_size_chars = 100)]
async fn move_file(pair: (String, String)) -> Result<String, ToolError> {
    Ok(pair.0)
}

/// Takes anything.
#[tool(name = "Any", max_result_size_chars = 100)]
async fn any(value: serde_json::Value) -> Result<String, ToolError> {
    Ok(value.to_string())
}

fn main() {}
