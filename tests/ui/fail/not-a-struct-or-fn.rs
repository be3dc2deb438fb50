use tool_sdk::prelude::*;

/// Finds files by name.
#[tool(name = "Glob", max_result_size_chars = 100_000)]
pub const GLOB: &str = "Glob";

fn main() {}
