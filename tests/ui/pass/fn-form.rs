use tool_sdk::prelude::*;

/// The numbers to add.
#[derive(Deserialize, JsonSchema)]
pub struct AddArgs {
    /// The first addend.
    pub a: i64,
    /// The second addend.
    pub b: i64,
}

/// Adds two numbers.
#[tool(name = "Add", read_only, concurrency_safe, max_result_size_chars = 1_000)]
pub async fn add(input: AddArgs, ctx: &ToolUseContext) -> Result<i64, ToolError> {
    let _ = ctx.tool_use_id();
    Ok(input.a + input.b)
}

/// Reports the time.
#[tool(name = "Now", max_result_size_chars = 100)]
async fn now() -> Result<String, String> {
    Ok("noon".to_owned())
}

/// Counts to three, with a context change.
#[tool(name = "Count", max_result_size_chars = 100)]
async fn count(input: AddArgs) -> std::io::Result<ToolResult<Vec<i64>>> {
    Ok(ToolResult::new(vec![input.a, input.b]))
}

fn main() {
    assert_eq!(<add as ToolSpec>::DESCRIPTION, "Adds two numbers.");
    assert!(<add as ToolSpec>::READ_ONLY.for_every_input());
    assert_eq!(<now as ToolSpec>::NAME, "Now");
    let _: fn() -> std::marker::PhantomData<<count as Tool>::Output> = || std::marker::PhantomData::<Vec<i64>>;
}
