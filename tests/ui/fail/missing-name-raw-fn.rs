use tool_sdk::prelude::*;

/// Says which way to go.
#[tool(read_only, max_result_size_chars = 1_000)]
async fn r#move() -> Result<String, ToolError> {
    Ok("north".to_owned())
}

fn main() {}
