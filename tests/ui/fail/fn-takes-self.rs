use tool_sdk::prelude::*;

pub struct Clock;

impl Clock {
    /// Reports the time.
    #[tool(name = "Now", max_result_size_chars = 100)]
    pub async fn now(&self) -> Result<String, ToolError> {
        Ok("noon".to_owned())
    }
}

fn main() {}
