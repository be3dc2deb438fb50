use tool_sdk::prelude::*;

/// The numbers to add.
#[derive(Deserialize)]
pub struct AddArgs {
    /// The first addend.
    pub a: i64,
    /// The second addend.
    pub b: i64,
}

/// Adds two numbers.
#[tool(name = "Add", max_result_size_chars = 100)]
async fn add(input: AddArgs) -> Result<i64, ToolError> {
    Ok(input.a + input.b)
}

fn main() {}
