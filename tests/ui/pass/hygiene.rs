//! Generated code names everything by absolute path: it compiles with the prelude's names
//! shadowed and under strict lints, on the input struct and on the `impl Tool` block.
#![deny(unused_qualifications, missing_docs)]
#![forbid(unsafe_code)]
#![allow(dead_code)]

use tool_sdk::prelude::{Deserialize, JsonSchema, Serialize, Tool, ToolError, ToolResult};
use tool_sdk::{ToolSpec, ToolUseContext, tool};

/// Shadows `Option`.
pub struct Option;
/// Shadows `Result`.
pub struct Result;
/// Shadows `Some`.
pub struct Some;
/// Shadows `Box`.
pub struct Box;
/// Shadows `Send`.
pub trait Send {}
/// Shadows `core`.
pub mod core {}

/// Runs a shell command.
#[tool(
    name = "Bash",
    aliases = ["Shell"],
    search_hint = "execute shell commands",
    read_only = Self::is_read_only_command,
    concurrency_safe = Self::is_read_only_command,
    destructive = false,
    strict,
    max_result_size_chars = 30_000,
)]
#[derive(Deserialize, JsonSchema)]
pub struct Bash {
    /// The command.
    pub command: String,
}

impl Bash {
    fn is_read_only_command(&self) -> bool {
        self.command == "ls"
    }
}

/// What the command printed.
#[derive(Serialize, JsonSchema)]
pub struct BashOutput {
    /// Standard output.
    pub stdout: String,
}

#[tool]
impl Tool for Bash {
    type Output = BashOutput;
    async fn call(
        self,
        _ctx: &ToolUseContext,
    ) -> std::result::Result<ToolResult<BashOutput>, ToolError> {
        Ok(ToolResult::new(BashOutput {
            stdout: self.command,
        }))
    }
}

/// The numbers to add.
#[derive(Deserialize, JsonSchema)]
pub struct AddArgs {
    /// The first addend.
    pub a: i64,
    /// The second addend.
    pub b: i64,
}

/// Adds two numbers.
#[tool(name = "Add", read_only, max_result_size_chars = 1_000, enabled_if = always)]
pub async fn add(input: AddArgs, _ctx: &ToolUseContext) -> std::result::Result<i64, String> {
    Ok(input.a + input.b)
}

/// Reports the time.
#[tool(name = "Now", max_result_size_chars = 100, test_only)]
pub async fn now() -> std::result::Result<String, ToolError> {
    Ok("noon".to_owned())
}

// No doc comment of its own: the description key, and the generated docs section, document
// it (`missing_docs` is denied above).
#[tool(name = "Ping", description = "Answers pong.", max_result_size_chars = 100)]
#[derive(Deserialize, JsonSchema)]
pub struct Ping {}

#[tool]
impl Tool for Ping {
    type Output = String;
    async fn call(
        self,
        _ctx: &ToolUseContext,
    ) -> std::result::Result<ToolResult<String>, ToolError> {
        Ok(ToolResult::new("pong".to_owned()))
    }
}

fn always() -> bool {
    true
}

fn main() {
    assert_eq!(<Bash as ToolSpec>::NAME, "Bash");
    assert_eq!(<add as ToolSpec>::NAME, "Add");
    assert_eq!(<now as ToolSpec>::NAME, "Now");
    assert_eq!(<Ping as ToolSpec>::DESCRIPTION, "Answers pong.");
}
