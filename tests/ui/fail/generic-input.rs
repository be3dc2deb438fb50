use tool_sdk::prelude::*;

/// Echoes a value.
#[tool(name = "Echo", max_result_size_chars = 100)]
#[derive(Deserialize, JsonSchema)]
pub struct Echo<T> {
    /// The value.
    pub value: T,
}

fn main() {}
