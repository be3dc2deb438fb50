use tool_sdk::prelude::*;

/// A pattern.
#[derive(Deserialize, JsonSchema)]
pub struct GlobArgs(pub String);

/// Nothing.
#[derive(Deserialize, JsonSchema)]
pub struct NowArgs;

/// Finds files by name.
#[tool(name = "Glob", max_result_size_chars = 100_000)]
async fn glob(input: GlobArgs) -> Result<String, ToolError> {
    Ok(input.0)
}

/// Reports the time.
#[tool(name = "Now", max_result_size_chars = 100)]
async fn now(_input: NowArgs) -> Result<String, ToolError> {
    Ok("noon".to_owned())
}

fn main() {}
