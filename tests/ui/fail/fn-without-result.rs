use tool_sdk::prelude::*;

/// Reports the time.
#[tool(name = "Now", max_result_size_chars = 100)]
async fn now() -> String {
    "noon".to_owned()
}

fn main() {}
