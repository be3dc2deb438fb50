//! The one declaration of every optional hook of a tool: its name, signature, default and docs,
//! written once below. `#[__hook_table]` turns it into each place that needs it: the methods of
//! [`Tool`](crate::Tool) (and the per-input flags of [`ToolSpec`](crate::ToolSpec)), the
//! object-safe [`ToolCall`](crate::ToolCall), the erased call's answers and its tables of function
//! pointers, and the [`Hook`] set ([`crate::overrides`]). A new per-call hook is one more method
//! here; one without `self` (`prompt`, `is_enabled`, `output_schema`) also needs its `DynTool`
//! method, which reads it through `TypeHookFns`, and one shaped like `map_result` its own door
//! in the erased layer.
//!
//! A default reads what the tool declared through `facts` (`HookFacts`, in [`crate::tool`]): from
//! the tool's constants in `Tool`, from the erased call's copy of them in the erased layer. A hook
//! whose default reads `facts` is a required method of `ToolCall`, since a tool made at run time
//! has no constants for it to read.

// The table's types resolve where each generated macro is used (`tool.rs`, `dyn_tool.rs`,
// `erased/call.rs`), which import them; this module imports nothing.

/// The table (never implemented: the attribute reads it and leaves nothing of it behind).
/// `#[hook(spec)]` marks the methods that belong to `ToolSpec`.
#[tool_sdk_macros::__hook_table]
trait Hooks {
    /// Whether this input only reads. Default: `true` when
    /// [`ToolSpec::READ_ONLY`](crate::tool::ToolSpec::READ_ONLY) is declared for every input
    /// ([`DeclaredFlag::Always`](crate::tool::DeclaredFlag::Always)), else `false` (assume it
    /// writes). A call asks this method; exports that need one answer for every input (MCP
    /// annotations) read the constant, so an override should agree with it or declare the flag
    /// [`DeclaredFlag::PerInput`](crate::tool::DeclaredFlag::PerInput).
    #[hook(spec)]
    fn is_read_only(&self) -> bool {
        facts.read_only.for_every_input()
    }

    /// Whether this input may run in parallel with other concurrency-safe calls (SPEC §5.1).
    /// Default: `true` when [`ToolSpec::CONCURRENCY_SAFE`](crate::tool::ToolSpec::CONCURRENCY_SAFE)
    /// is declared for every input, else `false`.
    #[hook(spec)]
    fn is_concurrency_safe(&self) -> bool {
        facts.concurrency_safe.for_every_input()
    }

    /// Whether this input destroys data (deletes, overwrites). Default: `true` when
    /// [`ToolSpec::DESTRUCTIVE`](crate::tool::ToolSpec::DESTRUCTIVE) is declared for every input,
    /// else `false`.
    #[hook(spec)]
    fn is_destructive(&self) -> bool {
        facts.destructive.for_every_input()
    }

    /// Checks the parsed input before permissions and the call (SPEC §5.4 step 4). Default: ok.
    fn validate_input(
        &self,
        ctx: &ToolUseContext,
    ) -> impl Future<Output = ValidationResult> + Send {
        let _ = ctx;
        // A future without state rather than an `async` block: no state machine per tool,
        // and boxed (as an erased call answers it) without an allocation.
        std::future::poll_fn(|_| std::task::Poll::Ready(ValidationResult::Ok))
    }

    /// The tool's own permission decision (SPEC §1.1). Default: allow, deferring to the
    /// general permission rules.
    fn check_permissions(
        &self,
        ctx: &ToolUseContext,
    ) -> impl Future<Output = PermissionResult> + Send {
        let _ = ctx;
        std::future::poll_fn(|_| std::task::Poll::Ready(PermissionResult::allow()))
    }

    /// Turns the output into `tool_result` content (the reference's
    /// `mapToolResultToToolResultBlockParam`). Default: a string output as it is, anything else
    /// as compact JSON text.
    fn map_result(output: Self::Output, tool_use_id: &str) -> ToolResultContent {
        let _ = tool_use_id;
        default_map_result_owned(output)
    }

    /// The text sent to the API as the tool's description. Default:
    /// [`ToolSpec::DESCRIPTION`](crate::tool::ToolSpec::DESCRIPTION).
    fn prompt() -> Cow<'static, str> {
        Cow::Borrowed(facts.description)
    }

    /// The name shown to people for this input. Default: the tool's name (SPEC §1.1).
    fn user_facing_name(&self) -> Cow<'_, str> {
        Cow::Borrowed(facts.name)
    }

    /// Whether the tool is offered at all right now (SPEC §7, runtime layer). Default: `true`.
    fn is_enabled() -> bool {
        true
    }

    /// A one-line description of this call, for UIs and logs (the reference's `description(input)`;
    /// distinct from [`Tool::prompt`](crate::tool::Tool::prompt)). Default: the tool's description.
    fn description(&self) -> Cow<'_, str> {
        Cow::Borrowed(facts.description)
    }

    /// Whether two inputs would do the same thing, for hosts that merge duplicate calls
    /// (nothing in this SDK merges calls itself). Default: `false`, never merge. Erased (as a
    /// `ToolCall`), a call of a `#[tool]` type answers with its type's own method when `other`
    /// is a call of the same type, and `false` otherwise.
    fn inputs_equivalent(&self, other: &Self) -> bool {
        let _ = other;
        false
    }

    /// What happens to this call when the user interrupts the turn (SPEC §5.5). Default:
    /// [`InterruptBehavior::Block`](crate::tool::InterruptBehavior::Block), as in the reference.
    fn interrupt_behavior(&self) -> InterruptBehavior {
        InterruptBehavior::Block
    }

    /// Whether this input reaches outside the local machine (web, remote APIs). Default: `false`
    /// only when [`ToolSpec::OPEN_WORLD`](crate::tool::ToolSpec::OPEN_WORLD) is declared `false`;
    /// undeclared it is `true`, as the MCP `openWorldHint` default that exports advertise
    /// (fail-closed).
    fn is_open_world(&self) -> bool {
        facts.open_world.unless_declared_false()
    }

    /// Whether this call needs a person to answer (a question tool). Default `false`.
    fn requires_user_interaction(&self) -> bool {
        false
    }

    /// Whether this input searches or reads, for collapsing such calls in a UI. Default:
    /// neither.
    fn is_search_or_read_command(&self) -> SearchOrRead {
        SearchOrRead::default()
    }

    /// The file path this input acts on, for path-based permission rules. Default: none.
    fn get_path(&self) -> Option<&std::path::Path> {
        None
    }

    /// Adds derived fields to a copy of the input that observers (hooks, UIs) see; the call
    /// itself gets the original input (SPEC §1.1 `backfillObservableInput`). Default: nothing.
    fn backfill_observable_input(&self, input: &mut serde_json::Value) {
        let _ = input;
    }

    /// A matcher for content permission rules such as `Bash(git *)`: given a rule's content,
    /// does it cover this input? Default: `None`, content rules never match this tool.
    fn prepare_permission_matcher(&self) -> Option<PermissionMatcher> {
        None
    }

    /// The text an automatic permission classifier sees for this input. Default: empty, which
    /// means the classifier skips the tool (SPEC §1.1).
    fn to_auto_classifier_input(&self) -> Cow<'_, str> {
        Cow::Borrowed("")
    }

    /// The JSON Schema of [`Tool::Output`](crate::tool::Tool::Output), sent as the tool's
    /// `outputSchema` where a provider or MCP export takes one (SPEC §1.1 `outputSchema`). Default:
    /// `None`. `#[tool]` registrations fill it in on their own when `Output: JsonSchema` (see
    /// [`output_schema_for`](crate::tool::output_schema_for)), so override this only to replace the
    /// generated one.
    fn output_schema() -> Option<serde_json::Value> {
        None
    }

    /// The line a host without a UI framework prints when the model calls the tool (the
    /// reference's `renderToolUseMessage`). `input` is the call's raw JSON input. Default:
    /// `UserFacingName(key: value, ...)`, one line of at most 80 chars of summary
    /// ([`crate::render::tool_use_message`]).
    fn render_tool_use_message(&self, input: &serde_json::Value) -> String {
        crate::render::tool_use_message(&self.user_facing_name(), input)
    }

    /// A progress line while the call runs (`renderToolUseProgressMessage`). Default: the
    /// progress text as it is, prefixed by the user-facing name: `Name: text`.
    fn render_tool_use_progress_message(&self, progress: &str) -> String {
        format!("{}: {progress}", self.user_facing_name())
    }

    /// The line shown for a successful result (`renderToolResultMessage`). Default: the first
    /// line of the result text and how many lines follow ([`crate::render::result_summary`]).
    fn render_tool_result_message(&self, content: &ToolResultContent) -> String {
        crate::render::result_summary(content)
    }

    /// The line shown when the user refused the call (`renderToolUseRejectedMessage`).
    /// Default: `Name: rejected by the user, not run`.
    fn render_tool_use_rejected_message(&self) -> String {
        crate::render::rejected_message(&self.user_facing_name())
    }

    /// The line shown when the call failed (`renderToolUseErrorMessage`). Default:
    /// `Name failed: <first line of the error>`.
    fn render_tool_use_error_message(&self, error: &ToolError) -> String {
        crate::render::error_summary(&self.user_facing_name(), error)
    }
}
