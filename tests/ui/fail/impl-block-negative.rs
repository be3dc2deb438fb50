use tool_sdk::prelude::*;

/// Finds files by name.
#[tool(name = "Glob", max_result_size_chars = 100_000)]
#[derive(Deserialize, JsonSchema)]
pub struct Glob {
    /// The pattern.
    pub pattern: String,
}

#[tool]
impl !Tool for Glob {}

fn main() {}
