//! [`DynTool`]: the object-safe form of a tool that registries store (`Arc<dyn DynTool>`),
//! erased over `serde_json::Value` input. Every `#[tool]` type gets one through [`crate::TypedTool`];
//! tools that exist only at run time (JSON definitions, MCP tools) implement it directly.

use std::any::Any;
use std::borrow::Cow;
use std::fmt;

use futures::future::BoxFuture;
use serde_json::Value;

use crate::blocks::ToolResultContent;
use crate::callers::Callers;
use crate::context::ToolUseContext;
use crate::input::InputError;
use crate::permission::{PermissionResult, ValidationResult};
use crate::result::{ToolError, ToolOutput};
use crate::tool::{
    DeclaredFlag, InterruptBehavior, MaxResultSize, PermissionMatcher, SearchOrRead, TaskSupport,
};

/// Where a tool was defined: the `#[tool]` attribute's file, line and module.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DefinitionSite {
    /// Source file, as `file!()` gives it.
    pub file: &'static str,
    /// Line of the annotated item.
    pub line: u32,
    /// Module path, as `module_path!()` gives it.
    pub module_path: &'static str,
}

impl fmt::Display for DefinitionSite {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{} ({})", self.file, self.line, self.module_path)
    }
}

/// The raw server and tool names of an MCP tool (the reference's `mcpInfo`, SPEC §10).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct McpInfo {
    /// The server's name as configured, not normalised.
    pub server_name: String,
    /// The tool's name as the server sent it, not normalised.
    pub tool_name: String,
}

/// The static facts of a tool that registries, search and export read (SPEC §1.1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolMeta {
    /// The primary name.
    pub name: Cow<'static, str>,
    /// Other names the tool answers to.
    pub aliases: Vec<Cow<'static, str>>,
    /// The 3–10 word capability phrase ToolSearch scores against.
    pub search_hint: Option<Cow<'static, str>>,
    /// The result-size limit (SPEC §9).
    pub max_result_size_chars: MaxResultSize,
    /// Load through ToolSearch only (SPEC §4.1).
    pub should_defer: bool,
    /// Never defer (SPEC §4.1 rule 1).
    pub always_load: bool,
    /// The tool came from an MCP server.
    pub is_mcp: bool,
    /// The raw MCP names, for MCP tools.
    pub mcp_info: Option<McpInfo>,
    /// Ask the provider for strict schema adherence (SPEC §8.4).
    pub strict: bool,
    /// The opt-in coercion mode for this tool's input (`tool_sdk::input::coerce`): a number
    /// or boolean sent as a string, an array or object sent as JSON text, is corrected and
    /// traced instead of refused. Default `false`.
    pub coerce_input: bool,
    /// How `read_only` was declared.
    pub read_only: DeclaredFlag,
    /// How `concurrency_safe` was declared.
    pub concurrency_safe: DeclaredFlag,
    /// How `destructive` was declared.
    pub destructive: DeclaredFlag,
    /// Whether the tool reaches outside the local machine (the MCP `openWorldHint`, SPEC §10).
    /// [`DeclaredFlag::Default`] is read fail-closed by exports: open world.
    pub open_world: DeclaredFlag,
    /// Whether calling twice with one input has no further effect (the MCP `idempotentHint`).
    /// Exports read [`DeclaredFlag::Default`] (and [`DeclaredFlag::PerInput`]) as the tool's
    /// read-only answer: a tool that writes nothing is idempotent, any other is not.
    pub idempotent: DeclaredFlag,
    /// A human-readable display name (the MCP `title`), if any.
    pub title: Option<Cow<'static, str>>,
    /// Whether a call may run as a task (the MCP tasks extension, SEP-2663); default
    /// [`TaskSupport::Forbidden`].
    pub task: TaskSupport,
    /// The OAuth scopes a call needs, from a server that checks access tokens (see
    /// [`crate::ToolSpec::SCOPES`]); default none.
    pub scopes: Vec<Cow<'static, str>>,
    /// Example inputs, each a JSON object as text, in declaration order: exported as the
    /// Anthropic tool definition's `input_examples` ("tool use examples", beta header
    /// `advanced-tool-use-2025-11-20`), the first as the root `example` of Gemini's subset
    /// `parameters` (`Schema.example`), and shown in generated docs. Kept as text so that a
    /// tool that declares none costs nothing; `tool_registry::ToolRegistry::check_examples`
    /// checks each against the tool's input parsing.
    pub examples: Vec<Cow<'static, str>>,
    /// Also append [`examples`](Self::examples) to the description sent to APIs with no slot
    /// for example inputs (OpenAI Chat Completions and Responses, MCP `tools/list`, Gemini's
    /// `parametersJsonSchema` form; checked 2026-12-03 against openai 3.60.0's
    /// `FunctionDefinition` / `FunctionTool`, MCP 2025-11-25 `Tool` and google-genai 3.6.1's
    /// `FunctionDeclaration`). Default `false`.
    pub examples_in_description: bool,
    /// The schema name of the Rust type a [`crate::Tool`]'s input is parsed into
    /// (`JsonSchema::schema_name`: the type's own name for a derived schema, `string` for
    /// `String`), for messages that name it; `None` for tools defined at run time (MCP,
    /// JSON-defined).
    pub input_type: Option<Cow<'static, str>>,
    /// Who may call the tool: the model itself, code it runs in the provider's sandbox
    /// (programmatic tool calling), or both; default [`Callers::Direct`]. Exports write it as
    /// `allowed_callers` where the API has that field; a call from a caller it does not allow
    /// is answered with an error result and never run (see [`crate::callers`]).
    pub callers: Callers,
}

impl ToolMeta {
    /// Facts with the fail-closed defaults: no aliases, no hint, not deferred, not MCP.
    pub fn new(name: impl Into<Cow<'static, str>>, max_result_size_chars: MaxResultSize) -> Self {
        Self {
            name: name.into(),
            aliases: Vec::new(),
            search_hint: None,
            max_result_size_chars,
            should_defer: false,
            always_load: false,
            is_mcp: false,
            mcp_info: None,
            strict: false,
            coerce_input: false,
            read_only: DeclaredFlag::Default,
            concurrency_safe: DeclaredFlag::Default,
            destructive: DeclaredFlag::Default,
            open_world: DeclaredFlag::Default,
            idempotent: DeclaredFlag::Default,
            title: None,
            task: TaskSupport::Forbidden,
            scopes: Vec::new(),
            examples: Vec::new(),
            examples_in_description: false,
            input_type: None,
            callers: Callers::Direct,
        }
    }

    /// `true` when `name` is the primary name or an alias; exact and case-sensitive (SPEC §8.1
    /// `toolMatchesName`).
    pub fn matches_name(&self, name: &str) -> bool {
        self.name == name || self.aliases.iter().any(|alias| alias == name)
    }
}

/// A tool as a registry holds it: facts, schema, and a parser that yields a runnable call.
///
/// Every method that carries something of the tool (whether it is offered, its schemas, where
/// it was defined) has no default, so a hand-written wrapper around another tool states each
/// one and cannot drop what the inner tool says by leaving a method out. Only `name` (read
/// from `meta`) and `dispatch` (parse, then the call's own check and `call`) have defaults.
pub trait DynTool: Send + Sync + 'static {
    /// The static facts.
    fn meta(&self) -> &ToolMeta;

    /// The primary name.
    fn name(&self) -> &str {
        &self.meta().name
    }

    /// Whether the tool is offered right now (SPEC §7); `true` for a tool that is always
    /// offered.
    fn is_enabled(&self) -> bool;

    /// The description sent to the API (the reference's `prompt()`).
    fn prompt(&self) -> Cow<'_, str>;

    /// The input schema: an object schema with no `$schema` key. Tools with a raw JSON Schema
    /// ([`DynTool::has_json_schema`]) return it as supplied (it may name its draft in
    /// `$schema`); provider exports normalise every schema.
    fn input_schema(&self) -> &Value;

    /// `true` when the schema is a raw JSON Schema supplied at run time (an MCP or JSON-defined
    /// tool) rather than generated from a Rust type; the schema cache keys such tools by
    /// schema too (SPEC §8.4), and finds an instance it has rendered again by identity, so a
    /// tool's name, this flag and its schema must not change over the life of an instance
    /// (make a new instance for a new schema, as MCP imports do for each `tools/list`).
    fn has_json_schema(&self) -> bool;

    /// [`DynTool::input_schema`] again when that schema is shared by the whole process and
    /// never freed, else `None`. Every [`crate::TypedTool`]'s is: one per tool
    /// type (and coercion setting and output-schema fallback), built at its first use. No
    /// other schema can ever have the address of such a schema, so exporters may key
    /// per-process memos of what they derive from it (an MCP server's listed `inputSchema`,
    /// say) by that address. An implementation returning `Some` must return the same
    /// reference as `input_schema`, at the same address on every call.
    fn shared_input_schema(&self) -> Option<&'static Value>;

    /// The schema of the tool's structured output, if it declares one (MCP `outputSchema`).
    fn output_schema(&self) -> Option<&Value>;

    /// Where the tool was defined, for error messages about duplicates; `None` for a tool
    /// made at run time.
    fn definition_site(&self) -> Option<DefinitionSite>;

    /// Parses and checks one call's input (a `tool_use` block's `input`, a JSON object).
    ///
    /// The input is borrowed: the caller keeps it (an orchestrator shows it to observers and
    /// permission rules after the parse), and a Rust tool reads it in place, copying only
    /// what its input type keeps.
    ///
    /// # Errors
    /// [`InputError`] with every issue found (SPEC §5.4 step 3).
    fn parse_input(&self, input: &Value) -> Result<Box<dyn ToolCall>, InputError>;

    /// Parses `input` (borrowed, as [`DynTool::parse_input`] reads it), then returns the call
    /// as one future that runs the tool's own check ([`ToolCall::validate_input`]) and, when
    /// it passes, [`ToolCall::call`]: the erased layer alone, for tests and measurements. It
    /// does none of the rest of the SPEC §5.4 pipeline: no permission decision, no observers,
    /// no panic catching, no large-result handling. Hosts run calls with
    /// `tool_registry::Orchestrator`, which does all of it (an MCP server answering
    /// `tools/call` included: `Orchestrator::run_tool_use`).
    ///
    /// The future borrows `ctx`, as [`ToolCall::call`]'s does. To run the call on another task,
    /// move the context and an `Arc` of the tool into that task and dispatch there
    /// (`tokio::spawn(async move { Ok::<_, InputError>(tool.dispatch(&input, &ctx)?.await) })`),
    /// or call [`DynTool::parse_input`] first, to see input errors at once, and move the parsed
    /// call and the context into the task.
    ///
    /// ```
    /// use futures::executor::block_on;
    /// use tool_sdk::prelude::*;
    /// use tool_sdk::{ToolResultContent, dyn_tool};
    /// use tool_registry as _; // the JSON Schema engine: `i64` fields carry a `format`
    ///
    /// /// Adds two numbers.
    /// #[tool(name = "Add", read_only, concurrency_safe, max_result_size_chars = 1_000)]
    /// #[derive(Deserialize, JsonSchema)]
    /// struct Add {
    ///     a: i64,
    ///     b: i64,
    /// }
    ///
    /// #[tool]
    /// impl Tool for Add {
    ///     type Output = i64;
    ///     async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<i64>, ToolError> {
    ///         Ok(ToolResult::new(self.a + self.b))
    ///     }
    /// }
    ///
    /// let add = dyn_tool::<Add>();
    /// let ctx = ToolUseContext::detached("toolu_1");
    /// let output = block_on(add.dispatch(&serde_json::json!({"a": 2, "b": 3}), &ctx).unwrap());
    /// assert_eq!(output.unwrap().content, ToolResultContent::Text("5".into()));
    ///
    /// let ctx = ToolUseContext::detached("toolu_2");
    /// let error = add.dispatch(&serde_json::json!({"a": 2}), &ctx);
    /// assert_eq!(error.err().unwrap().to_string(), "Required parameter `b` is missing");
    /// ```
    ///
    /// # Errors
    /// [`InputError`] at once when the input does not parse (as [`DynTool::parse_input`]).
    /// The future fails with a [`ToolError`] carrying `validate_input`'s message when the tool
    /// refuses the input (its `error_code` is not carried, as in the orchestrator's
    /// `tool_result`; call [`DynTool::parse_input`] and [`ToolCall::validate_input`] to see it),
    /// and with the call's own error otherwise.
    fn dispatch<'c>(
        &self,
        input: &Value,
        ctx: &'c ToolUseContext,
    ) -> Result<BoxFuture<'c, Result<ToolOutput, ToolError>>, InputError> {
        let call = self.parse_input(input)?;
        Ok(Box::pin(async move {
            if let ValidationResult::Invalid { message, .. } = call.validate_input(ctx).await {
                return Err(ToolError::new(message));
            }
            call.call(ctx).await
        }))
    }
}

impl fmt::Debug for dyn DynTool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DynTool")
            .field("name", &self.name())
            .finish_non_exhaustive()
    }
}

/// One parsed call, ready to check and run.
///
/// `Any` as a supertrait lets [`ToolCall::inputs_equivalent`] compare two calls of one tool
/// type; every implementor is `'static` already.
pub trait ToolCall: Send + Sync + Any {
    crate::hooks::tool_call_hooks!();

    /// Runs the call with `ctx`. The future borrows the context, which the caller keeps: to
    /// run the call on another task, move the context into that task with it
    /// (`tokio::spawn(async move { call.call(&ctx).await })`); to keep one too, clone it first
    /// (clones share the abort token, so cancelling either cancels the call).
    fn call<'c>(
        self: Box<Self>,
        ctx: &'c ToolUseContext,
    ) -> BoxFuture<'c, Result<ToolOutput, ToolError>>;
}
