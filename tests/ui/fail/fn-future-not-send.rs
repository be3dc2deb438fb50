use std::rc::Rc;

use tool_sdk::prelude::*;

async fn tick() {}

/// Counts with a shared counter.
#[tool(name = "Count", max_result_size_chars = 100)]
async fn count() -> Result<String, ToolError> {
    let counter = Rc::new(1);
    tick().await;
    Ok(counter.to_string())
}

fn main() {}
