//! Implementation detail of `tool-sdk`; do not use directly. The attribute is re-exported
//! and documented as `tool_sdk::tool`.

#![forbid(unsafe_code)]

mod ast;
mod attr;
mod body;
mod docs;
mod expand;
mod fn_form;
mod hooks;
mod impl_form;
mod input_shape;
mod paths;
mod spec;
mod valid;

#[cfg(test)]
mod tests;

use proc_macro::TokenStream;

/// Turns a struct with named fields, or an `async fn`, into a tool the model can call
/// (SPEC §1–§2).
///
/// **Struct form.** The struct is the tool's input (it must also derive `Deserialize` and
/// `JsonSchema`); implement `tool_sdk::Tool` for it to give the tool its `call`. The struct's
/// doc comment is the description the model reads, its fields (with their doc comments) the
/// input schema.
///
/// **On `impl Tool for X`**, `#[tool]` takes no arguments. It leaves the block as written and
/// records which optional hooks the block overrides (`validate_input`, `user_facing_name`,
/// the `render_*` lines, ...), so the tool compiles only those: the others are answered from
/// the tool's constants by code written once (`tool_sdk::overrides`). It is required: `Tool`
/// has a hidden supertrait that only this attribute implements, so a plain `impl Tool` is a
/// compile error saying to add `#[tool]` (a tool that compiled every hook cost about 65 more
/// functions, BENCHMARKS.md). It also adds the call's runner (the future that runs `call` and maps its
/// result), written in the tool's own module, where rustc compiles it with the tool's code:
/// an edit of one tool's `call` then rebuilds none of the SDK's generic runner. A
/// macro call inside the block, or another attribute macro on it that runs after `#[tool]`,
/// may define any method, so then every hook counts as overridden. The trait is recognised by
/// its name as written (`Tool` or a path ending in `Tool`, not an alias such as `use
/// tool_sdk::Tool as T`); on any other `impl`, a negative impl, and with arguments, it is a
/// compile error.
///
/// **Function form.** `#[tool(...)] async fn name(input: Args, ctx: &ToolUseContext) ->
/// Result<T, E>`, where `Args: Deserialize + JsonSchema`, `T: Serialize` (or
/// `ToolResult<T>`), and `E: Into<ToolError>` (`ToolError`, `String`, `&str`, `std::io::Error`,
/// your own error with a `From` impl, or `anyhow::Error` with tool-sdk's `anyhow` feature, so
/// `anyhow::Result<T>` works). `Args` must be a struct with named fields, as
/// the struct form's input: an enum, a tuple or unit struct, a reference (`&str`), a tuple, a
/// primitive, `String`, a std collection or `Option` is a compile error on the type, with the
/// struct to write; `&Args`, `Box<Args>`, `Arc<Args>`, `Option<Args>` and the like are told to
/// take `Args` by value. The context parameter is a reference to a type named
/// `ToolUseContext`, recognised by that name: through a type alias (`ctx: &Ctx`) it reads as
/// an input by reference and is refused, with a note to write `&ToolUseContext`. A type the
/// macro cannot see through (an alias such as `type Text = String`, a tuple struct from another
/// module with private fields) is caught at registration instead:
/// `tool_registry::ToolRegistry::collect` (and `from_tools`) fails with
/// `RegistryError::InputNotAnObject`, naming every such tool and its input type.
/// Both parameters are optional, in that order; a
/// tool without an input parameter has the schema `{"type":"object","properties":{}}` and
/// accepts `{}`. The macro adds a braced struct with the fn's name (`struct name { .. }`, in the
/// type namespace only, so it does not clash with the fn) that implements `Tool` and
/// `ToolSpec`; the fn's doc comment is the description, and the fn stays callable as written.
/// A function-form tool's flags are fixed per tool (`read_only = Self::method` is the struct
/// form's), and it overrides no hook: its `Tool` and `ToolSpec` come from the SDK's blanket
/// impls for function-form tools, so a hand-written `impl Tool for name` beside it conflicts
/// with them. A tool that needs a hook is written in the struct form.
///
/// Either way the macro writes the tool's facts as one constant, with only the facts that differ
/// from the defaults, which the SDK's `ToolSpec` impl reads (a struct with a flag decided per
/// input gets `impl ToolSpec` itself, with the flag's method), registers the tool with
/// `inventory` so `tool_registry::ToolRegistry::collect` finds it, and appends a "Tool" section to the item's rustdoc (name, aliases, flags with the
/// undeclared defaults marked, result size limit, search hint, deferral). The section is for
/// rustdoc only (`#[cfg_attr(doc, ..)]`; a plain `#[doc]` on a struct with no doc comment of its
/// own, which it then documents): a struct deriving `JsonSchema` also gets
/// `#[schemars(description = ..)]` (and `title` when its doc comment starts with `#`) holding
/// just its own doc comment (read as schemars reads it: `#[doc(hidden)]` skipped, a computed
/// `#[doc = include_str!(..)]` split at compile time), so where the struct is a field of another
/// input, the model reads what it would without `#[tool]`.
/// Mistakes are compile errors on the token to change, all reported at once.
///
/// # Keys
///
/// | key | required | meaning |
/// |---|---|---|
/// | `name = "Glob"` | yes | the name the model calls; `^[A-Za-z0-9_-]{1,64}$`, not `mcp__...` |
/// | `max_result_size_chars = 100_000` or `unbounded` | yes | results longer than this many chars, or than the host's cap (50,000 by default) if that is lower, are persisted (SPEC §9); not `0` |
/// | `description = "..."` | unless there is a doc comment | what the model reads |
/// | `aliases = ["Old"]` | no | other names the tool answers to (SPEC §1.3) |
/// | `search_hint = "3 to 10 words"` | no | a capability phrase for ToolSearch, no trailing period |
/// | `read_only`, `concurrency_safe`, `destructive` | no | a bare flag (`true`), `= true`/`= false`, or (struct form only) `= Self::method` for a `fn(&self) -> bool` deciding per input; absent means `false` (fail-closed); `read_only` and `destructive` cannot both be `true` |
/// | `should_defer` | no | load through ToolSearch only (SPEC §4.1) |
/// | `always_load` | no | never defer |
/// | `strict` | no | ask the provider for strict schema adherence (SPEC §8.4) |
/// | `enabled_if = path` | no | a `fn() -> bool` the registry calls once, when it collects (SPEC §7) |
/// | `test_only` | no | collected only when the registry's options say the host is a test environment |
/// | `opt_in` | no | never collected by `ToolRegistry::collect()`: a host that wants it adds it itself (`tool_sdk::dyn_tool::<T>()`), as with the SDK's own `ToolSearch` |
/// | `open_world` | no | the tool reaches outside the local machine (MCP `openWorldHint`); undeclared, exports say `true` and `Tool::is_open_world` answers `true` (fail-closed, the MCP default) |
/// | `idempotent` | no | calling twice with one input has no further effect (MCP `idempotentHint`); undeclared, exports say `true` only for read-only tools |
/// | `title = "Find files"` | no | a display name for people (MCP `title`) |
/// | `task = "optional"` / `"required"` | no | the call may (`optional`: when still running after a moment) or must (`required`) run as a task, started now and followed by the client (MCP tasks extension, SEP-2663; read by `tool_registry`'s MCP server, ignored by hosts that run calls in the request) |
/// | `scopes = "files:read files:write"` | no | the OAuth scopes a call needs, space-separated (`ToolSpec::SCOPES`): a server that checks access tokens (`tool_registry`'s `mcp::serve::auth`) hides the tool from a client whose token lacks one, and refuses its call with `403 insufficient_scope` |
/// | `callers = ["direct", "programmatic"]` | no | who may call the tool (`ToolSpec::CALLERS`, `tool_sdk::callers::Callers`): `"direct"` the model itself, `"programmatic"` code the model runs in the provider's sandbox (Anthropic programmatic tool calling, OpenAI Responses programs); a non-empty list, each name once; absent means `["direct"]` and nothing new is exported. Exported as `allowed_callers` for Anthropic and OpenAI Responses; a call from a caller not listed is answered with an error result |
/// | `example = r#"{"pattern": "*.rs"}"#` | no, repeatable | an example input, a JSON object checked at compile time; exported as Anthropic `input_examples` (the first also as the root `example` of Gemini's subset `parameters`) and shown in docs |
/// | `examples_in_description` | no | also append the examples to the description sent to APIs with no slot for them (OpenAI Chat and Responses, MCP, Gemini's `parametersJsonSchema`); needs an `example` |
///
/// `should_defer`, `always_load`, `strict`, `test_only`, `opt_in`, `open_world`, `idempotent` and
/// `examples_in_description` are fixed per tool: a bare word, `= true` or `= false`; so are
/// `read_only`, `concurrency_safe` and `destructive` on a function-form tool.
///
/// ## `name`, `max_result_size_chars`, description
///
/// ```
/// use tool_sdk::prelude::*;
///
/// /// Reads a file from the local filesystem.
/// #[tool(name = "Read", max_result_size_chars = unbounded)]
/// #[derive(Deserialize, JsonSchema)]
/// pub struct Read {
///     /// The absolute path of the file.
///     pub file_path: String,
/// }
/// # #[tool]
/// # impl Tool for Read {
/// #     type Output = String;
/// #     async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
/// #         Ok(ToolResult::new(self.file_path))
/// #     }
/// # }
///
/// assert_eq!(<Read as ToolSpec>::NAME, "Read");
/// assert_eq!(<Read as ToolSpec>::DESCRIPTION, "Reads a file from the local filesystem.");
/// assert_eq!(<Read as ToolSpec>::MAX_RESULT_SIZE_CHARS, MaxResultSize::Unbounded);
/// ```
///
/// ## `description`, `aliases`, `search_hint`, `should_defer`, `always_load`, `strict`
///
/// ```
/// use tool_sdk::prelude::*;
///
/// #[tool(
///     name = "TaskStop",
///     description = "Stops a running background task by its id.",
///     aliases = ["KillShell"],
///     search_hint = "kill a running background task",
///     should_defer,
///     strict,
///     max_result_size_chars = 100_000,
/// )]
/// #[derive(Deserialize, JsonSchema)]
/// pub struct TaskStop {
///     /// The task's id.
///     pub task_id: String,
/// }
/// # #[tool]
/// # impl Tool for TaskStop {
/// #     type Output = String;
/// #     async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
/// #         Ok(ToolResult::new(self.task_id))
/// #     }
/// # }
///
/// assert_eq!(<TaskStop as ToolSpec>::ALIASES, ["KillShell"]);
/// assert_eq!(<TaskStop as ToolSpec>::SEARCH_HINT, Some("kill a running background task"));
/// assert!(<TaskStop as ToolSpec>::SHOULD_DEFER && <TaskStop as ToolSpec>::STRICT);
/// assert!(!<TaskStop as ToolSpec>::ALWAYS_LOAD);
/// ```
///
/// ## `example`
///
/// Repeatable. Each value is one example input as JSON text (a raw string keeps the quotes
/// readable); a value that is not a JSON object is a compile error on the literal. Whether an
/// example also passes the input's own parsing is checked by
/// `tool_registry::ToolRegistry::check_examples`, which a test should call.
///
/// ```
/// use tool_sdk::prelude::*;
///
/// /// Stops a running background task by its id.
/// #[tool(
///     name = "TaskStop",
///     max_result_size_chars = 100_000,
///     example = r#"{"task_id": "b7"}"#,
///     example = r#"{"task_id": "shell-2"}"#,
/// )]
/// #[derive(Deserialize, JsonSchema)]
/// pub struct TaskStop {
///     /// The task's id.
///     pub task_id: String,
/// }
/// # #[tool]
/// # impl Tool for TaskStop {
/// #     type Output = String;
/// #     async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
/// #         Ok(ToolResult::new(self.task_id))
/// #     }
/// # }
///
/// assert_eq!(
///     <TaskStop as ToolSpec>::EXAMPLES,
///     [r#"{"task_id": "b7"}"#, r#"{"task_id": "shell-2"}"#]
/// );
/// ```
///
/// ## `read_only`, `concurrency_safe`, `destructive`
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
/// #[tool]
/// impl Tool for Bash {
///     type Output = String;
///     async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
///         Ok(ToolResult::new(format!("would run {}", self.command)))
///     }
///
///     fn user_facing_name(&self) -> std::borrow::Cow<'_, str> {
///         format!("Bash({})", self.command).into()
///     }
/// }
///
/// let git = Bash { command: "git status".into() };
/// assert!(git.is_read_only() && git.is_concurrency_safe() && !git.is_destructive());
/// let call = tool_sdk::dyn_tool::<Bash>()
///     .parse_input(&serde_json::json!({"command": "git status"}))
///     .unwrap();
/// assert!(call.is_read_only());
/// assert_eq!(call.user_facing_name(), "Bash(git status)");
/// let rm = Bash { command: "rm -rf target".into() };
/// assert!(!rm.is_read_only() && !rm.is_concurrency_safe());
/// ```
///
/// ## `enabled_if` and `test_only`
///
/// ```
/// use tool_sdk::prelude::*;
///
/// fn web_enabled() -> bool {
///     std::env::var_os("MY_HOST_OFFLINE").is_none()
/// }
///
/// /// Fetches a URL.
/// #[tool(name = "WebFetch", enabled_if = web_enabled, max_result_size_chars = 100_000)]
/// #[derive(Deserialize, JsonSchema)]
/// pub struct WebFetch {
///     /// The URL.
///     pub url: String,
/// }
/// # #[tool]
/// # impl Tool for WebFetch {
/// #     type Output = String;
/// #     async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
/// #         Ok(ToolResult::new(self.url))
/// #     }
/// # }
///
/// /// Asks for permission every time; for permission tests.
/// #[tool(name = "TestingPermission", read_only, test_only, max_result_size_chars = 1_000)]
/// #[derive(Deserialize, JsonSchema)]
/// pub struct TestingPermission {}
/// # #[tool]
/// # impl Tool for TestingPermission {
/// #     type Output = String;
/// #     async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
/// #         Ok(ToolResult::new(String::new()))
/// #     }
/// # }
///
/// let testing = tool_sdk::registration::registrations()
///     .find(|registration| registration.name == "TestingPermission")
///     .unwrap();
/// assert!(testing.is_registered(true) && !testing.is_registered(false));
/// ```
///
/// ## Function form
///
/// ```
/// use tool_sdk::prelude::*;
/// # use tool_registry as _; // the JSON Schema engine, for the `i64` fields' `format`
///
/// /// The numbers to add.
/// #[derive(Deserialize, JsonSchema)]
/// pub struct AddArgs {
///     /// The first addend.
///     pub a: i64,
///     /// The second addend.
///     pub b: i64,
/// }
///
/// /// Adds two numbers.
/// #[tool(name = "Add", read_only, concurrency_safe, max_result_size_chars = 1_000)]
/// async fn add(input: AddArgs, _ctx: &ToolUseContext) -> Result<i64, ToolError> {
///     Ok(input.a + input.b)
/// }
///
/// /// Reports the time of day.
/// #[tool(name = "Now", read_only, max_result_size_chars = 100)]
/// async fn now() -> Result<String, ToolError> {
///     Ok("noon".to_owned())
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() {
/// let tool = tool_sdk::dyn_tool::<add>();
/// let call = tool.parse_input(&serde_json::json!({"a": 2, "b": 3})).unwrap();
/// let output = call.call(&ToolUseContext::detached("toolu_1")).await.unwrap();
/// assert_eq!(output.content.text(), "5");
///
/// let now = tool_sdk::dyn_tool::<now>();
/// assert_eq!(now.input_schema()["properties"], serde_json::json!({}));
/// assert!(now.parse_input(&serde_json::json!({})).is_ok());
/// # }
/// ```
///
/// # Conditional registration
///
/// `#[cfg(...)]` on the item (before or after `#[tool]`) removes the tool, its impls and its
/// registration. A tool crate that the final binary never names is not linked, and its tools
/// are missing: name it once with `use my_tools as _;` (see `tool_sdk::registration`).
#[proc_macro_attribute]
pub fn tool(args: TokenStream, item: TokenStream) -> TokenStream {
    let _expansion = paths::Expansion::start();
    expand::tool(args.into(), item.into()).into()
}

/// The one declaration of `tool_sdk::Tool`'s optional hooks, turned into every place that
/// needs them; used by `tool_sdk` itself only.
#[doc(hidden)]
#[proc_macro_attribute]
pub fn __hook_table(args: TokenStream, item: TokenStream) -> TokenStream {
    let _expansion = paths::Expansion::start();
    hooks::expand(&args.into(), item.into())
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}
