//! The erasure layer: a Rust tool type `T` as a [`DynTool`].
//!
//! What is generic over `T` is only what must be: reading the input into `T`, the calls into
//! `T`'s own [`Tool`] methods, and mapping its output (`TypedFns`, `TypedCall`). The rest
//! (schemas and their caching, the schema check, the facts, boxing) is written once, here,
//! over `serde_json::Value`, in the non-generic [`TypedTool`].

use std::any::{Any, TypeId};
use std::borrow::Cow;
use std::collections::HashMap;
use std::marker::PhantomData;
use std::sync::OnceLock;
use std::sync::{Arc, LazyLock, RwLock};

use futures::future::BoxFuture;
use serde_json::Value;

use crate::blocks::ToolResultContent;
use crate::context::ToolUseContext;
use crate::dyn_tool::{DefinitionSite, DynTool, ToolCall, ToolMeta, ToolOutput};
use crate::input::{self, InputError, InputValidator};
use crate::permission::{PermissionResult, ValidationResult};
use crate::result::ToolError;
use crate::schema::input_schema_for;
use crate::tool::{InputOf, InterruptBehavior, PermissionMatcher, SearchOrRead, Tool};

/// Reads a checked input into a call of one tool type.
type ParseFn = fn(Value, &InputValidator) -> Result<Box<dyn ToolCall>, InputError>;

/// Reads a checked input and returns the call as one future that checks and runs it.
type DispatchFn = fn(
    Value,
    &InputValidator,
    ToolUseContext,
) -> Result<BoxFuture<'static, Result<ToolOutput, ToolError>>, InputError>;

/// The functions of one tool type that [`TypedTool`] calls: one table per type, in a
/// `static`, so the erased tool itself is the same type for every tool.
struct TypedFns {
    /// `TypeId::of::<T>`: the key of `T`'s schemas in [`SCHEMAS`].
    type_id: fn() -> TypeId,
    meta: fn() -> ToolMeta,
    input_schema: fn() -> Value,
    /// [`Tool::output_schema`]: the author's override, `None` by default.
    output_schema: fn() -> Option<Value>,
    prompt: fn() -> Cow<'static, str>,
    is_enabled: fn() -> bool,
    parse: ParseFn,
    dispatch: DispatchFn,
}

struct FnsOf<T>(PhantomData<fn() -> T>);

impl<T: Tool> FnsOf<T> {
    const FNS: TypedFns = TypedFns {
        type_id: TypeId::of::<T>,
        meta: meta_of::<T>,
        input_schema: input_schema_for::<InputOf<T>>,
        output_schema: T::output_schema,
        prompt: T::prompt,
        is_enabled: T::is_enabled,
        parse: parse_call::<T>,
        dispatch: dispatch_call::<T>,
    };
}

fn meta_of<T: Tool>() -> ToolMeta {
    let mut meta = ToolMeta::new(T::NAME, T::MAX_RESULT_SIZE_CHARS);
    meta.aliases = T::ALIASES
        .iter()
        .map(|alias| Cow::Borrowed(*alias))
        .collect();
    meta.search_hint = T::SEARCH_HINT.map(Cow::Borrowed);
    meta.should_defer = T::SHOULD_DEFER;
    meta.always_load = T::ALWAYS_LOAD;
    meta.read_only = T::READ_ONLY;
    meta.concurrency_safe = T::CONCURRENCY_SAFE;
    meta.destructive = T::DESTRUCTIVE;
    meta.open_world = T::OPEN_WORLD;
    meta.idempotent = T::IDEMPOTENT;
    meta.title = T::TITLE.map(Cow::Borrowed);
    meta.examples = T::EXAMPLES
        .iter()
        .map(|example| Cow::Borrowed(*example))
        .collect();
    meta.strict = T::STRICT;
    meta.input_type = Some(<InputOf<T> as schemars::JsonSchema>::schema_name());
    meta
}

fn parse_call<T: Tool>(
    input: Value,
    check: &InputValidator,
) -> Result<Box<dyn ToolCall>, InputError> {
    match input::parse::<T>(input, check) {
        Ok(parsed) => Ok(Box::new(TypedCall(parsed))),
        Err(error) => Err(error),
    }
}

fn dispatch_call<T: Tool>(
    input: Value,
    check: &InputValidator,
    ctx: ToolUseContext,
) -> Result<BoxFuture<'static, Result<ToolOutput, ToolError>>, InputError> {
    let parsed = input::parse::<T>(input, check)?;
    Ok(Box::pin(run::<T>(parsed, ctx, true)))
}

/// Runs one call of `T`: its own check first when `validate` (dispatch without an
/// orchestrator, [`DynTool::dispatch`]; an orchestrator has run the check already), then
/// `T::call`, then `T::map_result`. The one state machine each tool type adds, for both paths.
async fn run<T: Tool>(
    tool: T,
    ctx: ToolUseContext,
    validate: bool,
) -> Result<ToolOutput, ToolError> {
    if validate && let ValidationResult::Invalid { message, .. } = tool.validate_input(&ctx).await {
        return Err(ToolError::new(message));
    }
    let result = tool.call(&ctx).await?;
    Ok(ToolOutput {
        content: T::map_result(result.data, ctx.tool_use_id()),
        new_messages: result.new_messages,
        context_modifier: result.context_modifier,
    })
}

/// What a tool's schemas are, built together on first use and kept: the input schema with
/// its validator, and the output schema.
struct Schemas {
    input: InputValidator,
    output: Option<Value>,
}

/// What decides a [`TypedTool`]'s schemas: its type, whether input coercion is on, and the
/// output schema fallback it was given (as an address).
type SchemasKey = (TypeId, bool, Option<usize>);

/// Every tool type's schemas, built once per process and shared by all its [`TypedTool`]s: a
/// host that builds its pool again (a new session, an MCP server's new pool) reuses them
/// instead of generating and compiling each schema again. Bounded by the number of tool types
/// (and their coercion and output-schema variants); each is leaked on purpose, so that its
/// address identifies it for the rest of the process ([`DynTool::shared_input_schema`]).
static SCHEMAS: LazyLock<RwLock<HashMap<SchemasKey, &'static Schemas>>> =
    LazyLock::new(RwLock::default);

/// The [`DynTool`] of a Rust tool type (a `#[tool]` type, or any `T: Tool`): its facts, read
/// once from `T`'s constants, and its schemas, generated on the first use of `T` in the process
/// and shared by every `TypedTool` of `T` from then on.
///
/// ```
/// use tool_sdk::prelude::*;
/// use tool_sdk::TypedTool;
///
/// /// Says hello.
/// #[tool(name = "Hello", max_result_size_chars = 1_000)]
/// #[derive(Deserialize, JsonSchema)]
/// struct Hello {}
///
/// impl Tool for Hello {
///     type Output = String;
///     async fn call(self, _ctx: &ToolUseContext) -> Result<ToolResult<String>, ToolError> {
///         Ok(ToolResult::new("hello".to_owned()))
///     }
/// }
///
/// let tool = TypedTool::of::<Hello>(None);
/// assert_eq!(tool.name(), "Hello");
/// assert_eq!(tool.input_schema()["type"], "object");
/// ```
pub struct TypedTool {
    meta: ToolMeta,
    site: Option<DefinitionSite>,
    fns: &'static TypedFns,
    /// The output schema when `T::output_schema` gives none (`#[tool]` passes the schema of
    /// `T::Output` when it implements `JsonSchema`).
    output_fallback: Option<fn() -> Option<Value>>,
    schemas: OnceLock<&'static Schemas>,
}

impl TypedTool {
    /// The erased form of `T`, with its definition site if known.
    pub fn of<T: Tool>(site: Option<DefinitionSite>) -> Self {
        let fns = &FnsOf::<T>::FNS;
        Self {
            meta: (fns.meta)(),
            site,
            fns,
            output_fallback: None,
            schemas: OnceLock::new(),
        }
    }

    /// The same tool with the opt-in input coercion mode on ([`crate::input::coerce`]):
    /// unambiguous type mistakes in its arguments are corrected, each traced, instead of
    /// refused. Sets [`ToolMeta::coerce_input`].
    #[must_use]
    pub fn with_input_coercion(mut self) -> Self {
        self.meta.coerce_input = true;
        self.schemas = OnceLock::new();
        self
    }

    /// Uses `schema` as the output schema when [`Tool::output_schema`] gives none;
    /// `#[tool]` registrations pass the schema of `T::Output` when it implements `JsonSchema`.
    #[must_use]
    pub fn with_output_schema(mut self, schema: fn() -> Option<Value>) -> Self {
        self.output_fallback = Some(schema);
        self.schemas = OnceLock::new();
        self
    }

    /// The type's schemas: this instance's, else the process-wide ones of its type (see
    /// [`SCHEMAS`]), else built now and shared. They are built with no lock held (a schema
    /// may be made from another tool's, which takes the lock itself); when two threads build
    /// the same key at once, the first to insert wins and only its schemas are leaked.
    fn schemas(&self) -> &'static Schemas {
        self.schemas.get_or_init(|| {
            let key = (
                (self.fns.type_id)(),
                self.meta.coerce_input,
                self.output_fallback.map(|schema| schema as usize),
            );
            let shared = SCHEMAS
                .read()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .get(&key)
                .copied();
            if let Some(schemas) = shared {
                return schemas;
            }
            let mut input = InputValidator::native((self.fns.input_schema)());
            if self.meta.coerce_input {
                input = input.with_coercion();
            }
            let output = (self.fns.output_schema)()
                .or_else(|| self.output_fallback.and_then(|schema| schema()));
            let built = Schemas { input, output };
            SCHEMAS
                .write()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .entry(key)
                .or_insert_with(|| Box::leak(Box::new(built)))
        })
    }
}

/// The erased, shareable form of `T`, as a registry stores it: `Arc<dyn DynTool>`.
pub fn dyn_tool<T: Tool>() -> Arc<dyn DynTool> {
    Arc::new(TypedTool::of::<T>(None))
}

impl std::fmt::Debug for TypedTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TypedTool")
            .field("name", &self.meta.name)
            .finish_non_exhaustive()
    }
}

impl DynTool for TypedTool {
    fn meta(&self) -> &ToolMeta {
        &self.meta
    }

    fn is_enabled(&self) -> bool {
        (self.fns.is_enabled)()
    }

    fn prompt(&self) -> Cow<'_, str> {
        (self.fns.prompt)()
    }

    fn input_schema(&self) -> &Value {
        self.schemas().input.schema()
    }

    fn shared_input_schema(&self) -> Option<&'static Value> {
        Some(self.schemas().input.schema())
    }

    fn definition_site(&self) -> Option<DefinitionSite> {
        self.site
    }

    fn output_schema(&self) -> Option<&Value> {
        self.schemas().output.as_ref()
    }

    fn parse_input(&self, input: Value) -> Result<Box<dyn ToolCall>, InputError> {
        (self.fns.parse)(input, &self.schemas().input)
    }

    /// As the default, with one allocation (the future) rather than two.
    fn dispatch(
        &self,
        input: Value,
        ctx: ToolUseContext,
    ) -> Result<BoxFuture<'static, Result<ToolOutput, ToolError>>, InputError> {
        (self.fns.dispatch)(input, &self.schemas().input, ctx)
    }
}

/// One parsed call of `T`: [`ToolCall`] answered by `T`'s own methods.
struct TypedCall<T>(T);

impl<T: Tool> ToolCall for TypedCall<T> {
    fn is_read_only(&self) -> bool {
        self.0.is_read_only()
    }

    fn is_concurrency_safe(&self) -> bool {
        self.0.is_concurrency_safe()
    }

    fn is_destructive(&self) -> bool {
        self.0.is_destructive()
    }

    fn user_facing_name(&self) -> Cow<'_, str> {
        self.0.user_facing_name()
    }

    fn description(&self) -> Cow<'_, str> {
        self.0.description()
    }

    fn interrupt_behavior(&self) -> InterruptBehavior {
        self.0.interrupt_behavior()
    }

    fn is_open_world(&self) -> bool {
        self.0.is_open_world()
    }

    fn requires_user_interaction(&self) -> bool {
        self.0.requires_user_interaction()
    }

    fn is_search_or_read_command(&self) -> SearchOrRead {
        self.0.is_search_or_read_command()
    }

    fn get_path(&self) -> Option<&std::path::Path> {
        self.0.get_path()
    }

    fn backfill_observable_input(&self, input: &mut Value) {
        self.0.backfill_observable_input(input);
    }

    fn prepare_permission_matcher(&self) -> Option<PermissionMatcher> {
        self.0.prepare_permission_matcher()
    }

    fn to_auto_classifier_input(&self) -> Cow<'_, str> {
        self.0.to_auto_classifier_input()
    }

    fn inputs_equivalent(&self, other: &dyn ToolCall) -> bool {
        let other: &dyn Any = other;
        other
            .downcast_ref::<Self>()
            .is_some_and(|other| self.0.inputs_equivalent(&other.0))
    }

    fn validate_input<'a>(&'a self, ctx: &'a ToolUseContext) -> BoxFuture<'a, ValidationResult> {
        Box::pin(self.0.validate_input(ctx))
    }

    fn check_permissions<'a>(&'a self, ctx: &'a ToolUseContext) -> BoxFuture<'a, PermissionResult> {
        Box::pin(self.0.check_permissions(ctx))
    }

    fn render_tool_use_message(&self, input: &Value) -> String {
        self.0.render_tool_use_message(input)
    }

    fn render_tool_use_progress_message(&self, progress: &str) -> String {
        self.0.render_tool_use_progress_message(progress)
    }

    fn render_tool_result_message(&self, content: &ToolResultContent) -> String {
        self.0.render_tool_result_message(content)
    }

    fn render_tool_use_rejected_message(&self) -> String {
        self.0.render_tool_use_rejected_message()
    }

    fn render_tool_use_error_message(&self, error: &ToolError) -> String {
        self.0.render_tool_use_error_message(error)
    }

    fn call(
        self: Box<Self>,
        ctx: ToolUseContext,
    ) -> BoxFuture<'static, Result<ToolOutput, ToolError>> {
        Box::pin(run::<T>(self.0, ctx, false))
    }
}
