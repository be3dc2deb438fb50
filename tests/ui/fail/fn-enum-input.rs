use tool_sdk::prelude::*;

/// How to find files.
#[derive(Deserialize, JsonSchema)]
pub enum FindArgs {
    ByName { pattern: String },
    ByContent { regex: String },
}

/// Finds files by name or by content.
#[tool(name = "Find", max_result_size_chars = 100_000)]
async fn find(input: FindArgs) -> Result<String, ToolError> {
    let _ = input;
    Ok(String::new())
}

fn main() {}
