//! Implementation detail of `tool-sdk`; do not use directly. The attribute is re-exported
//! and documented as `tool_sdk::tool`.

#![forbid(unsafe_code)]

mod ast;
mod attr;
mod docs;
mod expand;
mod paths;
mod valid;

use proc_macro::TokenStream;

/// Turns a struct with named fields into a tool the model can call.
///
/// The struct is the tool's input (it must also derive `Deserialize` and `JsonSchema`);
/// implement `tool_sdk::Tool` for it to give the tool its `call`. The macro generates
/// `impl ToolSpec`, registers the tool with `inventory` so `tool_registry` collects it, and
/// appends a "Tool" section to the struct's rustdoc.
///
/// # Keys
///
/// | key | required | meaning |
/// |---|---|---|
/// | `name = "Glob"` | yes | the name the model calls; `^[A-Za-z0-9_-]{1,64}$`, not `mcp__...` |
/// | `max_result_size_chars = 100_000` or `unbounded` | yes | results longer than this are persisted (SPEC §9) |
/// | `description = "..."` | unless the struct has a doc comment | what the model reads |
/// | `aliases = ["Old"]` | no | other names the tool answers to |
/// | `search_hint = "3 to 10 words"` | no | a capability phrase for ToolSearch, no trailing period |
/// | `read_only`, `concurrency_safe`, `destructive` | no | a bare flag (`true`), `= false`, or `= Self::method` for a `fn(&self) -> bool` deciding per input; absent means `false` (fail-closed) |
/// | `should_defer` | no | load through ToolSearch only |
/// | `always_load` | no | never defer |
///
/// ```
/// use tool_sdk::prelude::*;
///
/// /// Runs a shell command.
/// #[tool(
///     name = "Bash",
///     search_hint = "execute shell commands",
///     read_only = Self::is_read_only_command,
///     concurrency_safe = Self::is_read_only_command,
///     max_result_size_chars = 30_000,
/// )]
/// #[derive(Deserialize, JsonSchema)]
/// pub struct Bash {
///     /// The command to run.
///     pub command: String,
/// }
///
/// impl Bash {
///     fn is_read_only_command(&self) -> bool {
///         self.command.starts_with("git status")
///     }
/// }
///
/// impl Tool for Bash {
///     type Output = String;
///     async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
///         Ok(ToolResult::new(format!("would run {}", self.command)))
///     }
/// }
///
/// let git = Bash { command: "git status".into() };
/// assert!(git.is_read_only() && git.is_concurrency_safe() && !git.is_destructive());
/// assert_eq!(<Bash as ToolSpec>::NAME, "Bash");
/// ```
#[proc_macro_attribute]
pub fn tool(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::tool(args.into(), item.into()).into()
}
