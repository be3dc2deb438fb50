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
#[tool(name = "Now", callers = ["programmatic"], max_result_size_chars = 100)]
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

mod args {
    use tool_sdk::prelude::*;

    /// A name.
    #[derive(Deserialize, JsonSchema)]
    pub struct NameArgs {
        /// The name.
        pub name: String,
    }

    /// A value of any type.
    #[derive(Deserialize, JsonSchema)]
    pub struct Wrapped<T> {
        /// The value.
        pub value: T,
    }
}

type Alias = AddArgs;

/// Greets by name (an input from another module, by path).
#[tool(name = "Greet", max_result_size_chars = 100)]
async fn greet(input: crate::args::NameArgs) -> Result<String, ToolError> {
    Ok(format!("hello {}", input.name))
}

/// An input through a type alias.
#[tool(name = "Aliased", max_result_size_chars = 100)]
async fn aliased(input: Alias) -> Result<i64, ToolError> {
    Ok(input.a)
}

/// A generic struct, made concrete.
#[tool(name = "Wrapped", max_result_size_chars = 100)]
async fn wrapped(input: args::Wrapped<u32>) -> Result<u32, ToolError> {
    Ok(input.value)
}

#[allow(dead_code)]
fn local_items() {
    /// A struct local to a function.
    #[derive(Deserialize, JsonSchema)]
    struct LocalArgs {
        /// A flag.
        flag: bool,
    }

    /// A tool defined inside a function, on a struct defined there.
    #[tool(name = "Local", max_result_size_chars = 100)]
    async fn local(input: LocalArgs) -> Result<bool, ToolError> {
        Ok(input.flag)
    }
}
