//! One parsed call of a Rust tool type, as a [`ToolCall`]: [`ErasedCall`], the same type for
//! every tool, answering each hook from the tool type's table of [`HookFns`].
//!
//! A hook the type overrides is a function pointer into the type's own method; a hook it does
//! not override (per [`crate::overrides::Overrides`], filled in by `#[tool]` on the impl) is
//! `None`, and [`ErasedCall`] answers with the trait's default from the tool's constants, so
//! the tool type compiles no copy of it.

use std::any::Any;
use std::borrow::Cow;

use futures::future::BoxFuture;
use serde_json::Value;

use crate::blocks::ToolResultContent;
use crate::context::ToolUseContext;
use crate::dyn_tool::ToolCall;
use crate::output::{OutputMapping, finish};
use crate::permission::{PermissionResult, ValidationResult};
use crate::result::{ToolError, ToolOutput};
use crate::tool::{DeclaredFlag, InterruptBehavior, PermissionMatcher, SearchOrRead, Tool};

/// A parsed input of some tool type `T`, as the hooks read it.
pub(super) type Input = dyn Any + Send + Sync;

/// A parsed input of some tool type `T`, as [`ErasedCall`] holds it: readable as [`Input`]
/// (by upcasting) and runnable, so running it needs no downcast.
pub(super) trait CallInput: Any + Send + Sync {
    /// Runs the call, through the tool's runner ([`Tool::__run`]).
    fn run(self: Box<Self>, ctx: &ToolUseContext) -> BoxFuture<'_, Result<ToolOutput, ToolError>>;
}

impl<T: Tool> CallInput for T {
    fn run(self: Box<Self>, ctx: &ToolUseContext) -> BoxFuture<'_, Result<ToolOutput, ToolError>> {
        T::__run(*self, ctx)
    }
}

/// `T`'s answers to the per-call hooks, one table per tool type: `Some` for the hooks `T`
/// overrides, `None` where [`ErasedCall`] answers with the default. Each function reads its
/// argument as `T` (the table and the input always come from the same type).
pub(super) struct HookFns {
    is_read_only: Option<fn(&Input) -> bool>,
    is_concurrency_safe: Option<fn(&Input) -> bool>,
    is_destructive: Option<fn(&Input) -> bool>,
    validate_input:
        Option<for<'a> fn(&'a Input, &'a ToolUseContext) -> BoxFuture<'a, ValidationResult>>,
    check_permissions:
        Option<for<'a> fn(&'a Input, &'a ToolUseContext) -> BoxFuture<'a, PermissionResult>>,
    user_facing_name: Option<fn(&Input) -> Cow<'_, str>>,
    description: Option<fn(&Input) -> Cow<'_, str>>,
    inputs_equivalent: Option<fn(&Input, &Input) -> bool>,
    interrupt_behavior: Option<fn(&Input) -> InterruptBehavior>,
    is_open_world: Option<fn(&Input) -> bool>,
    requires_user_interaction: Option<fn(&Input) -> bool>,
    is_search_or_read_command: Option<fn(&Input) -> SearchOrRead>,
    get_path: Option<fn(&Input) -> Option<&std::path::Path>>,
    backfill_observable_input: Option<fn(&Input, &mut Value)>,
    prepare_permission_matcher: Option<fn(&Input) -> Option<PermissionMatcher>>,
    to_auto_classifier_input: Option<fn(&Input) -> Cow<'_, str>>,
    render_tool_use_message: Option<fn(&Input, &Value) -> String>,
    render_tool_use_progress_message: Option<fn(&Input, &str) -> String>,
    render_tool_result_message: Option<fn(&Input, &ToolResultContent) -> String>,
    render_tool_use_rejected_message: Option<fn(&Input) -> String>,
    render_tool_use_error_message: Option<fn(&Input, &ToolError) -> String>,
}

/// The input as `T`.
fn this<T: 'static>(input: &Input) -> &T {
    match input.downcast_ref::<T>() {
        Some(this) => this,
        None => unreachable!("a tool's hook table is only given that tool's input"),
    }
}

impl HookFns {
    /// `T`'s table.
    pub(super) const fn of<T: Tool>() -> Self {
        let flags = T::__FLAG_METHODS;
        let set = T::__OVERRIDES;
        Self {
            is_read_only: hook!(flags, IsReadOnly, |i| this::<T>(i).is_read_only()),
            is_concurrency_safe: hook!(flags, IsConcurrencySafe, |i| {
                this::<T>(i).is_concurrency_safe()
            }),
            is_destructive: hook!(flags, IsDestructive, |i| this::<T>(i).is_destructive()),
            validate_input: hook!(set, ValidateInput, |i, ctx| {
                Box::pin(this::<T>(i).validate_input(ctx))
            }),
            check_permissions: hook!(set, CheckPermissions, |i, ctx| {
                Box::pin(this::<T>(i).check_permissions(ctx))
            }),
            user_facing_name: hook!(set, UserFacingName, |i| this::<T>(i).user_facing_name()),
            description: hook!(set, Description, |i| this::<T>(i).description()),
            inputs_equivalent: hook!(set, InputsEquivalent, |a, b| {
                this::<T>(a).inputs_equivalent(this::<T>(b))
            }),
            interrupt_behavior: hook!(set, InterruptBehavior, |i| {
                this::<T>(i).interrupt_behavior()
            }),
            is_open_world: hook!(set, IsOpenWorld, |i| this::<T>(i).is_open_world()),
            requires_user_interaction: hook!(set, RequiresUserInteraction, |i| {
                this::<T>(i).requires_user_interaction()
            }),
            is_search_or_read_command: hook!(set, IsSearchOrReadCommand, |i| {
                this::<T>(i).is_search_or_read_command()
            }),
            get_path: hook!(set, GetPath, |i| this::<T>(i).get_path()),
            backfill_observable_input: hook!(set, BackfillObservableInput, |i, input| {
                this::<T>(i).backfill_observable_input(input);
            }),
            prepare_permission_matcher: hook!(set, PreparePermissionMatcher, |i| {
                this::<T>(i).prepare_permission_matcher()
            }),
            to_auto_classifier_input: hook!(set, ToAutoClassifierInput, |i| {
                this::<T>(i).to_auto_classifier_input()
            }),
            render_tool_use_message: hook!(set, RenderToolUseMessage, |i, input| {
                this::<T>(i).render_tool_use_message(input)
            }),
            render_tool_use_progress_message: hook!(set, RenderToolUseProgressMessage, |i, p| {
                this::<T>(i).render_tool_use_progress_message(p)
            }),
            render_tool_result_message: hook!(set, RenderToolResultMessage, |i, content| {
                this::<T>(i).render_tool_result_message(content)
            }),
            render_tool_use_rejected_message: hook!(set, RenderToolUseRejectedMessage, |i| {
                this::<T>(i).render_tool_use_rejected_message()
            }),
            render_tool_use_error_message: hook!(set, RenderToolUseErrorMessage, |i, error| {
                this::<T>(i).render_tool_use_error_message(error)
            }),
        }
    }
}

/// [`Tool::__run`] after `T`'s own [`Tool::validate_input`], for dispatch without an
/// orchestrator (an orchestrator has run the check already); compiled only for types that
/// override the hook (or whose impl was not read by `#[tool]`). Its own state machine, not a
/// branch in the runner (a branch on a constant still puts the check's state in every tool's
/// state machine, which made release builds measurably slower) and not a wrapper around the
/// runner's future (which made dispatch slower).
pub(super) async fn run_validated<T: Tool>(
    tool: T,
    ctx: &ToolUseContext,
) -> Result<ToolOutput, ToolError> {
    if let ValidationResult::Invalid { message, .. } = tool.validate_input(ctx).await {
        return Err(ToolError::new(message));
    }
    let result = tool.call(ctx).await;
    finish(result, ctx, <T as OutputMapping>::MAP)
}

/// What an [`ErasedCall`] reads of its tool besides the hooks: the constants the defaults
/// are made of.
pub(super) struct CallFacts {
    pub(super) name: &'static str,
    pub(super) description: &'static str,
    pub(super) read_only: DeclaredFlag,
    pub(super) concurrency_safe: DeclaredFlag,
    pub(super) destructive: DeclaredFlag,
    pub(super) open_world: DeclaredFlag,
    pub(super) hooks: HookFns,
}

/// One parsed call of a Rust tool type: its input, erased, and its type's table.
pub(super) struct ErasedCall {
    pub(super) facts: &'static CallFacts,
    pub(super) input: Box<dyn CallInput>,
}

impl ErasedCall {
    fn hooks(&self) -> &'static HookFns {
        &self.facts.hooks
    }

    /// The input, to be read by a hook.
    fn input(&self) -> &Input {
        &*self.input
    }
}

impl ToolCall for ErasedCall {
    fn is_read_only(&self) -> bool {
        match self.hooks().is_read_only {
            Some(hook) => hook(self.input()),
            None => self.facts.read_only.for_every_input(),
        }
    }

    fn is_concurrency_safe(&self) -> bool {
        match self.hooks().is_concurrency_safe {
            Some(hook) => hook(self.input()),
            None => self.facts.concurrency_safe.for_every_input(),
        }
    }

    fn is_destructive(&self) -> bool {
        match self.hooks().is_destructive {
            Some(hook) => hook(self.input()),
            None => self.facts.destructive.for_every_input(),
        }
    }

    fn user_facing_name(&self) -> Cow<'_, str> {
        match self.hooks().user_facing_name {
            Some(hook) => hook(self.input()),
            None => Cow::Borrowed(self.facts.name),
        }
    }

    fn description(&self) -> Cow<'_, str> {
        match self.hooks().description {
            Some(hook) => hook(self.input()),
            None => Cow::Borrowed(self.facts.description),
        }
    }

    fn interrupt_behavior(&self) -> InterruptBehavior {
        match self.hooks().interrupt_behavior {
            Some(hook) => hook(self.input()),
            None => InterruptBehavior::Block,
        }
    }

    fn is_open_world(&self) -> bool {
        match self.hooks().is_open_world {
            Some(hook) => hook(self.input()),
            None => self.facts.open_world.unless_declared_false(),
        }
    }

    fn requires_user_interaction(&self) -> bool {
        match self.hooks().requires_user_interaction {
            Some(hook) => hook(self.input()),
            None => false,
        }
    }

    fn is_search_or_read_command(&self) -> SearchOrRead {
        match self.hooks().is_search_or_read_command {
            Some(hook) => hook(self.input()),
            None => SearchOrRead::default(),
        }
    }

    fn get_path(&self) -> Option<&std::path::Path> {
        match self.hooks().get_path {
            Some(hook) => hook(self.input()),
            None => None,
        }
    }

    fn backfill_observable_input(&self, input: &mut Value) {
        if let Some(hook) = self.hooks().backfill_observable_input {
            hook(self.input(), input);
        }
    }

    fn prepare_permission_matcher(&self) -> Option<PermissionMatcher> {
        match self.hooks().prepare_permission_matcher {
            Some(hook) => hook(self.input()),
            None => None,
        }
    }

    fn to_auto_classifier_input(&self) -> Cow<'_, str> {
        match self.hooks().to_auto_classifier_input {
            Some(hook) => hook(self.input()),
            None => Cow::Borrowed(""),
        }
    }

    /// `true` only for another call of the same tool type whose
    /// [`Tool::inputs_equivalent`] says so.
    fn inputs_equivalent(&self, other: &dyn ToolCall) -> bool {
        let other: &dyn Any = other;
        match (self.hooks().inputs_equivalent, other.downcast_ref::<Self>()) {
            (Some(hook), Some(other)) if self.input().type_id() == other.input().type_id() => {
                hook(self.input(), other.input())
            }
            _ => false,
        }
    }

    fn validate_input<'a>(&'a self, ctx: &'a ToolUseContext) -> BoxFuture<'a, ValidationResult> {
        match self.hooks().validate_input {
            Some(hook) => hook(self.input(), ctx),
            None => Box::pin(std::future::ready(ValidationResult::Ok)),
        }
    }

    fn check_permissions<'a>(&'a self, ctx: &'a ToolUseContext) -> BoxFuture<'a, PermissionResult> {
        match self.hooks().check_permissions {
            Some(hook) => hook(self.input(), ctx),
            None => Box::pin(std::future::ready(PermissionResult::allow())),
        }
    }

    fn render_tool_use_message(&self, input: &Value) -> String {
        match self.hooks().render_tool_use_message {
            Some(hook) => hook(self.input(), input),
            None => crate::render::tool_use_message(&self.user_facing_name(), input),
        }
    }

    fn render_tool_use_progress_message(&self, progress: &str) -> String {
        match self.hooks().render_tool_use_progress_message {
            Some(hook) => hook(self.input(), progress),
            None => format!("{}: {progress}", self.user_facing_name()),
        }
    }

    fn render_tool_result_message(&self, content: &ToolResultContent) -> String {
        match self.hooks().render_tool_result_message {
            Some(hook) => hook(self.input(), content),
            None => crate::render::result_summary(content),
        }
    }

    fn render_tool_use_rejected_message(&self) -> String {
        match self.hooks().render_tool_use_rejected_message {
            Some(hook) => hook(self.input()),
            None => crate::render::rejected_message(&self.user_facing_name()),
        }
    }

    fn render_tool_use_error_message(&self, error: &ToolError) -> String {
        match self.hooks().render_tool_use_error_message {
            Some(hook) => hook(self.input(), error),
            None => crate::render::error_summary(&self.user_facing_name(), error),
        }
    }

    fn call<'c>(
        self: Box<Self>,
        ctx: &'c ToolUseContext,
    ) -> BoxFuture<'c, Result<ToolOutput, ToolError>> {
        self.input.run(ctx)
    }
}
