use tool_sdk::prelude::*;

/// Finds files.
#[tool(name = "Glob", read_only, max_result_size_chars = 100_000)]
#[derive(Deserialize, JsonSchema)]
pub struct Glob {
    pub pattern: String,
}

fn main() {}
