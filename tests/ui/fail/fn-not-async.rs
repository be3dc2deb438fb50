use tool_sdk::prelude::*;

/// Reports the time.
#[tool(name = "Now", max_result_size_chars = 100)]
fn now(_ctx: &ToolUseContext) -> Result<String, ToolError> {
    Ok("noon".to_owned())
}

fn main() {}
