//! The tool interface of SPEC §1, split in two: [`ToolSpec`], which `#[tool(...)]` generates
//! from the attribute on the input struct, and [`Tool`], which the tool author writes (under
//! `#[tool]`, which adds the hidden [`ToolImpl`]). Their optional hooks are declared once, in
//! the crate's hook table (`hooks.rs`).

use std::borrow::Cow;
use std::future::Future;

use futures::future::BoxFuture;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;

use crate::blocks::ToolResultContent;
use crate::context::ToolUseContext;
use crate::output::{Finish, OutputMapping};
pub use crate::output::{OutputRef, ToolOutputValue, default_map_result, default_map_result_owned};
use crate::overrides::{Hook, Overrides};
use crate::permission::{PermissionResult, ValidationResult};
use crate::result::{ToolError, ToolOutput, ToolResult};
use crate::schema::SchemaFns;

/// A tool's result-size limit, `max_result_size_chars` (SPEC §1.1, §9).
///
/// A successful result longer than the effective threshold is persisted to disk and replaced
/// by a preview when the host's orchestrator has a result directory. The threshold is
/// `min(limit, cap)` chars, where `cap` is the orchestrator's `max_result_size_chars` (50,000
/// by default, SPEC §9 `getPersistenceThreshold`). `Unbounded` is the reference's `Infinity`:
/// never persisted, not even by the per-message budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MaxResultSize {
    /// At most this many chars (never 0; `#[tool]` rejects 0 at compile time).
    Chars(usize),
    /// Never persisted, whatever the size (the Read tool's setting in the reference).
    Unbounded,
}

impl MaxResultSize {
    /// The limit in chars, or `None` when unbounded.
    pub const fn chars(self) -> Option<usize> {
        match self {
            Self::Chars(limit) => Some(limit),
            Self::Unbounded => None,
        }
    }
}

/// How a flag was declared in `#[tool(...)]`, for listings, generated docs and exports that
/// need one answer for every input (MCP `annotations`, SPEC §10).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DeclaredFlag {
    /// Not declared: each flag's own default (SPEC §1.1). `read_only`, `concurrency_safe` and
    /// `destructive` read it as `false` (fail-closed for the first two). An undeclared
    /// `open_world` is `true` everywhere (the MCP `openWorldHint` default, fail-closed):
    /// in exports and in a call's default [`Tool::is_open_world`]. Exports read an undeclared
    /// `idempotent` as the tool's read-only answer.
    Default,
    /// Declared `true` for every input (a bare flag).
    Always,
    /// Declared `false` explicitly.
    Never,
    /// Decided per input by a method. Exports that need one answer read it as undeclared,
    /// each with its fail-closed default (MCP `readOnlyHint` `false`, `destructiveHint`
    /// `true` unless read-only).
    PerInput,
}

impl DeclaredFlag {
    /// The one answer for every input: `true` only for [`DeclaredFlag::Always`]. That is the
    /// fail-closed answer for `read_only` and `concurrency_safe`, and the default answer of
    /// `destructive` (see [`ToolSpec::is_destructive`]); for `open_world` the
    /// fail-closed answer is `true`, so exports do not read `open_world` (nor `idempotent`)
    /// through this.
    pub const fn for_every_input(self) -> bool {
        matches!(self, Self::Always)
    }

    /// The one answer for every input of a flag whose fail-closed default is `true`
    /// (`open_world`, MCP `openWorldHint`): `false` only for [`DeclaredFlag::Never`].
    pub const fn unless_declared_false(self) -> bool {
        !matches!(self, Self::Never)
    }

    /// A short word for listings: `yes`, `no`, `default` (undeclared) or `per-input`.
    pub const fn label(self) -> &'static str {
        match self {
            Self::Default => "default",
            Self::Always => "yes",
            Self::Never => "no",
            Self::PerInput => "per-input",
        }
    }
}

/// Whether a call of the tool may run as a task: started now, followed and answered later
/// (the MCP tasks extension, `io.modelcontextprotocol/tasks`, SEP-2663; the values of MCP
/// 2025-11-25's `execution.taskSupport`). Only a host that runs calls in the background reads
/// it: `tool_registry`'s MCP server turns such a call from a client that declared the
/// extension into a task; every other host runs the call as usual.
///
/// In JSON (a tool defined at run time): `"forbidden"`, `"optional"` or `"required"`.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum TaskSupport {
    /// The call always runs to its result in the request (the default).
    #[default]
    Forbidden,
    /// A call still running after a short moment becomes a task; one that finishes sooner is
    /// answered at once (`#[tool(task = "optional")]`).
    Optional,
    /// Every call becomes a task; a client that cannot follow tasks is refused
    /// (`#[tool(task = "required")]`).
    Required,
}

impl TaskSupport {
    /// The MCP wire word: `forbidden`, `optional` or `required`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Forbidden => "forbidden",
            Self::Optional => "optional",
            Self::Required => "required",
        }
    }
}

/// What a hook's default reads of its tool: the declared name, description and flags.
#[derive(Debug, Clone, Copy)]
pub(crate) struct HookFacts {
    pub(crate) name: &'static str,
    pub(crate) description: &'static str,
    pub(crate) read_only: DeclaredFlag,
    pub(crate) concurrency_safe: DeclaredFlag,
    pub(crate) destructive: DeclaredFlag,
    pub(crate) open_world: DeclaredFlag,
}

impl HookFacts {
    /// `T`'s, from its constants.
    pub(crate) const fn of<T: ToolSpec>() -> Self {
        Self {
            name: T::NAME,
            description: T::DESCRIPTION,
            read_only: T::READ_ONLY,
            concurrency_safe: T::CONCURRENCY_SAFE,
            destructive: T::DESTRUCTIVE,
            open_world: T::OPEN_WORLD,
        }
    }
}

/// The static facts of a tool, generated by `#[tool(...)]` from its attribute.
///
/// Every flag defaults fail-closed (SPEC §1.1, `TOOL_DEFAULTS`): not read-only, not
/// concurrency-safe, not destructive, unless declared otherwise (in the attribute, or in the
/// constants of a hand-written impl). The input is
/// the type itself: `&self` is the parsed input of one call, so input-dependent flags are
/// methods.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a tool: add `#[tool(...)]` above its definition",
    label = "`{Self}` has no `#[tool(...)]` attribute",
    note = "`#[tool(name = \"...\", max_result_size_chars = 100_000)]` on the input struct (with a `///` doc comment as its description) generates the facts `impl Tool` builds on; `tool` comes with `tool_sdk::prelude`"
)]
pub trait ToolSpec: Sized + Send + Sync + 'static {
    /// The primary name, `^[A-Za-z0-9_-]{1,64}$`; lookup is exact and case-sensitive (SPEC §8.1).
    const NAME: &'static str;
    /// Other names the tool answers to (SPEC §1.3, e.g. `Agent` ← `Task`).
    const ALIASES: &'static [&'static str] = &[];
    /// What the model is told: the doc comment, or the attribute's `description`.
    const DESCRIPTION: &'static str;
    /// A 3–10 word capability phrase for ToolSearch (SPEC §1.1, §3.5).
    const SEARCH_HINT: Option<&'static str> = None;
    /// The result-size limit (SPEC §9).
    const MAX_RESULT_SIZE_CHARS: MaxResultSize;
    /// Load lazily through ToolSearch (SPEC §4.1).
    const SHOULD_DEFER: bool = false;
    /// Never defer, even for MCP tools (SPEC §4.1 rule 1).
    const ALWAYS_LOAD: bool = false;
    /// How `read_only` was declared.
    const READ_ONLY: DeclaredFlag = DeclaredFlag::Default;
    /// How `concurrency_safe` was declared.
    const CONCURRENCY_SAFE: DeclaredFlag = DeclaredFlag::Default;
    /// How `destructive` was declared.
    const DESTRUCTIVE: DeclaredFlag = DeclaredFlag::Default;
    /// Whether the tool reaches outside the local machine (the MCP `openWorldHint`, SPEC §10).
    /// Undeclared, it is `true` in exports and in [`Tool::is_open_world`] (fail-closed, the
    /// MCP default).
    const OPEN_WORLD: DeclaredFlag = DeclaredFlag::Default;
    /// Whether calling twice with one input has no further effect (the MCP `idempotentHint`).
    const IDEMPOTENT: DeclaredFlag = DeclaredFlag::Default;
    /// A human-readable display name (the MCP `title`), if any.
    const TITLE: Option<&'static str> = None;
    /// Whether a call may run as a task (`#[tool(task = "optional" | "required")]`; MCP tasks
    /// extension, SEP-2663).
    const TASK: TaskSupport = TaskSupport::Forbidden;
    /// The OAuth scopes a call needs (`#[tool(scopes = "files:read files:write")]`), read by a
    /// server that checks access tokens (tool-registry's `mcp::serve::auth`): a client whose
    /// token lacks one does not see the tool and cannot call it. Default: none.
    const SCOPES: &'static [&'static str] = &[];
    /// Who may call the tool (`#[tool(callers = ["direct", "programmatic"])]`): the model,
    /// code it runs in the provider's sandbox (programmatic tool calling), or both. Default
    /// [`Callers::Direct`](crate::callers::Callers::Direct): only the model, nothing new in
    /// exported definitions.
    const CALLERS: crate::callers::Callers = crate::callers::Callers::Direct;
    /// Example inputs, each a JSON object as text, shown to the model next to the schema
    /// (Anthropic "tool use examples": the tool definition's `input_examples`, beta header
    /// `advanced-tool-use-2025-11-20`; the first as the root `example` of Gemini's subset
    /// `parameters`) and in generated docs. `#[tool(example = r#"{...}"#)]`
    /// checks at compile time that each parses as a JSON object;
    /// `tool_registry::ToolRegistry::check_examples` checks that each passes the tool's own
    /// input parsing.
    const EXAMPLES: &'static [&'static str] = &[];
    /// Also append [`EXAMPLES`](Self::EXAMPLES) to the description sent to APIs that have no
    /// slot for example inputs (OpenAI Chat Completions and Responses, MCP `tools/list`, and
    /// Gemini's `parametersJsonSchema` form); `#[tool(examples_in_description)]`. Default
    /// `false`: those APIs get the description alone.
    const EXAMPLES_IN_DESCRIPTION: bool = false;
    /// Ask providers for strict schema adherence (SPEC §1.1 `strict`, §8.4).
    const STRICT: bool = false;
    /// Which of the three flag methods below answer per input rather than as the flag
    /// constants say. A tool whose facts are one `Facts` constant (every function-form tool,
    /// and a struct whose flags are fixed) has none, through the blanket impl; `#[tool]` on a
    /// struct with a flag decided per input lists its methods; anything else keeps the default
    /// (all of them).
    #[doc(hidden)]
    const __FLAG_METHODS: Overrides = Overrides::ALL;

    crate::hooks::tool_spec_hooks!();
}

/// What a tool's input must be: [`DeserializeOwned`] (the model's JSON arguments are parsed
/// into it) and [`JsonSchema`] (the schema the model is shown). Implemented for every such
/// type, and for the tool type `#[tool]` makes of an `async fn`, which forwards to its input
/// type (and is itself neither `Deserialize` nor `JsonSchema`: read it through [`InputOf`]).
///
/// The bounds sit on the one blanket impl rather than on the trait, and the impl is
/// `do_not_recommend`, so a missing derive is reported as "`Glob` is a tool's input: add
/// `#[derive(Deserialize, JsonSchema)]` to it", once, rather than through serde's and
/// schemars' internal paths. The methods forward to those two traits (the schema methods
/// through [`ToolInput::__SCHEMA`]); [`InputOf`] turns them back into `Deserialize` and
/// `JsonSchema` for generic code.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is a tool's input: add `#[derive(Deserialize, JsonSchema)]` to it",
    label = "`{Self}` needs `Deserialize` and `JsonSchema`",
    note = "the model's arguments are parsed into `{Self}` (`Deserialize`) and the model is shown its schema (`JsonSchema`); both derives come with `tool_sdk::prelude`"
)]
pub trait ToolInput: Sized {
    /// `Deserialize::deserialize`.
    #[doc(hidden)]
    fn __deserialize<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error>;
    /// The `JsonSchema` functions themselves, for schema generation that is not generic.
    #[doc(hidden)]
    const __SCHEMA: SchemaFns;
    /// `JsonSchema::schema_name`, through [`ToolInput::__SCHEMA`].
    #[doc(hidden)]
    fn __schema_name() -> Cow<'static, str> {
        (Self::__SCHEMA.schema_name)()
    }
    /// `JsonSchema::schema_id`, through [`ToolInput::__SCHEMA`].
    #[doc(hidden)]
    fn __schema_id() -> Cow<'static, str> {
        (Self::__SCHEMA.schema_id)()
    }
    /// `JsonSchema::json_schema`, through [`ToolInput::__SCHEMA`].
    #[doc(hidden)]
    fn __json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        (Self::__SCHEMA.json_schema)(generator)
    }
    /// `JsonSchema::inline_schema`, through [`ToolInput::__SCHEMA`].
    #[doc(hidden)]
    fn __inline_schema() -> bool {
        (Self::__SCHEMA.inline_schema)()
    }
}

#[diagnostic::do_not_recommend]
impl<T: DeserializeOwned + JsonSchema> ToolInput for T {
    fn __deserialize<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        <T as serde::Deserialize<'de>>::deserialize(deserializer)
    }
    const __SCHEMA: SchemaFns = SchemaFns::of::<T>();
}

/// A [`ToolInput`] as `Deserialize` and `JsonSchema` again, for generic code over
/// `T: Tool`: `serde_json::from_value::<InputOf<T>>(v)?.0`. Its schema is exactly `T`'s.
#[derive(Debug, Clone, PartialEq)]
pub struct InputOf<T>(pub T);

impl<'de, T: ToolInput> serde::Deserialize<'de> for InputOf<T> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        T::__deserialize(deserializer).map(Self)
    }
}

impl<T: ToolInput> JsonSchema for InputOf<T> {
    fn schema_name() -> Cow<'static, str> {
        T::__schema_name()
    }
    fn schema_id() -> Cow<'static, str> {
        T::__schema_id()
    }
    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        T::__json_schema(generator)
    }
    fn inline_schema() -> bool {
        T::__inline_schema()
    }
}

/// What `#[tool]` on `impl Tool for X` writes beside the block: which optional hooks the block
/// overrides (a function-form tool has it through one blanket impl over `FnTool`: none).
/// Never written by hand; an `impl Tool` without the attribute fails to compile with a message
/// saying to add it.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`impl Tool for {Self}` needs `#[tool]` on the impl block",
    label = "`{Self}` implements `Tool` without `#[tool]` on the impl",
    note = "write `#[tool]` (no arguments) on the line above `impl Tool for {Self}`: it records which hooks the block overrides and writes the call's runner, so the tool compiles only what it uses; `tool` comes with `tool_sdk::prelude`"
)]
pub trait ToolImpl {
    /// Which hooks the impl block overrides. See [`crate::overrides`].
    const __OVERRIDES: Overrides;
}

/// The behaviour of a tool: the one method an author must write, [`Tool::call`], and optional
/// hooks with neutral defaults (SPEC §1.1).
///
/// Implement it for a struct annotated with `#[tool(...)]`, with `#[tool]` (no arguments) on
/// the `impl Tool` block too: the struct is the tool's input and must be `Deserialize` and
/// `JsonSchema`; the attribute on the block records which hooks it overrides, so the tool
/// compiles only those (see [`macro@crate::tool`]). An `impl Tool` without it does not
/// compile, and the error says to add it.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is annotated with `#[tool]` but does not implement `Tool`",
    label = "this tool has no `impl Tool`",
    note = "add `#[tool] impl Tool for {Self} {{ type Output = String; async fn call(self, ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {{ ... }} }}` (names from `tool_sdk::prelude`)"
)]
pub trait Tool: ToolSpec + ToolInput + ToolImpl {
    /// What a successful call produces; turned into `tool_result` content by
    /// [`Tool::map_result`].
    type Output: ToolOutputValue + Send + 'static;

    /// Runs the call and maps its result, as one boxed future that borrows the call's context:
    /// the parsed input and the context in, the result already mapped to `tool_result` content
    /// ([`ToolOutput`]) or the call's error out. The future is [`call`](Tool::call)'s own,
    /// wrapped in [`Finish`] (a struct, not a second state machine).
    ///
    /// For the struct form, `#[tool]` on the impl block writes it in the tool's own impl, so
    /// that the code which depends on the call's body is compiled with the tool's own and, for
    /// a non-generic impl, is not part of the crate's metadata (such a method, unlike a
    /// constant holding a closure, is not encoded for other crates). For the function form it
    /// is the SDK's one impl of `Tool` for function-form tools: the function's own future,
    /// wrapped in `FinishFn`, instantiated per tool. The default, the SDK's generic runner, is
    /// there only so that an impl without `#[tool]` reports the one error that says to add
    /// it. A tool that overrides `validate_input` is dispatched through the runner that checks
    /// first. Used by the SDK only.
    #[doc(hidden)]
    fn __run(self, ctx: &ToolUseContext) -> BoxFuture<'_, Result<ToolOutput, ToolError>> {
        Box::pin(Finish::<Self, _>::new(self.call(ctx), ctx))
    }

    /// Runs the call. An `Err` becomes an error `tool_result` whose text is
    /// [`ToolError::to_model_text`] (SPEC §5.4 step 7).
    ///
    /// Write it as an `async fn`: its whole body then runs when the host polls the future. A
    /// hand-written `fn call(..) -> impl Future` runs the code before its returned future when
    /// the host asks for the call ([`crate::ToolCall::call`], or [`crate::DynTool::dispatch`]
    /// unless the tool overrides `validate_input`), not when the future is first polled.
    fn call(
        self,
        ctx: &ToolUseContext,
    ) -> impl Future<Output = Result<ToolResult<Self::Output>, ToolError>> + Send;

    crate::hooks::tool_hooks!();
}

/// The input of a function-form tool that takes no parameters: the model sends `{}`.
///
/// Its schema is `{"type":"object","properties":{}}` (plus the `"additionalProperties": false`
/// every input schema carries, [`crate::schema`]), so a tool's input parsing refuses any key.
///
/// ```
/// let none: tool_sdk::tool::NoInput = serde_json::from_str("{}").unwrap();
/// assert_eq!(none, tool_sdk::tool::NoInput {});
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Deserialize, JsonSchema)]
pub struct NoInput {}

/// The output schema of `T`: its JSON Schema with the same root rules as input schemas
/// ([`crate::schema::normalize_root`] is not applied, since an output need not be an object;
/// only `$schema` and `title` are dropped). Generated once per type in the process and kept;
/// each call returns a copy.
pub fn output_schema_for<T: JsonSchema>() -> serde_json::Value {
    crate::schema::output_schema_from(SchemaFns::of::<T>()).clone()
}

/// What a call does when the user interrupts the turn (SPEC §5.5 `interruptBehavior`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum InterruptBehavior {
    /// Stop the call and answer it with the rejection message.
    Cancel,
    /// Let the call finish; the interruption waits for it.
    #[default]
    Block,
}

/// Whether an input searches or reads (the reference's `isSearchOrReadCommand`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct SearchOrRead {
    /// The input searches (grep, find, glob).
    pub is_search: bool,
    /// The input reads (cat, head, a file read).
    pub is_read: bool,
}

/// Decides whether a content permission rule covers one input: called with the rule's content
/// (`git *` for `Bash(git *)`, `domain:example.com` for `WebFetch(domain:example.com)`).
///
/// An input may hold several actions (a shell command line `a && b`). Then an allow rule must
/// cover every one of them, while a deny or ask rule applies when it covers any one:
/// [`PermissionMatcher::per_behavior`] takes the two predicates. [`PermissionMatcher::new`]
/// uses one predicate for every rule, for inputs that are one action.
pub struct PermissionMatcher {
    allows: RulePredicate,
    restricts: Option<RulePredicate>,
}

/// A predicate over rule contents.
type RulePredicate = Box<dyn Fn(&str) -> bool + Send + Sync>;

impl PermissionMatcher {
    /// A matcher from one predicate over rule contents, used for allow, deny and ask rules.
    pub fn new(matches: impl Fn(&str) -> bool + Send + Sync + 'static) -> Self {
        Self {
            allows: Box::new(matches),
            restricts: None,
        }
    }

    /// A matcher with one predicate for allow rules (`allows`: the rule covers every action in
    /// the input) and one for deny and ask rules (`restricts`: the rule covers some action in
    /// it, or the input cannot be read well enough to tell).
    pub fn per_behavior(
        allows: impl Fn(&str) -> bool + Send + Sync + 'static,
        restricts: impl Fn(&str) -> bool + Send + Sync + 'static,
    ) -> Self {
        Self {
            allows: Box::new(allows),
            restricts: Some(Box::new(restricts)),
        }
    }

    /// `true` when an allow rule with this content covers the input.
    pub fn matches(&self, rule_content: &str) -> bool {
        (self.allows)(rule_content)
    }

    /// `true` when a deny or ask rule with this content applies to the input.
    pub fn restricts(&self, rule_content: &str) -> bool {
        match &self.restricts {
            Some(restricts) => restricts(rule_content),
            None => (self.allows)(rule_content),
        }
    }
}

impl std::fmt::Debug for PermissionMatcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PermissionMatcher(..)")
    }
}

/// How every tool type's output becomes result content, as [`Finish`] reads it:
/// `T::map_result` when `T` overrides it, else the default mapping, one copy per output type
/// rather than per tool. A constant, so only the chosen function is compiled.
impl<T: Tool> OutputMapping for T {
    type Output = T::Output;
    const MAP: fn(T::Output, &str) -> ToolResultContent = if T::__OVERRIDES.has(Hook::MapResult) {
        T::map_result
    } else {
        crate::output::default_map::<T::Output>
    };
}
