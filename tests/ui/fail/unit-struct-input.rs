use tool_sdk::prelude::*;

/// Reports the time.
#[tool(name = "Now", max_result_size_chars = 100)]
#[derive(Deserialize, JsonSchema)]
pub struct Now;

fn main() {}
