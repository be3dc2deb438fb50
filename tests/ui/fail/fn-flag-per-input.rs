use tool_sdk::prelude::*;

#[derive(Deserialize, JsonSchema)]
pub struct AddArgs {
    pub a: i64,
}

fn positive(_: &add) -> bool {
    true
}

/// Adds.
#[tool(name = "Add", read_only = positive, max_result_size_chars = 1_000)]
pub async fn add(input: AddArgs) -> Result<i64, ToolError> {
    Ok(input.a)
}

fn main() {}
