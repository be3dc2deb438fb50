use tool_sdk::prelude::*;

/// A failure that is not a `ToolError`.
#[derive(Debug)]
pub struct ClockBroken;

/// Reports the time.
#[tool(name = "Now", max_result_size_chars = 100)]
async fn now() -> Result<String, ClockBroken> {
    Err(ClockBroken)
}

fn main() {}
